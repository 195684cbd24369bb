//! The slot loop.
//!
//! Generic over the policy and over the spectrum (monomorphised, so the calls to `plan`,
//! `observe` and the per-probe draws inline), free of allocation (the buffers, the paths and the
//! record are the caller's) and of logging. Each slot: the policy plans its list; the engine
//! probes it in order, each probe at the instant the delays before it have used up (when the
//! scenario sets a slot duration; a probe that would start after the slot ends is not made),
//! reads the channel's state there, draws the probe's cost and the sensed state, reports them to
//! the policy, and stops at the first channel sensed idle. The user transmits there: on a truly
//! idle channel that earns 1, on a busy one it collides with the primary user and earns nothing.
//!
//! In the same pass the benchmark (the stationary or dynamic oracle) probes its own list on the
//! same sample paths: its realised reward is what realised regret is measured against, paired
//! run by run. Where the policy already probed a channel at the same instant, the benchmark
//! reuses that probe (the common random numbers make it the same draw); it draws only what the
//! policy did not. The slot's pseudo-regret comes from the exact expected rewards of the
//! benchmark's list and the policy's, for the current benchmark epoch.

use crate::engine::recorder::{Metric, N_METRICS, RunRecord};
use crate::engine::spectrum::{Probe, Spectrum};
use crate::model::channel::{Environment, Epoch, Paths, PathsMut};
use crate::model::theory::expected_reward_prefix;
use crate::model::time_left::TimeLeft;
use crate::policy::Policy;
use crate::util::cancel::{Cancel, check_mask};
use crate::util::rng::SimRng;

/// The buffers one episode works in, kept from run to run.
#[derive(Clone, Debug, Default)]
pub(crate) struct Buffers {
    /// The policy's list of the current slot.
    pub(crate) list: Vec<usize>,
    /// What the policy's probes leave for the benchmark, and the expected reward kept.
    pub(crate) probes: Probes,
}

/// Per channel, the slot in which the policy last probed it, and what it found (and at which
/// offset): what the benchmark may reuse; and last slot's expected reward, reused while its
/// list is.
#[derive(Clone, Debug, Default)]
pub(crate) struct Probes {
    expected: ExpectedReward,
    probed_at: Vec<u64>,
    probed_offset: Vec<f64>,
    probed: Vec<Probe>,
}

impl Probes {
    /// See [`crate::Stepper::hot_blocks`].
    pub(crate) fn hot_blocks(&self, f: &mut impl FnMut(*const u8)) {
        use crate::util::cache::lines;
        self.expected.hot_blocks(f);
        lines(&self.probed_at, f);
        lines(&self.probed_offset, f);
        lines(&self.probed, f);
    }

    /// The probes as the slot borrows them.
    pub(crate) fn view(&mut self) -> ProbesView<'_> {
        ProbesView {
            expected: &mut self.expected,
            probed_at: &mut self.probed_at,
            probed_offset: &mut self.probed_offset,
            probed: &mut self.probed,
        }
    }
}

impl Buffers {
    /// Buffers for `k` channels.
    pub(crate) fn new(k: usize) -> Buffers {
        let mut b = Buffers {
            list: Vec::with_capacity(k),
            probes: Probes::default(),
        };
        b.probes.reset(k);
        b
    }

    /// Clears the record of earlier probes for a new run.
    pub(crate) fn reset(&mut self, k: usize) {
        self.probes.reset(k);
    }
}

impl Probes {
    /// Clears the record of earlier probes for a new run of `k` channels.
    pub(crate) fn reset(&mut self, k: usize) {
        self.probed_at.clear();
        self.probed_at.resize(k, 0);
        self.probed_offset.resize(k, 0.0);
        self.probed.resize(k, Probe::default());
    }
}

/// What one slot's probing of a list gave.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Slot {
    pub(crate) cost: f64,
    pub(crate) energy: f64,
    pub(crate) delay: f64,
    /// Transmitted on a truly idle channel.
    pub(crate) success: bool,
    /// Transmitted on a busy channel sensed idle.
    pub(crate) collision: bool,
    /// Idle channels sensed busy.
    pub(crate) missed: u32,
    pub(crate) probes: usize,
    /// What the transmission earns: 1 on a truly idle channel, 0 on a busy one (or, under
    /// `reward: TimeLeft`, the rate times the slot left; see [`Slot::set_gain`]).
    pub(crate) gain: f64,
}

