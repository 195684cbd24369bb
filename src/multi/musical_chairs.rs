//! Musical Chairs (Rosenski, Shamir & Szlak, "Multi-Player Bandits — a Musical Chairs
//! Approach", ICML 2016, Algorithm 1). It does not need to know M.
//!
//! Phase 1, slots `1..=T0`: each user picks a channel uniformly at random, counts the slots it
//! collided in (`C`) and averages what it sensed on the others. At `T0` it estimates the number
//! of users as `M̂ = round(ln((T0 − C)/T0) / ln(1 − 1/K)) + 1` (`M̂ = K` when every slot
//! collided; clamped to `1..=K`); under `SensingThenCollision`, where a collision shows only
//! when the user transmitted, `T0` in that formula is the number of slots whose collision
//! indicator it observed. A user sits down only after a transmission it saw succeed; a slot
//! without collision information keeps it on the same candidate and keeps the `M̂` channels of largest empirical mean (ties to the
//! lower channel; a channel never observed has mean 0). Phase 2: it picks uniformly among them
//! until a slot without a collision, then stays on that channel for good.
//!
//! `convention: SMPyBandits` follows SMPyBandits 0.9.7's `MusicalChair` (its players given
//! directly, as its configuration files do; wrapped in `Selfish` their collisions would be
//! hidden): phase 1 ends at the end of the first slot after slot `T0` whose transmission saw
//! no collision (its internal clock starts at 0 and it checks `t ≥ T0` on a reward), so it
//! lasts at least `T0 + 1` slots; `M̂` takes `T0` itself in the formula and the collisions of
//! the whole phase; and a channel's empirical mean is `(1 + S)/(1 + N)`. (Its `M̂` best are
//! `np.argsort(-means)[:M̂]`, equal means in index order: the lower channel first, as here.)
//!
//! `T0`: the paper's Theorem 1 gives `max(K/2 · ln(2K²/δ), 16K/ε² · ln(4K²/δ),
//! K² ln(2/δ²)/0.02)`, 367 680 slots for K = 6, ε = 0.05, δ = 0.01 (the last term's δ² is read as SMPyBandits'
//! `optimalT0` reads it). The default is SMPyBandits' `Time0 = 0.25`: a quarter of the horizon.

use crate::util::math;
use super::{Seen, Team, TeamBuiltin};
use crate::model::channel::Environment;
use crate::policy::Convention;
use crate::util::rng::SimRng;
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// `MusicalChairs(t0: …, convention: …)`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MusicalChairsSpec {
    /// Length of the random exploration phase.
    #[serde(default)]
    pub t0: T0,
    /// Whose definitions (default specprobe's; see the module docs).
    #[serde(default, skip_serializing_if = "Convention::is_default")]
    pub convention: Convention,
}

impl TeamBuiltin for MusicalChairsSpec {
    const SUMMARY: &'static str = "T0 slots uniform, estimate M, then sit on a free chair";
    type Team = MusicalChairs;

    fn example() -> Self {
        MusicalChairsSpec::default()
    }
    fn label(&self) -> String {
        format!("musical-chairs{}", self.convention.suffix())
    }
    fn is_classic(&self) -> bool {
        true
    }
    fn check(&self, k: usize, _users: usize, horizon: u64) -> Vec<(String, String)> {
        self.t0
            .check(k, horizon)
            .err()
            .map(|rule| ("t0".to_string(), rule))
            .into_iter()
            .collect()
    }
    fn build(&self, env: &Environment, users: usize, h: u64, _r: &mut [SimRng]) -> MusicalChairs {
        let k = env.len();
        MusicalChairs::new(k, users, self.t0.slots(k, h), self.convention)
    }
}

/// The length of the exploration phase.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) enum T0 {
    /// A number of slots.
    Slots(u64),
    /// A fraction of the horizon, in `(0, 1]` (rounded down, at least one slot).
    Fraction(f64),
    /// Theorem 1 of the paper for a gap of at least `epsilon` and confidence `1 − delta`.
    Theorem1 {
        /// The smallest gap between the M-th and (M+1)-th best channels, in `(0, 1)`.
        epsilon: f64,
        /// The error probability, in `(0, 1)`.
        delta: f64,
    },
}

impl Default for T0 {
    fn default() -> Self {
        T0::Fraction(0.25)
    }
}

