//! The runs of any experiment kind, written once: a shard's runs in batches of consecutive
//! runs, each batch split among the worker threads, folded into the kind's exact statistics
//! and handed on (to the runs sink) in run order, until the runs are done or cancelled.
//!
//! A kind brings its [`Worker`] (the buffers of one thread, reused from run to run, and the
//! statistics it folds runs into) and what to do with a finished batch; the statistics merge
//! exactly (sums kept as exact expansions), so however rayon splits and joins the work, and
//! however runs are sharded, the bytes never change.
//!
//! What every kind's runs share is here too: how to run ([`RunOptions`]: threads, the shard's
//! runs, the cancel flag, where per-run rows stream), why a run could not start
//! ([`RunError`]) and the thread pool.

use crate::engine::progress::Progress;
use crate::engine::recorder::Row;
use crate::engine::shard::Shard;
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
    /// Where each run's values at the horizon go; `None`: kept in [`PolicyStats::finals`].
    pub sink: Option<std::sync::Arc<dyn RunSink>>,
    /// The same for a many-users scenario's runs.
    pub multi_sink: Option<std::sync::Arc<dyn MultiRunSink>>,
}

/// Takes each run's values at the horizon as the runs finish, so that memory does not grow
/// with the number of runs (the command line writes them to `runs.csv` in the staging folder).
pub(crate) trait RunSink: Send + Sync + std::fmt::Debug {
    /// The rows of experiment `experiment`, policy `policy`, for consecutive runs in ascending
    /// order, continuing where the previous call for the same pair ended.
    fn rows(&self, experiment: usize, policy: usize, rows: &[(u64, Row)]) -> std::io::Result<()>;
}

/// Takes each run's values at the horizon as the runs finish, so that memory does not grow with
/// the number of runs (the command line writes them to `runs.csv` in the staging folder).
pub(crate) trait MultiRunSink: Send + Sync + std::fmt::Debug {
    /// The rows of policy `policy`, for consecutive runs in ascending order, continuing where
    /// the previous call for the same policy ended.
    fn rows(
        &self,
        policy: usize,
        rows: &[(u64, [f64; crate::engine::multi_loop::N_MULTI])],
    ) -> std::io::Result<()>;
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
    /// Rayon could not start its workers.
    #[error("cannot start {threads} worker threads: {error}")]
    ThreadPool {
        /// Threads asked for.
        threads: usize,
        /// The underlying error.
        error: rayon::ThreadPoolBuildError,
    },
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

/// Runs folded and handed on together: enough for every thread to stay busy, few enough that
/// the rows waiting for the sink stay small (1024 × policies × ~100 bytes).
pub(crate) const RUNS_PER_BATCH: u64 = 1024;

/// One thread's state for the runs of a kind: its buffers and the statistics it has folded.
pub(crate) trait Worker: Send {
    /// The statistics it folds runs into (exact, mergeable).
    type Stats: Send;
    /// Simulates run `run` (its index in the whole scenario) and folds it in.
    fn run(&mut self, run: u64, cancel: &Cancel);
    /// What it folded.
    fn into_stats(self) -> Self::Stats;
}

/// How a kind's statistics combine and what happens to a finished batch.
pub(crate) struct Fold<E, M, F> {
    /// The statistics of no run.
    pub empty: E,
    /// Adds the second statistics to the first (exactly: the order never matters).
    pub merge: M,
    /// A finished batch before it joins the total: its per-run rows go to the sink, in run
    /// order.
    pub flush: F,
}

/// Folds the shard's runs of `runs` into statistics, in batches (see the module docs); stops
/// early, with what it has, when `cancel` is set.
pub(crate) fn fold_runs<W, E, M, F>(
    shard: Shard,
    runs: u64,
    cancel: &Cancel,
    progress: &Progress,
    worker: impl Fn() -> W + Sync + Send,
    fold: Fold<E, M, F>,
) -> Result<W::Stats, RunError>
where
    W: Worker,
    E: Fn() -> W::Stats + Sync + Send,
    M: Fn(&mut W::Stats, &W::Stats) + Sync + Send,
    F: FnMut(&mut W::Stats) -> Result<(), RunError>,
{
    let Fold {
        empty,
        merge,
        mut flush,
    } = fold;
    let shard_runs = shard.runs_of(runs);
    let mut total = empty();
    let mut first = 0;
    while first < shard_runs && !cancel.is_cancelled() {
        let last = shard_runs.min(first + RUNS_PER_BATCH);
        let mut batch = (first..last)
            .into_par_iter()
            .map(|i| shard.run(i))
            .fold(&worker, |mut w, run| {
                if !cancel.is_cancelled() {
                    w.run(run, cancel);
                    progress.inc();
                }
                w
            })
            .map(Worker::into_stats)
            .reduce(&empty, |mut a, b| {
                merge(&mut a, &b);
                a
            });
        flush(&mut batch)?;
        merge(&mut total, &batch);
        first = last;
    }
    Ok(total)
}
