//! Monte Carlo runs: seeding, parallelism, progress.
//!
//! Every (experiment, policy, run) is an independent task. Run `r` of an experiment draws from
//! `rng::stream(seed, domain, r)` where the domain identifies the experiment (0 for a scenario
//! with a single channel list, a hash of the configuration label in a grid): all policies of
//! the same run start from the same random state (common random numbers), and nothing depends
//! on which thread or shard ran it. Runs fold into [`PolicyStats`] whose merge is exact, so rayon
//! may split and join the work any way it likes and the output bytes never change.

use crate::engine::progress::Progress;
use crate::engine::recorder::{PolicyStats, RunRecord};
use crate::identify::confidence::{Params, Setting};
use crate::identify::instance::Arms;
use crate::identify::{Identifier, IdentifierVisitor, IdentifyOutcome, IdentifyStats, Problem};
use crate::model::channel::{Environment, Paths};
use crate::policy::{Oracle, Policy, PolicyVisitor};
use crate::scenario::IdentificationScenario;
use crate::scenario::RegretScenario;
use crate::util::cancel::{Cancel, Cancelled};
use crate::util::crn::RunKey;
use crate::util::rng::{SimRng, label_hash, stream};
use rayon::prelude::*;
use std::time::Instant;
use tracing::info;

/// Which of the run indices `0..runs` this process simulates: those with
/// `run % count == index`. The whole job is shard `0/1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: u64,
    /// Number of shards.
    pub count: u64,
}

impl Default for Shard {
    fn default() -> Self {
        Shard { index: 0, count: 1 }
    }
}

impl Shard {
    /// Whether run `run` belongs to this shard.
    pub fn contains(&self, run: u64) -> bool {
        run % self.count == self.index
    }

    /// How many of the runs `0..runs` this shard holds.
    pub fn runs_of(&self, runs: u64) -> u64 {
        runs / self.count + u64::from(self.index < runs % self.count)
    }