impl T0 {
    /// The rule this value breaks, for `k` channels and a run of `horizon` slots.
    pub(crate) fn check(&self, k: usize, horizon: u64) -> Result<(), String> {
        let unit = |x: f64| x.is_finite() && x > 0.0 && x < 1.0;
        match *self {
            T0::Slots(n) if n == 0 || n > horizon => Err(format!(
                "must lie in 1..={horizon}, the horizon (got Slots({n}))"
            )),
            T0::Fraction(f) if !(f.is_finite() && f > 0.0 && f <= 1.0) => {
                Err(format!("the fraction must lie in (0, 1] (got {f})"))
            }
            T0::Theorem1 { epsilon, delta } if !unit(epsilon) || !unit(delta) => Err(format!(
                "epsilon and delta must lie in (0, 1) (got {epsilon}, {delta})"
            )),
            // Every slot would explore: the run measures phase 1 alone, never the chairs.
            T0::Theorem1 { epsilon, delta } if self.slots(k, horizon) >= horizon => Err(format!(
                "Theorem 1's T0 for K = {k}, epsilon {epsilon}, delta {delta} is {} slots, not below the horizon {horizon}: every slot would be spent exploring (give a longer horizon, or t0: Slots(n) or Fraction(f))",
                self.slots(k, horizon)
            )),
            _ => Ok(()),
        }
    }

    /// The phase's length in slots for `k` channels and `horizon` slots.
    pub(crate) fn slots(&self, k: usize, horizon: u64) -> u64 {
        match *self {
            T0::Slots(n) => n,
            T0::Fraction(f) => ((f * horizon as f64) as u64).max(1),
            T0::Theorem1 { epsilon, delta } => {
                let k = k as f64;
                let a = k / 2.0 * math::ln(2.0 * k * k / delta);
                let b = 16.0 * k / (epsilon * epsilon) * math::ln(4.0 * k * k / delta);
                let c = k * k * math::ln(2.0 / (delta * delta)) / 0.02;
                let t0 = a.max(b).max(c).ceil();
                if t0 >= u64::MAX as f64 {
                    u64::MAX
                } else {
                    t0 as u64
                }
            }
        }
    }
}

/// One user's state.
#[derive(Clone, Debug)]
struct Chair {
    observed: Vec<u64>,
    idle: Vec<u64>,
    collisions: u64,
    /// Phase-1 slots in which the collision indicator was observed.
    informed: u64,
    /// The `M̂` best channels after phase 1.
    best: Vec<usize>,
    /// The channel it sits on, or tries.
    chair: Option<usize>,
    seated: bool,
    /// Draw a new chair before the next slot (at the start, and after a collision).
    retry: bool,
    /// Phase 1 is over (SMPyBandits' convention: it ends on a reward after slot `T0`).
    ended: bool,
}

/// M Musical Chairs users.
#[derive(Clone, Debug)]
pub(crate) struct MusicalChairs {
    users: Vec<Chair>,
    t0: u64,
    k: usize,
    t: u64,
    /// SMPyBandits' definitions (see the module docs).
    reference: bool,
}

impl MusicalChairs {
    /// `k` channels, `users` users, exploration for `t0` slots.
    pub(crate) fn new(k: usize, users: usize, t0: u64, convention: Convention) -> MusicalChairs {
        let chair = Chair {
            observed: vec![0; k],
            idle: vec![0; k],
            collisions: 0,
            informed: 0,
            best: Vec::new(),
            chair: None,
            seated: false,
            retry: true,
            ended: false,
        };
        MusicalChairs {
            users: vec![chair; users],
            t0,
            k,
            t: 0,
            reference: convention == Convention::SMPyBandits,
        }
    }

    /// Whether user `c` is in phase 1 at the current slot.
    fn exploring(&self, c: &Chair) -> bool {
        if self.reference {
            !c.ended
        } else {
            self.t <= self.t0
        }
    }

    /// The estimated number of users after `t0` slots with `collisions` collisions.
    fn estimate_m(t0: u64, collisions: u64, k: usize) -> usize {
        if collisions >= t0 || k == 1 {
            return k;
        }
        let free = (t0 - collisions) as f64 / t0 as f64;
        let m = (math::ln(free) / math::ln(1.0 - 1.0 / k as f64)).round() + 1.0;
        (m.max(1.0) as usize).min(k)
    }
}

