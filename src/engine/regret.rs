//! The regret kind's runs: the Monte Carlo runner ([`runner`], a [`super::pipeline::Kind`])
//! and the one-channel fast path of its slot loop ([`classic_loop`]; the general loop, shared
//! with the environments, is [`super::slot_loop`]).

mod budget;
pub(crate) mod classic_loop;
pub(crate) mod runner;

use crate::engine::pipeline::{RunError, RunOptions};
use crate::engine::results::Results;
use crate::engine::shard::Shard;
use crate::engine::simulate::Simulate;
use crate::scenario::Overrides;
use crate::scenario::RegretScenario;
use runner::RegretStats;

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

impl RegretResults {
    /// The scenario as simulated (overrides applied, added policies included).
    pub fn scenario(&self) -> &RegretScenario {
        &self.scenario
    }
}

impl Simulate for RegretScenario {
    type Stats = runner::RegretStats;
    fn run(&self, options: &RunOptions) -> Result<Self::Stats, RunError> {
        runner::run_regret(self, options)
    }
}

impl Results {
    /// The regret results, if that is the kind.
    pub fn regret(&self) -> Option<&RegretResults> {
        match self {
            Results::Regret(r) => Some(r),
            _ => None,
        }
    }
}
