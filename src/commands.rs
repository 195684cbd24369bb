//! What each CLI command does, as library calls (the binary only parses arguments and prints).

use crate::output::OutputDir;
use crate::policy::PolicySpec;
use crate::report::markdown::sig;
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
    /// The runs this process simulates.
    pub shard: Shard,
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
    let scenario = scenario::load(&args.scenario)?;
    match scenario {
        Scenario::Regret(s) => {
            run_regret(s.with_overrides(args.runs, args.horizon, args.seed), args)
        }
    }
}

fn prepare_out(args: &RunArgs, name: &str) -> Result<OutputDir> {
    let path = args.out.clone().unwrap_or_else(|| default_out(name));
    OutputDir::prepare(&path).with_context(|| {
        format!(
            "--out: the output folder {} must be a writable folder (create it or pass another --out)",
            path.display()
        )
    })
}

fn run_regret(s: RegretScenario, args: &RunArgs) -> Result<RunOutcome> {
    // Fail on a bad output folder before simulating, not after.
    let out = prepare_out(args, &s.name)?;
    let opts = RunOptions {
        threads: args.threads,
        shard: args.shard,
    };
    let results = crate::runner::run_regret(&s, &opts)?;
    let files = crate::report::write_regret(&out, &s, &results)
        .with_context(|| format!("writing results into {}", out.path().display()))?;
    Ok(RunOutcome {
        out: out.path().to_path_buf(),
        files,
    })
}

/// `specprobe validate`: the checked scenario, its UCR-T1 optimum and bounds, as text.
pub fn validate(path: &Path) -> Result<String> {
    match scenario::load(path)? {
        Scenario::Regret(s) => Ok(describe_regret(&s)),
    }
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
        for (i, ch) in env.channels().iter().enumerate() {
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
            "UCR-T1 optimum: probe {:?}; expected net reward {} per slot",
            opt.list,
            sig(opt.expected_reward, 6)
        );
        let b = Bounds::of(env.theta(), env.mean_cost(), s.theorem2_alpha(), s.horizon);
        match (&b.theorem2, &b.theorem3) {
            (Some(t2), Some(t3)) => {
                let _ = writeln!(
                    out,
                    "Theorem 2 (α = {}): R(T) ≤ {}·ln T + O(1) = {} at T; Theorem 3: R(T) ≳ {}·ln T = {} at T",
                    t2.alpha.unwrap_or(1.5),
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

fn ron_law(spec: &crate::law::LawSpec) -> String {
    scenario::to_ron_line(spec)
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
