//! Monte Carlo runs of a many-users scenario: seeding, parallelism, streaming statistics.
//!
//! Run `r` of policy `p` draws user 0's policy stream and paths exactly as a single-user run
//! `r` does (so that one user reproduces the single-user results bit for bit); user `u ≥ 1`
//! draws its policy stream, costs and sensing from the domain `label_hash(["user", u])`, and
//! shares the primary user's occupancy paths of user 0 (every user sees the same primary
//! user). Collision draws come from their own domain. Runs fold into exact statistics, so the
//! split among threads never changes a byte.

use crate::engine::multi_user::reduced::{ReducedBenchmark, Rule};
use crate::engine::multi_user::slot_loop::{
    Expected, MultiBuffers, MultiRecord, N_MULTI, RunDraws, Setup, episode,
};
use crate::engine::pipeline::{self, Kind, RunError, RunOptions, RunSink, RunStats};
use crate::engine::recorder::Metric;
use crate::engine::spectrum::{General, Simple, Spectrum};
use crate::model::channel::{Environment, Paths};
use crate::model::jamming::JamRun;
use crate::model::occupancy::OccupancyState;
use crate::model::sharing::{Shared, disjoint_lists, disjoint_lists_by, m_best, per_user};
use crate::multi::{Boxed, Shuffled};
use crate::multi::{Collision, Team, TeamVisitor};
use crate::policy::ListFaults;
use crate::scenario::MultiUserScenario;
use crate::scenario::multi_user::{Guard, TeamEntry};
use crate::util::cancel::Cancel;
use crate::util::crn::RunKey;
use crate::util::rng::{SimRng, label_hash, stream};
use crate::util::stats::Moments;
use serde::{Deserialize, Serialize};

/// The random-stream domain of user `u` (user 0: the single-user domain 0).
pub(crate) fn user_domain(u: usize) -> u64 {
    if u == 0 {
        0
    } else {
        label_hash(&["user", &u.to_string()])
    }
}

/// One policy's statistics over the runs (exact: a shard's serialise into `partial.json` and
/// merge into the unsharded run's, byte for byte).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct TeamStats {
    /// Runs absorbed.
    pub runs: u64,
    /// Per checkpoint, per metric.
    pub curves: Vec<[Moments; N_MULTI]>,
    /// Per user: net reward, acknowledged transmissions, switches.
    pub user_reward: Vec<Moments>,
    pub user_success: Vec<Moments>,
    pub switches: Vec<Moments>,
    /// Per channel: user-slots choosing it, users colliding on it.
    pub selections: Vec<Moments>,
    pub collisions: Vec<Moments>,
    /// Jain's fairness index of the users' acknowledged transmissions, per run.
    pub jain: Moments,
    /// The decomposition's three terms and the regret they sum to (classic model).
    pub decomposition: [Moments; 4],
    /// Runs whose three terms summed to the regret exactly (as exact sums).
    pub decomposition_exact: u64,
    /// Runs whose regret was at least its first term (sub-optimal selections).
    pub regret_above_first_term: u64,
    /// With jammers: what they did and the regret against the reduced benchmark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jams: Option<JamStats>,
    /// Probes per channel, summed over runs.
    pub channel_probes: Vec<u64>,
    /// User-slots whose transmission the primary user's return interrupted, summed over runs
    /// (`reward: TimeLeft` only; absent from `partial.json` when 0, as before the rule).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pu_returns: u64,
    /// Each run's values at the horizon, in run order (a value without a closed form is NaN,
    /// written `null`).
    #[serde(with = "nan_as_null")]
    pub finals: Vec<(u64, [f64; N_MULTI])>,
}

/// Per-run rows with NaN (no closed form) as JSON's `null`, which has no NaN.
mod nan_as_null {
    use super::N_MULTI;
    use serde::{Deserialize, Deserializer, Serializer};

    type Rows = Vec<(u64, [f64; N_MULTI])>;

    pub(super) fn serialize<S: Serializer>(rows: &Rows, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(
            rows.iter()
                .map(|(run, row)| (run, row.map(|x| (!x.is_nan()).then_some(x)))),
        )
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Rows, D::Error> {
        let rows: Vec<(u64, [Option<f64>; N_MULTI])> = Vec::deserialize(d)?;
        Ok(rows
            .into_iter()
            .map(|(run, row)| (run, row.map(|x| x.unwrap_or(f64::NAN))))
            .collect())
    }
}

impl TeamStats {
    pub(crate) fn new(k: usize, users: usize, checkpoints: usize) -> TeamStats {
        TeamStats {
            runs: 0,
            curves: vec![Default::default(); checkpoints],
            user_reward: vec![Moments::default(); users],
            user_success: vec![Moments::default(); users],
            switches: vec![Moments::default(); users],
            selections: vec![Moments::default(); k],
            collisions: vec![Moments::default(); k],
            jain: Moments::default(),
            decomposition: Default::default(),
            decomposition_exact: 0,
            regret_above_first_term: 0,
            jams: None,
            channel_probes: vec![0; k],
            pu_returns: 0,
            finals: Vec::new(),
        }
    }

