//! A scenario's world stepped from outside, one slot at a time: what a training environment
//! drives with an agent's actions, where a run drives it with a policy.
//!
//! It is the many-users slot loop's own [`World`] (one user for a regret scenario, which the
//! engine already runs bit for bit as the single-user loop does), so every occupancy process,
//! cost law, sensing model, probe timing, and for several users the timing, collision and
//! feedback models, apply unchanged. Run `run` of seed `seed` draws exactly what run `run` of
//! `specprobe run` draws (the channels' paths and costs are counter-based draws keyed by run,
//! channel and slot): an agent that plays a policy's lists gets that run's rewards and regret
//! bit for bit, whatever other environments exist or which thread steps them.

use crate::engine::multi_user::runner::{
    benchmarks_until, expected_for, start_benchmark, user_domain,
};
use crate::engine::multi_user::slot_loop::{
    Expected, MultiBuffers, MultiRecord, Setup, Tally, World, classic_regret,
};
use crate::engine::recorder::{Metric, RunRecord};
use crate::engine::slot_loop::{Buffers, Totals, World as SingleWorld};
use crate::engine::spectrum::{General, Simple, Spectrum};
use crate::model::channel::{Environment, Epoch, Paths};
use crate::model::jamming::{JamRun, Jammers};
use crate::model::occupancy::OccupancyState;
use crate::model::sharing::Shared;
use crate::model::system_reward::SystemReward;
use crate::multi::{Collision, Feedback, Seen, Team, Timing};
use crate::policy::Policy;
use crate::scenario::{MultiUserScenario, RegretScenario};
use crate::util::cache::{lines, lines_of};
use crate::util::cancel::{Cancel, Cancelled};
use crate::util::crn::RunKey;
use crate::util::rng::{SimRng, label_hash, stream};
use std::sync::Arc;

/// Why a world cannot be built or stepped.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StepError {
    /// The configuration asked for does not exist.
    #[error("experiment {index} does not exist (the scenario has {count})")]
    NoExperiment {
        /// Asked for.
        index: usize,
        /// Configurations in the scenario.
        count: usize,
    },
    /// Not one list per user.
    #[error("actions: {got} lists for {users} users (one list per user)")]
    Users {
        /// Lists given.
        got: usize,
        /// Users of the scenario.
        users: usize,
    },
    /// A list names a channel that does not exist.
    #[error(
        "actions: user {user}'s list names channel {channel}, but there are {k} channels (0..{k})"
    )]
    Channel {
        /// The user.
        user: usize,
        /// The channel named.
        channel: usize,
        /// Channels.
        k: usize,
    },
    /// A list names a channel twice.
    #[error("actions: user {user}'s list names channel {channel} twice")]
    Repeated {
        /// The user.
        user: usize,
        /// The channel named twice.
        channel: usize,
    },
    /// A list of more than one channel in a world set up for one channel per user.
    #[error(
        "actions: user {user}'s list holds {len} channels; this world takes one channel per user (classic)"
    )]
    NotClassic {
        /// The user.
        user: usize,
        /// Its list's length.
        len: usize,
    },
    /// Probe by probe is for a regret scenario's one user.
    #[error("probe by probe is for a regret scenario's one user (this world has {0} users)")]
    NotSingle(usize),
    /// Stepped past the horizon without a reset.
    #[error("the episode ended at slot {0} (the horizon): reset before stepping again")]
    Ended(u64),
}

/// What one user saw in one slot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UserStep {
    /// The channels it probed, in order, with what it sensed (`true`: idle) and the probe's
    /// bandit cost. The last one is the channel it transmitted on, when it transmitted.
    pub probes: Vec<(usize, bool, f64)>,
    /// The channel it transmitted on.
    pub transmitted: Option<usize>,
    /// Whether its transmission succeeded (a truly idle channel, acknowledged).
    pub success: bool,
    /// The collision indicator, when its feedback level shows it.
    pub collision: Option<bool>,
    /// Its acknowledgement: it transmitted and no other user collided with it.
    pub ack: bool,
    /// Its net reward: its transmission's gain, less its probes' costs.
    pub reward: f64,
    /// What its transmission earned: 1 on a truly idle channel (and acknowledged), 0
    /// otherwise; under `reward: TimeLeft`, the rate times the part of the slot left.
    pub gain: f64,
    /// Its probes' energy and delay.
    pub energy: f64,
    /// See `energy`.
    pub delay: f64,
}

/// What one slot gave.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepOutcome {
    /// The slot played (from 1).
    pub t: u64,
    /// Per user.
    pub users: Vec<UserStep>,
    /// The benchmark's expected net reward in this slot (UCR-T1's with one user; the
    /// many-users benchmark's, summed over users).
    pub benchmark_expected: f64,
    /// The slot's pseudo-regret: the benchmark's expected reward less the lists' (NaN where
    /// it has no closed form: several users' cascades, or sensing errors among several users).
    pub pseudo_regret: f64,
    /// Whether this was the horizon's slot.
    pub last: bool,
}

/// What one probe of [`Stepper::probe`] gave.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProbeStep {
    /// Whether the channel was sensed idle.
    pub idle: bool,
    /// The probe's cost as the slot's net reward counts it (the bandit cost).
    pub cost: f64,
    /// The cost a learner observes, as the engine's policies do: the bandit cost, plus under
    /// `reward: TimeLeft` the price of the time the probe used (`rate · delay / T`).
    pub observed_cost: f64,
    /// Whether the slot ended with this probe.
    pub ended: bool,
}

/// The agent's lists as a [`Team`], and what the world tells each user, kept for the outcome.
#[derive(Clone, Debug, Default)]
struct Actions {
    lists: Vec<Vec<usize>>,
    users: Vec<UserStep>,
}

impl Team for Actions {
    fn plan(&mut self, _t: u64, lists: &mut [Vec<usize>], _rngs: &mut [SimRng]) {
        // The slot's lists are handed over, not copied: `lists` come cleared, and the next
        // step refills `self.lists` (the two sets of buffers take turns).
        for (l, a) in lists.iter_mut().zip(&mut self.lists) {
            std::mem::swap(l, a);
        }
    }

    fn busy(&mut self, u: usize, channel: usize, cost: f64) {
        self.users[u].probes.push((channel, false, cost));
    }

    fn seen(&mut self, u: usize, seen: &Seen, cost: f64, _rng: &mut SimRng) {
        let user = &mut self.users[u];
        if let Some(c) = seen.transmitted {
            user.probes.push((c, seen.sample, cost));
        }
        user.transmitted = seen.transmitted;
        user.collision = seen.collision;
        user.ack = seen.ack;
    }
}

