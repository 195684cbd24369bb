//! Monte Carlo runs: seeding, parallelism, progress.
//!
//! Every (experiment, policy, run) is an independent task. Run `r` of an experiment draws from
//! `rng::stream(seed, domain, r)` where the domain identifies the experiment (0 for a scenario
//! with a single channel list, a hash of the configuration label in a grid): all policies of
//! the same run start from the same random state (common random numbers), and nothing depends
//! on which thread or shard ran it. Runs fold into [`PolicyStats`] whose merge is exact, so rayon
//! may split and join the work any way it likes and the output bytes never change.

use crate::channel::Environment;
use crate::identify::confidence::{Params, Setting};
use crate::identify::instance::Arms;
use crate::identify::{Identifier, IdentifierVisitor, IdentifyOutcome, IdentifyStats, Problem};
use crate::policy::{Policy, PolicyVisitor};
use crate::progress::Progress;
use crate::recorder::{PolicyStats, RunRecord};
use crate::rng::{SimRng, label_hash, stream};
use crate::scenario::IdentificationScenario;
use crate::scenario::RegretScenario;
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

    /// Whether this is the whole job.
    pub fn is_whole(&self) -> bool {
        self.count == 1
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
pub struct RunOptions {
    /// Worker threads (default: one per core).
    pub threads: Option<usize>,
    /// The runs to simulate.
    pub shard: Shard,
}

/// Results of a regret scenario: per experiment, per policy (scenario order).
#[derive(Clone, Debug)]
pub struct RegretStats {
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
    /// Rayon could not start its workers.
    #[error("cannot start {threads} worker threads: {source}")]
    ThreadPool {
        /// Threads asked for.
        threads: usize,
        /// The underlying error.
        source: rayon::ThreadPoolBuildError,
    },
}

/// The random-stream domain of experiment `label` (see the module docs).
pub fn experiment_domain(scenario: &RegretScenario, label: &str) -> u64 {
    if scenario.is_grid {
        label_hash(&[label])
    } else {
        0
    }
}

/// Builds the worker pool.
pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool, RunError> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        builder = builder.num_threads(n);
    }
    builder.build().map_err(|source| RunError::ThreadPool {
        threads: threads.unwrap_or(0),
        source,
    })
}

/// Runs every (experiment, policy) of a regret scenario over the shard's runs.
pub fn run_regret(s: &RegretScenario, opts: &RunOptions) -> Result<RegretStats, RunError> {
    let checkpoints = s.checkpoints.slots(s.horizon);
    let runs: Vec<u64> = (0..s.runs).filter(|&r| opts.shard.contains(r)).collect();
    let jobs: Vec<(usize, usize)> = (0..s.experiments.len())
        .flat_map(|e| (0..s.policies.len()).map(move |p| (e, p)))
        .collect();
    let total = (jobs.len() * runs.len()) as u64;
    info!(
        scenario = %s.name,
        experiments = s.experiments.len(),
        policies = s.policies.len(),
        runs = runs.len(),
        horizon = s.horizon,
        shard = %opts.shard,
        "simulating {} runs of {} slots",
        total,
        s.horizon
    );
    if let Some(e) = s.experiments.first() {
        for p in &s.policies {
            if p.build(&e.env).is_none() {
                return Err(RunError::NotRunnable(p.label.clone()));
            }
        }
    }
    let pool = thread_pool(opts.threads)?;
    let progress = Progress::new(
        tracing::info_span!("simulate", indicatif.pb_show = tracing::field::Empty),
        &s.name,
        total,
        "runs",
    );
    let started = Instant::now();
    let flat: Vec<PolicyStats> = {
        let _entered = progress.span().enter();
        pool.install(|| {
            jobs.par_iter()
                .map(|&(e, p)| run_job(s, e, p, &runs, &checkpoints, &progress))
                .collect()
        })
    };
    let elapsed = started.elapsed();
    info!(
        seconds = elapsed.as_secs_f64(),
        slots_per_second = (total as f64 * s.horizon as f64) / elapsed.as_secs_f64().max(1e-9),
        "simulation finished"
    );
    let mut flat = flat.into_iter();
    let stats = s
        .experiments
        .iter()
        .map(|_| flat.by_ref().take(s.policies.len()).collect())
        .collect();
    Ok(RegretStats { checkpoints, stats })
}

