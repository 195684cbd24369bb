//! MEGA, the Multi-user ε-Greedy collision Avoiding algorithm (Avner & Mannor, "Concurrent
//! Bandits and Cognitive Radio Networks", ECML 2014), as SMPyBandits' `MEGA` implements it (the
//! reference code this follows step by step; its defaults `p0 = 0.5, α = 0.5, β = 0.5,
//! c = 0.1, d = 0.01` are the defaults here).
//!
//! A user starts on a uniform channel with persistence `p = p0` and stays on its channel until
//! it gives up. After a transmission without collision it averages what it sensed and raises
//! its persistence, `p ← αp + (1 − α)`. After a collision it gives up with probability `1 − p`:
//! the channel is then unavailable to it until slot `t + U{0, …, ⌊t^β⌋}` and `p ← p0`. A user
//! without a channel picks, among the channels available to it, a uniform one with probability
//! `ε_t = min(1, cK²/(d²(K − 1)t))` and otherwise one of largest empirical mean (never-tried
//! channels first; ties drawn uniformly, as SMPyBandits does); with none available, a uniform
//! channel. One deviation from the reference code: its exploitation step takes the best mean over
//! all channels, unavailable ones included, which contradicts the paper's unavailability rule;
//! here it is over the available channels, never-tried ones first. `convention: SMPyBandits`
//! restores the reference code's step: the best mean over all channels, a never-tried channel's
//! mean being −∞ (`meanRewards.fill(-inf)`), so that it is exploited last.

use crate::util::math;
use super::{Seen, Team, TeamBuiltin};
use crate::model::channel::Environment;
use crate::policy::Convention;
use crate::util::rng::SimRng;
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// `Mega(p0: …, alpha: …, beta: …, c: …, d: …)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MegaSpec {
    /// Initial persistence, in `[0, 1]`.
    #[serde(default = "half")]
    pub p0: f64,
    /// Persistence update weight, in `(0, 1]`.
    #[serde(default = "half")]
    pub alpha: f64,
    /// Exponent of the unavailability interval, in `(0, 1]`.
    #[serde(default = "half")]
    pub beta: f64,
    /// Exploration constant c > 0.
    #[serde(default = "default_c")]
    pub c: f64,
    /// Exploration constant d ∈ (0, 1).
    #[serde(default = "default_d")]
    pub d: f64,
    /// Whose definition of the exploitation step (default specprobe's).
    #[serde(default, skip_serializing_if = "Convention::is_default")]
    pub convention: Convention,
}

fn half() -> f64 {
    0.5
}
fn default_c() -> f64 {
    0.1
}
fn default_d() -> f64 {
    0.01
}

impl Default for MegaSpec {
    fn default() -> Self {
        MegaSpec {
            p0: 0.5,
            alpha: 0.5,
            beta: 0.5,
            c: 0.1,
            d: 0.01,
            convention: Convention::Specprobe,
        }
    }
}

impl TeamBuiltin for MegaSpec {
    const SUMMARY: &'static str =
        "MEGA: ε-greedy with persistence and unavailability after collisions";
    type Team = Mega;

    fn example() -> Self {
        MegaSpec::default()
    }
    fn label(&self) -> String {
        format!("mega{}", self.convention.suffix())
    }
    fn is_classic(&self) -> bool {
        true
    }
    fn check(&self, _k: usize, _users: usize, _horizon: u64) -> Vec<(String, String)> {
        self.check_params()
    }
    fn build(&self, env: &Environment, users: usize, _h: u64, _r: &mut [SimRng]) -> Mega {
        Mega::new(env.len(), users, self)
    }
}

impl MegaSpec {
    /// Every broken parameter rule, as (parameter, rule).
    pub(crate) fn check_params(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut rule = |name: &str, ok: bool, what: &str, v: f64| {
            if !ok {
                out.push((name.to_string(), format!("must lie in {what} (got {v})")));
            }
        };
        let finite = |v: f64| v.is_finite();
        rule(
            "p0",
            finite(self.p0) && (0.0..=1.0).contains(&self.p0),
            "[0, 1]",
            self.p0,
        );
        for (name, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            rule(name, finite(v) && v > 0.0 && v <= 1.0, "(0, 1]", v);
        }
        rule("c", finite(self.c) && self.c > 0.0, "(0, ∞)", self.c);
        rule(
            "d",
            finite(self.d) && self.d > 0.0 && self.d < 1.0,
            "(0, 1)",
            self.d,
        );
        out
    }
}

/// One MEGA user.
#[derive(Clone, Debug)]
struct User {
    p: f64,
    chosen: Option<usize>,
    /// The first slot from which each channel is available again.
    next: Vec<u64>,
    pulls: Vec<u64>,
    sum: Vec<u64>,
}

/// M MEGA users.
#[derive(Clone, Debug)]
pub(crate) struct Mega {
    spec: MegaSpec,
    users: Vec<User>,
    k: usize,
    t: u64,
    available: Vec<usize>,
}

