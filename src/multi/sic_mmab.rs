//! SIC-MMAB (Boursier & Perchet, "SIC-MMAB: Synchronisation Involves Communication in
//! Multiplayer Multi-Armed Bandits", NeurIPS 2019), step for step as SMPyBandits' `SIC_MMAB`
//! (a port of the authors' code) runs it:
//!
//! 1. *Fixation* (`T0` slots): a user picks uniform channels until one slot without collision on
//!    channel `a` at its slot counter `t`, takes the external rank `(T0 + a − t) mod K`, and
//!    then hops to the next channel every slot, so that fixed users never meet.
//! 2. *Estimation* (2K slots): each user sits on the channel of its external rank until slot
//!    `T0 + 2·rank`, then hops; every collision counts one more user, those before its own
//!    turn raise its internal rank. It knows M and its internal rank after.
//! 3. *Exploration* phases of `2^(p+1)·K_p` slots: the users hop over the active channels,
//!    orthogonally, summing what they sense.
//! 4. *Communication*: each user in turn sends its phase sums, bit by bit (p + 2 bits per
//!    channel), to every other user by colliding on that user's channel for a 1; the users
//!    then hold everyone's samples, and accept a channel once `K_p − M_p` active channels are
//!    certainly worse (its LCB above their UCBs) and reject it once M_p are certainly better,
//!    with the bounds `μ̂ ± sqrt(α ln T / (2N))`, α = 4. A user whose internal rank is below the
//!    number accepted takes that accepted channel for good (exploitation); the others continue
//!    with the remaining channels and users.
//!
//! It needs the collision indicator in every slot (the communication is made of collisions on
//! channels whatever their state): the scenario check requires `feedback: SensingAndCollision`.
//! `T0`: the paper's `⌈K ln T⌉` (default), or the reference code's `⌈e·K ln T⌉`
//! (`t0: ReferenceCode`), or a number of slots. Out-of-range indices the reference code would
//! hit (more users than channels) are taken modulo the active channels instead of failing.
//!
//! `fixation: Stay` is the DPE repository's `SynchComm` (`rssalessio/DPE`, the baseline of
//! Wang et al. 2020): a fixed user stays on its channel for the rest of the fixation phase
//! (plain Musical Chairs) and takes that channel as its external rank, where the port above
//! hops to the next channel every slot and computes the rank it will hold at `T0`. Every
//! later phase is the same code in both repositories (their confidence bounds
//! `μ̂ ± sqrt(2 ln T / N)` agree: SMPyBandits' α = 4 in `sqrt(α ln T / (2N))`); run it with
//! `t0: ReferenceCode`, as that repository does.

use crate::util::math;
use super::{Seen, Team, TeamBuiltin};
use crate::model::channel::Environment;
use crate::util::rng::SimRng;
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// The fixation phase's length.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) enum SicT0 {
    /// `⌈K ln T⌉`, the paper's.
    #[default]
    Paper,
    /// `⌈e·K ln T⌉`, what SMPyBandits' code uses.
    ReferenceCode,
    /// A number of slots.
    Slots(u64),
}

/// What a user does in the fixation phase once it has a channel to itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum SicFixation {
    /// Hop to the next channel every slot, the rank being the channel held at `T0`
    /// (SMPyBandits' port of the authors' code).
    #[default]
    Hop,
    /// Stay, the rank being the channel (the DPE repository's `SynchComm`).
    Stay,
}

/// `SicMmab(t0: …, fixation: …)`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SicMmabSpec {
    /// The fixation phase's length (default the paper's).
    #[serde(default)]
    pub t0: SicT0,
    /// What a fixed user does until `T0` (default: hop).
    #[serde(default, skip_serializing_if = "is_hop")]
    pub fixation: SicFixation,
}

fn is_hop(f: &SicFixation) -> bool {
    *f == SicFixation::Hop
}

impl TeamBuiltin for SicMmabSpec {
    const SUMMARY: &'static str =
        "SIC-MMAB: exploration phases, then everyone's statistics sent through collisions";
    type Team = SicMmab;

    fn example() -> Self {
        SicMmabSpec::default()
    }
    fn label(&self) -> String {
        match self.fixation {
            SicFixation::Hop => "sic-mmab".into(),
            SicFixation::Stay => "sic-mmab-stay".into(),
        }
    }
    fn is_classic(&self) -> bool {
        true
    }
    fn needs_collision_indicator(&self) -> bool {
        true
    }
    fn check(&self, _k: usize, _users: usize, _horizon: u64) -> Vec<(String, String)> {
        // The fixation phase is how users find orthogonal seats: without one slot of it no
        // user is ever fixed and the team never leaves it.
        match self.t0 {
            SicT0::Slots(0) => vec![(
                "t0".to_string(),
                "Slots(n) needs n ≥ 1: the fixation phase seats the users (got Slots(0))".to_string(),
            )],
            _ => Vec::new(),
        }
    }
    fn build(&self, env: &Environment, users: usize, horizon: u64, _r: &mut [SimRng]) -> SicMmab {
        SicMmab::new(env.len(), users, horizon, self)
    }
}

