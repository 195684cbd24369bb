//! The identification kind's runs: the Monte Carlo runner over its cells ([`runner`], a
//! [`super::pipeline::Kind`]); the sampling loop itself is [`crate::identify::identify`].

mod budget;
pub(crate) mod runner;

use crate::engine::pipeline::{RunError, RunOptions};
use crate::engine::results::{IdentificationResults, Results};
use crate::engine::simulate::Simulate;
use crate::engine::sweep::run_each;
use crate::scenario::IdentificationScenario;

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
