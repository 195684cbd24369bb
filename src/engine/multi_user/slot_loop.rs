//! The slot loop of many users (see [`crate::multi`] for the model).
//!
//! Each slot every user plans its list. Probe step `s = 0, 1, …`: every user still probing
//! makes its `s`-th probe, at the instant its own earlier delays have used up, on the primary
//! user's shared sample path with its own cost and sensing draws. Under `Synchronous` timing a
//! user probing a channel on which another user started transmitting at an earlier step senses
//! it busy (carrier sensing). A user transmits on the first channel it senses idle (without
//! sensing, on the first channel of its list). After the last step, collisions are resolved
//! per channel: two or more transmitters collide (`AllLost`: nobody gets the reward;
//! `SameChannel`: users who chose one channel lose whatever they sensed;
//! `OneWinner`: one drawn uniformly does; `Capture`: the nearest does; `NoCollision`: each has
//! its own copy). A user earns 1 when acknowledged on a truly idle channel, minus its costs.
//!
//! In the same pass the benchmark's lists are probed on the same paths, reusing a user's probe
//! where that user probed the channel at the same instant (common random numbers): its
//! realised reward is what realised regret is measured against. The expected (pseudo-)regret
//! is exact where it has a closed form: with one user, the single-user formula slot by slot;
//! in the classic model (one channel per user, perfect sensing), from the per-channel counts
//! of selections and of rewarded users, in exact sums, with the three-term decomposition of
//! Besson & Kaufmann (2018, Lemma 1) alongside.

use crate::engine::recorder::{Metric, N_METRICS};
use crate::engine::slot_loop::{Checkpoints, ExpectedReward, Slot, close_row};
use crate::engine::spectrum::{Probe, Spectrum};
use crate::model::channel::{Environment, Epoch, Paths};
use crate::model::jamming::{JamRun, Jammers};
use crate::model::occupancy::OccupancyState;
use crate::model::sharing::Shared;
use crate::model::system_reward::SystemReward;
use crate::model::time_left::TimeLeft;
use crate::multi::{Collision, Feedback, Seen, Team, Timing};
use crate::util::cancel::Cancel;
use crate::util::rng::SimRng;
use crate::util::stats::ExactSum;
use rand::RngExt;
use std::collections::HashMap;

/// Metrics recorded per checkpoint: the single-user ones summed over users, then these.
pub(crate) const N_MULTI: usize = N_METRICS + 1;
/// Users involved in collisions with other users (a collision of three counts three).
pub(crate) const SU_COLLISIONS: usize = N_METRICS;

/// How the pseudo-regret is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expected {
    /// One user: the single-user exact expected reward of its list, slot by slot.
    Single,
    /// One channel per user and perfect sensing: from per-channel counts (and the
    /// decomposition).
    Classic,
    /// No closed form (cascades of several users, or sensing errors): realised regret only.
    None,
}

/// What the runs of one team share.
#[derive(Clone, Debug)]
pub(crate) struct Setup<'a> {
    /// The channels (as user 0 sees them).
    pub env: &'a Environment,
    /// Each user's channels with per-user means, else `env` alone.
    pub envs: &'a [Environment],
    /// Users, M.
    pub users: usize,
    /// Timing between users.
    pub timing: Timing,
    /// Collision resolution.
    pub collision: &'a Collision,
    /// Feedback level.
    pub feedback: Feedback,
    /// Slots per run.
    pub horizon: u64,
    /// Checkpoints (increasing, the last the horizon).
    pub checkpoints: &'a [u64],
    /// The benchmark of each epoch of `env`.
    pub benchmarks: &'a [Shared],
    /// How the pseudo-regret is computed.
    pub expected: Expected,
    /// How the users' rewards of a slot combine (the realised regret's measure).
    pub system: SystemReward,
    /// The jammers (none: the jammer-free world).
    pub jammers: &'a Jammers,
    /// The benchmark of the channels the jammers leave, where it is computed.
    pub reduced: Option<&'a super::reduced::ReducedBenchmark<'a>>,
}

/// One run's record.
#[derive(Clone, Debug)]
pub(crate) struct MultiRecord {
    /// Cumulative metrics at each checkpoint (NaN pseudo-regret where it has no closed form).
    pub rows: Vec<[f64; N_MULTI]>,
    /// Per user, net reward over the run.
    pub user_reward: Vec<f64>,
    /// Per user, slots it transmitted on an idle channel and was acknowledged.
    pub user_success: Vec<u64>,
    /// Per user, slots whose chosen channel differs from the previous slot's.
    pub switches: Vec<u64>,
    /// Per channel, user-slots that chose it.
    pub selections: Vec<u64>,
    /// Per channel, users involved in collisions on it.
    pub collisions: Vec<u64>,
    /// Per channel, probes.
    pub channel_probes: Vec<u64>,
    /// The decomposition of the classic pseudo-regret at the horizon: sub-optimal selections,
    /// optimal channels left unused, collisions (exact sums), and the regret itself.
    pub decomposition: Option<[ExactSum; 4]>,
    /// User-slots whose transmission the primary user interrupted by returning (under
    /// `reward: TimeLeft`; see [`crate::model::time_left`]).
    pub pu_returns: u64,
    /// User-slots whose transmission a jammer destroyed.
    pub jammed: u64,
    /// Channel-slots jammed (a coordinated group's J channels count J).
    pub jam_slots: u64,
    /// `Σ_t` (the benchmark's expected reward − that of the channels the jammers leave in
    /// slot t): the pseudo-regret less this is the regret against the reduced benchmark.
    pub reduced_gap: f64,
}

