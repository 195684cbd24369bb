//! Monte Carlo runs of a regret scenario: seeding, parallelism, progress.
//!
//! Every (experiment, policy, run) is an independent task. Run `r` of an experiment draws from
//! `rng::stream(seed, domain, r)` where the domain identifies the experiment (0 for a scenario
//! with a single channel list, a hash of the configuration label in a grid): all policies of
//! the same run start from the same random state (common random numbers), and nothing depends
//! on which thread or shard ran it. Runs fold into [`PolicyStats`] whose merge is exact, so rayon
//! may split and join the work any way it likes and the output bytes never change.

use crate::engine::classic_loop::{self, ClassicBuffers};
use crate::engine::pipeline::{self, Fold, RunError, RunOptions, fold_runs, thread_pool};
use crate::engine::progress::Progress;
use crate::engine::recorder::{PolicyStats, RunRecord, add_differences};
use crate::engine::slot_loop::{Buffers, episode};
use crate::engine::spectrum::{General, Simple, Spectrum};
use crate::model::channel::{Environment, Paths};
use crate::policy::{AnyPolicy, Checked, ListFaults, Policy, PolicyVisitor};
use crate::scenario::RegretScenario;
use crate::util::cancel::Cancel;
use crate::util::crn::RunKey;
use crate::util::rng::{SimRng, label_hash, stream};
use std::time::Instant;
use tracing::info;

/// Results of a regret scenario: per experiment, per policy (scenario order).
#[derive(Clone, Debug)]
pub(crate) struct RegretStats {
    /// Slots at which curves were recorded.
    pub checkpoints: Vec<u64>,
    /// `stats[e][p]`: experiment `e`, policy `p`.
    pub stats: Vec<Vec<PolicyStats>>,
    /// Whether the per-run rows went to a [`RunSink`] (then `finals` are empty).
    pub streamed: bool,
}

impl RegretStats {
    /// Rebuilds the paired differences to the reference policy from the kept per-run rows
    /// (statistics read back from shards carry the rows, not the differences). Exact sums: the
    /// same bytes as the differences streamed during the run.
    pub(crate) fn pair_finals(&mut self, reference: Option<usize>) {
        let Some(r) = reference else { return };
        for per_policy in &mut self.stats {
            let reference = std::mem::take(&mut per_policy[r].finals);
            for (p, st) in per_policy.iter_mut().enumerate() {
                let mut paired = Default::default();
                if p != r {
                    for ((_, mine), (_, theirs)) in st.finals.iter().zip(&reference) {
                        add_differences(&mut paired, mine, theirs);
                    }
                }
                st.paired = paired;
            }
            per_policy[r].finals = reference;
        }
    }
}

/// The random-stream domain of experiment `label` (see the module docs).
pub(crate) fn experiment_domain(scenario: &RegretScenario, label: &str) -> u64 {
    if scenario.is_grid {
        label_hash(&[label])
    } else {
        0
    }
}

