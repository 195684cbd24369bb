//! DPE, Decentralized Parsimonious Exploration (Wang, Proutière, Ariu, Jedra & Russo,
//! "Optimal Algorithms for Multiplayer Multi-Armed Bandits", AISTATS 2020, DPE1), step for
//! step as the authors' code (`rssalessio/DPE`, `strategies.py`, class `DPE`; MIT, © 2019
//! Alessio Russo) runs it. Channels are numbered 1..K below as in the paper; channel K is
//! reserved for the orthogonalisation.
//!
//! 1. *Orthogonalisation.* A user without an identifier picks a uniform channel of 1..K−1; a
//!    slot without collision makes it its identifier `id`. Then K verification slots: slot j
//!    every user sits on its `id` except the user whose `id` is j, who (with every user still
//!    without one) plays the reserved channel K. A user that collided there starts again (with
//!    the identifier it holds); without a collision every user has a distinct identifier.
//! 2. *Rank assignment* (2K − 3 slots, counted by `r` from 1): a user sits on its `id` until
//!    slot `2·id − 1`, then sweeps `id + 1, id + 2, …` up to K (and back to `id`). Every user
//!    with a smaller identifier crosses its channel before it leaves, so the collisions by slot
//!    `2·id − 1` give its position `p` (1 + those collisions; the *leader* has `p = 1`), and
//!    all collisions by the end give M.
//! 3. *Exploitation.* The shared set M̂ (the channels 1..M at first, then what the leader
//!    communicates), kept sorted; at slot `r` the user of position `p` plays
//!    `M̂[(r + p) mod M]`: users rotate over M̂ without meeting. The leader counts every sample
//!    it takes without collision. When its turn falls on `L`, the channel of M̂ with the
//!    lowest empirical mean, and the set `B` of channels outside M̂ whose kl-UCB index
//!    `max{q : N·kl(μ̂, q) ≤ f(r)}`, `f(r) = ln r + 4 ln ln r`, is at least μ̂_L is not empty, it
//!    plays `L` with probability 1/2 and a uniform channel of `B` otherwise. Every M slots
//!    (`r ≡ 0 mod M`) its *test* recomputes the indices, the empirical M best and `B`.
//! 4. *Communication*, when the test's M best differ from M̂: the leader collides once with
//!    every follower (M − 1 slots on `M̂[(r₀ + 1) mod M]`), which tells them when it started;
//!    then sits M slots on the channel leaving M̂ (each follower, rotating, collides on it
//!    once) and K slots on the channel entering (the followers sweep all K channels, each
//!    meeting it once). One channel is swapped per communication; the leader starts another
//!    at once while its test's set is not reached. Every slot of it is charged to the regret.
//!
//! `r` is the clock of the rank assignment and what follows (the reference's `state_round`,
//! reset when the rank assignment starts): it times the rotation and is the `t` of `f(t)`.
//! Ties in the empirical M best go to the lower channel (the reference's `np.argsort`
//! leaves them to numpy's unstable sort).
//!
//! Where the reference code differs from the paper, `convention: Reference` follows it:
//! - *the leader's test compares a stale statistic*: `L` and μ̂_L are recomputed only at the
//!   end of a communication (starting as channel 1 and 0), so `B` is "every channel outside
//!   M̂ whose index is at least the μ̂_L of the last communication" and the leader explores when
//!   its turn falls on that old `L`; the paper recomputes both at every test (the default);
//!
//! The reference's environment also shuffles the means at the start of every run, so that
//! the initial M̂ = {1..M} is a uniform draw: that is the scenario's `shuffle: true`, which
//! its SIC-MMAB baseline needs as much (which channels its communication phases sit on).
//!
//! Its realised regret against `t·Σ top-M μ` (the reference's measure) has the mean of
//! specprobe's realised regret, which the same benchmark earns on the same paths.
//!
//! It needs the collision indicator in every slot (`feedback: SensingAndCollision`) and fewer
//! users than channels (channel K is reserved).

