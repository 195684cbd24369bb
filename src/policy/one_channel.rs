//! What the classic one-channel index policies (`Ucb1`, `KlUcb`) share: the reward they
//! average, and their decision under any [`Rules`] (the clock of `ln t`, the ties).
//!
//! `Ucb1` under specprobe's rules keeps its own faster decision (the paper's round-robin
//! start, `sqrt(2 ln t)` prepared a slot ahead); every other combination of rules, and every
//! `KlUcb`, decides here: the channel of largest index, where a channel never probed has an
//! infinite index (so the first K slots probe every channel once, in the order the ties give:
//! the lower channel first, or uniformly at random as SMPyBandits' `IndexPolicy.choice` does).

use super::{Estimates, IndexKind, Rules, Ties, log_clock};
use crate::model::kl_search::KlSearch;
use crate::model::theory::{
    bernoulli_entropy, kl_upper_above, kl_upper_bound, kl_upper_bound_with,
};
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
        let (log_t, sd) = self.budget_and_noise(est, t);
        self.choose_in_order(est, log_t, sd, rng)
    }

    /// [`choose`](Self::choose), faster where every index is noisy (randomized Selfish KL-UCB
    /// once every channel has a sample): `scratch` holds one search per channel between calls,
    /// so that the call allocates nothing.
    ///
    /// The noises are drawn first, in channel order, as `choose` draws them; then each
    /// channel's root search is stepped only as far as the choice needs it: the channel of
    /// largest upper bound is stepped until it is solved or its lower bound clears every other
    /// channel's upper bound, and then wins; or until it falls below another, which is stepped
    /// next (see [`KlSearch`]'s bounds). The choice is `choose`'s, and so is the stream, with one
    /// documented exception of probability nil: two finite noisy indices equal to the last bit go
    /// to the lower channel, without the draw `choose` would take under random ties.
    pub(crate) fn choose_with(
        &self,
        est: &Estimates,
        t: u64,
        rng: &mut SimRng,
        scratch: &mut NoisyScratch,
    ) -> usize {
        let (log_t, sd) = self.budget_and_noise(est, t);
        let k = est.len();
        let means = (0..k).map(|i| self.reward.mean(est.theta_hat()[i], est.cost_hat()[i]));
        let lazy = self.noise
            && self.kind == IndexKind::KlUcb
            && (0..k).all(|i| est.count(i) > 0)
            && means.clone().all(|m| (0.0..=1.0).contains(&m));
        if !lazy {
            return self.choose_in_order(est, log_t, sd, rng);
        }
        let NoisyScratch {
            channels,
            uppers,
            entropy,
        } = scratch;
        channels.clear();
        uppers.clear();
        // H(p̂) changes only with p̂: one channel's a slot.
        entropy.resize(k, (f64::NAN.to_bits(), f64::NAN));
        for ((i, mean), kept) in means.enumerate().zip(entropy.iter_mut()) {
            let n = est.count(i) as f64;
            let noise = sd * rng.sample::<f64, _>(rand_distr::StandardNormal);
            if kept.0 != mean.to_bits() {
                *kept = (mean.to_bits(), f64::NAN);
            }
            let bound = kl_upper_bound_with(mean, n, log_t, || {
                if kept.1.is_nan() {
                    kept.1 = bernoulli_entropy(mean);
                }
                kept.1
            });
            let search = KlSearch::with_entropy(mean, n, log_t, bound, kept.1);
            let channel = NoisyIndex { search, noise };
            uppers.push(channel.upper());
            channels.push(channel);
        }
        let best = largest_noisy_index(channels, uppers);
        for (c, kept) in channels.iter().zip(entropy.iter_mut()) {
            if kept.1.is_nan() {
                kept.1 = c.search.entropy();
            }
        }
        best
    }

    /// The index's budget `f(t)` at slot `t`, and the noise's standard deviation.
    fn budget_and_noise(&self, est: &Estimates, t: u64) -> (f64, f64) {
        let k = est.len();
        let samples: u64 = (0..k).map(|i| est.count(i)).sum();
        let clock = self.rules.clock(t, samples);
        let mut log_t = log_clock(clock);
        if self.log_log != 0.0 {
            log_t += self.log_log * math::ln(log_t.max(1.0));
        }
        // The noise's t is the index's clock (the slot, or the samples so far).
        (log_t, 1.0 / (clock as f64 + 1.0))
    }

    /// Every channel's index in channel order, each noise and tie drawn as it comes.
    fn choose_in_order(&self, est: &Estimates, log_t: f64, sd: f64, rng: &mut SimRng) -> usize {
        let k = est.len();
        let (theta, cost) = (est.theta_hat(), est.cost_hat());
        let mut best = 0;
        let mut best_index = f64::NEG_INFINITY;
        let mut tied = 0u64;
        for i in 0..k {
            let n = est.count(i);
            let index = if n == 0 {
                f64::INFINITY
            } else {
                let mean = self.reward.mean(theta[i], cost[i]);
                // The noise is drawn first: the index takes no draw, so the stream is the same.
                let noise = if self.noise {
                    sd * rng.sample::<f64, _>(rand_distr::StandardNormal)
                } else {
                    0.0
                };
                if self.kind == IndexKind::KlUcb && (0.0..=1.0).contains(&mean) {
                    // kl-UCB's root search costs a few logarithms a step; its cheap bound is
                    // never below it, and rounding is monotone, so a channel whose bound (plus
                    // its noise) stays below the running best would neither beat nor tie it:
                    // skipped, with the same choice and the same draws (randomized Selfish at
                    // K = 20: most of the indices).
                    // First Pinsker's bound, then one Newton step's (two logarithms).
                    let n = n as f64;
                    let bound = kl_upper_bound(mean, n, log_t);
                    let noisy = |b: f64| if self.noise { b + noise } else { b };
                    if noisy(bound) < best_index
                        || kl_upper_above(mean, n, log_t, bound)
                            .is_some_and(|above| noisy(above) < best_index)
                    {
                        continue;
                    }
                }
                let index = self.kind.of_mean(mean, n, log_t);
                if self.noise { index + noise } else { index }
            };
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

/// What [`Decide::choose_with`] keeps between slots, so that a slot allocates nothing: one
/// search per channel, and each channel's `H(p̂)` with the bits of the `p̂` it is of.
#[derive(Clone, Debug, Default)]
pub(crate) struct NoisyScratch {
    channels: Vec<NoisyIndex>,
    uppers: Vec<f64>,
    entropy: Vec<(u64, f64)>,
}

/// One channel's noisy kl-UCB index while [`Decide::choose_with`] refines it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NoisyIndex {
    search: KlSearch,
    noise: f64,
}

impl NoisyIndex {
    /// The search's upper bound plus the noise.
    #[inline]
    fn upper(&self) -> f64 {
        self.search.upper() + self.noise
    }
}

/// The channel of largest `index + noise` (the lower channel on equal values), stepping the
/// searches only as far as that needs (best first): the channel of largest upper bound wins once
/// it is solved, or once its lower bound clears every other upper bound; otherwise it is stepped.
/// Rounding is monotone, so a bound plus the noise bounds the index plus the noise as computed.
/// `uppers[i]` is `channels[i].upper()`, kept beside them so that a scan reads 8 bytes a channel.
fn largest_noisy_index(channels: &mut [NoisyIndex], uppers: &mut [f64]) -> usize {
    loop {
        // The largest upper bound (the lower channel first on equal bounds) and the runner-up's.
        let (mut top, mut top_upper, mut second_upper) = (0, f64::NEG_INFINITY, f64::NEG_INFINITY);
        for (i, &upper) in uppers.iter().enumerate() {
            if upper > top_upper {
                second_upper = top_upper;
                (top, top_upper) = (i, upper);
            } else if upper > second_upper {
                second_upper = upper;
            }
        }
        let leader = &mut channels[top];
        loop {
            // Solved, the leader's upper bound is its index: no other can pass it, and one that
            // equals it is a higher channel.
            if leader.search.value().is_some()
                || leader.search.lower() + leader.noise > second_upper
            {
                return top;
            }
            leader.search.step();
            uppers[top] = leader.upper();
            // Still above every other channel: still the leader, without a new scan.
            if uppers[top] <= second_upper {
                break;
            }
        }
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
    /// What `choose` computed before it skipped channels by their bounds: every index in
    /// channel order, the noise and the ties drawn as they come.
    fn choose_every_index(d: &Decide, est: &Estimates, t: u64, rng: &mut SimRng) -> usize {
        let k = est.len();
        let samples: u64 = (0..k).map(|i| est.count(i)).sum();
        let clock = d.rules.clock(t, samples);
        let mut log_t = log_clock(clock);
        if d.log_log != 0.0 {
            log_t += d.log_log * math::ln(log_t.max(1.0));
        }
        let sd = 1.0 / (clock as f64 + 1.0);
        let (mut best, mut best_index, mut tied) = (0, f64::NEG_INFINITY, 0u64);
        for i in 0..k {
            let n = est.count(i);
            let mut index = if n == 0 {
                f64::INFINITY
            } else {
                let mean = d.reward.mean(est.theta_hat()[i], est.cost_hat()[i]);
                d.kind.of_mean(mean, n, log_t)
            };
            if d.noise && n > 0 {
                let z: f64 = rng.sample(rand_distr::StandardNormal);
                index += sd * z;
            }
            if index > best_index {
                (best, best_index, tied) = (i, index, 1);
            } else if index == best_index && d.rules.ties == Ties::Random {
                tied += 1;
                if rng.random_range(0..tied) == 0 {
                    best = i;
                }
            }
        }
        best
    }

    /// Channels skipped by their cheap bounds, or their searches stopped early
    /// ([`Decide::choose_with`]), change neither the choice nor the draws: over
    /// 40 000 slots of random estimates (many channels tied, few samples, close means), with
    /// and without noise, both rewards, both tie rules, the same channel and the same stream
    /// after every call as computing every index.
    #[test]
    fn skipping_channels_by_their_bounds_changes_nothing() {
        use rand::RngExt;
        let mut draws = crate::util::rng::stream(5, 0, 0);
        for case in 0..2000u64 {
            let k = draws.random_range(1..24);
            let mut est = Estimates::new(k);
            let spread = [0.02, 0.3, 1.0][case as usize % 3];
            for i in 0..k {
                let theta = 0.5 + spread * (draws.random::<f64>() - 0.5);
                for _ in 0..draws.random_range(0..[3, 40, 400][case as usize % 3]) {
                    est.observe(
                        i,
                        draws.random::<f64>() < theta,
                        draws.random::<f64>() * 0.3,
                    );
                }
            }
            let d = Decide {
                kind: IndexKind::KlUcb,
                reward: if case % 2 == 0 {
                    Reward::Idle
                } else {
                    Reward::Net
                },
                rules: Rules::new(
                    Convention::Specprobe,
                    Some(Clock::Samples),
                    Some(if case % 4 < 2 {
                        Ties::Random
                    } else {
                        Ties::LowerChannel
                    }),
                ),
                log_log: [0.0, 3.0][case as usize % 5 % 2],
                noise: case % 3 != 0,
            };
            let (mut fast, mut every, mut lazy) = (
                crate::util::rng::stream(case, 1, 0),
                crate::util::rng::stream(case, 1, 0),
                crate::util::rng::stream(case, 1, 0),
            );
            let mut scratch = NoisyScratch::default();
            for t in [1, 2, 5, 50, 1000, 100_000, 10_000_000, 1_000_000_000] {
                for _ in 0..5 {
                    let want = choose_every_index(&d, &est, t, &mut every);
                    assert_eq!(d.choose(&est, t, &mut fast), want, "case {case}, t {t}");
                    let got = d.choose_with(&est, t, &mut lazy, &mut scratch);
                    assert_eq!(got, want, "case {case}, t {t}");
                    let next = every.random::<u64>();
                    assert_eq!(fast.random::<u64>(), next, "case {case}");
                    assert_eq!(lazy.random::<u64>(), next, "case {case}");
                }
            }
        }
    }

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