impl Slot {
    /// Adds one probe; returns whether the cascade stops there.
    #[inline(always)]
    pub(crate) fn add(&mut self, p: &Probe) -> bool {
        self.cost += p.cost.cost;
        self.energy += p.cost.energy;
        self.delay += p.cost.delay;
        self.probes += 1;
        if p.sensed {
            self.success = p.idle;
            self.collision = !p.idle;
            self.gain = if p.idle { 1.0 } else { 0.0 };
            return true;
        }
        self.missed += u32::from(p.idle);
        false
    }

    /// The offset of the next probe into the slot, or `None` when it would start after the
    /// slot's end.
    #[inline(always)]
    pub(crate) fn offset(&self, duration: Option<f64>) -> Option<f64> {
        match duration {
            None => Some(0.0),
            Some(d) if self.delay < d => Some(self.delay / d),
            Some(_) => None,
        }
    }

    /// The slot's net reward.
    #[inline(always)]
    pub(crate) fn net(&self) -> f64 {
        self.gain - self.cost
    }

    /// The transmission is lost (another user took the channel): it earns nothing.
    #[inline(always)]
    pub(crate) fn lose(&mut self) {
        self.success = false;
        self.gain = 0.0;
    }

    /// Under `reward: TimeLeft`, the transmission's gain after the slot's probes on channel
    /// `last` (the rate times the fraction of the slot left after them), the primary user
    /// returning `back` into the slot; returns whether it interrupted the transmission.
    #[inline(always)]
    pub(crate) fn set_gain(&mut self, tl: &TimeLeft, last: usize, back: f64) -> bool {
        if self.success || self.collision {
            let (gain, interrupted) = tl.gain(last, self.success, self.delay, back);
            self.gain = gain;
            return interrupted;
        }
        false
    }

    /// Adds the slot to the cumulative metrics it counts in (reward, costs, probes, what the
    /// probes found); the regrets are the caller's.
    #[inline(always)]
    pub(crate) fn add_to(&self, cum: &mut [f64]) {
        cum[Metric::Reward as usize] += self.net();
        cum[Metric::Cost as usize] += self.cost;
        cum[Metric::Energy as usize] += self.energy;
        cum[Metric::Delay as usize] += self.delay;
        cum[Metric::Probes as usize] += self.probes as f64;
        cum[Metric::IdleFound as usize] += if self.success { 1.0 } else { 0.0 };
        cum[Metric::PuCollisions as usize] += if self.collision { 1.0 } else { 0.0 };
        cum[Metric::MissedOpportunities as usize] += f64::from(self.missed);
    }
}

/// Where the next row of cumulative metrics goes: the three slot loops record at the same
/// slots, and close a row the same way.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Checkpoints<'a> {
    slots: &'a [u64],
    next: usize,
    /// The slot of row `next` (`u64::MAX` past the last).
    next_t: u64,
}

impl<'a> Checkpoints<'a> {
    /// A cursor at the first of `slots` (increasing, not empty).
    pub(crate) fn new(slots: &'a [u64]) -> Checkpoints<'a> {
        Checkpoints {
            slots,
            next: 0,
            next_t: slots[0],
        }
    }

    /// The row slot `t` closes, if it is a checkpoint (then the cursor moves to the next).
    #[inline(always)]
    pub(crate) fn due(&mut self, t: u64) -> Option<usize> {
        if t != self.next_t {
            return None;
        }
        let row = self.next;
        self.next += 1;
        self.next_t = self.slots.get(self.next).copied().unwrap_or(u64::MAX);
        Some(row)
    }

    /// Whether `row` is the last (the horizon's).
    pub(crate) fn is_last(&self, row: usize) -> bool {
        row + 1 == self.slots.len()
    }
}

/// Sets a row's realised regret: what the benchmark earned on the same paths, less the reward.
#[inline(always)]
pub(crate) fn close_row(cum: &mut [f64], benchmark_reward: f64) {
    cum[Metric::RealizedRegret as usize] = benchmark_reward - cum[Metric::Reward as usize];
}

/// The expected reward of the lists a policy writes, reused while the prefix it depends on is
/// unchanged: policies often repeat last slot's list.
#[derive(Clone, Debug, Default)]
pub(crate) struct ExpectedReward {
    /// The prefix of last slot's list that its value depended on.
    previous: Vec<usize>,
    value: f64,
    /// Whether the list ended there.
    complete: bool,
}

impl ExpectedReward {
    /// See [`crate::Stepper::hot_blocks`].
    pub(crate) fn hot_blocks(&self, f: &mut impl FnMut(*const u8)) {
        crate::util::cache::lines(&self.previous, f);
    }