/// What stays fixed in a world: the scenario's channels, users and models, and its benchmark.
#[derive(Clone, Debug)]
struct Model {
    env: Environment,
    user_envs: Vec<Environment>,
    users: usize,
    timing: Timing,
    collision: Collision,
    feedback: Feedback,
    horizon: u64,
    seed: u64,
    checkpoints: Vec<u64>,
    benchmarks: Vec<Shared>,
    expected: Expected,
    /// How the users' rewards of a slot combine.
    system: SystemReward,
    /// The random-stream domain of user 0 (a grid configuration's own; 0 otherwise).
    domain: u64,
    /// Every user's list holds one channel (checked at each step).
    classic: bool,
    /// The papers' channels' fast form, where every user's channels allow it.
    simple: Vec<Simple>,
    /// The jammers (none in a one-user world).
    jammers: Jammers,
}

impl Model {
    fn setup(&self) -> Setup<'_> {
        Setup {
            env: &self.env,
            envs: if self.user_envs.is_empty() {
                std::slice::from_ref(&self.env)
            } else {
                &self.user_envs
            },
            users: self.users,
            timing: self.timing,
            collision: &self.collision,
            feedback: self.feedback,
            horizon: self.horizon,
            checkpoints: &self.checkpoints,
            benchmarks: &self.benchmarks,
            expected: self.expected,
            system: self.system,
            jammers: &self.jammers,
            // What a step reports is the jammer-free benchmark's regret.
            reduced: None,
        }
    }
}

/// What a run changes: its draws, buffers and totals.
#[derive(Clone, Debug)]
struct State {
    run: u64,
    t: u64,
    paths: Vec<Paths>,
    bench: Vec<Vec<OccupancyState>>,
    rngs: Vec<SimRng>,
    collisions: SimRng,
    jams: JamRun,
    buffers: MultiBuffers,
    record: MultiRecord,
    tally: Tally,
    actions: Actions,
}

/// The probes the single-user world reports, as the policy it plays sees them.
#[derive(Clone, Debug, Default)]
struct Played {
    probes: Vec<(usize, bool, f64)>,
}

impl Policy for Played {
    fn plan(&mut self, _t: u64, _list: &mut Vec<usize>, _rng: &mut SimRng) {}

    fn observe(&mut self, channel: usize, idle: bool, cost: f64) {
        self.probes.push((channel, idle, cost));
    }
}

/// One user on a regret scenario's channels: the engine's single-user slot itself (the
/// episode loop's [`SingleWorld::play`]), faster than the many-users world with one user and
/// the same draw for draw.
#[derive(Clone, Debug)]
struct Single {
    /// The slot being played probe by probe: its channels so far and what they cost.
    pending: Vec<usize>,
    pending_slot: crate::engine::slot_loop::Slot,
    buffers: Buffers,
    record: RunRecord,
    totals: Totals,
    epoch: usize,
    played: Played,
}

/// A scenario's world stepped one slot at a time (see the module docs).
///
/// A clone is another world of the same scenario: the checked model (channels, benchmarks) is
/// shared, not copied, so N copies of a vector environment hold one model and N states (the
/// model stays in cache however many copies step).
///
/// An agent that plays the benchmark's own list (UCR-T1's, which the oracle knows) through a
/// whole run has no pseudo-regret, and its reward is run 5's of `specprobe run` for the oracle:
///
/// ```
/// use specprobe::{Scenario, Simulation, Stepper};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let text = r#"Regret(name: "doc", seed: 3, horizon: 200, runs: 6,
///     channels: [(theta: 0.3, cost: Bernoulli(0.2)), (theta: 0.6, cost: Constant(0.1))],
///     policies: [(policy: Oracle)])"#;
/// let Scenario::Regret(s) = specprobe::parse(text, "doc.ron".as_ref())? else {
///     unreachable!("a regret scenario")
/// };
/// let mut world = Stepper::regret(&s, 0)?;
/// world.reset(5); // run 5 of seed 3: the draws `specprobe run` makes for that run
/// let best = world.environment().optimum().list.clone();
/// while !world.step(&[&best])?.last {}
/// let (reward, pseudo_regret, _realised) = world.totals();
/// assert_eq!(pseudo_regret, 0.0);
/// assert!(reward <= 200.0);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Stepper {
    model: Arc<Model>,
    /// Draws come from this seed from the next reset on (the scenario's by default).
    seed: u64,
    state: State,
    outcome: StepOutcome,
    /// A regret scenario's one user, stepped by the single-user slot.
    single: Option<Box<Single>>,
}

impl Stepper {
    /// The world of a regret scenario's configuration `experiment` (0 for a single channel
    /// list), one user, at the start of run 0.
    pub fn regret(s: &RegretScenario, experiment: usize) -> Result<Stepper, StepError> {
        let exp = experiment_of(s, experiment)?;
        let env = exp.env.clone();
        let benchmarks = env
            .epochs()
            .iter()
            .map(|e| Shared {
                lists: vec![e.optimum.list.clone()],
                expected_reward: e.optimum.expected_reward,
                exact: true,
            })
            .collect();
        let k = env.len();
        let single = Single {
            pending: Vec::with_capacity(k),
            pending_slot: Default::default(),
            buffers: Buffers::new(k),
            record: RunRecord::new(k, 1),
            totals: Totals::default(),
            epoch: 0,
            played: Played::default(),
        };
        let mut stepper = Stepper::build(Model {
            env,
            user_envs: Vec::new(),
            users: 1,
            timing: Timing::default(),
            collision: Collision::default(),
            feedback: Feedback::default(),
            horizon: s.header.horizon,
            seed: s.header.seed,
            checkpoints: vec![s.header.horizon],
            benchmarks,
            expected: Expected::Single,
            system: SystemReward::Linear,
            // A grid's configurations draw from their own domains, as its runs do.
            domain: crate::engine::regret::runner::experiment_domain(s, &exp.label),
            classic: false,
            simple: Vec::new(),
            jammers: Jammers::default(),
        });
        stepper.single = Some(Box::new(single));
        stepper.reset(0);
        Ok(stepper)
    }

    /// The world of a many-users scenario, its users stepped together, at the start of run 0;
    /// `classic`: every user lists one channel each slot (the classic multi-player bandit,
    /// whose pseudo-regret has a closed form).
    pub fn multi_user(s: &MultiUserScenario, classic: bool) -> Stepper {
        match Stepper::multi_user_until(s, classic, &Cancel::new()) {
            Ok(stepper) => stepper,
            Err(_) => unreachable!("a fresh flag is never set"),
        }
    }