    /// The `i`-th run of this shard (`i < runs_of(runs)`).
    pub(crate) fn run(&self, i: u64) -> u64 {
        self.index + i * self.count
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// Parses `I/N` (0-based `I < N`).
    fn from_str(s: &str) -> Result<Shard, String> {
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| format!("expected I/N such as 0/4, got {s:?}"))?;
        let index: u64 = i
            .trim()
            .parse()
            .map_err(|_| format!("shard index {i:?} is not a number"))?;
        let count: u64 = n
            .trim()
            .parse()
            .map_err(|_| format!("shard count {n:?} is not a number"))?;
        if count == 0 || index >= count {
            return Err(format!(
                "shard index must be below the shard count (0 ≤ I < N), got {index}/{count}"
            ));
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// How to run.
#[derive(Clone, Debug, Default)]
pub(crate) struct RunOptions {
    /// Worker threads (default: one per core).
    pub threads: Option<usize>,
    /// The runs to simulate.
    pub shard: Shard,
    /// Stops the runs when set.
    pub cancel: Cancel,
}

/// Results of a regret scenario: per experiment, per policy (scenario order).
#[derive(Clone, Debug)]
pub(crate) struct RegretStats {
    /// Slots at which curves were recorded.
    pub checkpoints: Vec<u64>,
    /// `stats[e][p]`: experiment `e`, policy `p`.
    pub stats: Vec<Vec<PolicyStats>>,
}

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A user's policy or algorithm known by name only (rebuilt from partial results) cannot
    /// be simulated.
    #[error("{0:?} is a user's policy known here by its name only; it cannot be simulated")]
    NotRunnable(String),
    /// The run was stopped through its [`Cancel`] flag.
    #[error(transparent)]
    Cancelled(#[from] Cancelled),
    /// Rayon could not start its workers.
    #[error("cannot start {threads} worker threads: {error}")]
    ThreadPool {
        /// Threads asked for.
        threads: usize,
        /// The underlying error.
        error: rayon::ThreadPoolBuildError,
    },
}

/// The random-stream domain of experiment `label` (see the module docs).
pub(crate) fn experiment_domain(scenario: &RegretScenario, label: &str) -> u64 {
    if scenario.is_grid {
        label_hash(&[label])
    } else {
        0
    }
}

/// Builds the worker pool.
pub(crate) fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool, RunError> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        builder = builder.num_threads(n);
    }
    builder.build().map_err(|source| RunError::ThreadPool {
        threads: threads.unwrap_or(0),
        error: source,
    })
}

/// Runs every (experiment, policy) of a regret scenario over the shard's runs.
///
/// Each run is one task: it first runs the benchmark (the oracle) on the run's sample paths,
/// then every policy on the same paths (common random numbers), so that realised regret is the
/// benchmark's reward minus the policy's on identical spectrum. Runs fold into exact
/// statistics, so the split into tasks never changes a byte.
pub(crate) fn run_regret(s: &RegretScenario, opts: &RunOptions) -> Result<RegretStats, RunError> {
    let checkpoints = s.checkpoints.slots(s.horizon);
    if let Some(e) = s.experiments.first() {
        for p in &s.policies {
            if p.build(&e.env).is_none() {
                return Err(RunError::NotRunnable(p.label.clone()));
            }
        }
    }
    let shard = opts.shard;
    let shard_runs = shard.runs_of(s.runs);
    let total = s.experiments.len() as u64 * shard_runs;
    info!(
        scenario = %s.name,
        experiments = s.experiments.len(),
        policies = s.policies.len(),
        runs = shard_runs,
        horizon = s.horizon,
        shard = %shard,
        "simulating {} runs of {} policies, {} slots each",
        total,
        s.policies.len(),
        s.horizon
    );
    let pool = thread_pool(opts.threads)?;
    let progress = Progress::new(
        tracing::info_span!("simulate", indicatif.pb_show = tracing::field::Empty),
        &s.name,
        total,
        "runs",
    );
    let started = Instant::now();
    let stats = {
        let _entered = progress.span().enter();
        pool.install(|| {
            s.experiments
                .iter()
                .map(|exp| {
                    let worker = || Worker::new(s, exp, &checkpoints);
                    (0..shard_runs)
                        .into_par_iter()
                        .map(|i| shard.run(i))
                        .fold(worker, |mut w, run| {
                            if !opts.cancel.is_cancelled() {
                                w.run(run, &opts.cancel);
                                progress.inc();
                            }
                            w
                        })
                        .map(|w| w.stats)
                        .reduce(
                            || worker().stats,
                            |mut a, b| {
                                for (x, y) in a.iter_mut().zip(&b) {
                                    x.merge(y);
                                }
                                a
                            },
                        )
                })
                .collect()
        })
    };
    opts.cancel.check()?;
    let elapsed = started.elapsed();
    info!(
        seconds = elapsed.as_secs_f64(),
        slots_per_second = (total as f64 * (s.policies.len() + 1) as f64 * s.horizon as f64)
            / elapsed.as_secs_f64().max(1e-9),
        "simulation finished"
    );
    Ok(RegretStats { checkpoints, stats })
}

/// One worker's buffers for the runs of one experiment, reused from run to run.
struct Worker<'a> {
    s: &'a RegretScenario,
    exp: &'a crate::scenario::Experiment,
    checkpoints: &'a [u64],
    domain: u64,
    stats: Vec<PolicyStats>,
    benchmark: RunRecord,
    record: RunRecord,
    paths: Paths,
    list: Vec<usize>,
}

