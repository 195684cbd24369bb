//! A checked scenario of any kind simulated into its results: each kind's runner is its
//! [`Simulate`] (in `engine/<kind>.rs`), and this is the one dispatch, which names no kind.

use crate::engine::pipeline::{RunError, RunOptions};
use crate::engine::results::{KindResults, Results};
use crate::engine::shard::Shard;
use crate::scenario::{Overrides, Scenario};

/// A checked scenario of one kind simulated into that kind's statistics (each kind's own is
/// in `engine/<kind>.rs`).
pub(crate) trait Simulate {
    /// The engine's statistics of the kind's runs.
    type Stats;
    /// Runs every policy (or algorithm, or team) over the runs `options` select.
    fn run(&self, options: &RunOptions) -> Result<Self::Stats, RunError>;
}

/// Runs every policy (or algorithm, or team) of `scenario` over the shard's runs (`shard`:
/// `None` for every run), recording the `overrides` that were applied.
pub(crate) fn simulate(
    scenario: &Scenario,
    options: &RunOptions,
    overrides: Overrides,
    shard: Option<Shard>,
) -> Result<Results, RunError> {
    Ok(
        crate::scenario::map_kind!(in Scenario => Results, scenario, s => {
            let stats = s.run(options)?;
            KindResults::new(s.clone(), stats, overrides, shard)
        }),
    )
}
