//! The library's entry point: a checked scenario, optionally with policies or identification
//! algorithms of your own, run through the one pipeline every built-in goes through, with
//! results in memory and every output specprobe writes.
//!
//! ```no_run
//! use specprobe::{Policy, SimRng, Simulation};
//!
//! /// Probes the channels in index order, all of them, every slot.
//! struct InOrder(usize);
//! impl Policy for InOrder {
//!     fn plan(&mut self, _t: u64, list: &mut Vec<usize>, _rng: &mut SimRng) {
//!         list.extend(0..self.0);
//!     }
//!     fn observe(&mut self, _channel: usize, _idle: bool, _cost: f64) {}
//! }
//!
//! # fn main() -> anyhow::Result<()> {
//! let results = Simulation::from_file("scenarios/paper-fig1a.ron")?
//!     .policy("in-order", |env| InOrder(env.len()))
//!     .runs(10)
//!     .run()?;
//! results.write("results/in-order", &Default::default())?;
//! # Ok(())
//! # }
//! ```

use crate::ScenarioError;
use crate::engine::budget::Estimate;
use crate::engine::pipeline::{RunError, RunOptions};
use crate::engine::results::Results;
use crate::engine::shard::Shard;
use crate::engine::simulate::simulate;
use crate::identify::{CustomIdentifier, Identifier, Problem};
use crate::model::channel::Environment;
use crate::multi::{CustomTeam, Team};
use crate::policy::{CustomPolicy, Policy};
use crate::scenario::additions::{AdditionError, Additions};
use crate::scenario::{OverrideError, Overrides, Scenario};
use crate::store::folder::{Destination, OutputError, Replace};
use crate::store::names::ResultKind;
use crate::util::cancel::Cancel;
use std::path::Path;

