//! Results in memory: the scenario as simulated with each policy's (or algorithm's) exact
//! statistics. The report turns them into files ([`crate::report`]), the store into a shard's
//! `partial.json` ([`crate::store::partial`]); here they are only data.

use crate::engine::shard::Shard;
use crate::scenario::Overrides;

/// Declares [`Results`], one variant per experiment kind, from the list of the kinds
/// (`experiment_kinds!`, in `lib.rs`; each kind's [`KindResults`] is generated from it in
/// `engine/simulate.rs`, beside the runs that make them).
macro_rules! results_enum {
    ($d:tt $(
        $(#[$doc:meta])* $kind:ident($s:path, $r:path, $b:path $(, raw $raw:path)? $(, writes $file:literal swept $swept:literal)?),
    )*) => {
        /// The results of a simulation, in memory: one variant per experiment kind, its
        /// scenario as simulated with the kind's statistics.
        #[derive(Clone, Debug)]
        pub enum Results {
            $(
                #[doc = concat!(
                    "A [`", stringify!($kind), "`](crate::Scenario::", stringify!($kind),
                    ") scenario's."
                )]
                $kind($r),
            )*
        }
    };
}

experiment_kinds!($ results_enum);

/// What the results of every kind tell, whatever the kind.
pub(crate) trait KindResults {
    /// The kind's checked scenario.
    type Scenario;
    /// The engine's statistics of its runs.
    type Stats;
    /// The results of `scenario`'s runs (of the `shard`, `None` for all).
    fn new(
        scenario: Self::Scenario,
        stats: Self::Stats,
        overrides: Overrides,
        shard: Option<Shard>,
    ) -> Self;
    /// The scenario's name.
    fn name(&self) -> &str;
    /// The overrides applied.
    fn overrides(&self) -> Overrides;
    /// The shard these results hold (`None`: every run, unsharded).
    fn shard(&self) -> Option<Shard>;
}

impl Results {
    /// The scenario's name.
    pub fn name(&self) -> &str {
        crate::scenario::each_kind!(in Results, self, r => r.name())
    }

    /// The overrides applied.
    pub fn overrides(&self) -> Overrides {
        crate::scenario::each_kind!(in Results, self, r => r.overrides())
    }

    /// The shard these results hold (`None`: every run, unsharded).
    pub fn shard(&self) -> Option<Shard> {
        crate::scenario::each_kind!(in Results, self, r => r.shard())
    }
}
