//! What each CLI command does, as library calls (the binary only parses arguments and prints):
//! [`run()`], [`merge()`], [`plot()`], [`compare()`], [`validate()`] and [`policies()`]. `run`
//! goes through [`Simulation`], the same path a library user takes, and every command writes
//! through the one writer (`app/export.rs`).

mod compare;
mod headline;
mod merge;
mod plot;
mod run;
mod validate;

#[cfg(test)]
mod tamper;

pub use compare::CompareArgs;
pub use compare::compare;
pub use headline::headline;
pub use merge::MergeArgs;
pub use merge::merge;
pub use plot::plot;
pub use run::RunArgs;
pub use run::run;
pub use validate::policies;
pub use validate::validate_scenario;
pub use validate::{validate, validate_on};

use crate::app::export::ExportError;
use crate::app::simulation::{Simulation, SimulationError};
use crate::engine::budget::BudgetError;
use crate::engine::pipeline::RunError;
use crate::report::ReportError;
use crate::scenario::error::ScenarioError;
use crate::store::folder::{Destination, OutputError, Replace};
use crate::store::names::ResultKind;
use crate::store::partial::MergeError;
use std::path::{Path, PathBuf};

pub use crate::app::export::Written as RunOutcome;

/// Why a command failed. The message names what to fix; [`std::error::Error::source`] gives
/// the underlying error where the message adds context to it.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The scenario file cannot be read, parsed or checked.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// The simulation cannot run as asked (overrides, shard, memory, threads).
    #[error(transparent)]
    Simulation(#[from] SimulationError),
    /// `--out` names a folder that cannot be written.
    #[error("--out: {} cannot be used as the output folder", path.display())]
    Out {
        /// The folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: OutputError,
    },
    /// A result folder that cannot be rewritten in place (`plot`).
    #[error("the results folder {} cannot be rewritten", path.display())]
    Rewrite {
        /// The folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: OutputError,
    },
    /// Results could not be rendered or staged; the output folder is unchanged.
    #[error("{doing} {} (nothing there was changed)", path.display())]
    Write {
        /// What was being done: `writing results for`, `rendering into`.
        doing: &'static str,
        /// The output folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: ExportError,
    },
    /// One scenario of a comparison could not be written.
    #[error("writing the results of {}", input.display())]
    CompareInput {
        /// The scenario file.
        input: PathBuf,
        /// Why.
        #[source]
        source: ExportError,
    },
    /// The staged set could not be swapped in (the old set is in place).
    #[error(transparent)]
    Output(#[from] OutputError),
    /// Saved results could not be read back.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// Shards could not be merged.
    #[error(transparent)]
    Merge(#[from] MergeError),
    /// A valid scenario that this machine cannot run.
    #[error("{} is valid but cannot run here", path.display())]
    CannotRunHere {
        /// The scenario file.
        path: PathBuf,
        /// Why.
        #[source]
        source: BudgetError,
    },
    /// The inputs of a command do not fit together (e.g. `compare` given a sweep).
    #[error("{0}")]
    Inputs(String),
}

impl CommandError {
    /// The scenario error behind this one, if that is what failed (for bindings that raise
    /// their own exception type for it).
    pub fn scenario(&self) -> Option<&ScenarioError> {
        match self {
            CommandError::Scenario(e) => Some(e),
            _ => None,
        }
    }

    /// The broken list of a user's policy or team behind this one, if that is what stopped
    /// the run (for bindings that raise their policy-error type for it).
    pub fn list_fault(&self) -> Option<&crate::ListFault> {
        match self {
            CommandError::Simulation(SimulationError::Run(RunError::Policy(f))) => Some(f),
            _ => None,
        }
    }
}

/// The default output folder of a scenario.
pub fn default_out(name: &str) -> PathBuf {
    Path::new("results").join(name)
}

/// `--force`: replace anything, else only this scenario's own results.
fn replace(force: bool) -> Replace {
    if force {
        Replace::Any
    } else {
        Replace::SameScenario
    }
}

/// Opens the output folder (locked, checked replaceable, a staging folder beside it), naming
/// `--out` when it cannot be used.
/// `inputs` are what the command reads: a destination containing one (or the working
/// directory) is refused, one that is an input needs `--force`.
fn open_out(
    path: &Path,
    scenario: &str,
    kind: ResultKind,
    force: bool,
    inputs: &[&Path],
) -> Result<Destination, CommandError> {
    Destination::open_reading(path, scenario, kind, replace(force), inputs).map_err(|source| {
        CommandError::Out {
            path: path.to_path_buf(),
            source,
        }
    })
}

/// The simulation of `args` (file, overrides, threads, shard, limits, cancel flag).
fn simulation(args: &RunArgs) -> Result<Simulation, CommandError> {
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
    if let Some(t) = args.max_time {
        sim = sim.max_time(t);
    }
    Ok(sim)
}

/// Renders `results` into `dest`'s staging folder and swaps them in: a failure while rendering
/// or staging names the output folder (and leaves it unchanged), a failure of the swap itself
/// is reported as it is.
fn write_results(
    results: &crate::engine::results::Results,
    dest: Destination,
    charts: &crate::report::plots::ChartOptions,
    cancel: &crate::util::cancel::Cancel,
) -> Result<RunOutcome, CommandError> {
    let out = dest.path().to_path_buf();
    let staged = results
        .files(charts)
        .and_then(|files| Ok(crate::app::export::stage(&files, &dest)?))
        .map_err(|source| CommandError::Write {
            doing: "writing results for",
            path: out,
            source,
        })?;
    Ok(crate::app::export::finish(staged, dest, cancel)?)
}