    fn absorb(&mut self, run: u64, r: &MultiRecord) {
        self.runs += 1;
        for (c, row) in self.curves.iter_mut().zip(&r.rows) {
            for (m, &v) in c.iter_mut().zip(row) {
                if v.is_finite() {
                    m.add(v);
                }
            }
        }
        for (m, &v) in self.user_reward.iter_mut().zip(&r.user_reward) {
            m.add(v);
        }
        for (m, &v) in self.user_success.iter_mut().zip(&r.user_success) {
            m.add(v as f64);
        }
        for (m, &v) in self.switches.iter_mut().zip(&r.switches) {
            m.add(v as f64);
        }
        for (m, &v) in self.selections.iter_mut().zip(&r.selections) {
            m.add(v as f64);
        }
        for (m, &v) in self.collisions.iter_mut().zip(&r.collisions) {
            m.add(v as f64);
        }
        self.jain.add(jain(&r.user_success));
        if let Some(d) = &r.decomposition {
            for (m, x) in self.decomposition.iter_mut().zip(d) {
                m.add(x.value());
            }
            let mut sum = d[0].clone();
            sum.merge(&d[1]);
            sum.merge(&d[2]);
            if sum.canonical() == d[3].canonical() {
                self.decomposition_exact += 1;
            }
            if d[3].value() >= d[0].value() {
                self.regret_above_first_term += 1;
            }
        }
        for (a, b) in self.channel_probes.iter_mut().zip(&r.channel_probes) {
            *a += b;
        }
        self.pu_returns += r.pu_returns;
        if let Some(j) = &mut self.jams {
            j.absorb(r);
        }
        self.finals
            .push((run, *r.rows.last().expect("a checkpoint")));
    }

    pub(crate) fn merge(&mut self, o: &TeamStats) {
        self.runs += o.runs;
        for (a, b) in self.curves.iter_mut().zip(&o.curves) {
            for (x, y) in a.iter_mut().zip(b) {
                x.merge(y);
            }
        }
        for (a, b) in [
            (&mut self.user_reward, &o.user_reward),
            (&mut self.user_success, &o.user_success),
            (&mut self.switches, &o.switches),
            (&mut self.selections, &o.selections),
            (&mut self.collisions, &o.collisions),
        ] {
            for (x, y) in a.iter_mut().zip(b) {
                x.merge(y);
            }
        }
        self.jain.merge(&o.jain);
        for (x, y) in self.decomposition.iter_mut().zip(&o.decomposition) {
            x.merge(y);
        }
        self.decomposition_exact += o.decomposition_exact;
        self.regret_above_first_term += o.regret_above_first_term;
        for (a, b) in self.channel_probes.iter_mut().zip(&o.channel_probes) {
            *a += b;
        }
        self.pu_returns += o.pu_returns;
        if let (Some(a), Some(b)) = (&mut self.jams, &o.jams) {
            a.merge(b);
        }
        self.finals.extend_from_slice(&o.finals);
    }
}

/// What the jammers did to one policy's runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct JamStats {
    /// Per run, user-slots whose transmission a jammer destroyed.
    pub jammed: Moments,
    /// Per run, channel-slots jammed.
    pub jam_slots: Moments,
    /// Per run, the pseudo-regret at the horizon against the benchmark of the channels the
    /// jammers leave (where the pseudo-regret and that benchmark are computed).
    pub reduced_regret: Moments,
}

impl JamStats {
    fn absorb(&mut self, r: &MultiRecord) {
        self.jammed.add(r.jammed as f64);
        self.jam_slots.add(r.jam_slots as f64);
        let regret = r.rows.last().expect("a checkpoint")[Metric::PseudoRegret as usize];
        if regret.is_finite() {
            self.reduced_regret.add(regret - r.reduced_gap);
        }
    }

    fn merge(&mut self, o: &JamStats) {
        self.jammed.merge(&o.jammed);
        self.jam_slots.merge(&o.jam_slots);
        self.reduced_regret.merge(&o.reduced_regret);
    }
}

/// Whether a count is 0 (left out of `partial.json`).
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Jain's fairness index `(Σ x)² / (M · Σ x²)` of the users' acknowledged transmissions: 1 when
/// every user got as many, `1/M` when one got them all; 1 when nobody got any.
pub(crate) fn jain(x: &[u64]) -> f64 {
    let sum: f64 = x.iter().map(|&v| v as f64).sum();
    let squares: f64 = x.iter().map(|&v| (v as f64) * (v as f64)).sum();
    if squares == 0.0 {
        1.0
    } else {
        sum * sum / (x.len() as f64 * squares)
    }
}

/// Whether `jain` (one index per run) could hold indices of `users` users: its mean in
/// `[1/M, 1]`, and its spread one that values in that range have ([`Moments::within`]).
pub(crate) fn jain_bounds(jain: &Moments, users: usize) -> bool {
    let n = jain.count() as f64;
    let mean = jain.mean();
    let lo = 1.0 / users as f64;
    n == 0.0 || (mean >= lo - 1e-12 && mean <= 1.0 + 1e-12 && jain.within(lo, 1.0))
}

/// Results of a many-users scenario.
#[derive(Clone, Debug)]
pub(crate) struct MultiStats {
    /// Slots at which curves were recorded.
    pub checkpoints: Vec<u64>,
    /// Per policy.
    pub stats: Vec<TeamStats>,
    /// Per epoch of the channels, the benchmark.
    pub benchmarks: Vec<Shared>,
    /// How the pseudo-regret was computed.
    pub expected: Expected,
    /// Whether the per-run rows went to a [`RunSink`] (then `finals` are empty).
    pub streamed: bool,
}

