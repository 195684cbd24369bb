//! Results in memory: the scenario as simulated with each policy's (or algorithm's) exact
//! statistics. The report turns them into files ([`crate::report`]), the store into a shard's
//! `partial.json` ([`crate::store::partial`]); here they are only data.

use crate::engine::identification::runner::IdentifyCell;
use crate::engine::multi_user::runner::MultiStats;
use crate::engine::regret::runner::RegretStats;
use crate::engine::shard::Shard;
use crate::scenario::{
    IdentificationScenario, MultiUserScenario, Overrides, RegretScenario, SweepScenario,
};

/// Declares [`Results`], one variant per experiment kind, from the list of the kinds
/// (`experiment_kinds!`, in `lib.rs`; each kind's [`KindResults`] is generated from it in
/// `engine/simulate.rs`, beside the runs that make them).
macro_rules! results_enum {
    ($d:tt $(
        $(#[$doc:meta])* $kind:ident($s:ident, $r:ident, $b:path $(, raw $raw:ident)?),
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

/// A many-users scenario's results: the scenario as simulated and each policy's statistics.
///
/// Read in memory through [`MultiUserResults::summaries`], the values `summary.json` holds:
///
/// ```
/// use specprobe::Simulation;
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let text = r#"MultiUser(name: "doc", seed: 5, horizon: 500, runs: 8, users: 2,
///     channels: [(theta: 0.9, cost: Constant(0.0)), (theta: 0.5, cost: Constant(0.0)),
///                (theta: 0.1, cost: Constant(0.0))],
///     policies: [(policy: Selfish(policy: Ucb1(reward: Idle))), (policy: CentralizedMultiplePlay(index: Ucb))])"#;
/// let scenario = specprobe::parse(text, "doc.ron".as_ref())?;
/// let results = Simulation::new(scenario).run()?;
/// let summary = &results.multi_user().expect("a many-users scenario").summaries()[0];
/// for p in &summary.policies {
///     let regret = p.at_horizon["pseudo_regret"].expect("a closed-form benchmark");
///     println!("{}: {:.1} ± {:.1} over {} runs", p.name, regret.mean, regret.stderr, p.runs);
///     assert_eq!(regret.n, 8);
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct MultiUserResults {
    /// The scenario as simulated.
    pub(crate) scenario: MultiUserScenario,
    /// Per policy (scenario order): one entry, or one per cell of the scenario's sweep.
    pub(crate) stats: Vec<MultiStats>,
    /// The overrides that were applied.
    pub(crate) overrides: Overrides,
    /// The shard simulated (`None`: every run, unsharded).
    pub(crate) shard: Option<Shard>,
}

impl MultiUserResults {
    /// The scenario as simulated.
    pub fn scenario(&self) -> &MultiUserScenario {
        &self.scenario
    }
}

/// A regret scenario's results: the scenario as simulated and each (experiment, policy)'s
/// exact statistics.
#[derive(Clone, Debug)]
pub struct RegretResults {
    /// The scenario as simulated (overrides applied, added policies included).
    pub(crate) scenario: RegretScenario,
    /// `stats.stats[e][p]`: experiment `e`, policy `p` (scenario order).
    pub(crate) stats: RegretStats,
    /// The overrides that were applied.
    pub(crate) overrides: Overrides,
    /// The shard simulated (`None`: every run, unsharded).
    pub(crate) shard: Option<Shard>,
}

/// An identification scenario's results, one cell per (instance, N, setting, algorithm).
#[derive(Clone, Debug)]
pub struct IdentificationResults {
    /// The scenario as simulated.
    pub(crate) scenario: IdentificationScenario,
    /// The cells in scenario order: one list, or one per cell of the scenario's sweep.
    pub(crate) stats: Vec<Vec<IdentifyCell>>,
    /// The overrides that were applied.
    pub(crate) overrides: Overrides,
    /// The shard simulated (`None`: every run, unsharded).
    pub(crate) shard: Option<Shard>,
}

/// A sweep's results: each cell's statistics, in the order of the values.
#[derive(Clone, Debug)]
pub struct SweepResults {
    /// The sweep as simulated.
    pub(crate) scenario: SweepScenario,
    /// `stats[i]`: the cell of `scenario.sweep.values()[i]`.
    pub(crate) stats: Vec<RegretStats>,
    /// The overrides that were applied.
    pub(crate) overrides: Overrides,
    /// The shard simulated (`None`: every run, unsharded).
    pub(crate) shard: Option<Shard>,
}

impl RegretResults {
    /// The scenario as simulated (overrides applied, added policies included).
    pub fn scenario(&self) -> &RegretScenario {
        &self.scenario
    }
}

impl IdentificationResults {
    /// The scenario as simulated.
    pub fn scenario(&self) -> &IdentificationScenario {
        &self.scenario
    }
}

impl SweepResults {
    /// The sweep as simulated.
    pub fn scenario(&self) -> &SweepScenario {
        &self.scenario
    }

    /// Each cell with its statistics.
    pub(crate) fn cells(&self) -> Vec<(&RegretScenario, &RegretStats)> {
        self.scenario
            .sweep
            .cells()
            .iter()
            .zip(&self.stats)
            .collect()
    }
}

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