    /// [`Stepper::multi_user`], giving up when `cancel` is set while the benchmarks are
    /// computed (seconds, or minutes over many piecewise epochs): what a caller that listens
    /// for Ctrl-C builds with.
    pub fn multi_user_until(
        s: &MultiUserScenario,
        classic: bool,
        cancel: &Cancel,
    ) -> Result<Stepper, Cancelled> {
        let expected = expected_for(s, classic);
        let benchmarks = benchmarks_until(s, expected, classic, cancel);
        cancel.check()?;
        Ok(Stepper::build(Model {
            env: s.env.clone(),
            user_envs: if s.user_theta.is_some() {
                s.user_envs().to_vec()
            } else {
                Vec::new()
            },
            users: s.users,
            timing: s.timing,
            collision: s.collision.clone(),
            feedback: s.feedback,
            horizon: s.header.horizon,
            seed: s.header.seed,
            checkpoints: vec![s.header.horizon],
            benchmarks,
            expected,
            system: s.system_reward,
            domain: 0,
            classic,
            simple: Vec::new(),
            jammers: s.jammers.clone(),
        }))
    }

    fn build(mut model: Model) -> Stepper {
        let all = model.setup().envs.len();
        let simple: Vec<Simple> = model.setup().envs.iter().filter_map(Simple::of).collect();
        if simple.len() == all {
            model.simple = simple;
        }
        let (k, m) = (model.env.len(), model.users);
        let state = State {
            run: 0,
            t: 0,
            paths: vec![Paths::default(); m],
            bench: Vec::new(),
            rngs: Vec::new(),
            collisions: stream(model.seed, 0, 0),
            jams: JamRun::default(),
            buffers: MultiBuffers::default(),
            record: MultiRecord::new(k, m, 1),
            tally: Tally::new(&model.setup()),
            actions: Actions::default(),
        };
        let mut s = Stepper {
            seed: model.seed,
            model: Arc::new(model),
            state,
            outcome: StepOutcome::default(),
            single: None,
        };
        s.reset(0);
        s
    }

    /// Starts run `run` (the same draws as run `run` of the scenario), at slot 0.
    pub fn reset(&mut self, run: u64) {
        let (model, st) = (&self.model, &mut self.state);
        let (env, m, seed) = (&model.env, model.users, self.seed);
        st.run = run;
        st.t = 0;
        let domain = |u: usize| if u == 0 { model.domain } else { user_domain(u) };
        st.paths[0].reset(env, RunKey::new(seed, model.domain, run));
        let shared = st.paths[0].occupancy_keys();
        for u in 1..m {
            st.paths[u].reset_sharing(env, RunKey::new(seed, user_domain(u), run), &shared);
        }
        start_benchmark(&model.benchmarks, env, &shared, &mut st.bench);
        st.rngs.clear();
        st.rngs.extend((0..m).map(|u| stream(seed, domain(u), run)));
        st.collisions = stream(seed, label_hash(&["collisions"]), run);
        st.jams.start(&model.jammers, seed, run);
        st.record = MultiRecord::new(env.len(), m, 1);
        st.buffers.reset(env.len(), m, env.epochs().len());
        st.tally = Tally::new(&model.setup());
        st.tally.per_slot = true;
        st.actions.lists.resize_with(m, Vec::new);
        st.actions.users.resize_with(m, UserStep::default);
        if let Some(one) = &mut self.single {
            one.buffers.reset(env.len());
            one.buffers.probes.view().expected.reset();
            one.record.reset();
            one.totals = Totals::default();
            one.pending.clear();
            one.pending_slot = Default::default();
            one.epoch = 0;
        }
    }

    /// The addresses of the heap blocks that hold [`Stepper::hot_blocks`]' addresses (read
    /// by it): a caller prefetches these two worlds ahead and the blocks one ahead.
    #[doc(hidden)]
    pub fn hot_headers(&self, mut f: impl FnMut(*const u8)) {
        let f = &mut f;
        lines(&self.state.paths, f);
        lines(&self.outcome.users, f);
        match self.single.as_deref() {
            Some(one) => lines_of(one, f),
            None => {
                self.state.buffers.hot_headers(f);
                lines(&self.state.actions.lists, f);
                lines(&self.state.actions.users, f);
                lines(&self.state.bench, f);
            }
        }
    }

    /// The addresses of the cache lines a step reads first (this world's own buffers, not the
    /// shared model), for a caller that steps many worlds to prefetch the next one's while it
    /// steps this one: N worlds' buffers outgrow the cache, and the misses on them took half
    /// of a step at 4 096 copies (four fifths with several users). Only addresses are given;
    /// nothing is read. `next`: each user's list of the coming step, whose first channels'
    /// path states and probe records are given (the states are a cache line each).
    #[doc(hidden)]
    pub fn hot_blocks<L: AsRef<[usize]>>(&self, next: &[L], mut f: impl FnMut(*const u8)) {
        let f = &mut f;
        let first = next.first().map_or(&[][..], AsRef::as_ref);
        let path = &self.state.paths[0];
        // The papers' channels (`Simple`) draw a probe from its keys alone: their path states
        // are never read (fetching them anyway made a many-users step at 4 096 copies a
        // third slower).
        let states = self.model.simple.is_empty();
        for &c in first.iter().take(2).filter(|_| states) {
            if let Some(state) = path.occupancy.get(c) {
                lines_of(state, f);
            }
        }
        // One channel's keys are 32 bytes, together.
        lines(&path.keys, f);
        // The last outcome's probe buffers are not read: a step swaps the team's into it.
        match self.single.as_deref() {
            Some(one) => {
                let list = &self.model.env.epochs()[one.epoch].optimum.list;
                for &c in list.iter().take(2).filter(|_| states) {
                    if let Some(state) = path.benchmark.get(c) {
                        lines_of(state, f);
                    }
                }
                lines(&one.buffers.list, f);
                one.buffers.probes.hot_blocks(f);
                lines(&one.record.channel_probes, f);
                lines(&one.record.probes_per_slot, f);
                lines(&one.played.probes, f);
            }
            None => {
                // Several users: the slot reads every user's path and list and every counter.
                for p in &self.state.paths[1..] {
                    if states {
                        lines(&p.occupancy, f);
                    }
                    lines(&p.keys, f);
                }
                // The benchmark's lists read their owners' keys and their own path states.
                for p in self.state.bench.iter().filter(|_| states) {
                    lines(p, f);
                }
                let b = &self.state.buffers;
                b.hot_blocks(f);
                // The probe records (M·K of them) that the step writes, its users' first
                // channels, and that the benchmark's lists read: not the whole table.
                let (k, m) = (self.model.env.len(), self.model.users);
                for (u, list) in next.iter().enumerate() {
                    for &c in list.as_ref().iter().take(2) {
                        b.hot_probe(u * k + c, f);
                    }
                }
                let epoch = self.state.tally.epoch;
                for (j, list) in self.model.benchmarks[epoch].lists.iter().enumerate() {
                    for &c in list.iter().take(2) {
                        b.hot_probe((j % m) * k + c, f);
                    }
                }
                self.state.record.hot_blocks(f);
                for (l, u) in self
                    .state
                    .actions
                    .lists
                    .iter()
                    .zip(&self.state.actions.users)
                {
                    lines(l, f);
                    lines(&u.probes, f);
                }
                lines(&self.state.rngs, f);
            }
        }
    }