/// Whether the classic closed forms apply to every policy of `s`.
pub(crate) fn expected_kind(s: &MultiUserScenario) -> Expected {
    expected_for(s, s.policies.iter().all(|p| p.is_classic()))
}

/// How the pseudo-regret of `s` is computed when every user lists one channel (`classic`) or
/// not.
pub(crate) fn expected_for(s: &MultiUserScenario, classic: bool) -> Expected {
    if !s.system_reward.is_linear() {
        // The closed forms are the sum's.
        Expected::None
    } else if s.users == 1 {
        Expected::Single
    } else if s.env.time_left().is_some() {
        // The closed forms are the unit reward's.
        Expected::None
    } else if s.user_theta.is_some() {
        // Per-user means: no closed form here (the decomposition assumes shared means).
        Expected::None
    } else if classic && !s.env.senses_imperfectly() && s.env.slot_duration().is_none() {
        Expected::Classic
    } else {
        Expected::None
    }
}

/// The benchmark of the channels the jammers of `s` leave, under the rule of its benchmark
/// (see [`crate::engine::multi_user::reduced`]), where it is defined.
pub(crate) fn reduced_benchmark(
    s: &MultiUserScenario,
    expected: Expected,
) -> Option<ReducedBenchmark<'_>> {
    let rule = match expected {
        Expected::Single => Rule::One,
        Expected::Classic => Rule::Classic,
        Expected::None => Rule::Lists,
    };
    ReducedBenchmark::of(s, rule)
}

/// The benchmark of each epoch (see [`crate::model::sharing`]).
pub(crate) fn benchmarks(s: &MultiUserScenario, expected: Expected) -> Vec<Shared> {
    benchmarks_for(s, expected, s.policies.iter().all(|p| p.is_classic()))
}

/// [`benchmarks`] for policies that list one channel per user (`classic`) or not.
pub(crate) fn benchmarks_for(
    s: &MultiUserScenario,
    expected: Expected,
    classic: bool,
) -> Vec<Shared> {
    benchmarks_until(s, expected, classic, &Cancel::new())
}

/// [`benchmarks_for`], giving up early once `cancel` is set (the exact benchmarks enumerate up
/// to 2²⁰ assignments per epoch: seconds, and minutes over many piecewise epochs). What it
/// then returns is inexact: the caller stops.
pub(crate) fn benchmarks_until(
    s: &MultiUserScenario,
    expected: Expected,
    classic: bool,
    cancel: &Cancel,
) -> Vec<Shared> {
    let copies = s.collision == Collision::NoCollision;
    let cost = s.env.mean_cost();
    if !s.system_reward.is_linear() {
        return system_benchmarks(s, copies);
    }
    if s.user_theta.is_some() && s.users > 1 {
        // i.i.d. channels: one epoch.
        let envs = s.user_envs();
        let of = |f: fn(&crate::model::channel::Epoch) -> &Vec<f64>| -> Vec<Vec<f64>> {
            envs.iter().map(|e| f(&e.epochs()[0]).clone()).collect()
        };
        let single = classic;
        return vec![per_user(
            &of(|e| &e.success),
            &of(|e| &e.stop),
            cost,
            single,
            copies,
            cancel,
        )];
    }
    s.env
        .epochs()
        .iter()
        // Between epochs too: 49 000 piecewise epochs of disjoint lists took minutes.
        .take_while(|_| !cancel.is_cancelled())
        .map(|e| match expected {
            Expected::Single => Shared {
                lists: vec![e.optimum.list.clone()],
                expected_reward: e.optimum.expected_reward,
                exact: true,
            },
            Expected::Classic => m_best(&e.success, cost, s.users, copies),
            Expected::None if copies => Shared {
                lists: vec![e.optimum.list.clone(); s.users],
                expected_reward: e.optimum.expected_reward * s.users as f64,
                exact: true,
            },
            Expected::None => match s.env.time_left() {
                None => disjoint_lists(&e.success, &e.stop, cost, s.users, cancel),
                Some(tl) => disjoint_lists_by(&e.success, cost, s.users, cancel, |set| {
                    tl.optimum_on(set, &e.success, &e.stop, cost)
                }),
            },
        })
        .collect()
}

/// The benchmark of each epoch under a system reward other than the sum (one channel per
/// user, free probes): the assignment of distinct channels of largest expected system reward
/// ([`crate::model::system_reward::SystemReward::assign`]), one list per user (empty: silent); without collisions every
/// user on its own best channel.
fn system_benchmarks(s: &MultiUserScenario, copies: bool) -> Vec<Shared> {
    let envs = s.user_envs();
    let system = s.system_reward;
    (0..s.env.epochs().len())
        .map(|e| {
            let value: Vec<Vec<f64>> = (0..s.users)
                .map(|u| {
                    let env = &envs[u.min(envs.len() - 1)];
                    env.epochs()[e.min(env.epochs().len() - 1)].success.clone()
                })
                .collect();
            let k = s.env.len();
            let assigned: Vec<Option<usize>> = if copies {
                value
                    .iter()
                    .map(|v| (0..k).max_by(|&a, &b| v[a].total_cmp(&v[b]).then(b.cmp(&a))))
                    .collect()
            } else {
                system.assign(&value, k)
            };
            let p: Vec<f64> = assigned
                .iter()
                .enumerate()
                .map(|(u, c)| c.map_or(0.0, |c| value[u][c]))
                .collect();
            Shared {
                lists: assigned
                    .iter()
                    .map(|c| c.map(|c| vec![c]).unwrap_or_default())
                    .collect(),
                expected_reward: system.expected(&p),
                exact: true,
            }
        })
        .collect()
}