    /// Forgets the value (a new run or a new benchmark epoch).
    #[inline]
    pub(crate) fn reset(&mut self) {
        self.previous.clear();
        self.value = 0.0;
        self.complete = true;
    }

    /// The expected net reward of `list` under the scenario's reward rule: [`Self::of`] (kept
    /// while the list's prefix is), or `reward: TimeLeft`'s own expectation.
    #[inline(always)]
    pub(crate) fn under(
        &mut self,
        time_left: Option<&TimeLeft>,
        list: &mut Vec<usize>,
        more: &mut impl FnMut(&mut Vec<usize>) -> bool,
        epoch: &Epoch,
        mean_cost: &[f64],
    ) -> f64 {
        match time_left {
            None => self.of(list, more, epoch, mean_cost),
            Some(_) => Self::afresh(
                time_left,
                list,
                more,
                &epoch.success,
                &epoch.stop,
                mean_cost,
            ),
        }
    }

    /// The expected net reward of `list` under the scenario's reward rule with these success
    /// and stop probabilities, computed afresh (nothing kept).
    #[inline(always)]
    pub(crate) fn afresh(
        time_left: Option<&TimeLeft>,
        list: &mut Vec<usize>,
        more: &mut impl FnMut(&mut Vec<usize>) -> bool,
        success: &[f64],
        stop: &[f64],
        mean_cost: &[f64],
    ) -> f64 {
        match time_left {
            None => expected_reward_prefix(list, more, success, stop, mean_cost).0,
            Some(tl) => tl.expected_reward(list, more, success, stop, mean_cost, tl.delays()),
        }
    }

    /// The exact expected reward of `list` (of which `more` appends the rest) in `epoch`.
    #[inline(always)]
    pub(crate) fn of(
        &mut self,
        list: &mut Vec<usize>,
        more: &mut impl FnMut(&mut Vec<usize>) -> bool,
        epoch: &Epoch,
        mean_cost: &[f64],
    ) -> f64 {
        let previous = &self.previous;
        // Compared entry by entry: these prefixes are a few entries long, where a call to
        // `memcmp` (what slice equality compiles to) costs more than the comparison.
        let unchanged =
            list.len() >= previous.len() && list.iter().zip(previous).all(|(a, b)| a == b) && {
                // A list that ended there must end there again.
                !self.complete || (list.len() == previous.len() && !more(list))
            };
        if !unchanged {
            let (value, used, complete) =
                expected_reward_prefix(list, more, &epoch.success, &epoch.stop, mean_cost);
            self.previous.clear();
            self.previous.extend_from_slice(&list[..used]);
            self.value = value;
            self.complete = complete;
        }
        self.value
    }
}

/// Runs one episode of `horizon` slots, recording cumulative metrics at `checkpoints`
/// (increasing, the last one equal to `horizon`) into `record`, which must be sized for them and
/// reset; the realised regret against the benchmark on the same paths included. `paths` must be
/// reset for this run; `rng` is the policy's own stream. Returns early, with the record
/// incomplete, when `cancel` is set (looked at every 2¹⁰ slots, fewer on many channels: [`check_mask`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn episode<P: Policy, S: Spectrum>(
    env: &Environment,
    spectrum: &S,
    policy: &mut P,
    horizon: u64,
    checkpoints: &[u64],
    rng: &mut SimRng,
    paths: &mut Paths,
    record: &mut RunRecord,
    buffers: &mut Buffers,
    cancel: &Cancel,
) {
    debug_assert_eq!(checkpoints.last(), Some(&horizon));
    debug_assert_eq!(record.rows.len(), checkpoints.len());
    buffers.reset(env.len());
    let Buffers { list, probes } = buffers;
    let mut probes = probes.view();
    let epochs = env.epochs();
    let mut epoch = 0;
    // Made again only when the epoch changes: made every slot it cost 8 instructions a slot
    // (CC-UCB at K = 6, callgrind: 920.7 against 912.7).
    let mut world = World::at(env, spectrum, epoch);
    probes.expected.reset();
    let mut totals = Totals::default();
    let mut rows = Checkpoints::new(checkpoints);
    let check = check_mask(env.len());
    for t in 1..=horizon {
        if t & check == 0 && cancel.is_cancelled() {
            return;
        }
        if Epoch::advance(epochs, &mut epoch, t) {
            world = World::at(env, spectrum, epoch);
            probes.expected.reset();
        }
        list.clear();
        policy.plan(t, list, rng);
        world.play(
            t,
            t,
            policy,
            list,
            paths.view(),
            &mut probes,
            &mut totals,
            record,
        );
        if let Some(row) = rows.due(t) {
            close_row(&mut totals.cum, totals.benchmark_reward);
            record.rows[row] = totals.cum;
            record.rows[row][Metric::PuReturns as usize] = record.pu_returns as f64;
        }
    }
}

