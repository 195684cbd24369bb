//! The many-users kind's runs: the Monte Carlo runner ([`runner`], a
//! [`super::pipeline::Kind`]) and the slot loop of M users ([`slot_loop`]: timing, collisions
//! and feedback around each user's probes).

mod budget;
pub(crate) mod reduced;
pub(crate) mod runner;
pub(crate) mod slot_loop;

use crate::engine::pipeline::{RunError, RunOptions};
use crate::engine::results::Results;
use crate::engine::shard::Shard;
use crate::engine::simulate::Simulate;
use crate::engine::sweep::run_each;
use crate::scenario::MultiUserScenario;
use crate::scenario::Overrides;
use runner::MultiStats;

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