impl Team for MusicalChairs {
    fn plan(&mut self, t: u64, lists: &mut [Vec<usize>], rngs: &mut [SimRng]) {
        self.t = t;
        let k = self.k;
        for u in 0..self.users.len() {
            let (list, rng) = (&mut lists[u], &mut rngs[u]);
            if self.exploring(&self.users[u]) {
                list.push(rng.random_range(0..k));
                continue;
            }
            let c = &mut self.users[u];
            if c.best.is_empty() {
                if self.reference {
                    let informed = self.t0;
                    let m = Self::estimate_m(informed, c.collisions, k);
                    let means: Vec<f64> = (0..k)
                        .map(|i| (1 + c.idle[i]) as f64 / (1 + c.observed[i]) as f64)
                        .collect();
                    // `np.argsort(-means)[:M̂]`: the baseline sort keeps equal means in index
                    // order, the lower channel first.
                    super::top(&means, m, &mut c.best);
                } else {
                    let m = Self::estimate_m(c.informed, c.collisions, k);
                    let mean = |i: usize| {
                        if c.observed[i] == 0 {
                            0.0
                        } else {
                            c.idle[i] as f64 / c.observed[i] as f64
                        }
                    };
                    let means: Vec<f64> = (0..k).map(mean).collect();
                    super::top(&means, m, &mut c.best);
                }
            }
            if !c.seated && c.retry {
                c.chair = Some(c.best[rng.random_range(0..c.best.len())]);
                c.retry = false;
            }
            list.extend(c.chair);
        }
    }

    fn seen(&mut self, u: usize, seen: &Seen, _cost: f64, _rng: &mut SimRng) {
        let exploring = self.exploring(&self.users[u]);
        let (t, t0, reference) = (self.t, self.t0, self.reference);
        let c = &mut self.users[u];
        let collided = seen.collision == Some(true);
        if exploring {
            c.informed += u64::from(seen.collision.is_some());
            if collided {
                c.collisions += 1;
            } else if let Some(ch) = seen.last {
                c.observed[ch] += 1;
                c.idle[ch] += u64::from(seen.sample);
                // SMPyBandits: a reward from slot T0 + 1 on ends the phase.
                if reference && t > t0 && seen.collision == Some(false) {
                    c.ended = true;
                }
            }
        } else if !c.seated {
            match seen.collision {
                Some(false) => c.seated = true,
                Some(true) => c.retry = true,
                // No transmission, no information: try the same chair again.
                None => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_of_m_inverts_the_collision_rate() {
        // With M users on K channels uniformly, a user is alone w.p. (1 − 1/K)^(M − 1).
        for (k, m) in [(9usize, 1usize), (9, 3), (9, 6), (4, 4)] {
            let t0 = 1_000_000u64;
            let free = math::powi(1.0 - 1.0 / k as f64, m as i32 - 1);
            let collisions = t0 - (free * t0 as f64).round() as u64;
            assert_eq!(
                MusicalChairs::estimate_m(t0, collisions, k),
                m,
                "K {k} M {m}"
            );
        }
        assert_eq!(MusicalChairs::estimate_m(10, 10, 5), 5);
    }

    #[test]
    fn theorem_1_is_large_and_the_default_a_quarter() {
        assert_eq!(T0::default().slots(6, 10_000), 2500);
        let t = |k, epsilon, delta| T0::Theorem1 { epsilon, delta }.slots(k, 1);
        // SMPyBandits' optimalT0 gives these.
        assert_eq!(t(6, 0.05, 0.01), 367_680);
        assert_eq!(t(6, 0.1, 0.05), 76_470);
        assert_eq!(t(2, 0.05, 0.1), 64_963);
        assert!(T0::Slots(0).check(6, 10).is_err());
        assert!(T0::Fraction(1.5).check(6, 10).is_err());
        // Theorem 1's T0 at K = 6, ε = 0.05, δ = 0.01 is 367 680 slots (the README's figure).
        let theorem = T0::Theorem1 {
            epsilon: 0.05,
            delta: 0.01,
        };
        assert_eq!(theorem.slots(6, 1), 367_680);
        let err = theorem.check(6, 367_680).unwrap_err();
        assert!(err.contains("367680 slots, not below the horizon 367680"), "{err}");
        assert!(theorem.check(6, 367_681).is_ok());
    }
}