impl<'a> Worker<'a> {
    fn new(
        s: &'a RegretScenario,
        exp: &'a crate::scenario::Experiment,
        checkpoints: &'a [u64],
    ) -> Worker<'a> {
        let k = exp.env.len();
        let n = checkpoints.len();
        Worker {
            s,
            exp,
            checkpoints,
            domain: experiment_domain(s, &exp.label),
            stats: s.policies.iter().map(|_| PolicyStats::new(k, n)).collect(),
            benchmark: RunRecord::new(k, n),
            record: RunRecord::new(k, n),
            paths: Paths::default(),
            list: Vec::with_capacity(k),
        }
    }

    /// Run `run`: the benchmark, then every policy, on the run's sample paths.
    fn run(&mut self, run: u64, cancel: &Cancel) {
        let env = &self.exp.env;
        let key = RunKey::new(self.s.seed, self.domain, run);
        self.benchmark.reset();
        self.paths.reset(env, key);
        Oracle::new(env).visit_episode(Episode {
            env,
            horizon: self.s.horizon,
            checkpoints: self.checkpoints,
            rng: &mut stream(self.s.seed, self.domain, run),
            paths: &mut self.paths,
            record: &mut self.benchmark,
            list: &mut self.list,
            cancel,
        });
        for (entry, stats) in self.s.policies.iter().zip(&mut self.stats) {
            self.record.reset();
            self.paths.reset(env, key);
            let policy = entry
                .build(env)
                .expect("every policy was checked runnable before the runs started");
            policy.visit(Episode {
                env,
                horizon: self.s.horizon,
                checkpoints: self.checkpoints,
                rng: &mut stream(self.s.seed, self.domain, run),
                paths: &mut self.paths,
                record: &mut self.record,
                list: &mut self.list,
                cancel,
            });
            self.record.set_realized(&self.benchmark);
            stats.absorb(run, &self.record);
        }
    }
}

/// Runs one episode with the concrete policy type.
struct Episode<'a> {
    env: &'a Environment,
    horizon: u64,
    checkpoints: &'a [u64],
    rng: &'a mut SimRng,
    paths: &'a mut Paths,
    record: &'a mut RunRecord,
    list: &'a mut Vec<usize>,
    cancel: &'a Cancel,
}

impl PolicyVisitor for Episode<'_> {
    type Output = ();

    fn visit<P: Policy>(self, mut policy: P) {
        crate::engine::slot_loop::episode(
            self.env,
            &mut policy,
            self.horizon,
            self.checkpoints,
            self.rng,
            self.paths,
            self.record,
            self.list,
            self.cancel,
        );
    }
}