impl MultiRecord {
    /// Every line of the per-user and per-channel counters (see [`crate::Stepper::hot_blocks`]).
    pub(crate) fn hot_blocks(&self, f: &mut impl FnMut(*const u8)) {
        use crate::util::cache::lines;
        lines(&self.user_reward, f);
        lines(&self.user_success, f);
        lines(&self.switches, f);
        lines(&self.selections, f);
        lines(&self.collisions, f);
        lines(&self.channel_probes, f);
    }

    /// A record for `k` channels, `users` users, `checkpoints` checkpoints.
    pub(crate) fn new(k: usize, users: usize, checkpoints: usize) -> MultiRecord {
        MultiRecord {
            rows: vec![[0.0; N_MULTI]; checkpoints],
            user_reward: vec![0.0; users],
            user_success: vec![0; users],
            switches: vec![0; users],
            selections: vec![0; k],
            collisions: vec![0; k],
            channel_probes: vec![0; k],
            decomposition: None,
            pu_returns: 0,
            jammed: 0,
            jam_slots: 0,
            reduced_gap: 0.0,
        }
    }

    fn reset(&mut self) {
        self.pu_returns = 0;
        self.jammed = 0;
        self.jam_slots = 0;
        self.reduced_gap = 0.0;
        self.rows.iter_mut().for_each(|r| *r = [0.0; N_MULTI]);
        self.user_reward.iter_mut().for_each(|x| *x = 0.0);
        for v in [
            &mut self.user_success,
            &mut self.switches,
            &mut self.selections,
            &mut self.collisions,
            &mut self.channel_probes,
        ] {
            v.iter_mut().for_each(|x| *x = 0);
        }
        self.decomposition = None;
    }
}

/// A user's probe of the current slot, for the benchmark to reuse.
#[derive(Clone, Copy, Debug, Default)]
struct Probed {
    slot: u64,
    offset: f64,
    probe: Probe,
}

/// One user's state within the current slot: one struct per user, so that the slot's reset
/// is one store per user and the step loop reads one cache line (it was seven arrays).
#[derive(Clone, Copy, Debug, Default)]
struct UserSlot {
    /// What the user's probes gave so far.
    slot: Slot,
    /// Entries of its list probed.
    at: usize,
    /// Stopped probing (transmitted, list exhausted, or out of time).
    done: bool,
    /// The channel it transmitted on.
    tx: Option<usize>,
    /// The channel probed last.
    last: Option<usize>,
    /// What it sensed of `last`.
    last_sensed: bool,
    /// The cost of its probe of `last`.
    last_cost: f64,
}

/// The buffers of one worker, reused from run to run.
#[derive(Clone, Debug, Default)]
pub(crate) struct MultiBuffers {
    lists: Vec<Vec<usize>>,
    probed: Vec<Probed>,
    users: Vec<UserSlot>,
    /// Per user, the channel chosen in the previous slot (for switches).
    chosen_before: Vec<Option<usize>>,
    /// Per user, the channel transmitted on this slot (for collision resolution).
    tx: Vec<Option<usize>>,
    /// Per channel: transmitters this slot, the step the first started, users choosing it.
    transmitters: Vec<u32>,
    started: Vec<u32>,
    choosers: Vec<u32>,
    winner: Vec<Option<usize>>,
    /// Per epoch and channel: user-slots choosing it, and rewarded when idle (classic).
    chose: Vec<Vec<u64>>,
    rewarded: Vec<Vec<u64>>,
    epoch_slots: Vec<u64>,
    /// Single user: last slot's expected reward, reused while its list is.
    expected: ExpectedReward,
    /// A system reward other than the sum: each user's and each benchmark list's reward of
    /// the slot, and the run's system rewards of the users and of the benchmark so far.
    nets: Vec<f64>,
    bench_nets: Vec<f64>,
    system_users: f64,
    system_bench: f64,
    /// Per channel, whether a jammer holds it this slot; the channels held, increasing.
    jammed: Vec<bool>,
    held: Vec<usize>,
    /// The success probabilities of the slot's epoch with the jammed channels' at 0.
    jam_success: Vec<f64>,
    /// The reduced benchmark's value per (epoch, channels jammed), as computed so far.
    reduced: HashMap<(usize, Vec<usize>), f64>,
}

/// Per-run randomness: each user's policy stream and paths, the benchmark's paths and the
/// collision stream, all reset for this run by the caller.
pub(crate) struct RunDraws<'a> {
    /// Each user's policy stream.
    pub rngs: &'a mut [SimRng],
    /// Each user's paths (the primary user's occupancy shared; see
    /// [`Paths::reset_sharing`]).
    pub paths: &'a mut [Paths],
    /// The benchmark's path states, one set per list (see
    /// [`crate::engine::multi_user::runner::start_benchmark`]).
    pub bench: &'a mut [Vec<OccupancyState>],
    /// Draws of collision resolution (`OneWinner`).
    pub collisions: &'a mut SimRng,
    /// The jammers' budgets and streams.
    pub jams: &'a mut JamRun,
}

