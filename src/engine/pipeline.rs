//! The runs of any experiment kind, written once: each of a kind's jobs (an experiment of a
//! regret scenario, a team of a many-users one, an identification cell) runs the shard's runs
//! in batches of consecutive runs, each batch split into fixed groups of consecutive runs that
//! the worker threads take (a worker per group), folded into the
//! kind's exact statistics and handed on (to the runs sink) in run order, until the runs are
//! done, a user's policy breaks its contract, or the run is cancelled.
//!
//! A kind ([`Kind`]) brings its jobs, its [`Worker`] (the buffers of one thread, reused from
//! run to run, and the statistics it folds runs into) and its [`RunStats`]; the statistics
//! merge exactly (sums kept as exact expansions), so however rayon splits and joins the work,
//! and however runs are sharded, the bytes never change. Everything else is here, once: the
//! thread pool, the batches and their groups, the reduce, the runs stream, progress, the faults of a
//! user's policy and cancellation.
//!
//! What every kind's runs share is here too: how to run ([`RunOptions`]: threads, the shard's
//! runs, the cancel flag, where per-run rows stream), why a run could not start
//! ([`RunError`]) and the thread pool.

use crate::engine::progress::Progress;
use crate::engine::shard::Shard;
use crate::policy::ListFaults;
use crate::util::cancel::{Cancel, Cancelled};
use rayon::prelude::*;

/// How to run.
#[derive(Clone, Debug, Default)]
pub(crate) struct RunOptions {
    /// Worker threads (default: one per core).
    pub threads: Option<usize>,
    /// The runs to simulate.
    pub shard: Shard,
    /// Stops the runs when set.
    pub cancel: Cancel,
    /// Where each run's values at the horizon go; `None`: kept in the statistics (`finals`).
    pub sink: Option<std::sync::Arc<dyn RunSink>>,
    /// What the progress bar names (default: the scenario's name); a sweep's cells say which
    /// cell of how many they are.
    pub label: Option<String>,
    /// Where the runs done and to do are counted for a watcher on another thread.
    pub counter: Option<crate::engine::progress::RunCounter>,
}

/// One batch of one part's per-run rows, in the record of the kind that ran them, which writes
/// itself as rows of `runs.csv` (each kind's report says how, beside its header): the pipeline
/// and the sink name no kind.
pub(crate) trait RunRows {
    /// Whether the batch holds no run.
    fn is_empty(&self) -> bool;
    /// Writes the rows, in run order, labelled as `part` says.
    fn write(
        &self,
        w: &mut csv::Writer<&mut dyn std::io::Write>,
        part: &PartLabels,
    ) -> Result<(), csv::Error>;
}

/// What labels a part's rows in `runs.csv`.
#[derive(Clone, Debug, Default)]
pub(crate) struct PartLabels {
    /// The part's experiment (empty for a kind whose parts are policies alone).
    pub experiment: String,
    /// The part's policy (or team).
    pub policy: String,
    /// Whether the rows end with the primary user's returns (`reward: TimeLeft`).
    pub returns: bool,
}

/// Takes each run's values at the horizon as the runs finish, so that memory does not grow
/// with the number of runs (the command line writes them to `runs.csv` in the staging folder).
pub(crate) trait RunSink: Send + Sync + std::fmt::Debug {
    /// The rows of part `part` (a kind's parts are its (job, policy) pairs in scenario order,
    /// [`Kind::parts`] per job), for consecutive runs in ascending order, continuing where the
    /// previous call for the same part ended.
    fn rows(&self, part: usize, rows: &dyn RunRows) -> std::io::Result<()>;
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
    /// A user's policy listed a channel that is not one, or one twice.
    #[error(transparent)]
    Policy(#[from] crate::policy::ListFault),
    /// The per-run rows could not be written.
    #[error("cannot write the per-run rows: {0}")]
    Sink(std::io::Error),
    /// More worker threads than [`MAX_THREADS`] were asked for.
    #[error(
        "threads: must lie in 1..={max} (got {threads}): more workers than that only contend for the cores"
    )]
    TooManyThreads {
        /// Threads asked for.
        threads: usize,
        /// The largest count allowed, [`MAX_THREADS`].
        max: usize,
    },
    /// Rayon could not start its workers.
    #[error("cannot start {threads} worker threads: {error}")]
    ThreadPool {
        /// Threads asked for.
        threads: usize,
        /// The underlying error.
        error: rayon::ThreadPoolBuildError,
    },
}

