//! The regret kind's runs: the Monte Carlo runner ([`runner`], a [`super::pipeline::Kind`])
//! and the one-channel fast path of its slot loop ([`classic_loop`]; the general loop, shared
//! with the environments, is [`super::slot_loop`]).

mod budget;
pub(crate) mod classic_loop;
pub(crate) mod runner;

use crate::engine::pipeline::{RunError, RunOptions};
use crate::engine::results::{RegretResults, Results};
use crate::engine::simulate::Simulate;
use crate::scenario::RegretScenario;

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