    /// Draws from seed `seed` from the next reset on (the scenario's seed by default).
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }

    /// What the last step gave (`None` before the first step of the run).
    pub fn last_outcome(&self) -> Option<&StepOutcome> {
        (self.state.t > 0).then_some(&self.outcome)
    }

    /// Channels.
    pub fn channels(&self) -> usize {
        self.model.env.len()
    }

    /// Users.
    pub fn users(&self) -> usize {
        self.model.users
    }

    /// Slots per episode (the scenario's horizon).
    pub fn horizon(&self) -> u64 {
        self.model.horizon
    }

    /// The run being played.
    pub fn run(&self) -> u64 {
        self.state.run
    }

    /// The last slot played (0 before the first).
    pub fn slot(&self) -> u64 {
        self.state.t
    }

    /// The channels of the world (user 0's with per-user means): K, mean costs, stationary θ.
    pub fn environment(&self) -> &Environment {
        &self.model.env
    }

    /// The run's totals so far, summed over users and slots, as the run's row of `runs.csv`
    /// reads them at the horizon: `(reward, pseudo-regret, realised regret)`.
    pub fn totals(&self) -> (f64, f64, f64) {
        if let Some(one) = &self.single {
            return one.totals.summary();
        }
        let cum = &self.state.tally.cum;
        let realised = if self.model.system.is_linear() {
            self.state.tally.benchmark_reward - cum[Metric::Reward as usize]
        } else {
            self.state.buffers.system_regret()
        };
        let pseudo = match self.model.expected {
            // The classic regret is read from the exact per-channel counts, as runs read it.
            Expected::Classic => classic_regret(&self.model.setup(), &self.state.buffers),
            Expected::Single => cum[Metric::PseudoRegret as usize],
            Expected::None => f64::NAN,
        };
        (cum[Metric::Reward as usize], pseudo, realised)
    }

    /// Plays the next slot with every user's ordered list (`lists[u]`; an empty list keeps
    /// the user silent): the users probe in order until a channel is sensed idle, collide or
    /// not, and each is told what its feedback level shows.
    pub fn step(&mut self, lists: &[&[usize]]) -> Result<&StepOutcome, StepError> {
        if self.state.t >= self.model.horizon {
            return Err(StepError::Ended(self.model.horizon));
        }
        if let Some(one) = &self.single
            && !one.pending.is_empty()
        {
            // A slot opened probe by probe is played first, as its probes so far.
            self.end_slot();
            if self.state.t >= self.model.horizon {
                return Err(StepError::Ended(self.model.horizon));
            }
        }
        self.check(lists)?;
        if self.single.is_some() {
            self.step_single(lists[0]);
            return Ok(&self.outcome);
        }
        for (a, l) in self.state.actions.lists.iter_mut().zip(lists) {
            a.clear();
            a.extend_from_slice(l);
        }
        for u in &mut self.state.actions.users {
            u.probes.clear();
        }
        self.state.t += 1;
        let model = &self.model;
        if !model.simple.is_empty() {
            play(model, &model.simple, &mut self.state, &mut self.outcome);
        } else if model.user_envs.is_empty() {
            let general = [General::of(&model.env)];
            play(model, &general, &mut self.state, &mut self.outcome);
        } else {
            let general: Vec<General> = model.user_envs.iter().map(General::of).collect();
            play(model, &general, &mut self.state, &mut self.outcome);
        }
        Ok(&self.outcome)
    }

    /// Probes `channel` next in the current slot of a regret scenario's user (opening the next
    /// slot if none is open), as an agent that chooses each probe after seeing the last:
    /// returns what it sensed (`true`: idle), the probe's cost, and whether the slot ended
    /// (a channel sensed idle, on which the user transmits; the slot's time used up; every
    /// channel probed). A slot that ended is played as the list of its probes, so that its
    /// outcome ([`Stepper::last_outcome`]) and totals are the engine's, draw for draw; its
    /// pseudo-regret is that of the list probed (an agent's intended list beyond the channel
    /// it found idle is never told).
    pub fn probe(&mut self, channel: usize) -> Result<ProbeStep, StepError> {
        let k = self.model.env.len();
        let Some(one) = self.single.as_deref_mut() else {
            return Err(StepError::NotSingle(self.model.users));
        };
        if one.pending.is_empty() && self.state.t >= self.model.horizon {
            return Err(StepError::Ended(self.model.horizon));
        }
        if channel >= k {
            return Err(StepError::Channel {
                user: 0,
                channel,
                k,
            });
        }
        if one.pending.contains(&channel) {
            return Err(StepError::Repeated { user: 0, channel });
        }
        let t = self.state.t + 1;
        let model = &self.model;
        let duration = model.env.slot_duration();
        let Some(offset) = one.pending_slot.offset(duration) else {
            unreachable!("a slot whose time is used up has ended")
        };
        let path = &mut self.state.paths[0];
        // The probe as the slot will make it: the same draws (keyed by run, channel and slot,
        // or a path drawn in time order and read again at the same instant).
        let p = match model.simple.first() {
            Some(simple) => simple.probe(&path.keys, &mut path.occupancy, channel, t, offset),
            None => {
                General::of(&model.env).probe(&path.keys, &mut path.occupancy, channel, t, offset)
            }
        };
        one.pending.push(channel);
        let ended = one.pending_slot.add(&p)
            || one.pending_slot.offset(duration).is_none()
            || one.pending.len() == k;
        let observed_cost = p.observed_cost(model.env.time_left());
        if ended {
            self.end_slot();
        }
        Ok(ProbeStep {
            idle: p.sensed,
            cost: p.cost.cost,
            observed_cost,
            ended,
        })
    }

    /// Ends the slot being played probe by probe without a transmission (and plays an empty
    /// slot when no probe was made): the slot's outcome, as [`Stepper::step`] gives it.
    pub fn stop(&mut self) -> Result<&StepOutcome, StepError> {
        let Some(one) = self.single.as_deref() else {
            return Err(StepError::NotSingle(self.model.users));
        };
        if one.pending.is_empty() && self.state.t >= self.model.horizon {
            return Err(StepError::Ended(self.model.horizon));
        }
        self.end_slot();
        Ok(&self.outcome)
    }

    /// Plays the probes of the slot being played probe by probe as its list.
    fn end_slot(&mut self) {
        let Some(one) = self.single.as_deref_mut() else {
            return;
        };
        let list = std::mem::take(&mut one.pending);
        one.pending_slot = Default::default();
        self.step_single(&list);
        if let Some(one) = self.single.as_deref_mut() {
            one.pending = list;
            one.pending.clear();
        }
    }

    /// The next slot of the single-user world with `list`.
    fn step_single(&mut self, list: &[usize]) {
        let (model, st) = (&self.model, &mut self.state);
        let Some(one) = self.single.as_deref_mut() else {
            return;
        };
        st.t += 1;
        let t = st.t;
        let epochs = model.env.epochs();
        if Epoch::advance(epochs, &mut one.epoch, t) {
            one.buffers.probes.view().expected.reset();
        }
        one.buffers.list.clear();
        one.buffers.list.extend_from_slice(list);
        one.played.probes.clear();
        let (slot, regret) = match model.simple.first() {
            Some(simple) => play_single(model, simple, one, &mut st.paths[0], t),
            None => play_single(model, &General::of(&model.env), one, &mut st.paths[0], t),
        };
        let out = &mut self.outcome;
        out.t = t;
        out.last = t == model.horizon;
        out.benchmark_expected = epochs[one.epoch].optimum.expected_reward;
        out.pseudo_regret = regret;
        out.users.resize_with(1, UserStep::default);
        let user = &mut out.users[0];
        // Swapped, not copied: the played probes are cleared before the next slot, so one
        // buffer each way holds them (a copy touched both every step).
        user.probes.clear();
        std::mem::swap(&mut user.probes, &mut one.played.probes);
        let transmitted = slot.success || slot.collision;
        user.transmitted = if transmitted {
            user.probes.last().map(|p| p.0)
        } else {
            None
        };
        user.collision = None;
        user.ack = transmitted;
        user.success = slot.success;
        user.reward = slot.net();
        user.gain = slot.gain;
        user.energy = slot.energy;
        user.delay = slot.delay;
    }

    /// Checks the lists against the world: one per user, distinct channels below K (one each
    /// in a classic world).
    fn check(&self, lists: &[&[usize]]) -> Result<(), StepError> {
        let (m, k) = (self.model.users, self.model.env.len());
        if lists.len() != m {
            return Err(StepError::Users {
                got: lists.len(),
                users: m,
            });
        }
        for (user, list) in lists.iter().enumerate() {
            if self.model.classic && list.len() > 1 {
                return Err(StepError::NotClassic {
                    user,
                    len: list.len(),
                });
            }
            for &channel in list.iter() {
                if channel >= k {
                    return Err(StepError::Channel { user, channel, k });
                }
            }
            if let Some(channel) = repeated(list, k) {
                return Err(StepError::Repeated { user, channel });
            }
        }
        Ok(())
    }
}

