//! What the classic one-channel index policies (`Ucb1`, `KlUcb`) share: the reward they
//! average, and their decision under any [`Rules`] (the clock of `ln t`, the ties).
//!
//! `Ucb1` under specprobe's rules keeps its own faster decision (the paper's round-robin
//! start, `sqrt(2 ln t)` prepared a slot ahead); every other combination of rules, and every
//! `KlUcb`, decides here: the channel of largest index, where a channel never probed has an
//! infinite index (so the first K slots probe every channel once, in the order the ties give:
//! the lower channel first, or uniformly at random as SMPyBandits' `IndexPolicy.choice` does).

use super::{Estimates, IndexKind, Rules, Ties, log_clock};
use crate::util::math;
use crate::util::rng::SimRng;
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// What a one-channel policy averages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Reward {
    /// The net reward `(X − Y + 1)/2` (cost-aware).
    #[default]
    Net,
    /// The idle indicator X (the classic bandit).
    Idle,
}

impl Reward {
    /// Whether this is the default (for `skip_serializing_if`).
    pub(crate) fn is_net(&self) -> bool {
        *self == Reward::Net
    }

    /// Whether this is the idle indicator (the many-users index policies' default, for
    /// `skip_serializing_if`).
    pub(crate) fn is_idle(&self) -> bool {
        *self == Reward::Idle
    }

    /// The idle indicator (the many-users index policies' default, for `serde(default)`).
    pub(crate) fn idle() -> Reward {
        Reward::Idle
    }

    /// The mean a channel's index is built on, from its sample means of X and Y.
    #[inline]
    pub(crate) fn mean(self, theta_hat: f64, cost_hat: f64) -> f64 {
        match self {
            Reward::Net => 0.5 * (theta_hat - cost_hat + 1.0),
            Reward::Idle => theta_hat,
        }
    }
}

/// A one-channel index policy's decision under given rules.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Decide {
    /// The index.
    pub kind: IndexKind,
    /// What it averages.
    pub reward: Reward,
    /// Its clock and ties.
    pub rules: Rules,
    /// The c of the exploration function `f(t) = ln t + c·ln ln t` (0: `ln t`). `ln ln t` is
    /// taken as `ln max(ln t, 1)`, 0 until t reaches e (it is negative, then undefined, below).
    pub log_log: f64,
    /// Adds Gaussian noise of standard deviation `1/(t + 1)` to every finite index each slot
    /// (Trinh & Combes' randomized Selfish KL-UCB), t the index's clock (`time: Samples`
    /// counts from 0, as the authors' code does), drawn from the user's stream in channel
    /// order.
    pub noise: bool,
}

impl Decide {
    /// The channel of largest index at slot `t` (ties by the rules, drawn from `rng` only when
    /// there is a tie).
    pub(crate) fn choose(&self, est: &Estimates, t: u64, rng: &mut SimRng) -> usize {
        let k = est.len();
        let samples: u64 = (0..k).map(|i| est.count(i)).sum();
        let clock = self.rules.clock(t, samples);
        let mut log_t = log_clock(clock);
        if self.log_log != 0.0 {
            log_t += self.log_log * math::ln(log_t.max(1.0));
        }
        // The noise's t is the index's clock (the slot, or the samples so far).
        let sd = 1.0 / (clock as f64 + 1.0);
        let (theta, cost) = (est.theta_hat(), est.cost_hat());
        let mut best = 0;
        let mut best_index = f64::NEG_INFINITY;
        let mut tied = 0u64;
        for i in 0..k {
            let n = est.count(i);
            let mut index = if n == 0 {
                f64::INFINITY
            } else {
                self.kind
                    .of_mean(self.reward.mean(theta[i], cost[i]), n, log_t)
            };
            if self.noise && n > 0 {
                let z: f64 = rng.sample(rand_distr::StandardNormal);
                index += sd * z;
            }
            if index > best_index {
                best = i;
                best_index = index;
                tied = 1;
            } else if index == best_index && self.rules.ties == Ties::Random {
                // Reservoir sampling: the j-th of j equal indices replaces the pick with
                // probability 1/j, so that each is kept with probability 1/(number tied).
                tied += 1;
                if rng.random_range(0..tied) == 0 {
                    best = i;
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{Clock, Convention};
    use crate::util::math;

    /// Channels never probed come first; under random ties in a uniform order (each of three
    /// first in about a third of 3000 draws: 3.9 standard deviations either side is 889–1111),
    /// under the lower-channel rule in index order.
    #[test]
    fn untried_channels_first_in_the_ties_order() {
        let mut est = Estimates::new(4);
        est.observe(1, true, 0.0);
        let random = Decide {
            kind: IndexKind::KlUcb,
            reward: Reward::Idle,
            rules: Rules::new(Convention::SMPyBandits, None, None),
            log_log: 0.0,
            noise: false,
        };
        let mut rng = crate::util::rng::stream(3, 0, 0);
        let mut first = [0u32; 4];
        for _ in 0..3000 {
            first[random.choose(&est, 2, &mut rng)] += 1;
        }
        assert_eq!(first[1], 0);
        for c in [0, 2, 3] {
            assert!((889..=1111).contains(&first[c]), "{first:?}");
        }
        let lower = Decide {
            rules: Rules::new(Convention::Specprobe, Some(Clock::Samples), None),
            log_log: 0.0,
            noise: false,
            ..random
        };
        assert_eq!(lower.choose(&est, 2, &mut rng), 0);
    }

    /// The clock of `ln t`: counted in samples, a one-channel policy's `t` is the slots before
    /// this one; the index then equals the slot clock's one slot earlier.
    #[test]
    fn the_sample_clock_lags_the_slot_by_one() {
        let mut est = Estimates::new(2);
        for _ in 0..5 {
            est.observe(0, true, 0.0);
            est.observe(1, false, 0.0);
        }
        let d = Decide {
            kind: IndexKind::Ucb,
            reward: Reward::Idle,
            rules: Rules::new(Convention::Specprobe, Some(Clock::Samples), None),
            log_log: 0.0,
            noise: false,
        };
        // 10 samples: ln 10; channel 1's index 0 + sqrt(2 ln 10 / 5) < 1 + …: channel 0.
        assert_eq!(
            d.choose(&est, 11, &mut crate::util::rng::stream(1, 0, 0)),
            0
        );
        assert_eq!(
            IndexKind::Ucb.value(5, 0.0, 10),
            (2.0 * math::ln(10f64) / 5.0).sqrt()
        );
    }
}
