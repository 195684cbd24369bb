//! `specprobe compare`: several scenarios' (or saved results') policies on shared axes.

use super::{CommandError, RunArgs, RunOutcome, default_out, open_out};
use crate::app::export::{ExportError, finish, stage};
use crate::app::simulation::Simulation;
use crate::report::compare::{Comparable, Family};
use crate::report::multi_user::{CurveTable, MultiUserSummary};
use crate::report::regret::curves::CurveRow;
use crate::report::regret::summary::RegretSummary;
use crate::report::{self, Artifact};
use crate::scenario::{self, Overrides, Scenario};
use crate::store::names::ResultKind;
use std::path::{Path, PathBuf};

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

/// Results a comparison draws: single-user regret or many-users results (one family per
/// comparison).
enum Loaded {
    /// Regret results.
    Regret(RegretSummary, Vec<CurveRow>),
    /// Many-users results (boxed: the regret summary is the small one).
    MultiUser(Box<MultiUserSummary>, CurveTable),
}

impl Loaded {
    fn is_multi(&self) -> bool {
        matches!(self, Loaded::MultiUser(..))
    }
}

/// One input of a comparison, read and checked before anything runs.
enum Input {
    /// A folder of saved results.
    Saved(Loaded),
    /// A regret or many-users scenario (of that family), run now (boxed: saved results are the
    /// small ones).
    Scenario(Box<Scenario>, Family),
}

impl Input {
    fn is_multi(&self) -> bool {
        match self {
            Input::Saved(l) => l.is_multi(),
            Input::Scenario(_, family) => *family == Family::Multi,
        }
    }
}

/// Reads an input: a results folder must hold regret or many-users results, a scenario file
/// must be a regret or many-users scenario. Returns it with its scenario name.
fn read_input(input: &Path, overridden: bool) -> Result<(String, Input), CommandError> {
    if input.is_dir() {
        let kind = report::saved_kind(input)?;
        let drawn = |k| scenario::first_kind!(|K| <K as Comparable>::saved_family(k));
        let Some(family) = ResultKind::parse(&kind).and_then(drawn) else {
            return Err(CommandError::Inputs(format!(
                "{}: compare draws regret curves over time, and this folder holds {kind} results (their own report already compares their algorithms or values)",
                input.display()
            )));
        };
        if overridden {
            tracing::warn!(
                "{}: saved results are drawn as they are; --runs, --horizon and --seed apply only to the scenario files compare runs",
                input.display()
            );
        }
        if family == Family::Multi {
            let (summary, table) = report::multi_user::load_multi_user(input)?;
            let name = summary.scenario.clone();
            return Ok((
                name,
                Input::Saved(Loaded::MultiUser(Box::new(summary), table)),
            ));
        }
        let (summary, rows) = report::load_saved(input)?;
        let name = summary.scenario.clone();
        return Ok((name, Input::Saved(Loaded::Regret(summary, rows))));
    }
    let s = scenario::load(input)?;
    match scenario::each_kind!(&s, s => s.family()) {
        Ok(family) => Ok((s.name().to_string(), Input::Scenario(Box::new(s), family))),
        Err(why) => Err(CommandError::Inputs(format!("{}: {why}", input.display()))),
    }
}

/// Labels: the scenario names, made unique with the input's position when they repeat.
fn unique(names: &[String], separator: char) -> Vec<String> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            if names.iter().filter(|m| *m == n).count() > 1 {
                format!("{n}{separator}{}", i + 1)
            } else {
                n.clone()
            }
        })
        .collect()
}

