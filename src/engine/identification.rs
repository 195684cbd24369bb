//! The identification kind's runs: the Monte Carlo runner over its cells ([`runner`], a
//! [`super::pipeline::Kind`]); the sampling loop itself is [`crate::identify::identify`].

mod budget;
pub(crate) mod runner;

use crate::engine::pipeline::{RunError, RunOptions};
use crate::engine::results::Results;
use crate::engine::shard::Shard;
use crate::engine::simulate::Simulate;
use crate::engine::sweep::run_each;
use crate::scenario::IdentificationScenario;
use crate::scenario::Overrides;
use runner::IdentifyCell;

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

impl IdentificationResults {
    /// The scenario as simulated.
    pub fn scenario(&self) -> &IdentificationScenario {
        &self.scenario
    }
}

impl Simulate for IdentificationScenario {
    type Stats = Vec<Vec<runner::IdentifyCell>>;
    fn run(&self, options: &RunOptions) -> Result<Self::Stats, RunError> {
        let sweep = self.sweep.as_deref();
        run_each(self, sweep, &self.name, options, runner::run_identification)
    }
}

impl Results {
    /// The identification results, if that is the kind.
    pub fn identification(&self) -> Option<&IdentificationResults> {
        match self {
            Results::Identification(r) => Some(r),
            _ => None,
        }
    }
}
