//! The many-users kind's runs: the Monte Carlo runner ([`runner`], a
//! [`super::pipeline::Kind`]) and the slot loop of M users ([`slot_loop`]: timing, collisions
//! and feedback around each user's probes).

mod budget;
pub(crate) mod reduced;
pub(crate) mod runner;
pub(crate) mod slot_loop;

use crate::engine::pipeline::{RunError, RunOptions};
use crate::engine::results::{MultiUserResults, Results};
use crate::engine::simulate::Simulate;
use crate::engine::sweep::run_each;
use crate::scenario::MultiUserScenario;

impl Simulate for MultiUserScenario {
    type Stats = Vec<runner::MultiStats>;
    fn run(&self, options: &RunOptions) -> Result<Self::Stats, RunError> {
        let (sweep, name) = (self.sweep.as_deref(), &self.header.name);
        run_each(self, sweep, name, options, runner::run_multi_user)
    }
}

impl Results {
    /// The many-users results, if that is the kind.
    pub fn multi_user(&self) -> Option<&MultiUserResults> {
        match self {
            Results::MultiUser(r) => Some(r),
            _ => None,
        }
    }
}