/// Runs every (experiment, policy) of a regret scenario over the shard's runs.
///
/// Each run is one task: it first runs the benchmark (the oracle) on the run's sample paths,
/// then every policy on the same paths (common random numbers), so that realised regret is the
/// benchmark's reward minus the policy's on identical spectrum. Runs fold into exact
/// statistics, so the split into tasks never changes a byte.
pub(crate) fn run_regret(s: &RegretScenario, opts: &RunOptions) -> Result<RegretStats, RunError> {
    let checkpoints = s.header.checkpoints.slots(s.header.horizon);
    if let Some(e) = s.experiments.first() {
        for p in &s.policies {
            if p.build(&e.env).is_none() {
                return Err(RunError::NotRunnable(p.label.clone()));
            }
        }
    }
    let shard = opts.shard;
    let shard_runs = shard.runs_of(s.header.runs);
    let total = s.experiments.len() as u64 * shard_runs;
    info!(
        scenario = %s.header.name,
        experiments = s.experiments.len(),
        policies = s.policies.len(),
        runs = shard_runs,
        horizon = s.header.horizon,
        shard = %shard,
        "simulating {} runs of {} policies, {} slots each",
        total,
        s.policies.len(),
        s.header.horizon
    );
    let pool = thread_pool(opts.threads)?;
    let progress = Progress::new(
        tracing::info_span!("simulate", indicatif.pb_show = tracing::field::Empty),
        &s.header.name,
        total,
        "runs",
    );
    let started = Instant::now();
    let faults = ListFaults::default();
    let runs = Runs {
        s,
        checkpoints: &checkpoints,
        opts,
    };
    let stats = {
        let _entered = progress.span().enter();
        pool.install(|| {
            s.experiments
                .iter()
                .enumerate()
                .map(|(e, exp)| run_experiment(&runs, e, exp, &faults, &progress))
                .collect::<Result<Vec<_>, RunError>>()
        })?
    };
    // A user's policy's fault stopped the run: say so rather than "cancelled".
    if let Some(fault) = faults.take() {
        return Err(fault.into());
    }
    opts.cancel.check()?;
    let elapsed = started.elapsed();
    info!(
        seconds = elapsed.as_secs_f64(),
        slots_per_second = (total as f64 * (s.policies.len() + 1) as f64 * s.header.horizon as f64)
            / elapsed.as_secs_f64().max(1e-9),
        "simulation finished"
    );
    Ok(RegretStats {
        checkpoints,
        stats,
        streamed: opts.sink.is_some(),
    })
}

/// What every experiment's runs share.
#[derive(Clone, Copy)]
struct Runs<'a> {
    s: &'a RegretScenario,
    checkpoints: &'a [u64],
    opts: &'a RunOptions,
}

/// Every run of experiment `e`, in batches of consecutive runs: each batch is split among the
/// threads, folded exactly, and its per-run rows handed to the sink in run order.
fn run_experiment(
    runs: &Runs<'_>,
    e: usize,
    exp: &crate::scenario::Experiment,
    faults: &ListFaults,
    progress: &Progress,
) -> Result<Vec<PolicyStats>, RunError> {
    let Runs {
        s,
        checkpoints,
        opts,
    } = *runs;
    let simple = Simple::of(&exp.env);
    let worker = || Worker::new(s, exp, checkpoints, simple.as_ref(), faults);
    let fold = Fold {
        empty: || worker().stats,
        merge: |a: &mut Vec<PolicyStats>, b: &Vec<PolicyStats>| {
            for (x, y) in a.iter_mut().zip(b) {
                x.merge(y);
            }
        },
        flush: |batch: &mut Vec<PolicyStats>| {
            if let Some(sink) = &opts.sink {
                for (p, st) in batch.iter_mut().enumerate() {
                    sink.rows(e, p, &st.finals).map_err(RunError::Sink)?;
                    st.finals.clear();
                }
            }
            Ok(())
        },
    };
    fold_runs(
        opts.shard,
        s.header.runs,
        &opts.cancel,
        progress,
        worker,
        fold,
    )
}

/// One worker's buffers for the runs of one experiment, reused from run to run.
struct Worker<'a> {
    s: &'a RegretScenario,
    exp: &'a crate::scenario::Experiment,
    checkpoints: &'a [u64],
    domain: u64,
    /// The policy paired differences are taken against.
    reference: Option<usize>,
    /// The papers' setting's fast path, when every channel is in it.
    simple: Option<&'a Simple>,
    stats: Vec<PolicyStats>,
    record: RunRecord,
    paths: Paths,
    buffers: Buffers,
    classic: ClassicBuffers,
    /// Where a user's policy's broken list is reported.
    faults: &'a ListFaults,
}

