//! What each CLI command does, as library calls (the binary only parses arguments and prints).

use crate::output::OutputDir;
use crate::partial::{Overrides, Partial, PartialBody, PartialCell};
use crate::policy::PolicySpec;
use crate::report::charts::Source;
use crate::report::markdown::sig;
use crate::report::plots::ChartOptions;
use crate::runner::{RunOptions, Shard};
use crate::scenario::{self, RegretScenario, Scenario};
use crate::theory::Bounds;
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
    /// Override of the number of runs.
    pub runs: Option<u64>,
    /// Override of the horizon.
    pub horizon: Option<u64>,
    /// Override of the seed.
    pub seed: Option<u64>,
    /// Worker threads.
    pub threads: Option<usize>,
    /// Simulate one shard's runs and write `partial.json` instead of the outputs.
    pub shard: Option<Shard>,
    /// Chart formats, size and axes (no formats: no charts).
    pub charts: ChartOptions,
}

/// What `run` produced.
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
    // The text is kept: a shard stores it in its partial result.
    let text = scenario::read(&args.scenario)?;
    let scenario = scenario::parse(&text, &args.scenario)?;
    match scenario {
        Scenario::Regret(s) => run_regret(
            s.with_overrides(args.runs, args.horizon, args.seed),
            args,
            &text,
        ),
        Scenario::Identification(s) => {
            anyhow::ensure!(
                args.horizon.is_none(),
                "--horizon: identification scenarios have no horizon (runs stop when the algorithm does, or at `sample_cap`)"
            );
            run_identification(s.with_overrides(args.runs, args.seed), args, &text)
        }
    }
}

fn run_identification(
    s: crate::scenario::IdentificationScenario,
    args: &RunArgs,
    text: &str,
) -> Result<RunOutcome> {
    let out = prepare_out(args, &s.name)?;
    let opts = RunOptions {
        threads: args.threads,
        shard: args.shard.unwrap_or_default(),
    };
    let cells = crate::runner::run_identification(&s, &opts)?;
    if args.shard.is_some() {
        let body = PartialBody::Identification {
            cells: cells.iter().map(PartialCell::from_cell).collect(),
        };
        return write_partial(&out, args, text, &s.name, s.fingerprint(), body);
    }
    let files = crate::report::identification::write(&out, &s, &cells, &args.charts)
        .with_context(|| format!("writing results into {}", out.path().display()))?;
    Ok(RunOutcome {
        out: out.path().to_path_buf(),
        files,
    })
}