/// Why a simulation could not run.
#[derive(Debug, thiserror::Error)]
pub enum SimulationError {
    /// An override does not apply.
    #[error(transparent)]
    Override(#[from] OverrideError),
    /// An added policy, team or algorithm of the wrong kind, or a label that cannot be used.
    #[error(transparent)]
    Addition(#[from] AdditionError),
    /// More shards than runs: every shard must hold at least one run.
    #[error("--shard {shard}: {runs} run{} cannot be split into {} shards (at most one shard per run)", if *runs == 1 { "" } else { "s" }, shard.count)]
    Shard {
        /// The shard asked for.
        shard: Shard,
        /// The scenario's runs.
        runs: u64,
    },
    /// The scenario would need more memory than allowed.
    #[error(transparent)]
    Budget(#[from] crate::engine::budget::BudgetError),
    /// More worker threads than [`crate::MAX_THREADS`] (or none).
    #[error(
        "threads: must lie in 1..={max} (got {threads}): more workers than that only contend for the cores"
    )]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// The largest count allowed.
        max: usize,
    },
    /// The scenario would take longer than allowed.
    #[error(transparent)]
    Time(#[from] crate::engine::budget::TimeError),
    /// The runs could not start.
    #[error(transparent)]
    Run(#[from] RunError),
}

/// A scenario ready to run, with the policies and algorithms added to it.
#[derive(Clone, Debug)]
pub struct Simulation {
    scenario: Scenario,
    overrides: Overrides,
    options: RunOptions,
    sharded: bool,
    /// The policies, teams and algorithms a user added.
    additions: Additions,
    max_memory: Option<u64>,
    max_seconds: Option<f64>,
}

impl Simulation {
    /// A checked scenario (see [`crate::load`] and [`crate::scenario::parse`]).
    pub fn new(scenario: Scenario) -> Simulation {
        Simulation {
            scenario,
            overrides: Overrides::default(),
            options: RunOptions::default(),
            sharded: false,
            additions: Additions::default(),
            max_memory: None,
            max_seconds: None,
        }
    }

    /// Loads and checks a scenario file.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Simulation, ScenarioError> {
        crate::scenario::load(path.as_ref()).map(Simulation::new)
    }

    /// Adds a policy of your own, run after the scenario's: `factory` builds it for every run
    /// from the experiment's environment (K, mean costs, stationary θ). Its `policy` in the
    /// outputs reads `custom`; use [`Simulation::custom_policy`] to describe it.
    pub fn policy<P, F>(self, label: impl Into<String>, factory: F) -> Simulation
    where
        P: Policy + 'static,
        F: Fn(&Environment) -> P + Send + Sync + 'static,
    {
        self.custom_policy(label, CustomPolicy::new("custom", factory))
    }

    /// Adds a policy of your own with its description. On a `MultiUser` scenario every user
    /// runs its own copy on its own acknowledgements, as `Selfish` runs a built-in.
    pub fn custom_policy(mut self, label: impl Into<String>, policy: CustomPolicy) -> Simulation {
        self.additions.policies.push((label.into(), policy));
        self
    }

    /// Adds a many-users policy of your own to a `MultiUser` scenario, run after the
    /// scenario's and after the single-user policies added with [`Simulation::custom_policy`]:
    /// its factory builds the whole team of M users for every run (see [`Team`]).
    pub fn custom_team(mut self, label: impl Into<String>, team: CustomTeam) -> Simulation {
        self.additions.teams.push((label.into(), team));
        self
    }

    /// Adds a many-users policy of your own: `factory(channels, users, horizon)` builds the
    /// team for every run; its `policy` in the outputs reads `custom`.
    pub fn team<T, F>(self, label: impl Into<String>, factory: F) -> Simulation
    where
        T: Team + 'static,
        F: Fn(&Environment, usize, u64) -> T + Send + Sync + 'static,
    {
        self.custom_team(label, CustomTeam::new("custom", factory))
    }

    /// Adds an identification algorithm of your own, run after the scenario's in every
    /// setting: `factory` builds it for every run from the [`Problem`] (N, K, σ, ν, setting).
    pub fn identifier<I, F>(self, name: impl Into<String>, factory: F) -> Simulation
    where
        I: Identifier + 'static,
        F: Fn(&Problem) -> I + Send + Sync + 'static,
    {
        self.custom_identifier(CustomIdentifier::new(name, factory))
    }

    /// Adds an identification algorithm of your own.
    pub fn custom_identifier(mut self, algorithm: CustomIdentifier) -> Simulation {
        self.additions.algorithms.push(algorithm);
        self
    }

    /// Overrides the number of runs.
    pub fn runs(mut self, runs: u64) -> Simulation {
        self.overrides.runs = Some(runs);
        self
    }

    /// Overrides the horizon (regret scenarios only).
    pub fn horizon(mut self, horizon: u64) -> Simulation {
        self.overrides.horizon = Some(horizon);
        self
    }

    /// Overrides the seed.
    pub fn seed(mut self, seed: u64) -> Simulation {
        self.overrides.seed = Some(seed);
        self
    }

    /// Overrides the number of users (many-users scenarios only).
    pub fn users(mut self, users: u64) -> Simulation {
        self.overrides.users = Some(users);
        self
    }

    /// Sets every override at once (unset fields keep the scenario's values).
    pub fn overrides(mut self, overrides: Overrides) -> Simulation {
        self.overrides = overrides;
        self
    }

    /// Worker threads (default: one per core); results never depend on it.
    pub fn threads(mut self, threads: usize) -> Simulation {
        self.options.threads = Some(threads);
        self
    }

    /// A flag that stops the runs when set (from another thread, or a signal handler): `run`
    /// then returns [`RunError::Cancelled`] within a fraction of a second.
    pub fn cancel(mut self, cancel: Cancel) -> Simulation {
        self.options.cancel = cancel;
        self
    }

    /// Counts the runs done and to do into `counter`, which another thread may read while the
    /// simulation runs (the Python extension prints it as progress).
    pub fn counter(mut self, counter: crate::RunCounter) -> Simulation {
        self.options.counter = Some(counter);
        self
    }

    /// Simulates only one shard's runs; its results write `partial.json` for `merge`.
    pub fn shard(mut self, shard: Shard) -> Simulation {
        self.options.shard = shard;
        self.sharded = true;
        self
    }

    /// The scenario as given (before overrides and additions).
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// Applies the overrides, appends the added policies or algorithms, and estimates what the
    /// runs need (refusing them when they would not fit in memory): the one place a scenario
    /// is checked before running. The prepared simulation can open its destination before the
    /// long run, as the command line does.
    pub fn prepare(&self) -> Result<Prepared, SimulationError> {
        // Before the estimate, which counts each thread's buffers.
        if let Some(threads) = self.options.threads
            && !(1..=crate::MAX_THREADS).contains(&threads)
        {
            return Err(SimulationError::Threads {
                threads,
                max: crate::MAX_THREADS,
            });
        }
        let scenario = self.scenario.clone().with_overrides(&self.overrides)?;
        let runs = scenario.runs();
        if self.sharded && self.options.shard.count > runs {
            return Err(SimulationError::Shard {
                shard: self.options.shard,
                runs,
            });
        }
        let scenario = self.with_additions(scenario)?;
        let estimate = crate::engine::budget::Estimate::of(&scenario, &self.options);
        estimate.check(self.max_memory)?;
        estimate.check_time(self.max_seconds)?;
        Ok(Prepared {
            scenario,
            estimate,
            overrides: self.overrides,
            options: self.options.clone(),
            shard: self.sharded.then_some(self.options.shard),
        })
    }

    /// The scenario with the overrides applied and the added policies or algorithms appended:
    /// what [`Simulation::run`] simulates.
    pub fn checked(&self) -> Result<Scenario, SimulationError> {
        self.prepare().map(|p| p.scenario)
    }

    /// What the checked scenario would need: memory and work (see [`Estimate`]),
    /// without refusing a scenario that would not fit.
    pub fn estimate(&self) -> Result<Estimate, SimulationError> {
        let scenario = self.scenario.clone().with_overrides(&self.overrides)?;
        Ok(Estimate::of(&self.with_additions(scenario)?, &self.options))
    }

    /// Caps the memory a run may need, in bytes (default: the machine's physical memory).
    /// A scenario whose estimate exceeds it is refused before anything is simulated.
    pub fn max_memory(mut self, bytes: u64) -> Simulation {
        self.max_memory = Some(bytes);
        self
    }

    /// Caps the time a run may take by its estimate, in seconds on the threads it will use
    /// (default: no cap; the command line's `--max-time` defaults to an hour). A scenario
    /// whose estimate exceeds it is refused before anything is simulated.
    pub fn max_time(mut self, seconds: f64) -> Simulation {
        self.max_seconds = Some(seconds);
        self
    }

    fn with_additions(&self, scenario: Scenario) -> Result<Scenario, SimulationError> {
        Ok(scenario.with_additions(&self.additions)?)
    }

    /// Runs every policy (or algorithm) of the scenario over the shard's runs.
    pub fn run(&self) -> Result<Results, SimulationError> {
        self.prepare()?.run()
    }
}

/// A checked simulation, ready to run: the scenario with overrides and additions, and its
/// resource estimate (see [`Simulation::prepare`]).
#[derive(Clone, Debug)]
pub struct Prepared {
    scenario: Scenario,
    estimate: Estimate,
    overrides: Overrides,
    options: RunOptions,
    shard: Option<Shard>,
}

impl Prepared {
    /// The scenario as it will be simulated.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// What the runs need: memory and work.
    pub fn estimate(&self) -> &Estimate {
        &self.estimate
    }

