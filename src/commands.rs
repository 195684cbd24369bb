//! What each CLI command does, as library calls (the binary only parses arguments and prints).
//! `run` goes through [`Simulation`], the same path a library user takes.

use crate::cancel::Cancel;
use crate::output::{Destination, Previous, Replace};
use crate::partial;
use crate::policy::PolicySpec;
use crate::report::charts::{Source, compare_charts};
use crate::report::markdown::compare_report;
use crate::report::plots::ChartOptions;
use crate::report::summary::RegretSummary;
use crate::report::{
    describe, embedded, identification, load_identification, load_saved, render_report, saved_kind,
};
use crate::runner::Shard;
use crate::scenario::{self, Overrides, Scenario};
use crate::simulation::{Results, Simulation};
use anyhow::{Context, Result};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Arguments of `specprobe run`.
#[derive(Clone, Debug, Default)]
pub struct RunArgs {
    /// The scenario file.
    pub scenario: PathBuf,
    /// Output folder (default `results/<scenario name>`).
    pub out: Option<PathBuf>,
    /// `--runs`, `--horizon`, `--seed`.
    pub overrides: Overrides,
    /// Worker threads.
    pub threads: Option<usize>,
    /// Simulate one shard's runs and write `partial.json` instead of the outputs.
    pub shard: Option<Shard>,
    /// Chart formats, size and axes (no formats: no charts).
    pub charts: ChartOptions,
    /// `--force`: replace an output folder that holds something other than this scenario's
    /// results.
    pub force: bool,
    /// `--max-memory`: refuse runs estimated to need more (default: the machine's memory).
    pub max_memory: Option<u64>,
    /// Stops the run when set (the command line sets it on SIGINT and SIGTERM).
    pub cancel: Cancel,
}

/// What a command wrote.
#[derive(Clone, Debug)]
pub struct RunOutcome {
    /// The output folder.
    pub out: PathBuf,
    /// Files written.
    pub files: Vec<PathBuf>,
    /// What the output folder held before.
    pub previous: Previous,
}

impl RunOutcome {
    /// What to tell the user about the folder's earlier content, if anything.
    pub fn note(&self) -> Option<String> {
        match &self.previous {
            Previous::Nothing => None,
            Previous::SameScenario => Some(format!(
                "replaced the earlier results of this scenario in {}",
                self.out.display()
            )),
            Previous::Forced(what) => Some(format!(
                "--force: replaced {what} in {}",
                self.out.display()
            )),
        }
    }
}

/// The default output folder of a scenario.
pub fn default_out(name: &str) -> PathBuf {
    Path::new("results").join(name)
}

fn replace(force: bool) -> Replace {
    if force {
        Replace::Any
    } else {
        Replace::SameScenario
    }
}

/// Opens the output folder (locked, checked replaceable, a staging folder beside it), naming
/// `--out` when it cannot be used.
fn open_out(path: &Path, scenario: &str, kind: &str, force: bool) -> Result<Destination> {
    Destination::open(path, scenario, kind, replace(force)).with_context(|| {
        format!(
            "--out: {} cannot be used as the output folder",
            path.display()
        )
    })
}

/// Writes `results` into the staging folder of `dest` and swaps them in.
fn write_and_commit(
    results: &Results,
    dest: Destination,
    charts: &ChartOptions,
    cancel: &Cancel,
) -> Result<RunOutcome> {
    let out = dest.path().to_path_buf();
    let files = results.write_to(&dest.staging(), charts).with_context(|| {
        format!(
            "writing results for {} (nothing there was changed)",
            out.display()
        )
    })?;
    let previous = dest.commit(cancel)?;
    Ok(RunOutcome {
        out,
        files,
        previous,
    })
}

/// The checked simulation of `args` (file, overrides, threads, shard, limits, cancel flag).
fn simulation(args: &RunArgs) -> Result<Simulation> {
    let mut sim = Simulation::from_file(&args.scenario)?
        .overrides(args.overrides)
        .cancel(args.cancel.clone());
    if let Some(t) = args.threads {
        sim = sim.threads(t);
    }
    if let Some(shard) = args.shard {
        sim = sim.shard(shard);
    }
    if let Some(m) = args.max_memory {
        sim = sim.max_memory(m);
    }
    Ok(sim)
}

/// Warns before a run estimated to take more than an hour.
fn warn_if_long(sim: &Simulation) {
    if let Ok(e) = sim.estimate()
        && let Some(seconds) = e.seconds()
        && seconds > 3600.0
    {
        tracing::warn!(
            "this run {}; Ctrl-C stops it and leaves earlier results as they were",
            e.describe()
        );
    }
}

/// `specprobe run`: simulate a scenario and write its results.
pub fn run(args: &RunArgs) -> Result<RunOutcome> {
    let sim = simulation(args)?;
    // Overrides, shard and memory are checked and the output folder locked before simulating.
    let checked = sim.checked()?;
    let name = checked.name().to_string();
    let default = match args.shard {
        None => default_out(&name),
        Some(s) => default_out(&name).join(format!("shard-{}-of-{}", s.index, s.count)),
    };
    let kind = if args.shard.is_some() {
        "partial"
    } else {
        checked.kind()
    };
    let dest = open_out(
        args.out.as_deref().unwrap_or(&default),
        &name,
        kind,
        args.force,
    )?;
    warn_if_long(&sim);
    let results = sim.run()?;
    write_and_commit(&results, dest, &args.charts, &args.cancel)
}

