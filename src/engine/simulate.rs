//! A checked scenario of any kind simulated into its results: each kind's runner is its
//! [`Simulate`] (in `engine/<kind>.rs`), and this is the one dispatch, which names no kind.

use crate::engine::pipeline::{RunError, RunOptions};
use crate::engine::results::Results;
use crate::engine::shard::Shard;
use crate::scenario::{Overrides, Scenario};

/// A checked scenario of one kind simulated into that kind's results (each kind's own is in
/// `engine/<kind>.rs`).
pub(crate) trait Simulate {
    /// The kind's results.
    type Results;
    /// Runs every policy (or algorithm, or team) over the shard's runs, recording the
    /// `overrides` that were applied.
    fn simulate(
        &self,
        options: &RunOptions,
        overrides: Overrides,
        shard: Option<Shard>,
    ) -> Result<Self::Results, RunError>;
}

/// Runs every policy (or algorithm, or team) of `scenario` over the shard's runs (`shard`:
/// `None` for every run), recording the `overrides` that were applied.
pub(crate) fn simulate(
    scenario: &Scenario,
    options: &RunOptions,
    overrides: Overrides,
    shard: Option<Shard>,
) -> Result<Results, RunError> {
    Ok(crate::scenario::map_kind!(in Scenario => Results, scenario,
        s => s.simulate(options, overrides, shard)?))
}