/// The most worker threads a run, a training environment or `--threads` may ask for: the
/// bound is checked before any thread or buffer is made (a count such as 2⁶² would otherwise
/// overflow the batch arithmetic or ask the system for that many threads).
pub const MAX_THREADS: usize = 4095;

/// Builds the worker pool.
pub(crate) fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool, RunError> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        if n == 0 || n > MAX_THREADS {
            return Err(RunError::TooManyThreads {
                threads: n,
                max: MAX_THREADS,
            });
        }
        builder = builder.num_threads(n);
    }
    builder.build().map_err(|source| RunError::ThreadPool {
        threads: threads.unwrap_or(0),
        error: source,
    })
}

/// One thread's state for the runs of a job: its buffers and the statistics it has folded.
pub(crate) trait Worker: Send {
    /// The statistics it folds runs into (exact, mergeable).
    type Stats: RunStats;
    /// Simulates run `run` (its index in the whole scenario) and folds it in.
    fn run(&mut self, run: u64, cancel: &Cancel);
    /// What it folded.
    fn into_stats(self) -> Self::Stats;
}

/// A kind's statistics of some runs of one job: exact, so that they merge in any order to the
/// same bytes (they are also the body of a shard's `partial.json`).
pub(crate) trait RunStats: Send {
    /// Adds `other`'s runs (exactly: the order never matters).
    fn merge(&mut self, other: &Self);
    /// Hands the per-run rows kept since the last call to `sink`, the first of its parts as
    /// part `part`, and forgets them. The default keeps them (a kind with no runs stream).
    fn stream(&mut self, part: usize, sink: &dyn RunSink) -> std::io::Result<()> {
        let _ = (part, sink);
        Ok(())
    }
}

/// An experiment kind as the pipeline runs it: its checked scenario split into jobs (an
/// experiment, a team, a cell), every job run over the same runs by a [`Worker`] into the
/// kind's [`RunStats`].
pub(crate) trait Kind: Sync {
    /// What one job's runs fold into.
    type Stats: RunStats;
    /// One thread's buffers for one job.
    type Worker<'w>: Worker<Stats = Self::Stats>
    where
        Self: 'w;
    /// The scenario's name (progress).
    fn name(&self) -> &str;
    /// Runs per job in the whole scenario (a shard runs its share).
    fn runs(&self) -> u64;
    /// How many jobs.
    fn jobs(&self) -> usize;
    /// Parts of the runs stream per job (see [`RunSink`]).
    fn parts(&self) -> usize {
        1
    }
    /// Whether jobs may run at once. Default: one after the other, each split among the
    /// threads, so that the statistics and unflushed rows in memory are one job's (the memory
    /// estimate's assumption); a kind of many small jobs (identification's cells) opts in.
    fn parallel_jobs(&self) -> bool {
        false
    }
    /// A fresh worker for job `job`.
    fn worker(&self, job: usize) -> Self::Worker<'_>;
    /// The statistics of no run of job `job`.
    fn empty(&self, job: usize) -> Self::Stats;
}

