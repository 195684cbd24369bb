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

/// Each kind's [`KindResults`], from the list of the kinds (`experiment_kinds!`, in `lib.rs`):
/// its scenario with the statistics its [`Simulate`] makes.
macro_rules! kind_results {
    ($d:tt $(
        $(#[$doc:meta])* $kind:ident($s:path, $r:path, $b:path $(, raw $raw:path)? $(, writes $file:literal swept $swept:literal)?),
    )*) => {$(
        impl KindResults for $r {
            type Scenario = $s;
            type Stats = <$s as Simulate>::Stats;
            fn new(scenario: $s, stats: Self::Stats, overrides: Overrides, shard: Option<Shard>) -> $r {
                $r {
                    scenario,
                    stats,
                    overrides,
                    shard,
                }
            }
            fn name(&self) -> &str {
                self.scenario.name()
            }
            fn overrides(&self) -> Overrides {
                self.overrides
            }
            fn shard(&self) -> Option<Shard> {
                self.shard
            }
        }
    )*};
}

experiment_kinds!($ kind_results);
