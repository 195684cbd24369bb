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
use crate::cancel::Cancel;
use crate::channel::Environment;
use crate::identify::{Algorithm, CustomIdentifier, Identifier, Problem};
use crate::output::{Destination, OutputDir, OutputError, Replace};
use crate::partial::Partial;
use crate::policy::{CustomPolicy, Policy};
use crate::report::ReportError;
use crate::report::curves::CurveRow;
use crate::report::identification::IdentificationSummary;
use crate::report::plots::ChartOptions;
use crate::report::summary::RegretSummary;
use crate::report::sweep::SweepSummary;
use crate::runner::{IdentifyCell, RegretStats, RunError, RunOptions, Shard};
use crate::scenario::{
    IdentificationScenario, OverrideError, Overrides, PolicyEntry, PolicyKind, RegretScenario,
    Scenario, SweepScenario,
};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Why a simulation could not run.
#[derive(Debug, thiserror::Error)]
pub enum SimulationError {
    /// An override does not apply.
    #[error(transparent)]
    Override(#[from] OverrideError),
    /// A policy added to an identification scenario, or an algorithm to a regret one.
    #[error("{label:?}: a {what} cannot run in a {kind} scenario")]
    WrongKind {
        /// The added entry's label.
        label: String,
        /// `policy` or `identification algorithm`.
        what: &'static str,
        /// The scenario's kind.
        kind: &'static str,
    },
    /// An added label is empty or already used.
    #[error("{0:?}: labels must be non-empty and unique within the scenario")]
    Label(String),
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
    Budget(#[from] crate::budget::BudgetError),
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
    policies: Vec<(String, CustomPolicy)>,
    algorithms: Vec<CustomIdentifier>,
    max_memory: Option<u64>,
}

impl Simulation {
    /// A checked scenario (see [`crate::load`] and [`crate::scenario::parse`]).
    pub fn new(scenario: Scenario) -> Simulation {
        Simulation {
            scenario,
            overrides: Overrides::default(),
            options: RunOptions::default(),
            sharded: false,
            policies: Vec::new(),
            algorithms: Vec::new(),
            max_memory: None,
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

    /// Adds a policy of your own with its description.
    pub fn custom_policy(mut self, label: impl Into<String>, policy: CustomPolicy) -> Simulation {
        self.policies.push((label.into(), policy));
        self
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
        self.algorithms.push(algorithm);
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

    /// The scenario with the overrides applied and the added policies or algorithms appended:
    /// what [`Simulation::run`] simulates.
    pub fn checked(&self) -> Result<Scenario, SimulationError> {
        let scenario = self.scenario.clone().with_overrides(&self.overrides)?;
        let runs = scenario.runs();
        if self.sharded && self.options.shard.count > runs {
            return Err(SimulationError::Shard {
                shard: self.options.shard,
                runs,
            });
        }
        let checked = self.with_additions(scenario)?;
        let estimate = crate::budget::Estimate::of(&checked, &self.options);
        estimate.check(self.max_memory)?;
        Ok(checked)
    }

    /// What the checked scenario would need: memory and work (see [`crate::budget`]).
    pub fn estimate(&self) -> Result<crate::budget::Estimate, SimulationError> {
        let scenario = self.scenario.clone().with_overrides(&self.overrides)?;
        Ok(crate::budget::Estimate::of(
            &self.with_additions(scenario)?,
            &self.options,
        ))
    }

    /// Caps the memory a run may need, in bytes (default: the machine's physical memory).
    /// A scenario whose estimate exceeds it is refused before anything is simulated.
    pub fn max_memory(mut self, bytes: u64) -> Simulation {
        self.max_memory = Some(bytes);
        self
    }

    fn with_additions(&self, scenario: Scenario) -> Result<Scenario, SimulationError> {
        Ok(match scenario {
            Scenario::Regret(s) => Scenario::Regret(self.add_policies(s)?),
            Scenario::Sweep(mut s) => {
                s.cells = s
                    .cells
                    .into_iter()
                    .map(|c| self.add_policies(c))
                    .collect::<Result<_, _>>()?;
                Scenario::Sweep(s)
            }
            Scenario::Identification(mut s) => {
                if let Some((label, _)) = self.policies.first() {
                    return Err(SimulationError::WrongKind {
                        label: label.clone(),
                        what: "policy",
                        kind: "identification",
                    });
                }
                let mut seen: BTreeSet<String> =
                    s.algorithms.iter().map(|a| a.name().to_string()).collect();
                for a in &self.algorithms {
                    if a.name().trim().is_empty() || !seen.insert(a.name().to_string()) {
                        return Err(SimulationError::Label(a.name().to_string()));
                    }
                    s.algorithms.push(Algorithm::Custom(a.clone()));
                }
                Scenario::Identification(s)
            }
        })
    }

    /// The regret scenario with the added policies appended.
    fn add_policies(&self, mut s: RegretScenario) -> Result<RegretScenario, SimulationError> {
        if let Some(a) = self.algorithms.first() {
            return Err(SimulationError::WrongKind {
                label: a.name().to_string(),
                what: "identification algorithm",
                kind: "regret",
            });
        }
        let mut seen: BTreeSet<String> = s.policies.iter().map(|p| p.label.clone()).collect();
        for (label, policy) in &self.policies {
            if label.trim().is_empty() || !seen.insert(label.clone()) {
                return Err(SimulationError::Label(label.clone()));
            }
            s.policies.push(PolicyEntry {
                label: label.clone(),
                policy: PolicyKind::Custom(policy.clone()),
            });
        }
        Ok(s)
    }

    /// Runs every policy (or algorithm) of the scenario over the shard's runs.
    pub fn run(&self) -> Result<Results, SimulationError> {
        let shard = self.sharded.then_some(self.options.shard);
        Ok(match self.checked()? {
            Scenario::Regret(s) => {
                let stats = crate::runner::run_regret(&s, &self.options)?;
                Results::Regret(RegretResults {
                    scenario: s,
                    stats,
                    overrides: self.overrides,
                    shard,
                })
            }
            Scenario::Identification(s) => {
                let cells = crate::runner::run_identification(&s, &self.options)?;
                Results::Identification(IdentificationResults {
                    scenario: s,
                    cells,
                    overrides: self.overrides,
                    shard,
                })
            }
            Scenario::Sweep(s) => {
                let stats = s
                    .cells
                    .iter()
                    .map(|c| crate::runner::run_regret(c, &self.options))
                    .collect::<Result<_, _>>()?;
                Results::Sweep(SweepResults {
                    scenario: s,
                    stats,
                    overrides: self.overrides,
                    shard,
                })
            }
        })
    }
}

/// Why results could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The output folder.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// A result file.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// `partial.json`.
    #[error("cannot serialise partial.json: {0}")]
    Partial(serde_json::Error),
}

/// The results of a simulation, in memory.
#[derive(Clone, Debug)]
pub enum Results {
    /// A regret scenario's.
    Regret(RegretResults),
    /// An identification scenario's.
    Identification(IdentificationResults),
    /// A sweep's: one regret result per value.
    Sweep(SweepResults),
}

/// A sweep's results: each cell's statistics, in the order of the values.
#[derive(Clone, Debug)]
pub struct SweepResults {
    /// The sweep as simulated.
    pub scenario: SweepScenario,
    /// `stats[i]`: the cell of `scenario.values[i]`.
    pub stats: Vec<RegretStats>,
    /// The overrides that were applied.
    pub overrides: Overrides,
    /// The shard simulated (`None`: every run, unsharded).
    pub shard: Option<Shard>,
}

impl SweepResults {
    /// Each cell with its statistics.
    pub fn cells(&self) -> Vec<(&RegretScenario, &RegretStats)> {
        self.scenario.cells.iter().zip(&self.stats).collect()
    }

    /// What `summary.json` holds.
    pub fn summary(&self) -> SweepSummary {
        crate::report::sweep::summary(&self.scenario, &self.cells())
    }
}

/// A regret scenario's results: the scenario as simulated and each (experiment, policy)'s
/// exact statistics.
#[derive(Clone, Debug)]
pub struct RegretResults {
    /// The scenario as simulated (overrides applied, added policies included).
    pub scenario: RegretScenario,
    /// `stats.stats[e][p]`: experiment `e`, policy `p` (scenario order).
    pub stats: RegretStats,
    /// The overrides that were applied.
    pub overrides: Overrides,
    /// The shard simulated (`None`: every run, unsharded).
    pub shard: Option<Shard>,
}

impl RegretResults {
    /// What `summary.json` holds.
    pub fn summary(&self) -> RegretSummary {
        crate::report::summary::regret_summary(&self.scenario, &self.stats)
    }

    /// The rows of `curves.csv`.
    pub fn curves(&self) -> Vec<CurveRow> {
        crate::report::curves::rows(&self.scenario, &self.stats)
    }
}

/// An identification scenario's results, one cell per (instance, N, setting, algorithm).
#[derive(Clone, Debug)]
pub struct IdentificationResults {
    /// The scenario as simulated.
    pub scenario: IdentificationScenario,
    /// The cells, in scenario order.
    pub cells: Vec<IdentifyCell>,
    /// The overrides that were applied.
    pub overrides: Overrides,
    /// The shard simulated (`None`: every run, unsharded).
    pub shard: Option<Shard>,
}

impl IdentificationResults {
    /// What `summary.json` holds.
    pub fn summary(&self) -> IdentificationSummary {
        crate::report::identification::summary(&self.scenario, &self.cells)
    }
}

impl Results {
    /// The scenario's name.
    pub fn name(&self) -> &str {
        match self {
            Results::Regret(r) => &r.scenario.name,
            Results::Identification(r) => &r.scenario.name,
            Results::Sweep(r) => &r.scenario.name,
        }
    }

    /// The overrides applied.
    pub fn overrides(&self) -> Overrides {
        match self {
            Results::Regret(r) => r.overrides,
            Results::Identification(r) => r.overrides,
            Results::Sweep(r) => r.overrides,
        }
    }

    /// The shard these results hold (`None`: every run, unsharded).
    pub fn shard(&self) -> Option<Shard> {
        match self {
            Results::Regret(r) => r.shard,
            Results::Identification(r) => r.shard,
            Results::Sweep(r) => r.shard,
        }
    }

    /// The regret results, if that is the kind.
    pub fn regret(&self) -> Option<&RegretResults> {
        match self {
            Results::Regret(r) => Some(r),
            _ => None,
        }
    }

    /// The identification results, if that is the kind.
    pub fn identification(&self) -> Option<&IdentificationResults> {
        match self {
            Results::Identification(r) => Some(r),
            _ => None,
        }
    }

    /// The sweep results, if that is the kind.
    pub fn sweep(&self) -> Option<&SweepResults> {
        match self {
            Results::Sweep(r) => Some(r),
            _ => None,
        }
    }

    /// Writes the usual outputs into `dir` (created if needed): summary, curves, runs, charts
    /// and report, or a shard's `partial.json`. Returns the files written.
    ///
    /// The set is written whole or not at all: into a staging folder beside `dir`, then
    /// swapped in (see [`crate::output`]). `dir` may hold nothing, or earlier results of this
    /// scenario; anything else is refused ([`Results::write_replacing`] with [`Replace::Any`]
    /// replaces it).
    pub fn write(
        &self,
        dir: impl AsRef<Path>,
        charts: &ChartOptions,
    ) -> Result<Vec<PathBuf>, WriteError> {
        self.write_replacing(dir, charts, Replace::SameScenario)
    }

    /// [`Results::write`], saying what `dir` may hold and be replaced.
    pub fn write_replacing(
        &self,
        dir: impl AsRef<Path>,
        charts: &ChartOptions,
        replace: Replace,
    ) -> Result<Vec<PathBuf>, WriteError> {
        let dest = Destination::open(dir.as_ref(), self.name(), self.kind(), replace)?;
        let files = self.write_to(&dest.staging(), charts)?;
        dest.commit(&Cancel::new())?;
        Ok(files)
    }

    /// What the results folder will hold: `regret`, `identification`, `sweep`, or `partial`
    /// for one shard's.
    pub fn kind(&self) -> &'static str {
        match self {
            _ if self.shard().is_some() => "partial",
            Results::Regret(_) => "regret",
            Results::Identification(_) => "identification",
            Results::Sweep(_) => "sweep",
        }
    }

    /// Writes the outputs into a folder being staged (the caller swaps it in).
    pub(crate) fn write_to(
        &self,
        out: &OutputDir,
        charts: &ChartOptions,
    ) -> Result<Vec<PathBuf>, WriteError> {
        if self.shard().is_some() {
            let json = serde_json::to_vec(&Partial::of(self)).map_err(WriteError::Partial)?;
            return Ok(vec![out.write(crate::partial::FILE, &json)?]);
        }
        Ok(match self {
            Results::Regret(r) => crate::report::write_regret(out, &r.scenario, &r.stats, charts)?,
            Results::Identification(r) => {
                crate::report::identification::write(out, &r.scenario, &r.cells, charts)?
            }
            Results::Sweep(r) => crate::report::sweep::write(out, &r.scenario, &r.cells(), charts)?,
        })
    }
}