/// Configuration `experiment` of a regret scenario, or the error naming how many it has.
pub(crate) fn experiment_of(
    s: &RegretScenario,
    experiment: usize,
) -> Result<&crate::scenario::Experiment, StepError> {
    s.experiments
        .get(experiment)
        .ok_or(StepError::NoExperiment {
            index: experiment,
            count: s.experiments.len(),
        })
}

/// Lists up to this long are checked for repeats pairwise; longer ones against marks.
const PAIRWISE: usize = 32;

thread_local! {
    /// Per thread, which channels the list being checked has named: `marks[c] == stamp`.
    /// (Pairwise, 1 024 users' lists of 4 096 channels took 0.7 s a step; issue 50.)
    static MARKS: std::cell::RefCell<(Vec<u32>, u32)> = const { std::cell::RefCell::new((Vec::new(), 0)) };
}

/// The first channel `list` (channels below `k`) names twice, if any.
pub(crate) fn repeated(list: &[usize], k: usize) -> Option<usize> {
    if list.len() <= PAIRWISE {
        return list
            .iter()
            .enumerate()
            .find(|&(i, c)| list[..i].contains(c))
            .map(|(_, &c)| c);
    }
    MARKS.with_borrow_mut(|(marks, stamp)| {
        if marks.len() < k || *stamp == u32::MAX {
            marks.clear();
            marks.resize(k.max(marks.len()), 0);
            *stamp = 0;
        }
        *stamp += 1;
        list.iter().copied().find(|&c| {
            let seen = marks[c] == *stamp;
            marks[c] = *stamp;
            seen
        })
    })
}

/// One slot of the single-user world on spectrum `S`.
fn play_single<S: Spectrum>(
    model: &Model,
    spectrum: &S,
    one: &mut Single,
    paths: &mut Paths,
    t: u64,
) -> (crate::engine::slot_loop::Slot, f64) {
    let world = SingleWorld::at(&model.env, spectrum, one.epoch);
    let Buffers { list, probes } = &mut one.buffers;
    world.play(
        t,
        t,
        &mut one.played,
        list,
        paths.view(),
        &mut probes.view(),
        &mut one.totals,
        &mut one.record,
    )
}