use crate::util::math;
use super::{CodeConvention, Seen, Team, TeamBuiltin};
use crate::model::channel::Environment;
use crate::model::kl_search::kl_upper;
use crate::util::rng::SimRng;
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// `Dpe(convention: …)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DpeSpec {
    /// The paper's definitions (default) or the reference code's.
    #[serde(default, skip_serializing_if = "CodeConvention::is_default")]
    pub convention: CodeConvention,
}

impl TeamBuiltin for DpeSpec {
    const SUMMARY: &'static str =
        "DPE: a leader explores, followers rotate over the M best; one swap at a time through collisions";
    type Team = Dpe;

    fn example() -> Self {
        DpeSpec::default()
    }
    fn label(&self) -> String {
        format!("dpe{}", self.convention.suffix())
    }
    fn is_classic(&self) -> bool {
        true
    }
    fn needs_collision_indicator(&self) -> bool {
        true
    }
    fn check(&self, k: usize, users: usize, _horizon: u64) -> Vec<(String, String)> {
        if users >= k {
            vec![(
                "users".to_string(),
                format!(
                    "DPE needs fewer users than channels: channel K is reserved for the orthogonalisation (got {users} users on {k} channels)"
                ),
            )]
        } else {
            Vec::new()
        }
    }
    fn ns_per_user_slot(&self, k: u64, users: u64) -> f64 {
        // The leader's test computes K kl-UCB indices every M slots.
        super::USER_SLOT_NS + 90.0 * k as f64 / users.max(1) as f64
    }
    fn build(&self, env: &Environment, users: usize, _h: u64, _r: &mut [SimRng]) -> Dpe {
        Dpe::new(env.len(), users, self.convention)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Sample,
    Verify,
    Rank,
    Exploit,
    Communicate,
}

/// One DPE user (channels 1..K; see the module docs).
#[derive(Clone, Debug)]
struct User {
    phase: Phase,
    /// Identifier in 1..K−1 (0: none yet).
    id: usize,
    /// The clock `r` (the reference's `state_round`).
    r: u64,
    collisions: u64,
    /// How far the rank assignment's sweep has gone.
    sweep: usize,
    /// Position 1..M (1: the leader).
    position: usize,
    leader: bool,
    players: usize,
    /// The communication's boundaries r₀ < r₁ < r₂ < r₃.
    t0: u64,
    t1: u64,
    t2: u64,
    t3: u64,
    /// The shared set M̂, sorted.
    best: Vec<usize>,
    /// The channels to swap out and in (the leader's pending swaps; a follower's last
    /// received).
    remove: Vec<usize>,
    add: Vec<usize>,
    /// Samples without collision, and their ones, per channel (index 0 unused).
    n: Vec<u64>,
    s: Vec<u64>,
}

/// What the leader alone keeps: indices, the set B and the arm L with its mean.
#[derive(Clone, Debug)]
struct Lead {
    index: Vec<f64>,
    explore: Vec<usize>,
    low: usize,
    low_mean: f64,
    /// Scratch: channels by empirical mean, the means, a sorted M best.
    order: Vec<usize>,
    means: Vec<f64>,
    scratch: Vec<usize>,
}

/// M DPE users.
#[derive(Clone, Debug)]
pub(crate) struct Dpe {
    users: Vec<User>,
    lead: Lead,
    k: usize,
    reference: bool,
}

impl Dpe {
    /// `k` channels, `users` users (fewer than `k`).
    pub(crate) fn new(k: usize, users: usize, convention: CodeConvention) -> Dpe {
        let reference = convention == CodeConvention::Reference;
        let user = User {
            phase: Phase::Sample,
            id: 0,
            r: 1,
            collisions: 0,
            sweep: 0,
            position: 0,
            leader: false,
            players: 0,
            t0: 0,
            t1: 0,
            t2: 0,
            t3: 0,
            best: Vec::with_capacity(users),
            remove: Vec::new(),
            add: Vec::new(),
            n: vec![0; k + 1],
            s: vec![0; k + 1],
        };
        Dpe {
            users: vec![user; users],
            lead: Lead {
                index: vec![0.0; k + 1],
                explore: Vec::with_capacity(k),
                // The reference's `best_arms_min_emp_reward = (1, 0)`.
                low: 1,
                low_mean: 0.0,
                order: Vec::with_capacity(k),
                means: Vec::with_capacity(k + 1),
                scratch: Vec::with_capacity(k),
            },
            k,
            reference,
        }
    }
}

impl User {
    fn mean(&self, c: usize) -> f64 {
        if self.n[c] == 0 {
            0.0
        } else {
            self.s[c] as f64 / self.n[c] as f64
        }
    }