/// Writes a shard's `partial.json`.
fn write_partial(
    out: &OutputDir,
    args: &RunArgs,
    source_text: &str,
    name: &str,
    fingerprint: String,
    body: PartialBody,
) -> Result<RunOutcome> {
    let partial = Partial {
        format: crate::partial::FORMAT.into(),
        scenario: name.to_string(),
        fingerprint,
        source_path: args.scenario.clone(),
        source_text: source_text.to_string(),
        overrides: Overrides {
            runs: args.runs,
            horizon: args.horizon,
            seed: args.seed,
        },
        shard: args.shard.unwrap_or_default(),
        body,
    };
    let json = serde_json::to_vec(&partial).context("serialising partial.json")?;
    let file = out.write(crate::partial::FILE, &json)?;
    Ok(RunOutcome {
        out: out.path().to_path_buf(),
        files: vec![file],
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
    let mut parts = args
        .inputs
        .iter()
        .map(|d| crate::partial::read(d))
        .collect::<Result<Vec<_>, _>>()?;
    crate::partial::check_together(&parts)?;
    parts.sort_by_key(|(_, p)| p.shard.index);
    let (first_path, first) = &parts[0];
    let o = first.overrides;
    let scenario = scenario::parse(&first.source_text, &first.source_path).with_context(|| {
        format!(
            "re-checking the scenario stored in {}",
            first_path.display()
        )
    })?;
    let (name, fingerprint) = match &scenario {
        Scenario::Regret(s) => {
            let s = s.clone().with_overrides(o.runs, o.horizon, o.seed);
            (s.name.clone(), s.fingerprint())
        }
        Scenario::Identification(s) => {
            let s = s.clone().with_overrides(o.runs, o.seed);
            (s.name.clone(), s.fingerprint())
        }
    };
    anyhow::ensure!(
        fingerprint == first.fingerprint,
        "{}: the stored scenario no longer gives fingerprint {} (a file it refers to changed?); rerun the shards",
        first_path.display(),
        first.fingerprint
    );
    let out = prepare_dir(&args.out.clone().unwrap_or_else(|| default_out(&name)))?;
    let bad = |path: &Path, message: String| anyhow::anyhow!("{}: {message}", path.display());
    let files = match scenario {
        Scenario::Regret(s) => {
            let s = s.with_overrides(o.runs, o.horizon, o.seed);
            let checkpoints = s.checkpoints.slots(s.horizon);
            let mut merged: Option<Vec<Vec<crate::recorder::PolicyStats>>> = None;
            for (path, p) in &parts {
                let PartialBody::Regret {
                    checkpoints: cp,
                    stats,
                } = &p.body
                else {
                    return Err(bad(path, "not a regret partial result".into()));
                };
                if *cp != checkpoints {
                    return Err(bad(
                        path,
                        "its checkpoints differ from the scenario's".into(),
                    ));
                }
                let k_of = |e: usize| s.experiments.get(e).map(|x| x.env.len());
                let mut these = Vec::new();
                for (e, exp) in stats.iter().enumerate() {
                    let k = k_of(e).ok_or_else(|| {
                        bad(path, format!("experiment {e} is not in the scenario"))
                    })?;
                    let row = exp
                        .iter()
                        .map(|ps| crate::recorder::PolicyStats::from_parts(ps.clone(), k))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|m| bad(path, m))?;
                    these.push(row);
                }
                merged = Some(match merged {
                    None => these,
                    Some(mut acc) => {
                        for (a, b) in acc.iter_mut().zip(&these) {
                            for (x, y) in a.iter_mut().zip(b) {
                                x.merge(y);
                            }
                        }
                        acc
                    }
                });
            }
            let results = crate::runner::RegretResults {
                checkpoints,
                stats: merged.unwrap_or_default(),
            };
            crate::report::write_regret(&out, &s, &results, &args.charts)?
        }
        Scenario::Identification(s) => {
            let s = s.with_overrides(o.runs, o.seed);
            let mut merged: Option<Vec<crate::runner::IdentifyCell>> = None;
            for (path, p) in &parts {
                let PartialBody::Identification { cells } = &p.body else {
                    return Err(bad(path, "not an identification partial result".into()));
                };
                let these = cells
                    .iter()
                    .map(|c| c.to_cell(s.sample_cap))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|m| bad(path, m))?;
                merged = Some(match merged {
                    None => these,
                    Some(mut acc) => {
                        for (a, b) in acc.iter_mut().zip(&these) {
                            a.stats.merge(&b.stats);
                        }
                        acc
                    }
                });
            }
            crate::report::identification::write(
                &out,
                &s,
                &merged.unwrap_or_default(),
                &args.charts,
            )?
        }
    };
    Ok(RunOutcome {
        out: out.path().to_path_buf(),
        files,
    })
}

fn prepare_out(args: &RunArgs, name: &str) -> Result<OutputDir> {
    let default = match args.shard {
        None => default_out(name),
        Some(s) => default_out(name).join(format!("shard-{}-of-{}", s.index, s.count)),
    };
    prepare_dir(&args.out.clone().unwrap_or(default))
}

/// Creates the output folder and proves it writable, naming `--out` when it is not.
fn prepare_dir(path: &Path) -> Result<OutputDir> {
    OutputDir::prepare(path).with_context(|| {
        format!(
            "--out: the output folder {} must be a writable folder (create it or pass another --out)",
            path.display()
        )
    })
}

fn run_regret(s: RegretScenario, args: &RunArgs, text: &str) -> Result<RunOutcome> {
    // Fail on a bad output folder before simulating, not after.
    let out = prepare_out(args, &s.name)?;
    let opts = RunOptions {
        threads: args.threads,
        shard: args.shard.unwrap_or_default(),
    };
    let results = crate::runner::run_regret(&s, &opts)?;
    if args.shard.is_some() {
        let body = crate::partial::regret_body(&results);
        return write_partial(&out, args, text, &s.name, s.fingerprint(), body);
    }
    let files = crate::report::write_regret(&out, &s, &results, &args.charts)
        .with_context(|| format!("writing results into {}", out.path().display()))?;
    Ok(RunOutcome {
        out: out.path().to_path_buf(),
        files,
    })
}