/// The benchmark policy runs through the same visitor.
trait VisitEpisode {
    fn visit_episode(self, e: Episode<'_>);
}

impl VisitEpisode for Oracle {
    fn visit_episode(self, e: Episode<'_>) {
        e.visit(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_runs() {
        let shards: Vec<Shard> = (0..3).map(|i| Shard { index: i, count: 3 }).collect();
        for run in 0..20 {
            assert_eq!(shards.iter().filter(|s| s.contains(run)).count(), 1);
        }
        assert_eq!(
            "2/5".parse::<Shard>().unwrap(),
            Shard { index: 2, count: 5 }
        );
        assert!("5/5".parse::<Shard>().is_err());
        assert!("1-5".parse::<Shard>().is_err());
        assert!("0/0".parse::<Shard>().is_err());
    }
}

/// One cell of an identification scenario and its statistics.
#[derive(Clone, Debug)]
pub(crate) struct IdentifyCell {
    /// Index of the instance in the scenario.
    pub instance: usize,
    /// Index of the point (number of arms) in the instance.
    pub point: usize,
    /// Parameter setting.
    pub setting: Setting,
    /// Index of the algorithm in the scenario's list.
    pub algorithm: usize,
    /// Its name in outputs.
    pub name: String,
    /// ε and δ used.
    pub params: Params,
    /// Results over the runs.
    pub stats: IdentifyStats,
}

/// Runs every (instance, N, setting, algorithm) cell of an identification scenario. Run `r` of an
/// (instance, N) draws from `stream(seed, hash(instance label, N), r)` whatever the algorithm,
/// so that algorithms face the same random start.
pub(crate) fn run_identification(
    s: &IdentificationScenario,
    opts: &RunOptions,
) -> Result<Vec<IdentifyCell>, RunError> {
    let mut cells = Vec::new();
    for (i, inst) in s.instances.iter().enumerate() {
        for (p, arms) in inst.points.iter().enumerate() {
            for &setting in &s.settings {
                for (a, algorithm) in s.algorithms.iter().enumerate() {
                    if algorithm.runs_in(setting) {
                        cells.push(IdentifyCell {
                            instance: i,
                            point: p,
                            setting,
                            algorithm: a,
                            name: algorithm.name().to_string(),
                            params: s.params(algorithm, setting, arms.len()),
                            stats: IdentifyStats::new(),
                        });
                    }
                }
            }
        }
    }
    let problem = |cell: &IdentifyCell| {
        let arms = &s.instances[cell.instance].points[cell.point];
        Problem {
            arms: arms.len(),
            k: arms.k(),
            sigma: arms.rewards().sigma(),
            confidence: s.confidence,
            setting: cell.setting,
            params: cell.params,
        }
    };
    if let Some(cell) = cells
        .iter()
        .find(|c| s.algorithms[c.algorithm].build(&problem(c)).is_none())
    {
        return Err(RunError::NotRunnable(cell.name.clone()));
    }
    let shard = opts.shard;
    let shard_runs = shard.runs_of(s.runs);
    let total = (cells.len() as u64).saturating_mul(shard_runs);
    info!(scenario = %s.name, cells = cells.len(), runs = shard_runs, "identifying: {total} runs");
    let pool = thread_pool(opts.threads)?;
    let progress = Progress::new(
        tracing::info_span!("identify", indicatif.pb_show = tracing::field::Empty),
        &s.name,
        total,
        "runs",
    );
    let started = Instant::now();
    {
        let _entered = progress.span().enter();
        pool.install(|| {
            cells.par_iter_mut().for_each(|cell| {
                let inst = &s.instances[cell.instance];
                let arms = &inst.points[cell.point];
                let domain = label_hash(&[&inst.label, &arms.len().to_string()]);
                let cap = s.sample_cap;
                let problem = problem(cell);
                let algorithm = &s.algorithms[cell.algorithm];
                cell.stats = (0..shard_runs)
                    .into_par_iter()
                    .map(|i| shard.run(i))
                    .fold(
                        || (IdentifyStats::new(), Vec::with_capacity(arms.k())),
                        |(mut stats, mut answer), run| {
                            if opts.cancel.is_cancelled() {
                                return (stats, answer);
                            }
                            let mut rng = stream(s.seed, domain, run);
                            let outcome = algorithm
                                .build(&problem)
                                .expect("every algorithm was checked runnable before the runs")
                                .visit(Identify {
                                    arms,
                                    cap,
                                    rng: &mut rng,
                                    answer: &mut answer,
                                    cancel: &opts.cancel,
                                });
                            stats.absorb(run, &outcome);
                            progress.inc();
                            (stats, answer)
                        },
                    )
                    .map(|(stats, _)| stats)
                    .reduce(IdentifyStats::new, |mut a, b| {
                        a.merge(&b);
                        a
                    });
            });
        });
    }
    opts.cancel.check()?;
    info!(
        seconds = started.elapsed().as_secs_f64(),
        "identification finished"
    );
    Ok(cells)
}

/// Runs one identification with the concrete algorithm type.
struct Identify<'a> {
    arms: &'a Arms,
    cap: u64,
    rng: &'a mut SimRng,
    answer: &'a mut Vec<usize>,
    cancel: &'a Cancel,
}

impl IdentifierVisitor for Identify<'_> {
    type Output = IdentifyOutcome;

    fn visit<I: Identifier>(self, mut algorithm: I) -> Self::Output {
        crate::identify::identify(
            self.arms,
            &mut algorithm,
            self.cap,
            self.rng,
            self.answer,
            self.cancel,
        )
    }
}