const NOT_STARTED: u32 = u32::MAX;

impl MultiBuffers {
    /// The outer blocks of the per-user lists (read to find the lists themselves).
    pub(crate) fn hot_headers(&self, f: &mut impl FnMut(*const u8)) {
        use crate::util::cache::lines;
        lines(&self.lists, f);
        lines(&self.chose, f);
        lines(&self.rewarded, f);
    }

    /// Every line of the slot's per-user and per-channel buffers (see
    /// [`crate::Stepper::hot_blocks`]).
    pub(crate) fn hot_blocks(&self, f: &mut impl FnMut(*const u8)) {
        use crate::util::cache::lines;
        // Not the lists' blocks: the stepper's team swaps its lists in (only their headers,
        // in `hot_headers`' block, are written). Nor the probe records: the caller asks for
        // those the step touches (`hot_probe`).
        lines(&self.users, f);
        lines(&self.chosen_before, f);
        lines(&self.tx, f);
        lines(&self.transmitters, f);
        lines(&self.started, f);
        lines(&self.choosers, f);
        lines(&self.winner, f);
        for v in self.chose.iter().chain(&self.rewarded) {
            lines(v, f);
        }
        lines(&self.epoch_slots, f);
        self.expected.hot_blocks(f);
    }

    /// The lines of probe record `at` (user `u`, channel `c`: `u·K + c`), if it exists.
    pub(crate) fn hot_probe(&self, at: usize, f: &mut impl FnMut(*const u8)) {
        if let Some(p) = self.probed.get(at) {
            crate::util::cache::lines_of(p, f);
        }
    }

    /// User `u`'s slot so far (its probes' costs, whether it transmitted successfully).
    pub(crate) fn slot(&self, u: usize) -> &Slot {
        &self.users[u].slot
    }

    /// The lists the users play this slot.
    pub(crate) fn lists_mut(&mut self) -> &mut [Vec<usize>] {
        &mut self.lists
    }

    /// The expected reward kept from slot to slot (one user).
    pub(crate) fn expected_mut(&mut self) -> &mut ExpectedReward {
        &mut self.expected
    }

    /// Every user's slot state cleared, before the slot's probes.
    pub(crate) fn clear_users(&mut self) {
        self.users.iter_mut().for_each(|s| *s = UserSlot::default());
    }

    /// Sized for `m` users, `k` channels and `epochs` epochs, and cleared for a new run.
    pub(crate) fn reset(&mut self, k: usize, m: usize, epochs: usize) {
        self.lists.resize_with(m, Vec::new);
        self.probed.clear();
        self.probed.resize(m * k, Probed::default());
        self.users.clear();
        self.users.resize(m, UserSlot::default());
        self.chosen_before.clear();
        self.chosen_before.resize(m, None);
        self.tx.clear();
        self.tx.resize(m, None);
        for v in [
            &mut self.transmitters,
            &mut self.started,
            &mut self.choosers,
        ] {
            v.clear();
            v.resize(k, 0);
        }
        self.winner.clear();
        self.winner.resize(k, None);
        self.chose.clear();
        self.chose.resize(epochs, vec![0; k]);
        self.rewarded.clear();
        self.rewarded.resize(epochs, vec![0; k]);
        self.epoch_slots.clear();
        self.epoch_slots.resize(epochs, 0);
        self.expected.reset();
        self.nets.clear();
        self.nets.resize(m, 0.0);
        self.bench_nets.clear();
        self.bench_nets.resize(m, 0.0);
        self.system_users = 0.0;
        self.system_bench = 0.0;
        self.jammed.clear();
        self.jammed.resize(k, false);
        self.held.clear();
    }

    /// The realised regret by a system reward other than the sum, so far: what the
    /// benchmark's lists earned together less what the users did.
    pub(crate) fn system_regret(&self) -> f64 {
        self.system_bench - self.system_users
    }
}

/// The rules of the many-users world for one episode: the channels as each user sees them,
/// and what the timing, collision and feedback models make of the users' probes. Each step of
/// a slot is one method; the episode calls them in order.
pub(crate) struct World<'a, S> {
    setup: &'a Setup<'a>,
    spectra: &'a [S],
    k: usize,
    m: usize,
    /// Users sense channels (and may cascade); without, each transmits on its first channel.
    senses: bool,
    /// Every user has its own copy of every channel (`NoCollision`).
    copies: bool,
    /// Users hear transmissions that started at an earlier probe step (carrier sensing).
    carrier: bool,
    /// `reward: TimeLeft`: transmissions earn by the time left in the slot, and users observe
    /// a probe's time in its cost.
    time_left: Option<&'a TimeLeft>,
    /// Some jammer can jam.
    jamming: bool,
}

