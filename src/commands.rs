//! What each CLI command does, as library calls (the binary only parses arguments and prints).
//! `run` goes through [`Simulation`], the same path a library user takes.

use crate::output::OutputDir;
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
use crate::simulation::Simulation;
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
}

/// What a command wrote.
#[derive(Clone, Debug)]
pub struct RunOutcome {
    /// The output folder.
    pub out: PathBuf,
    /// Files written.
    pub files: Vec<PathBuf>,
}

/// The default output folder of a scenario.
pub fn default_out(name: &str) -> PathBuf {
    Path::new("results").join(name)
}

/// `specprobe run`: simulate a scenario and write its results.
pub fn run(args: &RunArgs) -> Result<RunOutcome> {
    let mut sim = Simulation::from_file(&args.scenario)?.overrides(args.overrides);
    if let Some(t) = args.threads {
        sim = sim.threads(t);
    }
    if let Some(shard) = args.shard {
        sim = sim.shard(shard);
    }
    // Overrides are checked and the output folder proven writable before simulating.
    let name = sim.checked()?.name().to_string();
    let default = match args.shard {
        None => default_out(&name),
        Some(s) => default_out(&name).join(format!("shard-{}-of-{}", s.index, s.count)),
    };
    let out = prepare_dir(args.out.as_deref().unwrap_or(&default))?;
    let results = sim.run()?;
    let files = results
        .write_to(&out, &args.charts)
        .with_context(|| format!("writing results into {}", out.path().display()))?;
    Ok(RunOutcome {
        out: out.path().to_path_buf(),
        files,
    })
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
}

/// `specprobe merge`: combines every shard's partial result into the outputs of the unsharded
/// run (byte-identical `summary.json` and `curves.csv`).
pub fn merge(args: &MergeArgs) -> Result<RunOutcome> {
    let results = partial::merge(&args.inputs)?;
    let out = prepare_dir(
        &args
            .out
            .clone()
            .unwrap_or_else(|| default_out(results.name())),
    )?;
    let files = results
        .write_to(&out, &args.charts)
        .with_context(|| format!("writing results into {}", out.path().display()))?;
    Ok(RunOutcome {
        out: out.path().to_path_buf(),
        files,
    })
}

/// Creates the output folder and proves it writable, naming `--out` when it is not.
fn prepare_dir(path: &Path) -> Result<OutputDir> {
    OutputDir::prepare(path).with_context(|| {
        format!(
            "--out: {} cannot be used as the output folder (pass another --out)",
            path.display()
        )
    })
}

/// `specprobe plot`: re-renders the charts and `report.md` of saved results, without simulating.
pub fn plot(dir: &Path, charts: &ChartOptions) -> Result<RunOutcome> {
    let kind = saved_kind(dir)?;
    let out = OutputDir::prepare(dir)
        .with_context(|| format!("the results folder {} must be writable", dir.display()))?;
    let files = if kind == "identification" {
        let summary = load_identification(dir)?;
        identification::render_report(&out, &summary, charts)
    } else if kind == "sweep" {
        let summary = crate::report::load_sweep(dir)?;
        crate::report::sweep::render_report(&out, &summary, charts)
    } else {
        let (summary, rows) = load_saved(dir)?;
        render_report(&out, &summary, &rows, charts)
    }
    .with_context(|| format!("rendering into {}", dir.display()))?;
    Ok(RunOutcome {
        out: dir.to_path_buf(),
        files,
    })
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
    let out_path = args.out.clone().unwrap_or_else(|| {
        let joined: Vec<&str> = names.iter().map(String::as_str).collect();
        default_out(&format!("compare-{}", joined.join("-vs-")))
    });
    let out = prepare_dir(&out_path)?;
    let mut loaded = Vec::new();
    for (input, name) in args.inputs.iter().zip(&names) {
        let dir = if input.is_dir() {
            input.clone()
        } else {
            // Each scenario's own full results go into a subfolder of the comparison.
            let sub = out_path.join(name);
            run(&RunArgs {
                scenario: input.clone(),
                out: Some(sub.clone()),
                ..args.run.clone()
            })?;
            sub
        };
        loaded.push(load_saved(&dir)?);
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
    Ok(RunOutcome {
        out: out.path().to_path_buf(),
        files,
    })
}

/// `specprobe validate`: the checked scenario, its UCR-T1 optimum and bounds, as text.
pub fn validate(path: &Path) -> Result<String> {
    Ok(describe::describe(&scenario::load(path)?))
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
