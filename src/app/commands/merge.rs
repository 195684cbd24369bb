//! `specprobe merge`: every shard's partial results into the outputs of the unsharded run.

use super::{CommandError, RunOutcome, default_out, open_out, write_results};
use crate::report::plots::ChartOptions;
use crate::store::partial;
use crate::util::cancel::Cancel;
use std::path::PathBuf;

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
pub fn merge(args: &MergeArgs) -> Result<RunOutcome, CommandError> {
    let results = partial::merge(&args.inputs)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| default_out(results.name()));
    let inputs: Vec<&std::path::Path> = args.inputs.iter().map(PathBuf::as_path).collect();
    let dest = open_out(&out, results.name(), results.kind(), args.force, &inputs)?;
    write_results(&results, dest, &args.charts, &args.cancel)
}