impl<'a> Worker<'a> {
    fn new(
        s: &'a RegretScenario,
        exp: &'a crate::scenario::Experiment,
        checkpoints: &'a [u64],
        simple: Option<&'a Simple>,
        faults: &'a ListFaults,
    ) -> Worker<'a> {
        let k = exp.env.len();
        let n = checkpoints.len();
        Worker {
            s,
            exp,
            checkpoints,
            domain: experiment_domain(s, &exp.label),
            reference: s.reference_index(),
            simple,
            stats: s.policies.iter().map(|_| PolicyStats::new(k, n)).collect(),
            record: RunRecord::new(k, n),
            paths: Paths::default(),
            buffers: Buffers::new(k),
            classic: ClassicBuffers::default(),
            faults,
        }
    }

    /// Run `run`: every policy on the run's sample paths, the benchmark beside each.
    fn simulate(&mut self, run: u64, cancel: &Cancel) {
        let env = &self.exp.env;
        let key = RunKey::new(self.s.header.seed, self.domain, run);
        for (entry, stats) in self.s.policies.iter().zip(&mut self.stats) {
            self.record.reset();
            self.paths.reset(env, key);
            let classic = entry.single_channel();
            let policy = match entry
                .build(env)
                .expect("every policy was checked runnable before the runs started")
            {
                // A user's lists are checked where they enter (built-ins keep the rule).
                AnyPolicy::Custom(p) => AnyPolicy::Custom(Box::new(Checked::new(
                    p,
                    &entry.label,
                    env.len(),
                    matches!(&entry.policy, crate::scenario::PolicyKind::Custom(c) if c.lists_one_channel()),
                    self.faults.clone(),
                    cancel.clone(),
                ))),
                builtin => builtin,
            };
            policy.visit(Episode {
                env,
                simple: self.simple,
                classic: classic.then_some(&mut self.classic),
                horizon: self.s.header.horizon,
                checkpoints: self.checkpoints,
                rng: &mut stream(self.s.header.seed, self.domain, run),
                paths: &mut self.paths,
                record: &mut self.record,
                buffers: &mut self.buffers,
                cancel,
            });
            stats.absorb(run, &self.record);
        }
        // The paired differences to the reference policy, streamed (the rows are at hand).
        if let Some(r) = self.reference {
            let reference = *self.stats[r].finals.last().expect("run just absorbed");
            for (p, stats) in self.stats.iter_mut().enumerate() {
                if p != r {
                    let mine = *stats.finals.last().expect("run just absorbed");
                    stats.pair(&mine.1, &reference.1);
                }
            }
        }
    }
}

impl pipeline::Worker for Worker<'_> {
    type Stats = Vec<PolicyStats>;

    fn run(&mut self, run: u64, cancel: &Cancel) {
        self.simulate(run, cancel);
    }

    fn into_stats(self) -> Vec<PolicyStats> {
        self.stats
    }
}

/// Runs one episode with the concrete policy type, on the fast path where it applies.
struct Episode<'a> {
    env: &'a Environment,
    simple: Option<&'a Simple>,
    /// The classic loop's buffers, for a built-in policy that lists one channel per slot.
    classic: Option<&'a mut ClassicBuffers>,
    horizon: u64,
    checkpoints: &'a [u64],
    rng: &'a mut SimRng,
    paths: &'a mut Paths,
    record: &'a mut RunRecord,
    buffers: &'a mut Buffers,
    cancel: &'a Cancel,
}

impl PolicyVisitor for Episode<'_> {
    type Output = ();

    fn visit<P: Policy>(self, mut policy: P) {
        match self.simple {
            Some(simple) if self.classic.is_some() => self.play_classic(&mut policy, simple),
            Some(simple) => self.play(&mut policy, simple),
            None => {
                let general = General::of(self.env);
                self.play(&mut policy, &general)
            }
        }
    }
}

impl Episode<'_> {
    /// The episode of a one-channel policy on the papers' channels.
    fn play_classic<P: Policy>(self, policy: &mut P, spectrum: &Simple) {
        let buffers = self.classic.expect("the classic loop's buffers");
        classic_loop::episode(
            self.env,
            spectrum,
            policy,
            self.horizon,
            self.checkpoints,
            self.rng,
            self.paths,
            self.record,
            buffers,
            self.cancel,
        );
    }

    /// The episode on spectrum `S` (monomorphised for both paths).
    fn play<P: Policy, S: Spectrum>(self, policy: &mut P, spectrum: &S) {
        episode(
            self.env,
            spectrum,
            policy,
            self.horizon,
            self.checkpoints,
            self.rng,
            self.paths,
            self.record,
            self.buffers,
            self.cancel,
        );
    }
}