impl<'a, S: Spectrum> World<'a, S> {
    pub(crate) fn new(setup: &'a Setup<'a>, spectra: &'a [S]) -> World<'a, S> {
        let copies = *setup.collision == Collision::NoCollision;
        World {
            setup,
            spectra,
            k: setup.env.len(),
            m: setup.users,
            senses: setup.feedback.senses(),
            copies,
            carrier: setup.timing == Timing::Synchronous && !copies,
            time_left: setup.env.time_left(),
            jamming: setup.jammers.active(),
        }
    }

    /// The jammers' channels of slot `t` (before the users transmit: a reactive jammer reads
    /// the previous slot's transmissions, still in the buffers).
    #[inline(always)]
    pub(crate) fn jam(
        &self,
        t: u64,
        jams: &mut JamRun,
        b: &mut MultiBuffers,
        record: &mut MultiRecord,
    ) {
        if self.jamming {
            record.jam_slots += jams.jam(self.setup.jammers, t, &b.tx, &mut b.jammed, &mut b.held);
        }
    }

    /// Under `reward: TimeLeft`, each transmitting user's gain by the time its probes left
    /// (before collisions: a lost transmission earns nothing anyway), the primary user's
    /// return read on that user's path; counts the returns that interrupted one.
    #[inline(always)]
    fn gains(&self, t: u64, paths: &[Paths], b: &mut MultiBuffers, record: &mut MultiRecord) {
        let Some(tl) = self.time_left else {
            return;
        };
        for (u, us) in b.users.iter_mut().enumerate() {
            if let Some(i) = us.tx {
                let back = self.spectrum_of(u).returns_at(&paths[u].occupancy, i, t);
                record.pu_returns += u64::from(us.slot.set_gain(tl, i, back));
            }
        }
    }

    /// The channels as user `u` sees them.
    #[inline]
    fn spectrum_of(&self, u: usize) -> &'a S {
        &self.spectra[u.min(self.spectra.len() - 1)]
    }

    /// Classic lists: each user's one channel, probed at the slot's start (no duration), in
    /// the step loop's order with the step loop's values. No user hears another (carrier
    /// sensing needs an earlier step), and the lists are complete (`extend` is the default
    /// `false` for classic teams), so what the step loop would add is the second step's
    /// finding that every user is done.
    // Users index several parallel per-user arrays (lists, paths, slots).
    #[allow(clippy::needless_range_loop)]
    #[inline(always)]
    pub(crate) fn probe_first<T: Team>(
        &self,
        t: u64,
        team: &mut T,
        paths: &mut [Paths],
        b: &mut MultiBuffers,
        record: &mut MultiRecord,
    ) {
        for u in 0..self.m {
            let us = &mut b.users[u];
            let Some(&i) = b.lists[u].first() else {
                continue;
            };
            debug_assert_eq!(b.lists[u].len(), 1, "a classic team lists one channel");
            let path = &mut paths[u];
            let p = self
                .spectrum_of(u)
                .probe(&path.keys, &mut path.occupancy, i, t, 0.0);
            b.probed[u * self.k + i] = Probed {
                slot: t,
                offset: 0.0,
                probe: p,
            };
            record.channel_probes[i] += 1;
            us.last = Some(i);
            us.last_cost = p.observed_cost(self.time_left);
            if !self.senses {
                us.slot.add(&Probe { sensed: true, ..p });
                us.last_sensed = p.idle;
                us.tx = Some(i);
            } else {
                us.last_sensed = p.sensed;
                if us.slot.add(&p) {
                    us.tx = Some(i);
                } else {
                    team.busy(u, i, p.observed_cost(self.time_left));
                }
            }
        }
        self.gains(t, paths, b, record);
    }

    /// The probe steps: at step `s` every user still probing makes its `s`-th probe, at the
    /// instant its own earlier delays have used up, until every user has transmitted, run out
    /// of its list or of the slot.
    // Users index several parallel per-user arrays (lists, paths, slots).
    #[allow(clippy::needless_range_loop)]
    #[inline(always)]
    pub(crate) fn probe_steps<T: Team>(
        &self,
        t: u64,
        team: &mut T,
        paths: &mut [Paths],
        b: &mut MultiBuffers,
        record: &mut MultiRecord,
    ) {
        let duration = self.spectra[0].duration();
        b.started.iter_mut().for_each(|s| *s = NOT_STARTED);
        let mut step = 0u32;
        loop {
            let mut any = false;
            for u in 0..self.m {
                let us = &mut b.users[u];
                if us.done {
                    continue;
                }
                let list = &mut b.lists[u];
                if us.at == list.len() && !team.extend(u, list) {
                    us.done = true;
                    continue;
                }
                let Some(offset) = us.slot.offset(duration) else {
                    us.done = true;
                    continue;
                };
                let i = list[us.at];
                us.at += 1;
                let path = &mut paths[u];
                let p = self
                    .spectrum_of(u)
                    .probe(&path.keys, &mut path.occupancy, i, t, offset);
                b.probed[u * self.k + i] = Probed {
                    slot: t,
                    offset,
                    probe: p,
                };
                record.channel_probes[i] += 1;
                us.last = Some(i);
                us.last_cost = p.observed_cost(self.time_left);
                any = true;
                self.sense(u, i, p, step, team, us, &mut b.started);
            }
            if !any {
                break;
            }
            step += 1;
        }
        self.gains(t, paths, b, record);
    }