impl SicMmabSpec {
    fn t0(&self, k: usize, horizon: u64) -> u64 {
        let base = k as f64 * math::ln(horizon.max(2) as f64);
        match self.t0 {
            SicT0::Paper => base.ceil() as u64,
            SicT0::ReferenceCode => (std::f64::consts::E * base).ceil() as u64,
            SicT0::Slots(n) => n,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Fixation,
    Estimation,
    Exploration,
    Communication,
    Exploitation,
}

/// One SIC-MMAB user (the reference code's state, field for field).
#[derive(Clone, Debug)]
struct User {
    phase: Phase,
    ext_rank: Option<usize>,
    int_rank: usize,
    players: usize,
    arms: usize,
    last: usize,
    t: u64,
    t_phase: u64,
    round: u32,
    phase_stats: Vec<u64>,
    rewards: Vec<f64>,
    pulls: Vec<f64>,
    active: Vec<usize>,
}

/// M SIC-MMAB users.
#[derive(Clone, Debug)]
pub(crate) struct SicMmab {
    users: Vec<User>,
    t0: u64,
    k: usize,
    log_horizon: f64,
    stay: bool,
}

/// α of the confidence bounds (the reference code's default).
const ALPHA: f64 = 4.0;

fn shl(x: u64, by: u32) -> u64 {
    x.checked_shl(by).unwrap_or(u64::MAX)
}

impl SicMmab {
    /// `k` channels, `users` users, a run of `horizon` slots.
    pub(crate) fn new(k: usize, users: usize, horizon: u64, spec: &SicMmabSpec) -> SicMmab {
        let user = User {
            phase: Phase::Fixation,
            ext_rank: None,
            int_rank: 0,
            players: 1,
            arms: k,
            last: 0,
            t: 0,
            t_phase: 0,
            round: 0,
            phase_stats: vec![0; k],
            rewards: vec![0.0; k],
            pulls: vec![0.0; k],
            active: (0..k).collect(),
        };
        SicMmab {
            users: vec![user; users],
            t0: spec.t0(k, horizon),
            k,
            log_horizon: math::ln(horizon.max(2) as f64),
            stay: spec.fixation == SicFixation::Stay,
        }
    }
}

impl User {
    /// The length of one user's turn in a communication phase.
    fn turn(&self) -> u64 {
        (self.players.saturating_sub(1) as u64)
            .saturating_mul(self.arms as u64)
            .saturating_mul(u64::from(self.round) + 2)
    }

    fn active_at(&self, i: usize) -> usize {
        if self.active.is_empty() {
            self.last
        } else {
            self.active[i % self.active.len()]
        }
    }

    fn choose(&self, k: usize, t0: u64, stay: bool, rng: &mut SimRng) -> usize {
        match self.phase {
            Phase::Fixation => match self.ext_rank {
                None => rng.random_range(0..k),
                Some(rank) if stay => rank,
                Some(_) => (self.last + 1) % k,
            },
            Phase::Estimation => {
                let rank = self.ext_rank.unwrap_or(0) as u64;
                if self.t <= t0 + 2 * rank {
                    self.ext_rank.unwrap_or(0) % k
                } else {
                    (self.last + 1) % k
                }
            }
            Phase::Exploration => match self.active.iter().position(|&a| a == self.last) {
                None if self.active.is_empty() => self.last,
                None => self.active[rng.random_range(0..self.active.len())],
                Some(i) => self.active_at((i + 1) % self.arms.max(1)),
            },
            Phase::Communication => {
                let turn = self.turn();
                let me = self.int_rank as u64;
                if turn > 0 && self.t_phase >= me * turn && self.t_phase < (me + 1) * turn {
                    let t0 = self.t_phase % turn;
                    let bits = u64::from(self.round) + 2;
                    let bit = t0 % bits;
                    let k0 = ((t0 - bit) / bits) as usize % self.arms.max(1);
                    let channel = self.active_at(k0);
                    if (self.phase_stats[channel] >> bit.min(63)) & 1 == 1 {
                        let to = ((t0 - bit - bits * k0 as u64) / (bits * self.arms.max(1) as u64))
                            as usize;
                        let to = (to + usize::from(to >= self.int_rank)) % self.arms.max(1);
                        return self.active_at(to);
                    }
                }
                self.active_at(self.int_rank)
            }
            Phase::Exploitation => self.last,
        }
    }

    /// The reference code's `getReward(arm, reward, collision)`.
    #[allow(clippy::too_many_arguments)]
    fn update(
        &mut self,
        arm: usize,
        reward: bool,
        collision: bool,
        k: usize,
        t0: u64,
        log_t: f64,
        stay: bool,
    ) {
        self.last = arm;
        match self.phase {
            Phase::Fixation => {
                if self.ext_rank.is_none() && !collision {
                    let rank = if stay {
                        arm as i128
                    } else {
                        (t0 as i128 + arm as i128 - self.t as i128).rem_euclid(k as i128)
                    };
                    self.ext_rank = Some(rank as usize);
                }
                if self.t == t0 {
                    self.phase = Phase::Estimation;
                    // The reference code asserts a rank here; a user still without one (a T0 too
                    // short) takes rank 0.
                    let rank = *self.ext_rank.get_or_insert(0);
                    self.last = rank;
                }
            }
            Phase::Estimation => {
                if collision {
                    if self.t <= t0 + 2 * self.ext_rank.unwrap_or(0) as u64 {
                        self.int_rank += 1;
                    }
                    self.players += 1;
                }
                if self.t == t0 + 2 * k as u64 {
                    self.phase = Phase::Exploration;
                    self.t_phase = 0;
                    self.round = math::log2(self.players as f64).ceil() as u32;
                }
            }
            Phase::Exploration => {
                self.phase_stats[arm] += u64::from(reward);
                self.rewards[arm] += f64::from(u8::from(reward));
                self.t_phase += 1;
                if self.t_phase == shl(2, self.round).saturating_mul(self.arms as u64) {
                    self.phase = Phase::Communication;
                    self.t_phase = 0;
                }
            }
            Phase::Communication => {
                let turn = self.turn();
                let me = self.int_rank as u64;
                let listening = self.t_phase >= (me + 1) * turn || self.t_phase < me * turn;
                if listening && collision && turn > 0 {
                    let t0 = self.t_phase % turn;
                    let bits = u64::from(self.round) + 2;
                    let bit = t0 % bits;
                    let k0 = ((t0 - bit) / bits) as usize % self.arms.max(1);
                    let channel = self.active_at(k0);
                    self.rewards[channel] += (shl(2, bit as u32) >> 1) as f64;
                }
                self.t_phase += 1;
                let total = (self.players as u64).saturating_mul(turn);
                if self.t_phase == total || self.players == 1 {
                    self.decide(log_t);
                }
            }
            Phase::Exploitation => {}
        }
        self.t += 1;
    }

    /// The end of a communication phase: accept and reject channels.
    fn decide(&mut self, log_t: f64) {
        let gain = shl(2, self.round).saturating_mul(self.players as u64) as f64;
        for &k in &self.active {
            self.pulls[k] += gain;
        }
        let bounds: Vec<(f64, f64)> = self
            .active
            .iter()
            .map(|&k| {
                let n = self.pulls[k];
                let mean = self.rewards[k] / n;
                let bias = (ALPHA * log_t / (2.0 * n)).sqrt();
                (mean + bias, mean - bias)
            })
            .collect();
        let mut accept = Vec::new();
        let mut reject = Vec::new();
        for (i, &k) in self.active.iter().enumerate() {
            let (ucb, lcb) = bounds[i];
            let better = bounds.iter().filter(|b| b.1 > ucb).count();
            let worse = bounds.iter().filter(|b| b.0 < lcb).count();
            if better >= self.players {
                reject.push(k);
            }
            if worse >= self.arms.saturating_sub(self.players) {
                accept.push(k);
            }
        }
        self.active
            .retain(|k| !accept.contains(k) && !reject.contains(k));
        self.players = self.players.saturating_sub(accept.len());
        self.arms = self.arms.saturating_sub(accept.len() + reject.len());
        if accept.len() > self.int_rank {
            self.phase = Phase::Exploitation;
            self.last = accept[self.int_rank];
        } else {
            self.phase = Phase::Exploration;
            self.int_rank -= accept.len();
            self.last = self.active_at(self.int_rank);
            self.round += 1;
            self.phase_stats.iter_mut().for_each(|s| *s = 0);
            self.t_phase = 0;
        }
    }
}

impl Team for SicMmab {
    fn plan(&mut self, _t: u64, lists: &mut [Vec<usize>], rngs: &mut [SimRng]) {
        for ((user, list), rng) in self.users.iter().zip(lists).zip(rngs) {
            list.push(user.choose(self.k, self.t0, self.stay, rng));
        }
    }

    fn seen(&mut self, u: usize, seen: &Seen, _cost: f64, _rng: &mut SimRng) {
        if let Some(c) = seen.last {
            let collision = seen.collision == Some(true);
            self.users[u].update(
                c,
                seen.sample,
                collision,
                self.k,
                self.t0,
                self.log_horizon,
                self.stay,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_fixation_lengths() {
        let paper = SicMmabSpec::default().t0(9, 10_000);
        assert_eq!(paper, (9.0 * math::ln(10_000f64)).ceil() as u64);
        let code = SicMmabSpec {
            t0: SicT0::ReferenceCode,
            ..SicMmabSpec::default()
        }
        .t0(9, 10_000);
        assert_eq!(
            code,
            (std::f64::consts::E * 9.0 * math::ln(10_000f64)).ceil() as u64
        );
    }
}