/// Runs every job of `kind` over the shard's runs (see the module docs), progress shown under
/// `span`, and returns the jobs' statistics in order. A user's policy's broken list, which its
/// checker records in `faults` (and cancels the runs), is the error rather than "cancelled".
pub(crate) fn run<K: Kind>(
    kind: &K,
    opts: &RunOptions,
    span: tracing::Span,
    faults: &ListFaults,
) -> Result<Vec<K::Stats>, RunError> {
    let pool = thread_pool(opts.threads)?;
    let total = (kind.jobs() as u64).saturating_mul(opts.shard.runs_of(kind.runs()));
    let name = opts.label.as_deref().unwrap_or(kind.name());
    let progress = Progress::new(span, name, total, "runs", opts.counter.clone());
    let stats = {
        let _entered = progress.span().enter();
        pool.install(|| {
            let job = |job| fold_job(kind, job, opts, &progress);
            if kind.parallel_jobs() {
                (0..kind.jobs())
                    .into_par_iter()
                    .map(job)
                    .collect::<Result<Vec<_>, RunError>>()
            } else {
                (0..kind.jobs()).map(job).collect()
            }
        })
    };
    if let Some(fault) = faults.take() {
        return Err(fault.into());
    }
    let stats = stats?;
    opts.cancel.check()?;
    Ok(stats)
}

/// Runs folded and handed on together: enough for every thread to stay busy, few enough that
/// the rows waiting for the sink stay small (1024 × policies × ~100 bytes).
pub(crate) const RUNS_PER_BATCH: u64 = 1024;

/// The groups of consecutive runs a batch splits into, each folded by one worker in run order:
/// the groups are fixed (not rayon's adaptive splits), so how runs group never depends on the
/// thread count or timing, and a batch makes at most these 16 workers whatever the threads
/// (rayon's splits made and freed more workers in every thread's allocator arena: a 2-thread
/// run's peak memory grew by a quarter from 10³ to 3·10⁵ runs; with these groups 1.06×). 16
/// groups keep 16 threads busy on one job. A batch of fewer runs than 1024 splits into 16
/// groups too (of fewer runs each): fixed groups of 64 left a job of 20 runs to one thread
/// whatever `--threads` said (spectrum-markov.ron: 4.99 s on one thread, 4.83 s on two).
const GROUPS_PER_BATCH: u64 = 16;

/// Folds the shard's runs of job `job` into statistics, in batches (see the module docs);
/// stops early, with what it has, when the cancel flag is set.
fn fold_job<K: Kind>(
    kind: &K,
    job: usize,
    opts: &RunOptions,
    progress: &Progress,
) -> Result<K::Stats, RunError> {
    let (shard, cancel) = (opts.shard, &opts.cancel);
    let shard_runs = shard.runs_of(kind.runs());
    let mut total = kind.empty(job);
    let mut first = 0;
    while first < shard_runs && !cancel.is_cancelled() {
        let last = shard_runs.min(first + RUNS_PER_BATCH);
        let per_group = (last - first).div_ceil(GROUPS_PER_BATCH);
        let groups = (last - first).div_ceil(per_group);
        let mut batch = (0..groups)
            .into_par_iter()
            .map(|g| {
                let from = first + g * per_group;
                let mut w = kind.worker(job);
                for i in from..last.min(from + per_group) {
                    if cancel.is_cancelled() {
                        break;
                    }
                    w.run(shard.run(i), cancel);
                    progress.inc();
                }
                w.into_stats()
            })
            .reduce(
                || kind.empty(job),
                |mut a, b| {
                    a.merge(&b);
                    a
                },
            );
        if let Some(sink) = &opts.sink {
            batch
                .stream(job * kind.parts(), sink.as_ref())
                .map_err(RunError::Sink)?;
        }
        total.merge(&batch);
        first = last;
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_refuses_thread_counts_beyond_the_bound() {
        for n in [0, MAX_THREADS + 1, 1 << 52, usize::MAX] {
            let err = thread_pool(Some(n)).expect_err("refused");
            assert!(
                err.to_string()
                    .starts_with(&format!("threads: must lie in 1..=4095 (got {n})")),
                "{err}"
            );
        }
        assert!(thread_pool(Some(2)).is_ok());
    }
}