    /// What user `u` makes of its probe `p` of channel `i` at step `step`: transmit (without
    /// sensing, on its first channel; with, on a channel sensed idle and not heard taken), or
    /// go on.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn sense<T: Team>(
        &self,
        u: usize,
        i: usize,
        p: Probe,
        step: u32,
        team: &mut T,
        us: &mut UserSlot,
        started: &mut [u32],
    ) {
        if !self.senses {
            // No sensing: transmit on the first channel of the list.
            let sent = Probe { sensed: true, ..p };
            us.slot.add(&sent);
            us.last_sensed = p.idle;
            us.tx = Some(i);
            us.done = true;
            if started[i] == NOT_STARTED {
                started[i] = step;
            }
            return;
        }
        let heard = self.carrier && started[i] < step;
        let seen = if heard {
            // Carrier sensing: another user's transmission, not an opportunity missed.
            Probe {
                idle: false,
                sensed: false,
                ..p
            }
        } else {
            p
        };
        us.last_sensed = seen.sensed;
        if us.slot.add(&seen) {
            us.tx = Some(i);
            us.done = true;
            // Heard from the next step on: users probing `i` at this step compare
            // `started < step` and do not hear it.
            if started[i] == NOT_STARTED {
                started[i] = step;
            }
        } else {
            team.busy(u, i, p.observed_cost(self.time_left));
        }
    }

    /// Collisions between users, each user's acknowledgement and feedback (`Team::seen`), and
    /// the slot's per-user records; adds the users' slots to `cum`.
    // Users index several parallel per-user arrays (slots, streams, records).
    #[allow(clippy::needless_range_loop)]
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn resolve<T: Team>(
        &self,
        t: u64,
        team: &mut T,
        rngs: &mut [SimRng],
        collisions: &mut SimRng,
        b: &mut MultiBuffers,
        record: &mut MultiRecord,
        cum: &mut [f64; N_MULTI],
    ) {
        b.transmitters.iter_mut().for_each(|c| *c = 0);
        b.choosers.iter_mut().for_each(|c| *c = 0);
        for (us, tx) in b.users.iter().zip(b.tx.iter_mut()) {
            *tx = us.tx;
            if let Some(i) = us.tx {
                b.transmitters[i] += 1;
            }
            if let Some(i) = us.last {
                b.choosers[i] += 1;
            }
        }
        resolve(
            self.setup.collision,
            &b.tx,
            &b.transmitters,
            &mut b.winner,
            collisions,
        );
        let copies = self.copies;
        let same = *self.setup.collision == Collision::SameChannel;
        let mut su_collisions = 0u64;
        let jamming = self.jamming && !b.held.is_empty();
        for u in 0..self.m {
            let us = &mut b.users[u];
            let collided = if same {
                us.tx.is_some_and(|i| b.choosers[i] > 1)
            } else {
                us.tx.is_some_and(|i| b.transmitters[i] > 1) && !copies
            };
            // A jammer destroys every transmission on its channel, whatever the collision
            // model, and is heard as a collision there.
            let jammed = jamming && us.tx.is_some_and(|i| b.jammed[i]);
            let ack = !jammed
                && match us.tx {
                    None => false,
                    Some(_) if copies => true,
                    Some(_) if same => !collided,
                    Some(i) if b.transmitters[i] == 1 => true,
                    Some(i) => b.winner[i] == Some(u),
                };
            if collided {
                su_collisions += 1;
                record.collisions[us.tx.unwrap_or(0)] += 1;
            }
            record.jammed += u64::from(jammed);
            let slot = &mut us.slot;
            if !ack {
                slot.lose();
            }
            let collision = match self.setup.feedback {
                Feedback::SensingThenCollision => us.tx.map(|_| collided || jammed),
                Feedback::SensingAndCollision | Feedback::CollisionOnly => us.last.map(|i| {
                    (!copies && (b.choosers[i] > 1 || b.transmitters[i] > 1))
                        || (jamming && b.jammed[i])
                }),
                Feedback::NoSensing => None,
            };
            let seen = Seen {
                transmitted: us.tx,
                last: us.last,
                sample: if self.senses {
                    us.last_sensed
                } else {
                    slot.success
                },
                collision,
                ack: ack && (self.senses || slot.success),
            };
            team.seen(u, &seen, us.last_cost, &mut rngs[u]);
            let slot = &us.slot;
            b.nets[u] = slot.net();
            record.user_reward[u] += slot.net();
            record.user_success[u] += u64::from(slot.success);
            slot.add_to(cum);
            if let Some(i) = us.last {
                record.selections[i] += 1;
                if t > 1 && b.chosen_before[u] != Some(i) {
                    record.switches[u] += 1;
                }
            }
            b.chosen_before[u] = us.last;
        }
        cum[SU_COLLISIONS] += su_collisions as f64;
        if !self.setup.system.is_linear() {
            b.system_users += self.setup.system.of(&b.nets);
        }
    }

    /// The benchmark's lists of epoch `epoch` on the same paths, reusing a user's probe where
    /// that user probed the channel at the same instant (common random numbers): each list's
    /// reward is added to `reward` in turn.
    #[inline(always)]
    pub(crate) fn benchmark(
        &self,
        t: u64,
        epoch: usize,
        paths: &[Paths],
        bench_states: &mut [Vec<OccupancyState>],
        b: &mut MultiBuffers,
        reward: &mut f64,
    ) {
        let duration = self.spectra[0].duration();
        // List j belongs to user j mod M, counted without a division.
        let mut owner = 0;
        for (j, list) in self.setup.benchmarks[epoch].lists.iter().enumerate() {
            let mut bench = Slot::default();
            for &i in list {
                let Some(offset) = bench.offset(duration) else {
                    break;
                };
                let q = b.probed[owner * self.k + i];
                let reused = q.slot == t && q.offset == offset;
                let p = if reused {
                    q.probe
                } else {
                    // List j draws from its owner's keys, on its own path states.
                    self.spectrum_of(owner).probe(
                        &paths[owner].keys,
                        &mut bench_states[j],
                        i,
                        t,
                        offset,
                    )
                };
                if bench.add(&p) {
                    if let Some(tl) = self.time_left {
                        // The path state the probe read: the user's where it was reused.
                        let states = if reused {
                            &paths[owner].occupancy
                        } else {
                            &bench_states[j]
                        };
                        bench.set_gain(tl, i, self.spectrum_of(owner).returns_at(states, i, t));
                    }
                    break;
                }
            }
            *reward += bench.net();
            if let Some(x) = b.bench_nets.get_mut(j) {
                *x = bench.net();
            }
            owner += 1;
            if owner == self.m {
                owner = 0;
            }
        }
        if !self.setup.system.is_linear() {
            // Users without a benchmark list (more users than channels) earn nothing.
            let lists = self.setup.benchmarks[epoch].lists.len();
            b.bench_nets[lists.min(self.m)..]
                .iter_mut()
                .for_each(|x| *x = 0.0);
            b.system_bench += self.setup.system.of(&b.bench_nets);
        }
    }
}