/// Arguments of `specprobe merge`.
#[derive(Clone, Debug, Default)]
pub struct MergeArgs {
    /// Folders (or files) holding `partial.json`, one per shard.
    pub inputs: Vec<PathBuf>,
    /// Output folder (default `results/<scenario name>`).
    pub out: Option<PathBuf>,
    /// Charts.
    pub charts: ChartOptions,
    /// `--force`, as for `run`.
    pub force: bool,
    /// Stops writing when set.
    pub cancel: Cancel,
}

/// `specprobe merge`: combines every shard's partial result into the outputs of the unsharded
/// run (byte-identical `summary.json`, `curves.csv` and `runs.csv`).
pub fn merge(args: &MergeArgs) -> Result<RunOutcome> {
    let results = partial::merge(&args.inputs)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| default_out(results.name()));
    let dest = open_out(&out, results.name(), results.kind(), args.force)?;
    write_and_commit(&results, dest, &args.charts, &args.cancel)
}

/// Whether a file of a results folder is data `plot` keeps (charts and the report it redraws).
fn is_data(name: &str) -> bool {
    !(name.ends_with(".png")
        || name.ends_with(".svg")
        || name == "report.md"
        || name == crate::output::MARKER)
}

/// `specprobe plot`: re-renders the charts and `report.md` of saved results, without simulating.
/// The folder is replaced whole: its data files and the new charts and report.
pub fn plot(dir: &Path, charts: &ChartOptions, cancel: &Cancel) -> Result<RunOutcome> {
    let kind = saved_kind(dir)?;
    // Everything is read and checked before the folder is touched.
    let saved = match kind.as_str() {
        "identification" => Saved::Identification(load_identification(dir)?),
        "sweep" => Saved::Sweep(crate::report::load_sweep(dir)?),
        _ => {
            let (summary, rows) = load_saved(dir)?;
            Saved::Regret(summary, rows)
        }
    };
    let scenario = match &saved {
        Saved::Identification(s) => s.scenario.clone(),
        Saved::Sweep(s) => s.scenario.clone(),
        Saved::Regret(s, _) => s.scenario.clone(),
    };
    let dest = Destination::open(dir, &scenario, &kind, Replace::SameScenario)
        .with_context(|| format!("the results folder {} cannot be rewritten", dir.display()))?;
    let staging = dest.staging();
    staging.copy_data_from(dir, is_data)?;
    let files = match &saved {
        Saved::Identification(s) => identification::render_report(&staging, s, charts),
        Saved::Sweep(s) => crate::report::sweep::render_report(&staging, s, charts),
        Saved::Regret(s, rows) => render_report(&staging, s, rows, charts),
    }
    .with_context(|| {
        format!(
            "rendering into {} (nothing there was changed)",
            dir.display()
        )
    })?;
    let out = dest.path().to_path_buf();
    let previous = dest.commit(cancel)?;
    Ok(RunOutcome {
        out,
        files,
        previous,
    })
}

/// Saved results of any kind, read back for `plot`.
enum Saved {
    Regret(RegretSummary, Vec<crate::report::curves::CurveRow>),
    Identification(crate::report::identification::IdentificationSummary),
    Sweep(crate::report::sweep::SweepSummary),
}

/// Arguments of `specprobe compare`.
#[derive(Clone, Debug, Default)]
pub struct CompareArgs {
    /// Scenario files (run now) or folders of saved results.
    pub inputs: Vec<PathBuf>,
    /// Output folder (default `results/compare-<names>`).
    pub out: Option<PathBuf>,
    /// Overrides and threads for the scenarios that are run.
    pub run: RunArgs,
}