impl Mega {
    /// `k` channels, `users` users.
    pub(crate) fn new(k: usize, users: usize, spec: &MegaSpec) -> Mega {
        let user = User {
            p: spec.p0,
            chosen: None,
            next: vec![1; k],
            pulls: vec![0; k],
            sum: vec![0; k],
        };
        Mega {
            spec: spec.clone(),
            users: vec![user; users],
            k,
            t: 0,
            available: Vec::with_capacity(k),
        }
    }

    fn epsilon(&self, t: u64) -> f64 {
        let k = self.k as f64;
        if self.k < 2 {
            return 1.0;
        }
        (self.spec.c * k * k / (self.spec.d * self.spec.d * (k - 1.0) * t as f64)).min(1.0)
    }
}

impl Team for Mega {
    fn plan(&mut self, t: u64, lists: &mut [Vec<usize>], rngs: &mut [SimRng]) {
        self.t = t;
        let epsilon = self.epsilon(t);
        let k = self.k;
        for ((user, list), rng) in self.users.iter_mut().zip(lists).zip(rngs) {
            if t == 1 {
                user.chosen = Some(rng.random_range(0..k));
            }
            if user.chosen.is_none() {
                self.available.clear();
                self.available.extend((0..k).filter(|&i| user.next[i] <= t));
                let reference = self.spec.convention == Convention::SMPyBandits;
                let pick = if self.available.is_empty() {
                    rng.random_range(0..k)
                } else if rng.random::<f64>() < epsilon {
                    self.available[rng.random_range(0..self.available.len())]
                } else {
                    // Best empirical mean among the available channels, never-tried first
                    // (the reference code's: among all channels, never-tried last); ties drawn
                    // uniformly.
                    let untried = if reference {
                        self.available.clear();
                        self.available.extend(0..k);
                        f64::NEG_INFINITY
                    } else {
                        f64::INFINITY
                    };
                    let mean = |i: usize| {
                        if user.pulls[i] == 0 {
                            untried
                        } else {
                            user.sum[i] as f64 / user.pulls[i] as f64
                        }
                    };
                    let best = self
                        .available
                        .iter()
                        .map(|&i| mean(i))
                        .fold(f64::NEG_INFINITY, f64::max);
                    self.available.retain(|&i| mean(i) == best);
                    self.available[rng.random_range(0..self.available.len())]
                };
                // A new channel restarts the persistence (as the reference code does).
                user.p = self.spec.p0;
                user.chosen = Some(pick);
            }
            list.extend(user.chosen);
        }
    }

    fn seen(&mut self, u: usize, seen: &Seen, _cost: f64, rng: &mut SimRng) {
        let t = self.t;
        let (p0, alpha, beta) = (self.spec.p0, self.spec.alpha, self.spec.beta);
        let user = &mut self.users[u];
        let Some(c) = seen.last else { return };
        if seen.collision == Some(true) {
            if rng.random::<f64>() >= user.p {
                let span = math::powf(t as f64, beta).floor() as u64;
                user.next[c] = t + rng.random_range(0..=span);
                user.p = p0;
                user.chosen = None;
            }
        } else {
            user.pulls[c] += 1;
            user.sum[c] += u64::from(seen.sample);
            user.p = user.p * alpha + (1.0 - alpha);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exploration_decays_and_parameters_are_checked() {
        let m = Mega::new(9, 2, &MegaSpec::default());
        assert_eq!(m.epsilon(1), 1.0);
        let e = m.epsilon(1_000_000);
        assert!((e - 0.1 * 81.0 / (1e-4 * 8.0 * 1e6)).abs() < 1e-12);
        assert!(MegaSpec::default().check_params().is_empty());
        let bad = MegaSpec {
            d: 1.5,
            ..MegaSpec::default()
        };
        assert_eq!(bad.check_params()[0].0, "d");
    }

    /// A user that gives up after a collision leaves the channel and cannot come back to it
    /// before its unavailability ends.
    #[test]
    fn giving_up_marks_the_channel_unavailable() {
        let spec = MegaSpec {
            p0: 0.0,
            ..MegaSpec::default()
        };
        let mut m = Mega::new(3, 1, &spec);
        let mut rngs = vec![crate::util::rng::stream(3, 0, 0)];
        let mut lists = vec![Vec::new()];
        m.plan(1, &mut lists, &mut rngs);
        let c = lists[0][0];
        let collided = Seen {
            transmitted: Some(c),
            last: Some(c),
            sample: true,
            collision: Some(true),
            ack: false,
        };
        let mut rng = crate::util::rng::stream(3, 1, 0);
        m.seen(0, &collided, 0.0, &mut rng);
        assert!(m.users[0].chosen.is_none(), "p = 0: gives up for sure");
        assert!(m.users[0].next[c] >= 1);
        for t in 2..=m.users[0].next[c].saturating_sub(1).max(2) {
            lists[0].clear();
            m.plan(t, &mut lists, &mut rngs);
            if t < m.users[0].next[c] {
                assert_ne!(lists[0][0], c, "slot {t}");
            }
        }
    }
}
