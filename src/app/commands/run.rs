//! `specprobe run`: simulate a scenario and write its results.

use super::{CommandError, RunOutcome, default_out, open_out, simulation, write_results};
use crate::engine::shard::Shard;
use crate::report::plots::ChartOptions;
use crate::scenario::Overrides;
use crate::util::cancel::Cancel;
use std::path::PathBuf;

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
    /// `--max-time`: refuse runs estimated to take longer, in seconds (default: no limit; the
    /// command line passes an hour unless told otherwise).
    pub max_time: Option<f64>,
    /// Stops the run when set (the command line sets it on SIGINT and SIGTERM).
    pub cancel: Cancel,
}

/// `specprobe run`: simulate a scenario and write its results. The scenario is checked once,
/// and the output folder locked, before anything is simulated.
pub fn run(args: &RunArgs) -> Result<RunOutcome, CommandError> {
    let prepared = simulation(args)?.prepare()?;
    let name = prepared.scenario().name().to_string();
    let default = match args.shard {
        None => default_out(&name),
        Some(s) => default_out(&name).join(format!("shard-{}-of-{}", s.index, s.count)),
    };
    let dest = open_out(
        args.out.as_deref().unwrap_or(&default),
        &name,
        prepared.kind(),
        args.force,
        &[args.scenario.as_path()],
    )?;
    for w in crate::scenario::target::warnings(prepared.scenario()) {
        tracing::warn!("{w}");
    }
    let estimate = prepared.estimate();
    if let Some(seconds) = estimate.seconds()
        && seconds > 3600.0
    {
        tracing::warn!(
            "this run {}; Ctrl-C stops it and leaves earlier results as they were",
            estimate.describe()
        );
    }
    let results = prepared.run_for(&dest).map_err(|e| match e {
        crate::app::export::ExportError::Simulation(e) => CommandError::from(e),
        source => CommandError::Write {
            doing: "writing results for",
            path: dest.path().to_path_buf(),
            source,
        },
    })?;
    write_results(&results, dest, &args.charts, &args.cancel)
}