/// Runs one scenario of the comparison; its full results go into `sub/` of the comparison.
fn run_one(
    scenario: Scenario,
    family: Family,
    input: &Path,
    sub: &str,
    args: &RunArgs,
    files: &mut Vec<Artifact>,
) -> Result<Loaded, CommandError> {
    let mut sim = Simulation::new(scenario)
        .overrides(args.overrides)
        .cancel(args.cancel.clone());
    if let Some(t) = args.threads {
        sim = sim.threads(t);
    }
    if let Some(m) = args.max_memory {
        sim = sim.max_memory(m);
    }
    if let Some(t) = args.max_time {
        sim = sim.max_time(t);
    }
    let results = sim.run()?;
    let wrap = |source: ExportError| CommandError::CompareInput {
        input: input.to_path_buf(),
        source,
    };
    let own = results.files(&args.charts).map_err(wrap)?;
    let loaded = if family == Family::Multi {
        let (s, t) = report::multi_user::multi_from_files(&own).map_err(|e| wrap(e.into()))?;
        Loaded::MultiUser(Box::new(s), t)
    } else {
        let (s, rows) = report::regret_from_files(&own).map_err(|e| wrap(e.into()))?;
        Loaded::Regret(s, rows)
    };
    files.extend(
        own.into_iter()
            .map(|f| Artifact::new(format!("{sub}/{}", f.name), f.bytes)),
    );
    Ok(loaded)
}

/// `specprobe compare`: runs or loads each input and draws all their policies on shared axes,
/// with one combined table.
pub fn compare(args: &CompareArgs) -> Result<RunOutcome, CommandError> {
    if args.inputs.is_empty() {
        return Err(CommandError::Inputs(
            "compare needs at least one scenario file or results folder".into(),
        ));
    }
    // Every input is read and checked, and the output folder opened, before anything runs.
    let overridden = args.run.overrides != Overrides::default();
    let mut names = Vec::new();
    let mut inputs = Vec::new();
    for input in &args.inputs {
        let (name, read) = read_input(input, overridden)?;
        names.push(name);
        inputs.push(read);
    }
    if inputs.iter().any(Input::is_multi) && !inputs.iter().all(Input::is_multi) {
        let (multi, single): (Vec<_>, Vec<_>) = args
            .inputs
            .iter()
            .zip(&inputs)
            .partition(|(_, i)| i.is_multi());
        let show = |v: Vec<(&PathBuf, &Input)>| {
            v.iter()
                .map(|(p, _)| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(CommandError::Inputs(format!(
            "compare draws one kind of regret on shared axes: {} are many-users (system regret), {} single-user; compare each family on its own",
            show(multi),
            show(single)
        )));
    }
    let compare_name = format!("compare-{}", names.join("-vs-"));
    let out_path = args
        .out
        .clone()
        .unwrap_or_else(|| default_out(&compare_name));
    let dest = open_out(
        &out_path,
        &compare_name,
        ResultKind::Comparison,
        args.run.force,
        &args.inputs.iter().map(PathBuf::as_path).collect::<Vec<_>>(),
    )?;
    let folders = unique(&names, '-');
    let mut files = Vec::new();
    let mut loaded = Vec::new();
    for ((input, path), folder) in inputs.into_iter().zip(&args.inputs).zip(&folders) {
        loaded.push(match input {
            Input::Saved(l) => l,
            Input::Scenario(s, family) => run_one(*s, family, path, folder, &args.run, &mut files)?,
        });
    }
    let labels = unique(&names, '#');
    let (mut regret, mut multi) = (Vec::new(), Vec::new());
    for l in loaded {
        match l {
            Loaded::Regret(s, rows) => regret.push((s, rows)),
            Loaded::MultiUser(s, t) => multi.push((*s, t)),
        }
    }
    let charts = &args.run.charts;
    files.extend(if multi.is_empty() {
        report::compare::render(&labels, &regret, charts)?
    } else {
        report::multi_user::render_compare(&labels, &multi, charts)?
    });
    // The comparison's own files are reported; each scenario's results sit in its subfolder.
    let staged: Vec<PathBuf> = stage(&files, &dest)?
        .into_iter()
        .zip(&files)
        .filter(|(_, f)| !f.name.contains('/'))
        .map(|(p, _)| p)
        .collect();
    Ok(finish(staged, dest, &args.run.cancel)?)
}