    /// The flag that stops the runs.
    pub(crate) fn cancel(&self) -> &Cancel {
        &self.options.cancel
    }

    /// How the runs are made.
    pub(crate) fn options(&self) -> &RunOptions {
        &self.options
    }

    /// The shard simulated (`None`: every run).
    pub fn shard(&self) -> Option<Shard> {
        self.shard
    }

    /// What the results folder will hold.
    pub fn kind(&self) -> ResultKind {
        ResultKind::of(&self.scenario, self.shard.is_some())
    }

    /// Locks and checks the destination folder before the long run (a bad or busy folder fails
    /// at once); [`Prepared::run_into`] then writes the results there.
    pub fn open(
        &self,
        dir: impl AsRef<Path>,
        replace: Replace,
    ) -> Result<Destination, OutputError> {
        Destination::open(dir.as_ref(), self.scenario.name(), self.kind(), replace)
    }

    /// Runs every policy (or algorithm) of the scenario over the shard's runs.
    ///
    /// The results are in memory, each run's values at the horizon included (for `runs.csv`
    /// and [`Results::write`]); [`Prepared::run_into`] streams those to the destination as the
    /// runs finish instead, so that its memory does not grow with the number of runs.
    pub fn run(&self) -> Result<Results, SimulationError> {
        self.run_with(&self.options)
    }

    /// [`Prepared::run`] with these options (a sink for the per-run rows).
    pub(crate) fn run_with(&self, options: &RunOptions) -> Result<Results, SimulationError> {
        Ok(simulate(
            &self.scenario,
            options,
            self.overrides,
            self.shard,
        )?)
    }
}