/// The single-user world's rules for one slot: the channels as the spectrum `S` probes them,
/// the slot's duration, the benchmark's epoch and its expected reward. [`World::play`] is the
/// slot itself, which the episode loop and the training environments' stepper both call.
pub(crate) struct World<'a, S> {
    pub(crate) spectrum: &'a S,
    pub(crate) duration: Option<f64>,
    pub(crate) epoch: &'a Epoch,
    pub(crate) mean_cost: &'a [f64],
    /// The benchmark's expected reward in the epoch.
    pub(crate) best: f64,
    /// The reward by the time left in the slot, if the scenario asks for it.
    pub(crate) time_left: Option<&'a TimeLeft>,
}

/// What a run carries from slot to slot: the cumulative metrics and the benchmark's reward.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Totals {
    pub(crate) cum: [f64; N_METRICS],
    pub(crate) benchmark_reward: f64,
}

impl Totals {
    /// The run so far as its row of `runs.csv` reads it at the horizon: `(reward,
    /// pseudo-regret, realised regret)`.
    pub(crate) fn summary(&self) -> (f64, f64, f64) {
        let reward = self.cum[Metric::Reward as usize];
        (
            reward,
            self.cum[Metric::PseudoRegret as usize],
            self.benchmark_reward - reward,
        )
    }
}

impl Default for Totals {
    fn default() -> Totals {
        Totals {
            cum: [0.0; N_METRICS],
            benchmark_reward: 0.0,
        }
    }
}

/// The policy's probes of the current slot that the benchmark may reuse, and the expected
/// reward kept from slot to slot (borrowed from [`Buffers`]).
pub(crate) struct ProbesView<'b> {
    pub(crate) expected: &'b mut ExpectedReward,
    probed_at: &'b mut [u64],
    probed_offset: &'b mut [f64],
    probed: &'b mut [Probe],
}