/// Where an episode stands between slots: the benchmark's epoch and the cumulative metrics.
#[derive(Clone, Debug)]
pub(crate) struct Tally {
    pub(crate) epoch: usize,
    /// The benchmark's expected reward per slot in the current epoch.
    pub(crate) best: f64,
    pub(crate) cum: [f64; N_MULTI],
    pub(crate) benchmark_reward: f64,
    /// Whether [`Tally::expect`] also computes the slot's own pseudo-regret in the classic
    /// model (an environment reports it per step; a run reads the sums at checkpoints).
    pub(crate) per_slot: bool,
    /// The last slot's pseudo-regret (NaN where it has no closed form, or was not asked for).
    pub(crate) slot_regret: f64,
    /// See [`MultiRecord::reduced_gap`].
    pub(crate) reduced_gap: f64,
}

impl Tally {
    pub(crate) fn new(setup: &Setup<'_>) -> Tally {
        Tally {
            epoch: 0,
            best: setup.env.epochs()[0].optimum.expected_reward,
            cum: [0.0; N_MULTI],
            benchmark_reward: 0.0,
            per_slot: false,
            slot_regret: f64::NAN,
            reduced_gap: 0.0,
        }
    }

    /// Moves to slot `t`'s epoch (a new epoch forgets the expected reward kept).
    #[inline(always)]
    pub(crate) fn enter(&mut self, t: u64, epochs: &[Epoch], expected: &mut ExpectedReward) {
        if Epoch::advance(epochs, &mut self.epoch, t) {
            self.best = epochs[self.epoch].optimum.expected_reward;
            expected.reset();
        }
    }

    /// Adds slot `t`'s expected reward: the single-user exact value of user 0's list, or the
    /// classic counts (the regret is read from them at checkpoints), or none.
    #[inline(always)]
    pub(crate) fn expect<T: Team>(
        &mut self,
        setup: &Setup<'_>,
        team: &mut T,
        b: &mut MultiBuffers,
    ) {
        let e = &setup.env.epochs()[self.epoch];
        let jammed = !b.held.is_empty();
        match setup.expected {
            Expected::Single => {
                let mut more = |l: &mut Vec<usize>| team.extend(0, l);
                let value = if jammed {
                    // A jammed channel stops the cascade as before and pays nothing: the
                    // epoch with its success probability at 0 (computed afresh: the value
                    // kept is the unjammed one's).
                    b.jam_success.clear();
                    b.jam_success.extend_from_slice(&e.success);
                    for &i in &b.held {
                        b.jam_success[i] = 0.0;
                    }
                    b.expected.reset();
                    ExpectedReward::afresh(
                        setup.env.time_left(),
                        &mut b.lists[0],
                        &mut more,
                        &b.jam_success,
                        &e.stop,
                        setup.env.mean_cost(),
                    )
                } else {
                    b.expected.under(
                        setup.env.time_left(),
                        &mut b.lists[0],
                        &mut more,
                        e,
                        setup.env.mean_cost(),
                    )
                };
                self.slot_regret = self.best - value;
                self.cum[Metric::PseudoRegret as usize] += self.slot_regret;
            }
            Expected::Classic => {
                b.epoch_slots[self.epoch] += 1;
                let (chose, rewarded) = (&mut b.chose[self.epoch], &mut b.rewarded[self.epoch]);
                for (k, ((&n, chose), rewarded)) in
                    b.choosers.iter().zip(chose).zip(rewarded).enumerate()
                {
                    if n > 0 {
                        let n = u64::from(n);
                        *chose += n;
                        // Nobody is rewarded on a jammed channel.
                        if !(jammed && b.jammed[k]) {
                            *rewarded += rewarded_users(setup.collision, n);
                        }
                    }
                }
                if self.per_slot {
                    self.slot_regret = self.classic_slot_regret(setup, b);
                }
            }
            Expected::None => self.cum[Metric::PseudoRegret as usize] = f64::NAN,
        }
        if let Some(reduced) = setup.reduced
            && jammed
        {
            let bench = match setup.expected {
                Expected::Single => self.best,
                _ => setup.benchmarks[self.epoch].expected_reward,
            };
            let key = (self.epoch, std::mem::take(&mut b.held));
            let value = match b.reduced.get(&key) {
                Some(&v) => v,
                None => {
                    let v = reduced.value(key.0, &key.1);
                    b.reduced.insert(key.clone(), v);
                    v
                }
            };
            b.held = key.1;
            self.reduced_gap += bench - value;
        }
    }