/// Runs every policy of a many-users scenario over the shard's runs.
pub(crate) fn run_multi_user(
    s: &MultiUserScenario,
    opts: &RunOptions,
) -> Result<MultiStats, RunError> {
    run_on(s, opts, Loops::Fastest)
}

/// Which slot loops a run may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Loops {
    /// The fast paths where they apply (the papers' channels, the classic model).
    Fastest,
    /// The general loop on the general channels only: what the fast paths must equal.
    #[cfg(test)]
    General,
}

/// [`run_multi_user`] with the choice of loops.
fn run_on(s: &MultiUserScenario, opts: &RunOptions, loops: Loops) -> Result<MultiStats, RunError> {
    if let Some(p) = s.policies.iter().find(|p| !p.runnable()) {
        return Err(RunError::NotRunnable(p.label.clone()));
    }
    let guard = Guard {
        faults: ListFaults::default(),
        cancel: opts.cancel.clone(),
    };
    let checkpoints = s.header.checkpoints.slots(s.header.horizon);
    let expected = expected_kind(s);
    // The set-up looks at the stop flag too: Ctrl-C stops it, not only the slots.
    let classic = s.policies.iter().all(|p| p.is_classic());
    let benchmarks = benchmarks_until(s, expected, classic, &opts.cancel);
    opts.cancel.check()?;
    // One spectrum per user with per-user means, else one shared; the fast form where every
    // user's channels allow it.
    let envs = s.user_envs();
    let simple: Vec<Simple> = envs.iter().filter_map(Simple::of).collect();
    let simple = if simple.len() == envs.len() && loops == Loops::Fastest {
        simple
    } else {
        Vec::new()
    };
    // Slot by slot only where the pseudo-regret is computed (it is what the gap corrects).
    let reduced = reduced_benchmark(s, expected).filter(|_| expected != Expected::None);
    let setup = Setup {
        env: &s.env,
        envs,
        users: s.users,
        timing: s.timing,
        collision: &s.collision,
        feedback: s.feedback,
        horizon: s.header.horizon,
        checkpoints: &checkpoints,
        benchmarks: &benchmarks,
        expected,
        system: s.system_reward,
        jammers: &s.jammers,
        reduced: reduced.as_ref(),
    };
    let teams = Teams {
        s,
        setup: &setup,
        simple: &simple,
        guard: &guard,
    };
    let span = tracing::info_span!("simulate", indicatif.pb_show = tracing::field::Empty);
    let stats = pipeline::run(&teams, opts, span, &guard.faults)?;
    Ok(MultiStats {
        checkpoints,
        stats,
        benchmarks,
        expected,
        streamed: opts.sink.is_some(),
    })
}

/// A many-users scenario as the pipeline runs it: a job per team.
struct Teams<'a> {
    s: &'a MultiUserScenario,
    setup: &'a Setup<'a>,
    simple: &'a [Simple],
    guard: &'a Guard,
}

impl Kind for Teams<'_> {
    type Stats = TeamStats;
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
        self.s.policies.len()
    }
    fn worker(&self, p: usize) -> Worker<'_> {
        Worker::new(
            self.setup,
            &self.s.policies[p],
            self.s,
            self.simple,
            self.guard,
            self.empty(p),
        )
    }
    fn empty(&self, _: usize) -> TeamStats {
        let mut stats =
            TeamStats::new(self.s.env.len(), self.s.users, self.setup.checkpoints.len());
        if !self.s.jammers.list.is_empty() {
            stats.jams = Some(JamStats::default());
        }
        stats
    }
}

impl RunStats for TeamStats {
    fn merge(&mut self, other: &TeamStats) {
        TeamStats::merge(self, other);
    }
    fn stream(&mut self, part: usize, sink: &dyn RunSink) -> std::io::Result<()> {
        sink.rows(part, &self.finals)?;
        self.finals.clear();
        Ok(())
    }
}

/// Restarts the benchmark's path states for a run: one set per list (as many as the longest
/// epoch's benchmark has), each at the start of the primary user's occupancy paths `shared`.
/// A list draws costs and sensing from its owner's keys (see `World::benchmark`).
pub(crate) fn start_benchmark(
    benchmarks: &[Shared],
    env: &Environment,
    shared: &[u64],
    bench: &mut Vec<Vec<OccupancyState>>,
) {
    let lists = benchmarks.iter().map(|b| b.lists.len()).max().unwrap_or(0);
    bench.resize_with(lists, Vec::new);
    for states in bench {
        env.start_paths(shared, states);
    }
}

/// One worker's buffers, reused from run to run.
struct Worker<'a> {
    setup: &'a Setup<'a>,
    entry: &'a TeamEntry,
    s: &'a MultiUserScenario,
    simple: &'a [Simple],
    guard: &'a Guard,
    stats: TeamStats,
    record: MultiRecord,
    buffers: MultiBuffers,
    paths: Vec<Paths>,
    bench: Vec<Vec<OccupancyState>>,
    rngs: Vec<SimRng>,
    jams: JamRun,
}