/// `specprobe compare`: runs or loads each input and draws all their policies on shared axes,
/// with one combined table.
pub fn compare(args: &CompareArgs) -> Result<RunOutcome> {
    anyhow::ensure!(
        !args.inputs.is_empty(),
        "compare needs at least one scenario file or results folder"
    );
    // Scenario names are known before running, so the output folder is checked first.
    let mut names = Vec::new();
    let overridden = args.run.overrides != Overrides::default();
    for input in &args.inputs {
        names.push(if input.is_dir() {
            match saved_kind(input)?.as_str() {
                "regret" => {}
                kind => anyhow::bail!(
                    "{}: compare draws regret curves over time, and this folder holds {kind} results (their own report already compares their algorithms or values)",
                    input.display()
                ),
            }
            if overridden {
                tracing::warn!(
                    "{}: saved results are drawn as they are; --runs, --horizon and --seed apply only to the scenario files compare runs",
                    input.display()
                );
            }
            let (s, _) = load_saved(input)?;
            s.scenario
        } else {
            match scenario::load(input)? {
                Scenario::Regret(s) => s.name,
                Scenario::Identification(s) => anyhow::bail!(
                    "{}: compare draws regret curves; {:?} is an identification scenario (its report already compares algorithms)",
                    input.display(),
                    s.name
                ),
                Scenario::Sweep(s) => anyhow::bail!(
                    "{}: compare draws regret curves over time; {:?} is a sweep (its report already draws every policy against `{}`)",
                    input.display(),
                    s.name,
                    s.field
                ),
            }
        });
    }
    let joined: Vec<&str> = names.iter().map(String::as_str).collect();
    let compare_name = format!("compare-{}", joined.join("-vs-"));
    let out_path = args
        .out
        .clone()
        .unwrap_or_else(|| default_out(&compare_name));
    let dest = open_out(&out_path, &compare_name, "comparison", args.run.force)?;
    let out = dest.staging();
    let mut loaded = Vec::new();
    for (i, (input, name)) in args.inputs.iter().zip(&names).enumerate() {
        if input.is_dir() {
            loaded.push(load_saved(input)?);
            continue;
        }
        // Each scenario's own full results go into a subfolder of the comparison.
        let sub = if names.iter().filter(|n| *n == name).count() > 1 {
            out.subfolder(&format!("{name}-{}", i + 1))?
        } else {
            out.subfolder(name)?
        };
        let results = simulation(&RunArgs {
            scenario: input.clone(),
            ..args.run.clone()
        })?
        .run()?;
        results
            .write_to(&sub, &args.run.charts)
            .with_context(|| format!("writing the results of {}", input.display()))?;
        loaded.push(load_saved(sub.staging_path())?);
    }
    // Labels: the scenario names, made unique with the input's position when they repeat.
    let labels: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            if names.iter().filter(|m| *m == n).count() > 1 {
                format!("{n}#{}", i + 1)
            } else {
                n.clone()
            }
        })
        .collect();
    let sources: Vec<Source> = loaded
        .iter()
        .zip(&labels)
        .map(|((summary, rows), label)| Source {
            label: label.clone(),
            summary,
            rows,
        })
        .collect();
    for (what, unit_of) in [
        (
            "energy",
            (|s: &RegretSummary| s.units.energy.clone()) as fn(&RegretSummary) -> String,
        ),
        ("delay", |s: &RegretSummary| s.units.delay.clone()),
    ] {
        let units: Vec<String> = loaded.iter().map(|(s, _)| unit_of(s)).collect();
        if units.iter().any(|u| *u != units[0]) {
            tracing::warn!(
                "the inputs measure {what} in different units ({}): the {what} chart names each source's unit",
                labels
                    .iter()
                    .zip(&units)
                    .map(|(l, u)| format!("{l}: {}", if u.is_empty() { "unnamed" } else { u }))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    let rendered = compare_charts(&out, &sources, &args.run.charts)?;
    let mut files: Vec<PathBuf> = rendered
        .iter()
        .flat_map(|r| r.files.iter().cloned())
        .collect();
    let table: Vec<(String, &RegretSummary)> = labels
        .iter()
        .cloned()
        .zip(loaded.iter().map(|(s, _)| s))
        .collect();
    let md = compare_report(&table, &embedded(&rendered, &args.run.charts));
    files.push(out.write("report.md", md.as_bytes())?);
    let previous = dest.commit(&args.run.cancel)?;
    Ok(RunOutcome {
        out: out_path,
        files,
        previous,
    })
}

/// `specprobe validate`: the checked scenario, its UCR-T1 optimum and bounds, as text.
/// Also says what the scenario needs (memory, work) and refuses one that would not fit in this
/// machine's memory.
pub fn validate(path: &Path) -> Result<String> {
    validate_scenario(scenario::load(path)?)
}

/// [`validate`] for a scenario already loaded (from a file, or built in memory).
pub fn validate_scenario(loaded: Scenario) -> Result<String> {
    let mut text = describe::describe(&loaded);
    let source = loaded.source().path.clone();
    let estimate = Simulation::new(loaded).estimate()?;
    estimate
        .check(None)
        .with_context(|| format!("{} is valid but cannot run here", source.display()))?;
    let _ = writeln!(text, "resources: the run {}", estimate.describe());
    Ok(text)
}

/// `specprobe policies`: every policy, its parameters with defaults, and what it does.
pub fn policies() -> String {
    let mut out = String::from(
        "Policies (write them in a scenario's `policies` list as `(label: \"...\", policy: <spec>)`):\n\n",
    );
    for entry in PolicySpec::catalogue() {
        let spec = entry.example.to_ron();
        let label = format!("label {}", entry.example.default_label());
        if spec.chars().count() <= 38 {
            let _ = writeln!(out, "  {spec:<38} {label:<32} {}", entry.summary);
        } else {
            let _ = writeln!(out, "  {spec}\n  {:<38} {label:<32} {}", "", entry.summary);
        }
    }
    out.push_str(
        "\nParameters left out take the defaults shown; every policy whose parameters all have \
         defaults may be written bare (`CcUcb`). CascadeUcb1 and CascadeKlUcb need list_len, \
         SwCcUcb its window and DCcUcb its discount (the values above are examples); RandomList's \
         list_len defaults to all channels.\n",
    );
    out
}