    /// The channel (1..K) to play.
    fn choose(&mut self, lead: &Lead, k: usize, rng: &mut SimRng) -> usize {
        match self.phase {
            Phase::Sample => {
                if self.id > 0 {
                    self.id
                } else {
                    rng.random_range(1..k)
                }
            }
            Phase::Verify => {
                if self.r != self.id as u64 && self.id > 0 {
                    self.id
                } else {
                    k
                }
            }
            Phase::Rank => {
                let a = if self.id + self.sweep <= k {
                    self.id + self.sweep
                } else {
                    self.id
                };
                if self.r + 1 >= 2 * self.id as u64 {
                    self.sweep += 1;
                }
                a
            }
            Phase::Exploit => {
                let m = ((self.r + self.position as u64) % self.players as u64) as usize;
                let own = self.best[m];
                if !self.leader || lead.explore.is_empty() || own != lead.low {
                    own
                } else if rng.random_range(0..2u32) == 0 {
                    lead.low
                } else {
                    lead.explore[rng.random_range(0..lead.explore.len())]
                }
            }
            Phase::Communicate => {
                let r = self.r;
                if self.leader {
                    if r > self.t0 && r <= self.t1 {
                        self.best[((self.t0 + 1) % self.players as u64) as usize]
                    } else if r > self.t1 && r <= self.t2 {
                        self.remove[0]
                    } else {
                        self.add[0]
                    }
                } else if r > self.t2 {
                    ((r + self.position as u64) % k as u64) as usize + 1
                } else {
                    self.best[((r + self.position as u64) % self.players as u64) as usize]
                }
            }
        }
    }

    /// Sets the communication's boundaries from its start `t0`.
    fn schedule(&mut self, t0: u64, k: usize) {
        self.t0 = t0;
        self.t1 = t0 + self.players as u64 - 1;
        self.t2 = self.t1 + self.players as u64;
        self.t3 = self.t2 + k as u64;
        self.phase = Phase::Communicate;
    }