impl<'a> Worker<'a> {
    fn new(
        setup: &'a Setup<'a>,
        entry: &'a TeamEntry,
        s: &'a MultiUserScenario,
        simple: &'a [Simple],
        guard: &'a Guard,
        stats: TeamStats,
    ) -> Worker<'a> {
        let k = s.env.len();
        let n = setup.checkpoints.len();
        Worker {
            setup,
            entry,
            s,
            simple,
            guard,
            stats,
            record: MultiRecord::new(k, s.users, n),
            buffers: MultiBuffers::default(),
            paths: vec![Paths::default(); s.users],
            bench: Vec::new(),
            rngs: Vec::new(),
            jams: JamRun::default(),
        }
    }

    fn simulate(&mut self, run: u64, cancel: &Cancel) {
        let (s, env) = (self.s, &self.s.env);
        let m = s.users;
        let base = RunKey::new(s.header.seed, 0, run);
        self.paths[0].reset(env, base);
        let shared = self.paths[0].occupancy_keys();
        for u in 1..m {
            self.paths[u].reset_sharing(
                env,
                RunKey::new(s.header.seed, user_domain(u), run),
                &shared,
            );
        }
        start_benchmark(self.setup.benchmarks, env, &shared, &mut self.bench);
        self.rngs.clear();
        self.rngs
            .extend((0..m).map(|u| stream(s.header.seed, user_domain(u), run)));
        let mut collisions = stream(s.header.seed, label_hash(&["collisions"]), run);
        self.jams.start(&s.jammers, s.header.seed, run);
        let team = self.entry.build(
            env,
            m,
            s.header.horizon,
            s.system_reward,
            &mut self.rngs,
            self.guard,
        );
        let play = Play {
            setup: self.setup,
            simple: self.simple,
            classic: self.entry.is_classic(),
            draws: RunDraws {
                rngs: &mut self.rngs,
                paths: &mut self.paths,
                bench: &mut self.bench,
                collisions: &mut collisions,
                jams: &mut self.jams,
            },
            record: &mut self.record,
            buffers: &mut self.buffers,
            cancel,
        };
        if s.shuffle {
            // The channels under a uniform relabelling, the same for every policy of the run
            // (one dynamic call per step of the team: shuffled runs only).
            let mut draws = stream(s.header.seed, label_hash(&["shuffle"]), run);
            play.visit(Shuffled::new(team.visit(Boxed), env.len(), &mut draws));
        } else {
            team.visit(play);
        }
        self.stats.absorb(run, &self.record);
    }
}

impl pipeline::Worker for Worker<'_> {
    type Stats = TeamStats;

    fn run(&mut self, run: u64, cancel: &Cancel) {
        self.simulate(run, cancel);
    }

    fn into_stats(self) -> TeamStats {
        self.stats
    }
}

/// Plays one episode with the concrete team type, on the fast path where it applies.
struct Play<'a, 'b> {
    setup: &'a Setup<'a>,
    simple: &'a [Simple],
    /// A built-in team whose users list one channel each (see [`TeamEntry::is_classic`]).
    classic: bool,
    draws: RunDraws<'b>,
    record: &'b mut MultiRecord,
    buffers: &'b mut MultiBuffers,
    cancel: &'b Cancel,
}

impl TeamVisitor for Play<'_, '_> {
    type Output = ();

    fn visit<T: Team + 'static>(self, mut team: T) {
        if self.simple.is_empty() {
            let general: Vec<General> = self.setup.envs.iter().map(General::of).collect();
            self.play::<T, General, false>(&mut team, &general)
        } else if self.classic {
            // The classic model on the papers' channels: one probe per user at the slot's
            // start, without the step loop's machinery.
            let simple = self.simple;
            self.play::<T, Simple, true>(&mut team, simple)
        } else {
            let simple = self.simple;
            self.play::<T, Simple, false>(&mut team, simple)
        }
    }
}