    /// The classic model's pseudo-regret of the last slot: the benchmark's expected reward
    /// less `Σ_k (s_k·W_k − c_k·N_k)` over the slot's choosers `N_k` and users rewarded when
    /// idle `W_k` (one slot of [`decomposition`]'s regret).
    fn classic_slot_regret(&self, setup: &Setup<'_>, b: &MultiBuffers) -> f64 {
        let e = &setup.env.epochs()[self.epoch];
        let cost = setup.env.mean_cost();
        let mut value = 0.0;
        for (k, &n) in b.choosers.iter().enumerate() {
            if n > 0 {
                let n = u64::from(n);
                let jammed = !b.held.is_empty() && b.jammed[k];
                let w = if jammed {
                    0
                } else {
                    rewarded_users(setup.collision, n)
                };
                value += e.success[k] * w as f64 - cost[k] * n as f64;
            }
        }
        setup.benchmarks[self.epoch].expected_reward - value
    }

    /// Closes slot `t`'s checkpoint row, if it is one.
    #[inline(always)]
    fn close(
        &mut self,
        t: u64,
        rows: &mut Checkpoints<'_>,
        setup: &Setup<'_>,
        b: &MultiBuffers,
        record: &mut MultiRecord,
    ) {
        let Some(row) = rows.due(t) else {
            return;
        };
        close_row(&mut self.cum, self.benchmark_reward);
        if !setup.system.is_linear() {
            self.cum[Metric::RealizedRegret as usize] = b.system_regret();
        }
        if setup.expected == Expected::Classic {
            let d = decomposition(setup, b);
            self.cum[Metric::PseudoRegret as usize] = d[3].value();
            if rows.is_last(row) {
                record.decomposition = Some(d);
            }
        }
        record.rows[row] = self.cum;
        record.rows[row][Metric::PuReturns as usize] = record.pu_returns as f64;
        record.reduced_gap = self.reduced_gap;
    }
}

/// Runs one episode of `team` on `spectra` (one per user, or one shared by all: per-user
/// means give each user its own idle probabilities on the shared primary-user draws),
/// recording into `record` (reset here): each slot the team plans, the world probes its lists,
/// resolves collisions and tells each user what it saw, the benchmark runs on the same paths,
/// and the metrics accumulate.
pub(crate) fn episode<T: Team, S: Spectrum, const CLASSIC: bool>(
    setup: &Setup<'_>,
    spectra: &[S],
    team: &mut T,
    draws: RunDraws<'_>,
    record: &mut MultiRecord,
    buffers: &mut MultiBuffers,
    cancel: &Cancel,
) {
    let world = World::new(setup, spectra);
    let epochs = setup.env.epochs();
    record.reset();
    let b = buffers;
    b.reset(world.k, world.m, epochs.len());
    let RunDraws {
        rngs,
        paths,
        bench,
        collisions,
        jams,
    } = draws;
    let mut tally = Tally::new(setup);
    let mut rows = Checkpoints::new(setup.checkpoints);
    for t in 1..=setup.horizon {
        // Every slot: a slot is M users' work, and with many users on many channels one slot
        // can take milliseconds (the single-user loops look every 2^10 slots).
        if cancel.is_cancelled() {
            return;
        }
        tally.enter(t, epochs, &mut b.expected);
        world.jam(t, jams, b, record);
        for l in b.lists.iter_mut() {
            l.clear();
        }
        team.plan(t, &mut b.lists, rngs);
        b.clear_users();
        if CLASSIC {
            world.probe_first(t, team, paths, b, record);
        } else {
            world.probe_steps(t, team, paths, b, record);
        }
        world.resolve(t, team, rngs, collisions, b, record, &mut tally.cum);
        world.benchmark(t, tally.epoch, paths, bench, b, &mut tally.benchmark_reward);
        tally.expect(setup, team, b);
        tally.close(t, &mut rows, setup, b, record);
    }
}

