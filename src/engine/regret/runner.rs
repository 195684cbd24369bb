//! Monte Carlo runs of a regret scenario: seeding, parallelism, progress.
//!
//! Every (experiment, policy, run) is an independent task. Run `r` of an experiment draws from
//! `rng::stream(seed, domain, r)` where the domain identifies the experiment (0 for a scenario
//! with a single channel list, a hash of the configuration label in a grid): all policies of
//! the same run start from the same random state (common random numbers), and nothing depends
//! on which thread or shard ran it. Runs fold into [`PolicyStats`] whose merge is exact, so rayon
//! may split and join the work any way it likes and the output bytes never change.

use crate::engine::pipeline::{self, Kind, RunError, RunOptions, RunSink, RunStats};
use crate::engine::recorder::{PolicyStats, RunRecord, add_differences};
use crate::engine::regret::classic_loop::{self, ClassicBuffers};
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
    let started = Instant::now();
    let faults = ListFaults::default();
    let runs = Runs {
        s,
        checkpoints: &checkpoints,
        simple: s.experiments.iter().map(|e| Simple::of(&e.env)).collect(),
        faults: &faults,
    };
    let span = tracing::info_span!("simulate", indicatif.pb_show = tracing::field::Empty);
    let stats = pipeline::run(&runs, opts, span, &faults)?;
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

/// A regret scenario as the pipeline runs it: a job per experiment, its policies the job's
/// parts (every policy runs on each run's sample paths, so that they share them).
struct Runs<'a> {
    s: &'a RegretScenario,
    checkpoints: &'a [u64],
    /// Per experiment, the papers' setting's fast path, when every channel is in it.
    simple: Vec<Option<Simple>>,
    /// Where a user's policy's broken list is reported.
    faults: &'a ListFaults,
}

impl Kind for Runs<'_> {
    type Stats = Vec<PolicyStats>;
    type Worker<'w>
        = Worker<'w>
    where
        Self: 'w;

    fn name(&self) -> &str {
        &self.s.header.name
    }
    fn runs(&self) -> u64 {
        self.s.header.runs
    }
    fn jobs(&self) -> usize {
        self.s.experiments.len()
    }
    fn parts(&self) -> usize {
        self.s.policies.len()
    }
    fn worker(&self, e: usize) -> Worker<'_> {
        let exp = &self.s.experiments[e];
        Worker::new(
            self.s,
            exp,
            self.checkpoints,
            self.simple[e].as_ref(),
            self.faults,
            self.empty(e),
        )
    }
    fn empty(&self, e: usize) -> Vec<PolicyStats> {
        let k = self.s.experiments[e].env.len();
        let n = self.checkpoints.len();
        self.s
            .policies
            .iter()
            .map(|_| PolicyStats::new(k, n))
            .collect()
    }
}

impl RunStats for Vec<PolicyStats> {
    fn merge(&mut self, other: &Self) {
        for (x, y) in self.iter_mut().zip(other) {
            x.merge(y);
        }
    }
    fn stream(&mut self, part: usize, sink: &dyn RunSink) -> std::io::Result<()> {
        for (p, st) in self.iter_mut().enumerate() {
            sink.rows(part + p, &st.finals)?;
            st.finals.clear();
        }
        Ok(())
    }
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
        stats: Vec<PolicyStats>,
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
            stats,
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