/// `specprobe plot`: re-renders the charts and `report.md` of saved results, without simulating.
pub fn plot(dir: &Path, charts: &ChartOptions) -> Result<RunOutcome> {
    let kind = crate::report::saved_kind(dir)?;
    let out = OutputDir::prepare(dir)
        .with_context(|| format!("the results folder {} must be writable", dir.display()))?;
    let files = if kind == "identification" {
        let summary = crate::report::load_identification(dir)?;
        crate::report::identification::render_report(&out, &summary, charts)
    } else {
        let (summary, rows) = crate::report::load_saved(dir)?;
        crate::report::render_report(&out, &summary, &rows, charts)
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
    for input in &args.inputs {
        names.push(if input.is_dir() {
            let (s, _) = crate::report::load_saved(input)?;
            s.scenario
        } else {
            match scenario::load(input)? {
                Scenario::Regret(s) => s.name,
                Scenario::Identification(s) => anyhow::bail!(
                    "{}: compare draws regret curves; {:?} is an identification scenario (its report already compares algorithms)",
                    input.display(),
                    s.name
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
        loaded.push(crate::report::load_saved(&dir)?);
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
    let rendered = crate::report::charts::compare_charts(&out, &sources, &args.run.charts)?;
    let mut files: Vec<PathBuf> = rendered
        .iter()
        .flat_map(|r| r.files.iter().cloned())
        .collect();
    let table: Vec<(String, &crate::report::summary::RegretSummary)> = labels
        .iter()
        .cloned()
        .zip(loaded.iter().map(|(s, _)| s))
        .collect();
    let md = crate::report::markdown::compare_report(
        &table,
        &crate::report::embedded(&rendered, &args.run.charts),
    );
    files.push(out.write("report.md", md.as_bytes())?);
    Ok(RunOutcome {
        out: out.path().to_path_buf(),
        files,
    })
}

/// `specprobe validate`: the checked scenario, its UCR-T1 optimum and bounds, as text.
pub fn validate(path: &Path) -> Result<String> {
    match scenario::load(path)? {
        Scenario::Regret(s) => Ok(describe_regret(&s)),
        Scenario::Identification(s) => Ok(describe_identification(&s)),
    }
}

fn describe_identification(s: &crate::scenario::IdentificationScenario) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} is valid: identification scenario {:?}, {} runs per cell, seed {}, confidence ν = {}, sample cap {}",
        s.source.display(),
        s.name,
        s.runs,
        s.seed,
        s.confidence,
        s.sample_cap
    );
    if !s.description.is_empty() {
        let _ = writeln!(out, "  {}", s.description.trim());
    }
    let settings: Vec<&str> = s.settings.iter().map(|x| x.name()).collect();
    let algorithms: Vec<&str> = s.algorithms.iter().map(|a| a.name()).collect();
    let _ = writeln!(
        out,
        "settings: {}; algorithms: {}",
        settings.join(", "),
        algorithms.join(", ")
    );
    for inst in &s.instances {
        let _ = writeln!(out, "\ninstance {:?} ({}):", inst.label, inst.family);
        for arms in &inst.points {
            let _ = writeln!(
                out,
                "  N = {:>6}, K = {:>5}, H = Σ Δ⁻² = {:>10}, rewards {:?}",
                arms.len(),
                arms.k(),
                sig(arms.complexity(), 4),
                arms.rewards()
            );
        }
    }
    if let Some(arms) = s.instances.first().and_then(|i| i.points.last()) {
        let _ = writeln!(
            out,
            "\nparameters at N = {} (first instance, largest N):",
            arms.len()
        );
        for &setting in &s.settings {
            for &a in &s.algorithms {
                if a.runs_in(setting) {
                    let p = s.params(a, setting, arms.len());
                    let _ = writeln!(
                        out,
                        "  {:<9} {:<13} ε = {:<5} δ = {:.4e}",
                        setting.name(),
                        a.name(),
                        p.epsilon,
                        p.delta
                    );
                }
            }
        }
    }
    out
}

fn describe_regret(s: &RegretScenario) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} is valid: regret scenario {:?}, horizon {} slots, {} runs, seed {}",
        s.source.display(),
        s.name,
        s.horizon,
        s.runs,
        s.seed
    );
    if !s.description.is_empty() {
        let _ = writeln!(out, "  {}", s.description.trim());
    }
    let _ = writeln!(
        out,
        "cost weights: {}·energy{} + {}·delay{}",
        s.weights.energy,
        unit(&s.units.energy),
        s.weights.delay,
        unit(&s.units.delay)
    );
    let _ = writeln!(out, "policies:");
    for p in &s.policies {
        let _ = writeln!(out, "  {:<24} {}", p.label, p.spec.to_ron());
    }
    for e in &s.experiments {
        let env = &e.env;
        let _ = writeln!(out, "\nconfiguration {:?}: {} channels", e.label, env.len());
        let _ = writeln!(
            out,
            "  {:>5} {:>9} {:>11} {:>9}  cost law",
            "ch", "θ", "c", "θ/c"
        );
        // Identical consecutive channels (a `count` in the scenario) share one line.
        let described: Vec<(f64, String)> = env
            .channels()
            .iter()
            .map(|ch| (ch.theta(), format!("{:?}", cost_specs(ch.cost()))))
            .collect();
        for (first, last) in crate::report::markdown::runs(&described) {
            let ch = &env.channels()[first];
            let i = crate::report::markdown::span(first, last);
            let c = ch.cost().mean();
            let law = match ch.cost() {
                crate::cost::CostModel::Plain(l) => format!("cost: {}", ron_law(l.spec())),
                crate::cost::CostModel::Split { energy, delay, .. } => format!(
                    "energy: {}, delay: {}",
                    ron_law(energy.spec()),
                    ron_law(delay.spec())
                ),
            };
            let ratio = if c > 0.0 {
                sig(ch.theta() / c, 4)
            } else {
                "inf".into()
            };
            let _ = writeln!(
                out,
                "  {i:>5} {:>9} {:>11} {ratio:>9}  {law}",
                sig(ch.theta(), 4),
                sig(c, 6)
            );
        }
        let opt = env.optimum();
        let _ = writeln!(
            out,
            "UCR-T1 optimum: probe {}; expected net reward {} per slot",
            crate::report::markdown::list(&opt.list),
            sig(opt.expected_reward, 6)
        );
        let b = Bounds::of(env.theta(), env.mean_cost(), s.theorem2_alpha(), s.horizon);
        match (&b.theorem2, &b.theorem3) {
            (Some(t2), Some(t3)) => {
                let _ = writeln!(
                    out,
                    "Theorem 2 (α = {}): R(T) ≤ {}·ln T + O(1) = {} at T; Theorem 3: R(T) ≳ {}·ln T = {} at T",
                    t2.alpha.unwrap_or(crate::policy::DEFAULT_ALPHA),
                    sig(t2.coefficient, 4),
                    sig(t2.at_horizon, 4),
                    sig(t3.coefficient, 4),
                    sig(t3.at_horizon, 4)
                );
            }
            _ => {
                let _ = writeln!(
                    out,
                    "Theorems 2 and 3 do not apply: {}",
                    b.violations.join("; ")
                );
            }
        }
        if !e.reference.is_empty() {
            let _ = writeln!(out, "paper's values: {:?}", e.reference);
        }
    }
    out
}

/// The law specs of a cost model (for comparing channels).
fn cost_specs(c: &crate::cost::CostModel) -> Vec<&crate::law::LawSpec> {
    match c {
        crate::cost::CostModel::Plain(l) => vec![l.spec()],
        crate::cost::CostModel::Split { energy, delay, .. } => vec![energy.spec(), delay.spec()],
    }
}

fn ron_law(spec: &crate::law::LawSpec) -> String {
    crate::ron_text::to_ron_line(spec)
}

fn unit(u: &str) -> String {
    if u.is_empty() {
        String::new()
    } else {
        format!(" [{u}]")
    }
}

/// `specprobe policies`: every policy, its parameters with defaults, and what it does.
pub fn policies() -> String {
    let mut out = String::from(
        "Policies (write them in a scenario's `policies` list as `(label: \"...\", policy: <spec>)`):\n\n",
    );
    for entry in PolicySpec::catalogue() {
        let _ = writeln!(
            out,
            "  {:<38} label {:<26} {}",
            entry.example.to_ron(),
            entry.example.default_label(),
            entry.summary
        );
    }
    out.push_str(
        "\nParameters left out take the defaults shown (list_len has no default for the cascade \
         baselines; RandomList's list_len defaults to all channels).\n",
    );
    out
}