/// All runs of one policy on one experiment.
fn run_job(
    s: &RegretScenario,
    e: usize,
    p: usize,
    runs: &[u64],
    checkpoints: &[u64],
    progress: &Progress,
) -> PolicyStats {
    let exp = &s.experiments[e];
    let entry = &s.policies[p];
    let k = exp.env.len();
    let ncp = checkpoints.len();
    let domain = experiment_domain(s, &exp.label);
    let started = Instant::now();
    let stats = runs
        .par_iter()
        .fold(
            || {
                (
                    PolicyStats::new(k, ncp),
                    RunRecord::new(k, ncp),
                    Vec::with_capacity(k),
                )
            },
            |(mut stats, mut record, mut list), &run| {
                record.reset();
                let mut rng = stream(s.seed, domain, run);
                let policy = entry
                    .build(&exp.env)
                    .expect("every policy was checked runnable before the runs started");
                policy.visit(Episode {
                    env: &exp.env,
                    horizon: s.horizon,
                    checkpoints,
                    rng: &mut rng,
                    record: &mut record,
                    list: &mut list,
                });
                stats.absorb(&record);
                progress.inc();
                (stats, record, list)
            },
        )
        .map(|(stats, _, _)| stats)
        .reduce(
            || PolicyStats::new(k, ncp),
            |mut a, b| {
                a.merge(&b);
                a
            },
        );
    tracing::debug!(
        experiment = %exp.label,
        policy = %entry.label,
        runs = runs.len(),
        seconds = started.elapsed().as_secs_f64(),
        "policy done"
    );
    stats
}

/// Runs one episode with the concrete policy type.
struct Episode<'a> {
    env: &'a Environment,
    horizon: u64,
    checkpoints: &'a [u64],
    rng: &'a mut SimRng,
    record: &'a mut RunRecord,
    list: &'a mut Vec<usize>,
}

impl PolicyVisitor for Episode<'_> {
    type Output = ();

    fn visit<P: Policy>(self, mut policy: P) {
        crate::sim::episode(
            self.env,
            &mut policy,
            self.horizon,
            self.checkpoints,
            self.rng,
            self.record,
            self.list,
        );
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
pub struct IdentifyCell {
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
pub fn run_identification(
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
                            stats: IdentifyStats::new(s.sample_cap),
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
    let runs: Vec<u64> = (0..s.runs).filter(|&r| opts.shard.contains(r)).collect();
    let total = (cells.len() * runs.len()) as u64;
    info!(scenario = %s.name, cells = cells.len(), runs = runs.len(), "identifying: {total} runs");
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
                cell.stats = runs
                    .par_iter()
                    .fold(
                        || (IdentifyStats::new(cap), Vec::with_capacity(arms.k())),
                        |(mut stats, mut answer), &run| {
                            let mut rng = stream(s.seed, domain, run);
                            let outcome = algorithm
                                .build(&problem)
                                .expect("every algorithm was checked runnable before the runs")
                                .visit(Identify {
                                    arms,
                                    cap,
                                    rng: &mut rng,
                                    answer: &mut answer,
                                });
                            stats.absorb(&outcome);
                            progress.inc();
                            (stats, answer)
                        },
                    )
                    .map(|(stats, _)| stats)
                    .reduce(
                        || IdentifyStats::new(cap),
                        |mut a, b| {
                            a.merge(&b);
                            a
                        },
                    );
            });
        });
    }
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
}

impl IdentifierVisitor for Identify<'_> {
    type Output = IdentifyOutcome;

    fn visit<I: Identifier>(self, mut algorithm: I) -> Self::Output {
        crate::identify::identify(self.arms, &mut algorithm, self.cap, self.rng, self.answer)
    }
}