impl<'a, S: Spectrum> World<'a, S> {
    /// The world of `env`'s benchmark epoch `epoch` on `spectrum` (what the episode loop, the
    /// stepper and the batch each play a slot in).
    #[inline(always)]
    pub(crate) fn at(env: &'a Environment, spectrum: &'a S, epoch: usize) -> World<'a, S> {
        let epoch = &env.epochs()[epoch];
        World {
            spectrum,
            duration: spectrum.duration(),
            epoch,
            mean_cost: env.mean_cost(),
            best: epoch.optimum.expected_reward,
            time_left: env.time_left(),
        }
    }

    /// Slot `t` with `list` as the policy planned it: the policy's probes in order until the
    /// first channel sensed idle (each observed by the policy), the benchmark's list on the
    /// same paths (reusing the policy's draws where it probed the channel at the same
    /// instant), the list's exact expected reward; the slot's metrics added to `totals`.
    /// Returns the slot and its pseudo-regret. `stamp` marks this slot's probes in `probes`
    /// (never reused across slots): the slot itself in a run, a counter where copies at the
    /// same slot share one `probes` (see [`crate::engine::batch`]).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn play<P: Policy>(
        &self,
        t: u64,
        stamp: u64,
        policy: &mut P,
        list: &mut Vec<usize>,
        paths: PathsMut<'_>,
        probes: &mut ProbesView<'_>,
        totals: &mut Totals,
        record: &mut RunRecord,
    ) -> (Slot, f64) {
        let ProbesView {
            expected,
            probed_at,
            probed_offset,
            probed,
        } = probes;
        let (spectrum, duration) = (self.spectrum, self.duration);
        // The policy's probes.
        let mut slot = Slot::default();
        let mut j = 0;
        loop {
            if j == list.len() && !policy.extend(list) {
                break;
            }
            let Some(offset) = slot.offset(duration) else {
                break;
            };
            let i = list[j];
            j += 1;
            let p = spectrum.probe(paths.keys, paths.occupancy, i, t, offset);
            probed_at[i] = stamp;
            probed_offset[i] = offset;
            probed[i] = p;
            policy.observe(i, p.sensed, p.observed_cost(self.time_left));
            record.channel_probes[i] += 1;
            if slot.add(&p) {
                if let Some(tl) = self.time_left {
                    let back = spectrum.returns_at(paths.occupancy, i, t);
                    record.pu_returns += u64::from(slot.set_gain(tl, i, back));
                }
                break;
            }
        }
        // The benchmark's probes on the same paths: the policy's draws where it probed the
        // channel at the same instant, its own otherwise.
        let mut bench = Slot::default();
        for &i in &self.epoch.optimum.list {
            let Some(offset) = bench.offset(duration) else {
                break;
            };
            let reused = probed_at[i] == stamp && probed_offset[i] == offset;
            let p = if reused {
                probed[i]
            } else {
                spectrum.probe(paths.keys, paths.benchmark, i, t, offset)
            };
            if bench.add(&p) {
                if let Some(tl) = self.time_left {
                    // The path state the probe read: the policy's where it was reused.
                    let states = if reused {
                        &*paths.occupancy
                    } else {
                        &*paths.benchmark
                    };
                    bench.set_gain(tl, i, spectrum.returns_at(states, i, t));
                }
                break;
            }
        }
        totals.benchmark_reward += bench.net();
        let mut more = |l: &mut Vec<usize>| policy.extend(l);
        let value = expected.under(self.time_left, list, &mut more, self.epoch, self.mean_cost);
        let regret = self.best - value;
        totals.cum[Metric::PseudoRegret as usize] += regret;
        slot.add_to(&mut totals.cum);
        record.probes_per_slot[slot.probes] += 1;
        (slot, regret)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::spectrum::{General, Simple};
    use crate::model::channel::Channel;
    use crate::model::cost::CostModel;
    use crate::model::law::{Law, LawSpec};
    use crate::policy::{Oracle, RandomList};
    use crate::util::crn::RunKey;
    use crate::util::stats::CheckpointSpec;

    /// Rows close at their checkpoints only, in order, and nothing after the last.
    #[test]
    fn checkpoints_close_rows_at_their_slots() {
        let slots = [1, 3, 10];
        let mut rows = Checkpoints::new(&slots);
        let due: Vec<(u64, usize)> = (1..=12)
            .filter_map(|t| rows.due(t).map(|r| (t, r)))
            .collect();
        assert_eq!(due, [(1, 0), (3, 1), (10, 2)]);
        assert!(rows.is_last(2) && !rows.is_last(1));
    }

    fn env(theta: &[f64], cost: f64) -> Environment {
        let law = Law::new(&LawSpec::Bernoulli(cost)).unwrap();
        Environment::new(
            theta
                .iter()
                .map(|&t| Channel::new(t, CostModel::Plain(law.clone())))
                .collect(),
        )
    }

    #[test]
    fn oracle_has_exactly_zero_pseudo_regret_and_consistent_counts() {
        let env = env(&[0.8, 0.7, 0.6, 0.5, 0.4, 0.3], 0.55);
        let cps = CheckpointSpec::default().slots(5000);
        let mut rec = RunRecord::new(6, cps.len());
        let mut rng = crate::util::rng::stream(1, 1, 1);
        let mut paths = Paths::new(&env, RunKey::new(1, 1, 1));
        episode(
            &env,
            &General::of(&env),
            &mut Oracle::new(&env),
            5000,
            &cps,
            &mut rng,
            &mut paths,
            &mut rec,
            &mut Buffers::new(env.len()),
            &Cancel::new(),
        );
        let last = rec.rows.last().unwrap();
        assert_eq!(last[Metric::PseudoRegret as usize], 0.0);
        // The benchmark is the oracle itself, on the same paths: no realised regret either.
        assert_eq!(last[Metric::RealizedRegret as usize], 0.0);
        // Never probes a channel outside the UCR-T1 list {0, 1, 2}.
        assert!(rec.channel_probes[3..].iter().all(|&c| c == 0));
        let probes: u64 = rec.channel_probes.iter().sum();
        assert_eq!(last[Metric::Probes as usize], probes as f64);
        assert_eq!(rec.probes_per_slot.iter().sum::<u64>(), 5000);
        // Reward = idle found − cost; perfect sensing never collides.
        let reward = last[Metric::IdleFound as usize] - last[Metric::Cost as usize];
        assert!((last[Metric::Reward as usize] - reward).abs() < 1e-9);
        assert_eq!(last[Metric::PuCollisions as usize], 0.0);
        assert_eq!(last[Metric::MissedOpportunities as usize], 0.0);
    }

    #[test]
    fn probing_stops_at_the_first_idle_channel() {
        // Channel 0 always idle: a random list of all channels probes exactly one channel when
        // channel 0 comes first, never anything after it.
        let env = env(&[1.0, 0.0, 0.0], 0.1);
        let cps = vec![1000];
        let mut rec = RunRecord::new(3, 1);
        let mut rng = crate::util::rng::stream(2, 2, 2);
        let mut paths = Paths::new(&env, RunKey::new(2, 2, 2));
        episode(
            &env,
            &General::of(&env),
            &mut RandomList::new(3, 3),
            1000,
            &cps,
            &mut rng,
            &mut paths,
            &mut rec,
            &mut Buffers::new(env.len()),
            &Cancel::new(),
        );
        let last = rec.rows[0];
        // Every slot finds channel 0 idle.
        assert_eq!(last[Metric::IdleFound as usize], 1000.0);
        assert_eq!(rec.channel_probes[0], 1000);
        assert_eq!(rec.probes_per_slot[0], 0);
        assert_eq!(rec.probes_per_slot.iter().sum::<u64>(), 1000);
    }

    /// A policy that writes its list lazily, one entry at a time.
    struct Lazy {
        inner: RandomList,
        pending: Vec<usize>,
    }

    impl Policy for Lazy {
        fn plan(&mut self, t: u64, list: &mut Vec<usize>, rng: &mut SimRng) {
            self.inner.plan(t, list, rng);
            self.pending = list.split_off(1.min(list.len()));
            self.pending.reverse();
        }
        fn observe(&mut self, channel: usize, idle: bool, cost: f64) {
            self.inner.observe(channel, idle, cost);
        }
        fn extend(&mut self, list: &mut Vec<usize>) -> bool {
            match self.pending.pop() {
                Some(i) => {
                    list.push(i);
                    true
                }
                None => false,
            }
        }
    }

    /// A list written lazily gives exactly what the same list written whole gives, and the
    /// fast path exactly what the general one gives.
    #[test]
    fn lazy_lists_and_the_fast_path_change_nothing() {
        let env = env(&[0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1], 0.3);
        let cps = CheckpointSpec::default().slots(3000);
        let run = |lazy: bool, simple: bool| {
            let mut rec = RunRecord::new(8, cps.len());
            let mut rng = crate::util::rng::stream(4, 0, 2);
            let mut paths = Paths::new(&env, RunKey::new(4, 0, 2));
            let inner = RandomList::new(8, 6);
            let mut buffers = Buffers::new(8);
            let fast = Simple::of(&env).unwrap();
            macro_rules! go {
                ($p:expr, $s:expr) => {
                    episode(
                        &env,
                        $s,
                        $p,
                        3000,
                        &cps,
                        &mut rng,
                        &mut paths,
                        &mut rec,
                        &mut buffers,
                        &Cancel::new(),
                    )
                };
            }
            match (lazy, simple) {
                (true, true) => go!(
                    &mut Lazy {
                        inner,
                        pending: Vec::new()
                    },
                    &fast
                ),
                (true, false) => go!(
                    &mut Lazy {
                        inner,
                        pending: Vec::new()
                    },
                    &General::of(&env)
                ),
                (false, true) => go!(&mut { inner }, &fast),
                (false, false) => go!(&mut { inner }, &General::of(&env)),
            }
            rec
        };
        let whole = run(false, false);
        for (lazy, simple) in [(true, false), (false, true), (true, true)] {
            let other = run(lazy, simple);
            assert_eq!(other.rows, whole.rows, "lazy {lazy}, simple {simple}");
            assert_eq!(other.channel_probes, whole.channel_probes);
            assert_eq!(other.probes_per_slot, whole.probes_per_slot);
        }
    }
}