    /// The reference's `update(play, (reward, collision))`.
    fn update(&mut self, lead: &mut Lead, arm: usize, sample: bool, col: bool, k: usize, reference: bool) {
        if !col {
            self.n[arm] += 1;
            self.s[arm] += u64::from(sample);
        }
        match self.phase {
            Phase::Sample => {
                self.phase = Phase::Verify;
                self.collisions = 0;
                self.r = 1;
                if self.id == 0 && !col {
                    self.id = arm;
                }
            }
            Phase::Verify => {
                self.collisions += u64::from(col);
                if self.r == k as u64 {
                    self.phase = if self.collisions == 0 {
                        Phase::Rank
                    } else {
                        Phase::Sample
                    };
                    self.r = 1;
                    self.collisions = 0;
                } else {
                    self.r += 1;
                }
            }
            Phase::Rank => {
                self.collisions += u64::from(col);
                if self.r == 2 * self.id as u64 - 1 {
                    self.position = self.collisions as usize + 1;
                    self.leader = self.collisions == 0;
                }
                self.r += 1;
                if self.r == 2 * k as u64 - 2 {
                    self.players = self.collisions as usize + 1;
                    self.collisions = 0;
                    self.best = (1..=self.players).collect();
                    if self.leader {
                        lead.test(self, k, reference, false);
                    }
                    self.phase = Phase::Exploit;
                }
            }
            Phase::Exploit => {
                self.r += 1;
                if self.leader {
                    if self.r.is_multiple_of(self.players as u64) && lead.test(self, k, reference, true) {
                        self.schedule(self.r - 1, k);
                    }
                } else if col {
                    // The leader's first collision tells when it started.
                    let back = 2 + self.players as u64 - self.position as u64;
                    self.schedule(self.r.saturating_sub(back), k);
                }
            }
            Phase::Communicate => {
                self.r += 1;
                let s = self.r - 1;
                if !self.leader && col {
                    if s >= self.t1 && s <= self.t2 {
                        self.remove.clear();
                        self.remove.push(arm);
                    } else if s > self.t2 && s <= self.t3 {
                        self.add.clear();
                        self.add.push(arm);
                    }
                }
                if self.r == self.t3 + 1 {
                    if !self.remove.is_empty() && !self.add.is_empty() {
                        // The swap of this communication (the first pending one).
                        let out = self.remove.remove(0);
                        let inn = self.add.remove(0);
                        if let Some(slot) = self.best.iter_mut().find(|c| **c == out) {
                            *slot = inn;
                        }
                        self.best.sort_unstable();
                    }
                    self.phase = Phase::Exploit;
                    if self.leader {
                        lead.refresh_low(self);
                        if !self.add.is_empty() {
                            self.schedule(self.r - 1, k);
                        }
                    }
                }
            }
        }
    }
}

impl Lead {
    /// The leader's test at clock `r`: the kl-UCB indices with `f(r) = ln r + 4 ln ln r`, the
    /// empirical M best and their differences from M̂ (the swaps), and the set B; `true` when
    /// M̂ must change (`compare`: the empirical M best are compared with M̂; at the end of the
    /// rank assignment only the indices and B are computed, over the channels M + 1..K).
    fn test(&mut self, u: &mut User, k: usize, reference: bool, compare: bool) -> bool {
        let r = u.r as f64;
        let f = (math::ln(r) + 4.0 * math::ln(math::ln(r))).max(0.0);
        self.means.clear();
        self.means.extend((0..=k).map(|c| u.mean(c)));
        for c in 1..=k {
            self.index[c] = if u.n[c] == 0 {
                f64::INFINITY
            } else {
                kl_upper(self.means[c], u.n[c] as f64, f)
            };
        }
        let m = u.players;
        // Channels by decreasing empirical mean, ties to the lower channel.
        let (order, means) = (&mut self.order, &self.means);
        order.clear();
        order.extend(1..=k);
        order.sort_by(|&a, &b| means[b].total_cmp(&means[a]).then(a.cmp(&b)));
        let mut changed = false;
        if compare {
            let top = &order[..m];
            u.remove.clear();
            u.remove.extend(u.best.iter().copied().filter(|c| !top.contains(c)));
            u.add.clear();
            u.add.extend(top.iter().copied().filter(|c| !u.best.contains(c)));
            u.add.sort_unstable();
            changed = !u.add.is_empty();
            if !reference {
                // The paper's L(t): the lowest empirical mean of the current M best (M̂ itself
                // unless a communication starts).
                self.scratch.clear();
                self.scratch.extend_from_slice(top);
                self.scratch.sort_unstable();
                (self.low, self.low_mean) = lowest(&self.scratch, &self.means);
            }
        } else if !reference {
            (self.low, self.low_mean) = lowest(&u.best, &self.means);
        }
        // B: the channels outside the M best (the first M channels after the rank assignment)
        // whose index reaches μ̂_L.
        self.explore.clear();
        let outside = if compare { &self.order[m..] } else { &[][..] };
        for &c in outside {
            if self.index[c] >= self.low_mean {
                self.explore.push(c);
            }
        }
        if !compare {
            for c in m + 1..=k {
                if self.index[c] >= self.low_mean {
                    self.explore.push(c);
                }
            }
        }
        self.explore.sort_unstable();
        changed
    }