impl Play<'_, '_> {
    fn play<T: Team, S: Spectrum, const CLASSIC: bool>(self, team: &mut T, spectra: &[S]) {
        episode::<T, S, CLASSIC>(
            self.setup,
            spectra,
            team,
            self.draws,
            self.record,
            self.buffers,
            self.cancel,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::recorder::{Metric, N_METRICS};
    use crate::scenario::{Scenario, parse};
    use std::path::Path;

    const CHANNELS: &str = "channels: [(theta: 0.8, cost: Bernoulli(0.55)), (theta: 0.7, cost: Bernoulli(0.5)), (theta: 0.6, cost: Constant(0.45)), (theta: 0.4, cost: Bernoulli(0.3)), (theta: 0.2, cost: Constant(0.1))]";

    fn multi(users: usize, collision: &str, policy: &str, channels: &str) -> MultiUserScenario {
        let text = format!(
            "MultiUser(name: \"m\", seed: 9, horizon: 3000, runs: 6, users: {users}, collision: {collision}, {channels}, policies: [(policy: {policy})])"
        );
        match parse(&text, Path::new("m.ron")).unwrap() {
            Scenario::MultiUser(s) => s,
            other => panic!("{other:?}"),
        }
    }

    fn single(policy: &str, channels: &str) -> crate::engine::regret::runner::RegretStats {
        let text = format!(
            "Regret(name: \"s\", seed: 9, horizon: 3000, runs: 6, {channels}, policies: [(policy: {policy})])"
        );
        let Scenario::Regret(s) = parse(&text, Path::new("s.ron")).unwrap() else {
            panic!()
        };
        crate::engine::regret::runner::run_regret(&s, &RunOptions::default()).unwrap()
    }

    /// The fast paths (the papers' channels; one probe per user for classic teams) give what
    /// the general loop on the general channels gives, bit for bit, for every classic team
    /// under every feedback level, collision model and timing, with fewer and more users than
    /// channels.
    #[test]
    fn the_fast_paths_equal_the_general_loop() {
        let channels = "channels: [(theta: 0.9, cost: Constant(0.0)), (theta: 0.6, cost: Bernoulli(0.2)), (theta: 0.5, cost: Constant(0.1)), (theta: 0.2, cost: Constant(0.0))]";
        let teams = [
            "Selfish(policy: Ucb1(reward: Idle))",
            "Selfish(policy: Ucb1)",
            "CentralizedMultiplePlay",
            "RhoRand",
            "RandTopM(index: Ucb1)",
            "McTopM",
            "MusicalChairs",
            "Mega",
            "SicMmab",
        ];
        let collisions = [
            "AllLost",
            "OneWinner",
            "NoCollision",
            "Capture(distances: [3.0, 1.0, 2.0, 1.0, 5.0, 0.5])",
        ];
        let mut checked = 0;
        for team in teams {
            for users in [1, 3, 6] {
                for collision in collisions {
                    for feedback in [
                        "SensingThenCollision",
                        "SensingAndCollision",
                        "CollisionOnly",
                        "NoSensing",
                    ] {
                        for timing in ["Synchronous", "Blind"] {
                            let text = format!(
                                "MultiUser(name: \"m\", seed: 5, horizon: 600, runs: 2, users: {users}, timing: {timing}, collision: {collision}, feedback: {feedback}, {channels}, policies: [(policy: {team})])"
                            );
                            let Ok(Scenario::MultiUser(m)) = parse(&text, Path::new("m.ron"))
                            else {
                                // A combination the scenario check refuses (SIC-MMAB's feedback,
                                // Capture's distances per user).
                                continue;
                            };
                            let opts = RunOptions {
                                threads: Some(1),
                                ..Default::default()
                            };
                            let fast = run_on(&m, &opts, Loops::Fastest).unwrap();
                            let general = run_on(&m, &opts, Loops::General).unwrap();
                            assert_eq!(format!("{fast:?}"), format!("{general:?}"), "{text}");
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 300, "{checked} combinations");
    }

    /// One user running Selfish(P) is the single-user P, bit for bit: every metric of every
    /// run, pseudo- and realised regret included (cascades, costs, lazy lists).
    #[test]
    fn one_user_is_the_single_user_run() {
        for policy in [
            "CcUcb(alpha: 1.5)",
            "ThompsonSampling",
            "CascadeKlUcb(list_len: 3)",
        ] {
            let want = single(policy, CHANNELS);
            for team in ["Selfish", "RankOffset", "McTopMCascade"] {
                let spec = format!("{team}(policy: {policy})");
                let m = multi(1, "AllLost", &spec, CHANNELS);
                let got = run_multi_user(&m, &RunOptions::default()).unwrap();
                let (a, b) = (&got.stats[0].finals, &want.stats[0][0].finals);
                assert_eq!(a.len(), b.len());
                for ((ra, xa), (rb, xb)) in a.iter().zip(b) {
                    assert_eq!(ra, rb);
                    assert_eq!(xa[..N_METRICS], xb[..], "{spec}, run {ra}");
                    assert_eq!(xa[crate::engine::multi_user::slot_loop::SU_COLLISIONS], 0.0);
                }
            }
        }
    }

    /// Channels under `reward: TimeLeft`: on/off primary users (so that returns interrupt),
    /// energy detectors whose sensing time is the probe's delay, adaptive rates.
    const TIME_LEFT: &str = "weights: (energy: 1.0, delay: 0.0), slot: (duration: 1.0), reward: TimeLeft(rates: [0.5, 2.0, 3.0, 1.0], on_return: Prorated), channels: [(occupancy: OnOff(idle: Exponential(mean: 4.0), busy: Exponential(mean: 1.0)), energy: Constant(0.02), delay: Constant(0.1)), (theta: 0.6, energy: Constant(0.01), delay: Constant(0.2)), (occupancy: OnOff(idle: Exponential(mean: 1.0), busy: Exponential(mean: 2.0)), energy: Constant(0.01), sensing: EnergyDetector(snr_db: -15.0, sample_rate: 1000.0, duration: 0.15, target_pd: 0.9)), (theta: 0.5, energy: Bernoulli(0.05), delay: Constant(0.1))]";

    /// Under `reward: TimeLeft` one user is still the single-user run, bit for bit: the
    /// time-left gains, the primary user's returns, the time a team observes in its costs and
    /// the expected reward all follow the single-user rule.
    #[test]
    fn one_user_under_time_left_is_the_single_user_run() {
        for policy in ["TimeLeftUcb", "CcUcb(alpha: 1.5)", "Oracle"] {
            let want = single(policy, TIME_LEFT);
            let m = multi(
                1,
                "AllLost",
                &format!("Selfish(policy: {policy})"),
                TIME_LEFT,
            );
            let got = run_multi_user(&m, &RunOptions::default()).unwrap();
            let (a, b) = (&got.stats[0].finals, &want.stats[0][0].finals);
            assert_eq!(a.len(), b.len());
            for ((ra, xa), (rb, xb)) in a.iter().zip(b) {
                assert_eq!(ra, rb);
                assert_eq!(xa[..N_METRICS], xb[..], "{policy}, run {ra}");
            }
            assert_eq!(got.stats[0].pu_returns, want.stats[0][0].pu_returns);
            assert!(
                got.stats[0].pu_returns > 0,
                "returns happen on these channels"
            );
        }
    }

    /// Several users under `reward: TimeLeft`: the benchmark is the best assignment of
    /// disjoint lists, each user's list the best ordered list on its channels by the
    /// time-left expected reward (checked against every ordered list of every assignment);
    /// users that play it earn it (their realised regret against it is exactly 0; on i.i.d.
    /// channels, where no return cuts a transmission, their reward is its expected value
    /// within 4 standard errors).
    #[test]
    fn many_users_under_time_left_are_measured_against_disjoint_optimal_lists() {
        let iid = TIME_LEFT
            .replace(
                "occupancy: OnOff(idle: Exponential(mean: 4.0), busy: Exponential(mean: 1.0))",
                "theta: 0.8",
            )
            .replace(
                "occupancy: OnOff(idle: Exponential(mean: 1.0), busy: Exponential(mean: 2.0))",
                "theta: 0.3333",
            );
        assert!(!iid.contains("OnOff"));
        for (channels, returns) in [(TIME_LEFT, true), (iid.as_str(), false)] {
            disjoint_optimal_lists(channels, returns);
        }
    }

    fn disjoint_optimal_lists(channels: &str, returns: bool) {
        use crate::engine::stepper::Stepper;
        let m = multi(2, "AllLost", "Selfish(policy: TimeLeftUcb)", channels);
        let expected = expected_kind(&m);
        assert_eq!(expected, Expected::None, "no closed form under TimeLeft");
        let bench = benchmarks(&m, expected);
        let b = &bench[0];
        assert!(b.exact);
        let e = &m.env.epochs()[0];
        let tl = m.env.time_left().unwrap();
        let cost = m.env.mean_cost();
        let value = |list: &[usize]| {
            tl.expected_reward(
                &mut list.to_vec(),
                &mut |_| false,
                &e.success,
                &e.stop,
                cost,
                tl.delays(),
            )
        };
        // Brute force: every ordered list of every subset, every split into two disjoint sets.
        fn orders(set: &[usize], out: &mut Vec<Vec<usize>>, prefix: &mut Vec<usize>) {
            out.push(prefix.clone());
            for &c in set {
                if !prefix.contains(&c) {
                    prefix.push(c);
                    orders(set, out, prefix);
                    prefix.pop();
                }
            }
        }
        let k = m.env.len();
        let mut best = f64::NEG_INFINITY;
        for owner in 0..3usize.pow(k as u32) {
            let of = |u: usize| -> Vec<usize> {
                (0..k)
                    .filter(|&c| (owner / 3usize.pow(c as u32)) % 3 == u + 1)
                    .collect()
            };
            let mut total = 0.0;
            for u in 0..2 {
                let mut all = Vec::new();
                orders(&of(u), &mut all, &mut Vec::new());
                total += all.iter().map(|l| value(l)).fold(0.0, f64::max);
            }
            best = best.max(total);
        }
        assert!(
            (b.expected_reward - best).abs() < 1e-12,
            "{} vs brute force {best}",
            b.expected_reward
        );
        let played: f64 = b.lists.iter().map(|l| value(l)).sum();
        assert!((played - b.expected_reward).abs() < 1e-12);
        // Playing the benchmark's lists through the stepper: the realised regret is 0.
        let mut w = Stepper::multi_user(&m, false);
        let (mut sum, mut squares, slots) = (0.0, 0.0, 20_000u64);
        for run in 0..5 {
            w.reset(run);
            for _ in 0..m.header.horizon.min(slots / 5) {
                let lists: Vec<&[usize]> = b.lists.iter().map(Vec::as_slice).collect();
                let o = w.step(&lists).unwrap();
                let r: f64 = o.users.iter().map(|u| u.reward).sum();
                sum += r;
                squares += r * r;
            }
            let (_, pseudo, realised) = w.totals();
            assert!(pseudo.is_nan(), "no closed form");
            assert_eq!(realised, 0.0, "run {run}");
        }
        if returns {
            return;
        }
        let n = (5 * m.header.horizon.min(slots / 5)) as f64;
        let mean = sum / n;
        let se = ((squares / n - mean * mean) / n).sqrt();
        assert!(
            (mean - b.expected_reward).abs() < 4.0 * se,
            "{mean} vs {} (4 s.e. = {})",
            b.expected_reward,
            4.0 * se
        );
    }

    /// Without collisions users do not interact: user 0 of an M-user run earns exactly what
    /// it earns alone, and the system earns about M times as much (with collisions it does not).
    #[test]
    fn no_collision_users_are_independent_copies() {
        let channels = "channels: [(theta: 0.9, cost: Constant(0.0)), (theta: 0.5, cost: Constant(0.0)), (theta: 0.2, cost: Constant(0.0))]";
        // Ties set, so that the user alone breaks them as it does among others (alone, the
        // default is the single-user policy's lower channel).
        let policy = "Selfish(policy: Ucb1(reward: Idle, ties: Random))";
        let alone = run_multi_user(
            &multi(1, "AllLost", policy, channels),
            &RunOptions::default(),
        )
        .unwrap();
        for (collision, independent) in [("NoCollision", true), ("AllLost", false)] {
            let many = run_multi_user(
                &multi(3, collision, policy, channels),
                &RunOptions::default(),
            )
            .unwrap();
            let user0 = many.stats[0].user_reward[0].mean();
            let one = alone.stats[0].user_reward[0].mean();
            assert_eq!(user0 == one, independent, "{collision}");
            let system = many.stats[0].curves.last().unwrap()[Metric::Reward as usize].mean();
            let ratio = system / one;
            assert_eq!(
                (2.9..3.1).contains(&ratio),
                independent,
                "{collision}: {ratio}"
            );
        }
    }

    /// In the classic model the three terms sum to the pseudo-regret exactly on every run, and
    /// the regret is at least its first term, whatever the collision model and M (M > K too).
    #[test]
    fn the_decomposition_is_exact_on_every_run() {
        let channels = "channels: [(theta: 0.9, cost: Constant(0.0)), (theta: 0.6, cost: Constant(0.0)), (theta: 0.5, cost: Constant(0.0)), (theta: 0.1, cost: Constant(0.0))]";
        for (users, collision, policy) in [
            (2, "AllLost", "RhoRand(index: Ucb)"),
            (3, "OneWinner", "McTopM(index: KlUcb)"),
            (
                2,
                "Capture(distances: [2.0, 1.0])",
                "RandTopM(index: KlUcb)",
            ),
            (6, "AllLost", "Selfish(policy: Ucb1(reward: Idle))"),
            (3, "AllLost", "CentralizedMultiplePlay(index: KlUcb)"),
            (3, "AllLost", "MusicalChairs(t0: Slots(300))"),
            (3, "AllLost", "Mega(p0: 0.6)"),
        ] {
            let s = multi(users, collision, policy, channels);
            let r = run_multi_user(&s, &RunOptions::default()).unwrap();
            assert_eq!(r.expected, Expected::Classic);
            let st = &r.stats[0];
            assert_eq!(st.decomposition_exact, st.runs, "{policy} {collision}");
            assert_eq!(st.regret_above_first_term, st.runs, "{policy}");
            // The curve's last point is the decomposition's regret.
            let last = st.curves.last().unwrap()[Metric::PseudoRegret as usize].mean();
            assert_eq!(last, st.decomposition[3].mean());
        }
        // The centralised learner never collides.
        let s = multi(
            3,
            "AllLost",
            "CentralizedMultiplePlay(index: KlUcb)",
            channels,
        );
        let r = run_multi_user(&s, &RunOptions::default()).unwrap();
        assert_eq!(r.stats[0].curves.last().unwrap()[SU].mean(), 0.0);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]
        /// With probing costs the three terms still sum to the regret exactly on every run:
        /// random costs (constant and Bernoulli, where `μ = s − c` does not round exactly) and
        /// means, every classic policy family and collision model. (Rounding `μ` before
        /// multiplying left ~3·10⁻¹³ between the sums, so that no run summed exactly.)
        #[test]
        fn the_decomposition_is_exact_with_costs(
            theta in proptest::collection::vec(0.05f64..0.95, 3..6),
            costs in proptest::collection::vec(0.0f64..0.3, 6),
            bernoulli in proptest::collection::vec(proptest::bool::ANY, 6),
            users in 2usize..5,
            pick in 0usize..6,
        ) {
            let channels = theta
                .iter()
                .enumerate()
                .map(|(i, &th)| {
                    let c = costs[i];
                    let law = if bernoulli[i] { format!("Bernoulli({c})") } else { format!("Constant({c})") };
                    format!("(theta: {th}, cost: {law})")
                })
                .collect::<Vec<_>>()
                .join(", ");
            let (collision, policy) = [
                ("AllLost", "CentralizedMultiplePlay(index: KlUcb)"),
                ("AllLost", "McTopM(index: Ucb, convention: SMPyBandits)"),
                ("OneWinner", "RhoRand(index: KlUcb)"),
                ("AllLost", "Selfish(policy: KlUcb(reward: Idle))"),
                ("OneWinner", "RandTopM(index: KlUcb)"),
                ("AllLost", "Mega(convention: SMPyBandits)"),
            ][pick];
            let text = format!(
                "MultiUser(name: \"m\", seed: 9, horizon: 400, runs: 3, users: {users}, collision: {collision}, channels: [{channels}], policies: [(policy: {policy})])"
            );
            let Scenario::MultiUser(s) = parse(&text, Path::new("m.ron")).unwrap() else {
                panic!()
            };
            let r = run_multi_user(&s, &RunOptions::default()).unwrap();
            proptest::prop_assert_eq!(r.expected, Expected::Classic);
            let st = &r.stats[0];
            proptest::prop_assert_eq!(st.decomposition_exact, st.runs, "{} {}", policy, channels);
        }
    }

    const SU: usize = crate::engine::multi_user::slot_loop::SU_COLLISIONS;

    /// The same seed gives the same bytes on any number of threads.
    #[test]
    fn results_do_not_depend_on_threads() {
        let s = multi(3, "OneWinner", "McTopM(index: KlUcb)", CHANNELS);
        let one = run_multi_user(
            &s,
            &RunOptions {
                threads: Some(1),
                ..Default::default()
            },
        )
        .unwrap();
        let two = run_multi_user(
            &s,
            &RunOptions {
                threads: Some(2),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(one.stats[0].finals, two.stats[0].finals);
        assert_eq!(
            format!("{:?}", one.stats[0].curves),
            format!("{:?}", two.stats[0].curves)
        );
    }
}