/// The classic pseudo-regret so far, read from the exact per-channel counts (the
/// decomposition's regret), rounded once.
pub(crate) fn classic_regret(setup: &Setup<'_>, b: &MultiBuffers) -> f64 {
    decomposition(setup, b)[3].value()
}

/// Users rewarded (when the channel is idle) among `n ≥ 1` that chose one channel.
fn rewarded_users(collision: &Collision, n: u64) -> u64 {
    match collision {
        Collision::AllLost | Collision::SameChannel => u64::from(n == 1),
        Collision::OneWinner | Collision::Capture { .. } => 1,
        Collision::NoCollision => n,
    }
}

/// Picks each channel's winner among several transmitters (`OneWinner`, `Capture`).
fn resolve(
    collision: &Collision,
    tx: &[Option<usize>],
    transmitters: &[u32],
    winner: &mut [Option<usize>],
    rng: &mut SimRng,
) {
    winner.iter_mut().for_each(|w| *w = None);
    match collision {
        Collision::AllLost | Collision::NoCollision | Collision::SameChannel => {}
        Collision::OneWinner => {
            // Channels in increasing order, each drawing once: reproducible whatever the
            // users' order.
            for (i, &n) in transmitters.iter().enumerate() {
                if n > 1 {
                    let pick = rng.random_range(0..n);
                    winner[i] = tx
                        .iter()
                        .enumerate()
                        .filter(|(_, c)| **c == Some(i))
                        .nth(pick as usize)
                        .map(|(u, _)| u);
                }
            }
        }
        Collision::Capture { distances } => {
            for (u, c) in tx.iter().enumerate() {
                if let Some(i) = *c
                    && transmitters[i] > 1
                {
                    let better = winner[i].is_none_or(|w| distances[u] < distances[w]);
                    if better {
                        winner[i] = Some(u);
                    }
                }
            }
        }
    }
}

/// The classic pseudo-regret and its three terms so far, as exact sums: `[sub-optimal
/// selections, optimal channels left unused, collisions, regret]`. With `μ_k = s_k − c_k`,
/// `μ*` the `min(M, K)`-th largest (0 when M > K), `N_k` the user-slots choosing channel `k`,
/// `W_k` those rewarded when it is idle, `T_e` the slots of epoch `e`:
/// `R = Σ_e T_e Σ_{k∈best} μ_k − Σ_k (s_k W_k − c_k N_k)`,
/// `(a) = Σ_{k∉best} (μ* − μ_k) N_k`, `(b) = Σ_{k∈best} (μ_k − μ*)(T_e − N_k)`,
/// `(c) = Σ_k s_k (N_k − W_k)`, and `(a) + (b) + (c) = R` exactly since `Σ_k N_k = min(M, K)·T_e`.
///
/// Every term is a sum of products of one of `s_k`, `c_k` (never of the rounded difference
/// `s_k − c_k`) with an integer count, each added exactly: the identity then holds between
/// the exact sums as it does between real numbers, whatever the costs.
fn decomposition(setup: &Setup<'_>, b: &MultiBuffers) -> [ExactSum; 4] {
    let env = setup.env;
    let cost = env.mean_cost();
    let copies = *setup.collision == Collision::NoCollision;
    let mut d: [ExactSum; 4] = Default::default();
    for (e, epoch) in env.epochs().iter().enumerate() {
        let slots = b.epoch_slots[e] as f64;
        if slots == 0.0 {
            continue;
        }
        let s = &epoch.success;
        let bench = &setup.benchmarks[e].lists;
        let in_best = |k: usize| bench.iter().any(|l| l.first() == Some(&k));
        // `μ·x` added exactly as `s·x − c·x`.
        let add_mu = |sum: &mut ExactSum, k: usize, x: f64| {
            sum.add_product(s[k], x);
            if cost[k] != 0.0 {
                sum.add_product(-cost[k], x);
            }
        };
        // The `min(M, K)`-th best channel, whose `μ` is `μ*` (none when M > K: `μ* = 0`).
        let star = if setup.users > env.len() {
            None
        } else {
            bench.last().and_then(|l| l.first()).copied()
        };
        let add_star = |sum: &mut ExactSum, x: f64| {
            if let Some(j) = star {
                add_mu(sum, j, x);
            }
        };
        for k in 0..env.len() {
            let n = b.chose[e][k] as f64;
            let w = b.rewarded[e][k] as f64;
            if copies {
                // Every user's benchmark is the best channel: no decomposition, the regret only.
                if let Some(&best) = bench.first().and_then(|l| l.first())
                    && k == best
                {
                    add_mu(&mut d[3], k, slots * bench.len() as f64);
                }
            } else if in_best(k) {
                add_mu(&mut d[1], k, slots - n);
                add_star(&mut d[1], -(slots - n));
                add_mu(&mut d[3], k, slots);
            } else {
                add_star(&mut d[0], n);
                add_mu(&mut d[0], k, -n);
            }
            d[2].add_product(s[k], n - w);
            d[3].add_product(-s[k], w);
            d[3].add_product(cost[k], n);
        }
    }
    d
}