/// One slot on spectrum `S`: the episode's steps, in the episode's order.
fn play<S: Spectrum>(model: &Model, spectra: &[S], st: &mut State, out: &mut StepOutcome) {
    let t = st.t;
    let setup = model.setup();
    let world = World::new(&setup, spectra);
    let b = &mut st.buffers;
    st.tally.enter(t, setup.env.epochs(), b.expected_mut());
    world.jam(t, &mut st.jams, b, &mut st.record);
    for l in b.lists_mut() {
        l.clear();
    }
    st.actions.plan(t, b.lists_mut(), &mut st.rngs);
    b.clear_users();
    if model.classic {
        world.probe_first(t, &mut st.actions, &mut st.paths, b, &mut st.record);
    } else {
        world.probe_steps(t, &mut st.actions, &mut st.paths, b, &mut st.record);
    }
    world.resolve(
        t,
        &mut st.actions,
        &mut st.rngs,
        &mut st.collisions,
        b,
        &mut st.record,
        &mut st.tally.cum,
    );
    world.benchmark(
        t,
        st.tally.epoch,
        &st.paths,
        &mut st.bench,
        b,
        &mut st.tally.benchmark_reward,
    );
    st.tally.expect(&setup, &mut st.actions, b);
    out.t = t;
    out.last = t == model.horizon;
    out.benchmark_expected = match model.expected {
        Expected::Single => st.tally.best,
        _ => model.benchmarks[st.tally.epoch].expected_reward,
    };
    out.pseudo_regret = match model.expected {
        Expected::None => f64::NAN,
        _ => st.tally.slot_regret,
    };
    out.users.resize_with(model.users, UserStep::default);
    for (u, user) in out.users.iter_mut().enumerate() {
        let slot = b.slot(u);
        let seen = &mut st.actions.users[u];
        // Swapped, not copied (see `step_single`): the team's probes are cleared before the
        // next slot.
        user.probes.clear();
        std::mem::swap(&mut user.probes, &mut seen.probes);
        user.transmitted = seen.transmitted;
        user.collision = seen.collision;
        user.ack = seen.ack;
        user.success = slot.success;
        user.reward = slot.net();
        user.gain = slot.gain;
        user.energy = slot.energy;
        user.delay = slot.delay;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::pipeline::RunOptions;

    #[test]
    fn repeats_are_found_in_short_and_long_lists_alike() {
        let pairwise = |l: &[usize]| {
            l.iter()
                .enumerate()
                .find(|&(i, c)| l[..i].contains(c))
                .map(|(_, &c)| c)
        };
        let mut state = 7u64;
        for len in [0, 1, 5, 32, 33, 100, 4096] {
            for trial in 0..20 {
                let k = len.max(1) * 2;
                let mut list: Vec<usize> = (0..len).map(|i| (i * 2 + trial) % k).collect();
                if trial % 2 == 1 && len > 1 {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                    let (a, b) = ((state >> 33) as usize % len, (state >> 13) as usize % len);
                    list[a] = list[b];
                }
                assert_eq!(
                    repeated(&list, k),
                    pairwise(&list),
                    "len {len} trial {trial}"
                );
            }
        }
    }
    use crate::policy::Policy;
    use crate::scenario::{Scenario, parse};
    use std::path::Path;

    /// The regret scenario of RON `text`.
    fn regret_of(text: &str) -> RegretScenario {
        let Scenario::Regret(s) = parse(text, Path::new("s.ron")).unwrap() else {
            panic!("not a regret scenario")
        };
        s
    }

    /// Plays a built-in policy's lists through the stepper, run by run, and returns each
    /// run's totals `(reward, pseudo-regret, realised regret)`.
    fn drive(s: &RegretScenario, experiment: usize, runs: u64) -> Vec<(f64, f64, f64)> {
        let mut stepper = Stepper::regret(s, experiment).unwrap();
        let domain =
            crate::engine::regret::runner::experiment_domain(s, &s.experiments[experiment].label);
        let env = stepper.environment().clone();
        let mut out = Vec::new();
        for run in 0..runs {
            stepper.reset(run);
            let mut policy = s.policies[0].build(&env).unwrap();
            let mut rng = stream(s.header.seed, domain, run);
            let mut list = Vec::new();
            for t in 1..=s.header.horizon {
                list.clear();
                policy.plan(t, &mut list, &mut rng);
                while policy.extend(&mut list) {}
                let o = stepper.step(&[&list]).unwrap();
                for &(c, idle, cost) in &o.users[0].probes {
                    policy.observe(c, idle, cost);
                }
            }
            assert!(stepper.step(&[&list]).is_err(), "past the horizon");
            out.push(stepper.totals());
        }
        out
    }

    /// An agent that plays a built-in policy's lists gets that run's reward, pseudo-regret
    /// and realised regret bit for bit: moving channels (Markov, on/off), random costs,
    /// sensing errors and probe timing, cascades and one-channel policies.
    #[test]
    fn playing_a_policys_lists_gives_its_runs_bit_for_bit() {
        let channels = [
            "channels: [(cost: Bernoulli(0.3), occupancy: Markov(idle_to_busy: 0.1, busy_to_idle: 0.3)), (theta: 0.6, cost: Constant(0.2)), (theta: 0.5, cost: Bernoulli(0.4), sensing: (false_alarm: 0.1, missed_detection: 0.05)), (theta: 0.3, cost: Constant(0.1))]",
            "channels: [(theta: 0.7, cost: Constant(0.3)), (theta: 0.6, cost: Bernoulli(0.2)), (theta: 0.4, cost: Constant(0.1))]",
            "weights: (energy: 0.2, delay: 0.05), slot: (duration: 10.0), channels: [(occupancy: OnOff(idle: Exponential(mean: 40.0), busy: Exponential(mean: 8.0)), energy: Uniform(lo: 0.8, hi: 1.2), delay: Uniform(lo: 2.0, hi: 4.0)), (theta: 0.6, energy: Constant(1.0), delay: Constant(3.0)), (theta: 0.5, energy: Constant(0.5), delay: Constant(5.0))]",
        ];
        for channels in channels {
            for policy in [
                "CcUcb",
                "Ucb1(reward: Idle)",
                "Oracle",
                "CascadeKlUcb(list_len: 2)",
            ] {
                let text = format!(
                    "Regret(name: \"s\", seed: 5, horizon: 700, runs: 3, {channels}, policies: [(policy: {policy})])"
                );
                let s = regret_of(&text);
                let stats =
                    crate::engine::regret::runner::run_regret(&s, &RunOptions::default()).unwrap();
                let rows: Vec<(f64, f64, f64)> = stats.stats[0][0]
                    .finals
                    .iter()
                    .map(|(_, r)| {
                        (
                            r[Metric::Reward as usize],
                            r[Metric::PseudoRegret as usize],
                            r[Metric::RealizedRegret as usize],
                        )
                    })
                    .collect();
                let driven = drive(&s, 0, 3);
                for (a, b) in rows.iter().zip(&driven) {
                    assert_eq!(a.0.to_bits(), b.0.to_bits(), "{policy} reward {a:?} {b:?}");
                    assert_eq!(a.1.to_bits(), b.1.to_bits(), "{policy} pseudo {a:?} {b:?}");
                    assert_eq!(
                        a.2.to_bits(),
                        b.2.to_bits(),
                        "{policy} realised {a:?} {b:?}"
                    );
                }
            }
        }
    }

    /// Probe by probe: an agent that probes a policy's list one channel at a time, stopping
    /// where the world ends the slot (or stopping itself after the list), gets the run's
    /// reward and realised regret bit for bit.
    #[test]
    fn probing_a_policys_lists_one_by_one_gives_its_runs_bit_for_bit() {
        let channels = [
            "channels: [(cost: Bernoulli(0.3), occupancy: Markov(idle_to_busy: 0.1, busy_to_idle: 0.3)), (theta: 0.6, cost: Constant(0.2)), (theta: 0.5, cost: Bernoulli(0.4), sensing: (false_alarm: 0.1, missed_detection: 0.05)), (theta: 0.3, cost: Constant(0.1))]",
            "weights: (energy: 0.2, delay: 0.05), slot: (duration: 10.0), channels: [(occupancy: OnOff(idle: Exponential(mean: 40.0), busy: Exponential(mean: 8.0)), energy: Uniform(lo: 0.8, hi: 1.2), delay: Uniform(lo: 2.0, hi: 4.0)), (theta: 0.6, energy: Constant(1.0), delay: Constant(3.0)), (theta: 0.5, energy: Constant(0.5), delay: Constant(5.0))]",
        ];
        for channels in channels {
            let text = format!(
                "Regret(name: \"s\", seed: 5, horizon: 600, runs: 2, {channels}, policies: [(policy: CcUcb)])"
            );
            let s = regret_of(&text);
            let stats =
                crate::engine::regret::runner::run_regret(&s, &RunOptions::default()).unwrap();
            let mut stepper = Stepper::regret(&s, 0).unwrap();
            let env = stepper.environment().clone();
            for (run, row) in &stats.stats[0][0].finals {
                stepper.reset(*run);
                let mut policy = s.policies[0].build(&env).unwrap();
                let mut rng = stream(s.header.seed, 0, *run);
                let mut list = Vec::new();
                for t in 1..=s.header.horizon {
                    list.clear();
                    policy.plan(t, &mut list, &mut rng);
                    while policy.extend(&mut list) {}
                    let mut ended = false;
                    for &c in &list {
                        let p = stepper.probe(c).unwrap();
                        policy.observe(c, p.idle, p.observed_cost);
                        if p.ended {
                            ended = true;
                            break;
                        }
                    }
                    if !ended {
                        stepper.stop().unwrap();
                    }
                    assert_eq!(stepper.slot(), t);
                }
                // The pseudo-regret is the expected reward of the list played, and probe by
                // probe the list is what was probed (the policy's list beyond the channel
                // sensed idle is never told), so it differs; the reward and the realised
                // regret are the run's.
                let (reward, _, realised) = stepper.totals();
                assert_eq!(reward.to_bits(), row[Metric::Reward as usize].to_bits());
                assert_eq!(
                    realised.to_bits(),
                    row[Metric::RealizedRegret as usize].to_bits()
                );
            }
        }
    }

    /// A grid's configuration draws from its own streams, as the grid's runs do.
    #[test]
    fn a_grid_configuration_is_its_runs_bit_for_bit() {
        let text = "Regret(name: \"g\", seed: 3, horizon: 500, runs: 2, grid: [(label: \"a\", channels: [(theta: 0.8, cost: Constant(0.3)), (theta: 0.5, cost: Bernoulli(0.2))]), (label: \"b\", channels: [(theta: 0.6, cost: Constant(0.1)), (theta: 0.4, cost: Bernoulli(0.3))])], policies: [(policy: CcUcb)])";
        let s = regret_of(text);
        let stats = crate::engine::regret::runner::run_regret(&s, &RunOptions::default()).unwrap();
        for e in 0..2 {
            let driven = drive(&s, e, 2);
            for ((_, row), got) in stats.stats[e][0].finals.iter().zip(&driven) {
                assert_eq!(
                    row[Metric::Reward as usize].to_bits(),
                    got.0.to_bits(),
                    "{e}"
                );
                assert_eq!(
                    row[Metric::PseudoRegret as usize].to_bits(),
                    got.1.to_bits(),
                    "{e}"
                );
            }
        }
        assert_eq!(
            Stepper::regret(&s, 2).unwrap_err(),
            StepError::NoExperiment { index: 2, count: 2 }
        );
    }

    /// Many users: a team that plays through the stepper, told what each user saw, gets the
    /// run's totals bit for bit (classic teams, whose pseudo-regret has a closed form).
    #[test]
    fn a_team_played_through_the_stepper_gives_its_runs_bit_for_bit() {
        use crate::multi::Team;
        // Jammers too: each user's feedback and the pseudo-regret see their jams.
        let jammers = "jammers: [(behaviour: Reactive, budget: 300), (behaviour: Random, rate: 0.2), (behaviour: Coordinated(count: 2, moving: true), budget: 50)],";
        for (feedback, policy, jam) in [
            (
                "SensingAndCollision",
                "McTopM(index: KlUcb, convention: SMPyBandits)",
                "",
            ),
            ("SensingThenCollision", "RhoRand(index: Ucb)", ""),
            (
                "SensingThenCollision",
                "Selfish(policy: KlUcb(reward: Idle))",
                "",
            ),
            ("SensingAndCollision", "McTopM(index: KlUcb)", jammers),
            (
                "CollisionOnly",
                "Selfish(policy: KlUcb(reward: Idle))",
                jammers,
            ),
        ] {
            let text = format!(
                "MultiUser(name: \"m\", seed: 8, horizon: 600, runs: 2, users: 3, feedback: {feedback}, {jam} channels: [(theta: 0.9, cost: Constant(0.1)), (theta: 0.7, cost: Bernoulli(0.2)), (theta: 0.5, cost: Constant(0.0)), (theta: 0.3, cost: Constant(0.05))], policies: [(policy: {policy})])"
            );
            let Scenario::MultiUser(s) = parse(&text, Path::new("m.ron")).unwrap() else {
                panic!()
            };
            let stats =
                crate::engine::multi_user::runner::run_multi_user(&s, &RunOptions::default())
                    .unwrap();
            let mut stepper = Stepper::multi_user(&s, true);
            for (run, row) in &stats.stats[0].finals {
                stepper.reset(*run);
                let mut rngs: Vec<SimRng> = (0..3)
                    .map(|u| stream(s.header.seed, user_domain(u), *run))
                    .collect();
                let team = s.policies[0].build(
                    &s.env,
                    3,
                    s.header.horizon,
                    s.system_reward,
                    &mut rngs,
                    &crate::scenario::multi_user::Guard::default(),
                );
                struct Drive<'a> {
                    stepper: &'a mut Stepper,
                    rngs: &'a mut [SimRng],
                }
                impl crate::multi::TeamVisitor for Drive<'_> {
                    type Output = ();
                    fn visit<T: Team>(self, mut team: T) {
                        let mut lists = vec![Vec::new(); 3];
                        for t in 1..=self.stepper.horizon() {
                            lists.iter_mut().for_each(Vec::clear);
                            team.plan(t, &mut lists, self.rngs);
                            let refs: Vec<&[usize]> = lists.iter().map(Vec::as_slice).collect();
                            let o = self.stepper.step(&refs).unwrap().clone();
                            for (u, user) in o.users.iter().enumerate() {
                                for &(c, _, cost) in user.probes.iter().filter(|p| !p.1) {
                                    if user.transmitted != Some(c) {
                                        team.busy(u, c, cost);
                                    }
                                }
                                let last = user.probes.last().copied();
                                let seen = Seen {
                                    transmitted: user.transmitted,
                                    last: last.map(|p| p.0),
                                    sample: last.is_some_and(|p| p.1),
                                    collision: user.collision,
                                    ack: user.ack,
                                };
                                let cost = last.map_or(0.0, |p| p.2);
                                team.seen(u, &seen, cost, &mut self.rngs[u]);
                            }
                        }
                    }
                }
                team.visit(Drive {
                    stepper: &mut stepper,
                    rngs: &mut rngs,
                });
                let (reward, pseudo, realised) = stepper.totals();
                assert_eq!(
                    reward.to_bits(),
                    row[Metric::Reward as usize].to_bits(),
                    "{policy}"
                );
                assert_eq!(
                    pseudo.to_bits(),
                    row[Metric::PseudoRegret as usize].to_bits(),
                    "{policy}"
                );
                assert_eq!(
                    realised.to_bits(),
                    row[Metric::RealizedRegret as usize].to_bits(),
                    "{policy}"
                );
            }
        }
    }

    /// Lists that break the rules are refused with the user and the channel named.
    #[test]
    fn bad_lists_are_refused() {
        let text = "Regret(name: \"s\", seed: 5, horizon: 2, runs: 1, channels: [(theta: 0.5, cost: Constant(0.1)), (theta: 0.4, cost: Constant(0.1))], policies: [(policy: Oracle)])";
        let s = regret_of(text);
        let mut st = Stepper::regret(&s, 0).unwrap();
        assert_eq!(
            st.step(&[&[2]]).unwrap_err(),
            StepError::Channel {
                user: 0,
                channel: 2,
                k: 2
            }
        );
        assert_eq!(
            st.step(&[&[1, 1]]).unwrap_err(),
            StepError::Repeated {
                user: 0,
                channel: 1
            }
        );
        assert_eq!(
            st.step(&[&[0], &[1]]).unwrap_err(),
            StepError::Users { got: 2, users: 1 }
        );
        st.step(&[&[]]).unwrap();
        st.step(&[&[0, 1]]).unwrap();
        assert_eq!(st.step(&[&[0]]).unwrap_err(), StepError::Ended(2));
    }

    /// Under `reward: TimeLeft` a learner observes a probe's cost with the time it used
    /// priced in (`rate · delay / T`): the observed range holds every such cost (the cost laws'
    /// supports alone do not), and a slot ended probe by probe earns its transmission's gain
    /// (the rate times the slot left, not 1), which `UserStep::gain` reports.
    #[test]
    fn observed_costs_and_gains_under_time_left() {
        let text = "Regret(name: \"tl\", seed: 3, horizon: 400, runs: 1, weights: (energy: 1.0, delay: 0.0), slot: (duration: 1.0), reward: TimeLeft(rate: 2.0), channels: [(theta: 0.3, energy: Uniform(lo: 0.0, hi: 0.05), delay: Uniform(lo: 0.05, hi: 0.2)), (theta: 0.2, energy: Constant(0.01), delay: Constant(0.1))], policies: [(policy: Oracle)])";
        let s = regret_of(text);
        let mut st = Stepper::regret(&s, 0).unwrap();
        let (lo, hi) = st.environment().observed_cost_range();
        // Channel 0 from 0 + 2·0.05 to 0.05 + 2·0.2; channel 1 is 0.01 + 2·0.1.
        assert!(
            (lo - 0.1).abs() < 1e-12 && (hi - 0.45).abs() < 1e-12,
            "{lo} {hi}"
        );
        let (clo, chi) = st.environment().cost_range();
        assert!(clo == 0.0 && (chi - 0.05).abs() < 1e-12);
        let (mut wide, mut gains) = (0, 0);
        for t in 1..=400 {
            let mut slot_cost = 0.0;
            // Both channels probed end the slot if the first did not.
            for c in [0, 1] {
                let p = st.probe(c).unwrap();
                assert!((lo..=hi).contains(&p.observed_cost), "{}", p.observed_cost);
                assert!(p.observed_cost > p.cost);
                wide += usize::from(p.observed_cost > chi);
                slot_cost += p.cost;
                if p.ended {
                    let user = &st.last_outcome().unwrap().users[0];
                    assert_eq!(user.reward, user.gain - slot_cost);
                    if user.success {
                        // The rate times the slot left after the probes: below the rate.
                        assert!(user.gain > 0.0 && user.gain < 2.0, "{}", user.gain);
                        gains += 1;
                    }
                    break;
                }
            }
            assert_eq!(st.slot(), t);
        }
        assert!(wide > 100 && gains > 50, "{wide} {gains}");
        // Without the rule, what a learner observes is the bandit cost.
        let plain = "Regret(name: \"p\", seed: 3, horizon: 4, runs: 1, channels: [(theta: 0.3, cost: Uniform(lo: 0.1, hi: 0.3))], policies: [(policy: Oracle)])";
        let s = regret_of(plain);
        let env = Stepper::regret(&s, 0).unwrap().environment().clone();
        assert_eq!(env.observed_cost_range(), env.cost_range());
    }

    /// Each benchmark list starts on the primary user's occupancy paths, as every user does
    /// (the list draws costs and sensing from its owner's keys, `World::benchmark`), in every
    /// run, with per-user channels too.
    #[test]
    fn benchmark_lists_start_on_the_primary_users_paths() {
        let texts = [
            "MultiUser(name: \"m\", seed: 3, horizon: 50, runs: 1, users: 3, channels: [(occupancy: Markov(idle_to_busy: 0.1, busy_to_idle: 0.3), cost: Bernoulli(0.3)), (theta: 0.5, cost: Constant(0.1)), (theta: 0.4, cost: Constant(0.1)), (theta: 0.3, cost: Constant(0.1))], policies: [(policy: McTopM(index: KlUcb))])",
            "MultiUser(name: \"m\", seed: 3, horizon: 50, runs: 1, users: 3, user_theta: [[0.9, 0.5, 0.6], [0.5, 0.7, 0.4], [0.4, 0.2, 0.8], [0.3, 0.3, 0.5]], channels: [(theta: 0.9, cost: Constant(0.1)), (theta: 0.5, cost: Constant(0.1)), (theta: 0.4, cost: Constant(0.1)), (theta: 0.3, cost: Constant(0.1))], policies: [(policy: Selfish(policy: CcUcb))])",
        ];
        for text in texts {
            let Scenario::MultiUser(s) = parse(text, Path::new("m.ron")).unwrap() else {
                panic!()
            };
            for classic in [true, false] {
                let mut st = Stepper::multi_user(&s, classic);
                for run in [0, 7] {
                    st.reset(run);
                    let (paths, bench) = (&st.state.paths, &st.state.bench);
                    assert!(!bench.is_empty());
                    let primary = format!("{:?}", paths[0].occupancy);
                    for (j, b) in bench.iter().enumerate() {
                        assert_eq!(format!("{b:?}"), primary, "list {j}, run {run}");
                    }
                    for p in &paths[1..] {
                        assert_eq!(p.occupancy_keys(), paths[0].occupancy_keys(), "run {run}");
                    }
                }
            }
        }
    }
}