    /// L and μ̂_L over M̂ (the reference's `_update_best_arms_min_emp_rew`).
    fn refresh_low(&mut self, u: &User) {
        self.means.clear();
        self.means.extend((0..u.n.len()).map(|c| u.mean(c)));
        (self.low, self.low_mean) = lowest(&u.best, &self.means);
    }
}

/// The first channel of `set` (increasing) with the lowest mean, and that mean (channel 1 and
/// +∞ for an empty set, the reference's start).
fn lowest(set: &[usize], means: &[f64]) -> (usize, f64) {
    let mut low = (1, f64::INFINITY);
    for &c in set {
        if means[c] < low.1 {
            low = (c, means[c]);
        }
    }
    low
}

impl Team for Dpe {
    fn plan(&mut self, _t: u64, lists: &mut [Vec<usize>], rngs: &mut [SimRng]) {
        for ((user, list), rng) in self.users.iter_mut().zip(lists).zip(rngs) {
            // Channels 1..K of the algorithm are 0..K−1 of the world.
            list.push(user.choose(&self.lead, self.k, rng) - 1);
        }
    }

    fn seen(&mut self, u: usize, seen: &Seen, _cost: f64, _rng: &mut SimRng) {
        if let Some(c) = seen.last {
            let collision = seen.collision == Some(true);
            self.users[u].update(&mut self.lead, c + 1, seen.sample, collision, self.k, self.reference);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::stream;

    /// Plays the team alone on `theta` with the collision indicator every slot (a minimal
    /// world: collisions by choice, samples as Bernoulli draws), for `slots` slots; returns
    /// the users and the channels of the last slot.
    fn play(theta: &[f64], users: usize, slots: u64, seed: u64) -> (Dpe, Vec<usize>) {
        let k = theta.len();
        let mut rngs: Vec<SimRng> = (0..users).map(|u| stream(seed, 1, u as u64)).collect();
        let mut world = stream(seed, 2, 0);
        let mut team = Dpe::new(k, users, CodeConvention::Paper);
        let mut lists = vec![Vec::new(); users];
        let mut chosen = Vec::new();
        for t in 1..=slots {
            lists.iter_mut().for_each(Vec::clear);
            team.plan(t, &mut lists, &mut rngs);
            chosen = lists.iter().map(|l| l[0]).collect();
            for u in 0..users {
                let c = chosen[u];
                let collision = chosen.iter().filter(|&&d| d == c).count() > 1;
                let sample = world.random::<f64>() < theta[c];
                let seen = Seen {
                    transmitted: Some(c),
                    last: Some(c),
                    sample,
                    collision: Some(collision),
                    ack: !collision,
                };
                team.seen(u, &seen, 0.0, &mut rngs[u]);
            }
        }
        (team, chosen)
    }

    #[test]
    fn orthogonalisation_gives_distinct_positions_and_counts_the_users() {
        for seed in 0..50 {
            let (team, _) = play(&[0.5; 9], 6, 200, seed);
            let mut positions: Vec<usize> = team.users.iter().map(|u| u.position).collect();
            positions.sort_unstable();
            assert_eq!(positions, (1..=6).collect::<Vec<_>>(), "seed {seed}");
            assert!(team.users.iter().all(|u| u.players == 6), "seed {seed}");
            assert_eq!(team.users.iter().filter(|u| u.leader).count(), 1);
        }
    }

    #[test]
    fn the_users_end_on_the_m_best_without_colliding() {
        let theta = [0.1, 0.9, 0.2, 0.8, 0.3, 0.7, 0.4];
        let (team, chosen) = play(&theta, 3, 20_000, 7);
        let mut last = chosen.clone();
        last.sort_unstable();
        last.dedup();
        assert_eq!(last.len(), 3, "no collision in the last slot: {chosen:?}");
        let mut best: Vec<usize> = team.users[0].best.iter().map(|&c| c - 1).collect();
        best.sort_unstable();
        assert_eq!(best, vec![1, 3, 5], "the shared set is the 3 best channels");
        assert!(team.users.iter().all(|u| u.best == team.users[0].best));
    }

    #[test]
    fn fewer_users_than_channels() {
        let rules = DpeSpec::default().check(4, 4, 100);
        assert_eq!(rules.len(), 1);
        assert!(rules[0].1.contains("fewer users than channels"), "{rules:?}");
        assert!(DpeSpec::default().check(5, 4, 100).is_empty());
    }
}
