//! lil'CLUCB, Algorithm 2 of Jiang, Li and Qiao (2017): CLUCB (Chen et al., NIPS 2014) with a
//! time-independent LIL radius `U(T_i, δ/N)` for every arm.
//!
//! `M_t` = the K arms of largest empirical mean; revised means are `μ̂ − u` in `M_t` and `μ̂ + u`
//! outside; `M̃_t` = the K arms of largest revised mean. Stop and return `M_t` when
//! `M_t = M̃_t`; otherwise sample the arm of largest radius in the symmetric difference.
//!
//! `M̃_t` differs from `M_t` by exactly the pairs (j-th lowest revised mean in `M_t`, j-th highest
//! outside) in which the outsider ranks higher: those pairs are read off the ordered bounds of
//! [`LucbCore`] without re-sorting, and kept from round to round by [`Crossed`].

use super::Identifier;
use super::confidence::Guarantee;
use super::confidence::Lil;
use super::crossed::Crossed;
use super::lucb_core::{LucbCore, Ordered};
use super::{BuiltinIdentifier, Problem, lil_of};
use crate::util::ranking::Ranked;
use crate::util::rng::SimRng;

/// lil'CLUCB.
#[derive(Clone, Debug)]
pub(crate) struct LilClucb {
    core: LucbCore<Ordered>,
    crossed: Crossed,
}

impl LilClucb {
    /// `n` arms, top `k`, confidence parameter δ.
    pub(crate) fn new(n: usize, k: usize, lil: Lil, delta: f64) -> LilClucb {
        let omega = delta / n as f64;
        LilClucb {
            core: LucbCore::new(n, k, lil, omega, omega),
            crossed: Crossed::new(),
        }
    }
}

impl Identifier for LilClucb {
    fn next(&mut self, _rng: &mut SimRng) -> Option<usize> {
        if let Some(arm) = self.core.initial() {
            return Some(arm);
        }
        // The symmetric difference M_t Δ M̃_t: the pairs (j-th lowest lower bound in High, j-th
        // highest upper bound in Low) in which the outsider ranks higher. While each side fits
        // in one sorted run (N up to about a thousand) they are kept from round to round;
        // otherwise the pairs are walked.
        let radius = self.core.radius_keys();
        match self.core.bound_slices() {
            Some((high, low)) => {
                let core = &self.core;
                self.crossed
                    .widest(high, low, radius, |arm| core.side_and_place(arm))
            }
            None => {
                self.crossed.invalidate();
                widest(
                    self.core
                        .high_keys_by_bound()
                        .zip(self.core.low_keys_by_bound()),
                    radius,
                )
            }
        }
    }

    fn observe(&mut self, arm: usize, reward: f64) {
        let swap = self.core.observe(arm, reward);
        self.crossed.sampled(arm, swap);
    }

    fn answer(&self, out: &mut Vec<usize>) {
        self.core.answer(out);
    }
}

/// The arm of largest radius (ties: lower index) among the crossed pairs at the head of
/// `pairs`, which holds (High lower bound, Low upper bound) pairs as `Ranked::key`s; `radius`
/// holds each arm's radius as an `order_key`. Integer keys keep `Ranked`'s order exactly.
#[inline]
fn widest(pairs: impl Iterator<Item = (u128, u128)>, radius: &[u64]) -> Option<usize> {
    let (mut widest, mut widest_arm) = (0u64, usize::MAX);
    for (h, l) in pairs {
        if l <= h {
            break;
        }
        for arm in [Ranked::arm_of_key(h), Ranked::arm_of_key(l)] {
            let r = radius[arm];
            if r > widest || (r == widest && arm < widest_arm) {
                (widest, widest_arm) = (r, arm);
            }
        }
    }
    (widest_arm != usize::MAX).then_some(widest_arm)
}

/// The scenario entry `LilClucb`: lil'CLUCB (Jiang, Li, Qiao 2017, Algorithm 2).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LilClucbEntry;

impl BuiltinIdentifier for LilClucbEntry {
    type Algorithm = LilClucb;
    const LABEL: &'static str = "lil'CLUCB";
    const GUARANTEE: Guarantee = Guarantee::CEpsDeltaPowOverN;
    fn build(p: &Problem) -> LilClucb {
        LilClucb::new(p.arms, p.k, lil_of(p), p.params.delta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::stream;

    /// The walk over every crossed pair, as the algorithm states it.
    fn walked(p: &LilClucb) -> Option<usize> {
        widest(
            p.core
                .high_keys_by_bound()
                .zip(p.core.low_keys_by_bound()),
            p.core.radius_keys(),
        )
    }

    /// The kept crossed pairs pick the walk's arm every round, ties included: coarse rewards
    /// make equal means and counts common, and arms of equal laws keep many pairs crossed for
    /// long runs with many changes of sides. The last trials have sides of more than one sorted
    /// run, where the pairs are walked.
    #[test]
    fn next_samples_the_walks_arm() {
        use rand::RngExt;
        let mut rng = stream(7, 7, 7);
        let lil = Lil {
            epsilon: 0.0,
            sigma: 0.5,
        };
        let mut swaps = 0;
        for trial in 0..122 {
            let (n, rounds) = match trial {
                120.. => (2200, 300),
                _ if trial % 2 == 0 => (2 + trial % 30, 3000),
                _ => (30 + trial % 170, 3000),
            };
            let k = 1 + trial * 7 % (n - 1);
            let mut p = LilClucb::new(n, k, lil, 0.05);
            for round in 0..rounds {
                let want = p.core.samples().initialised().then(|| walked(&p));
                let Some(arm) = p.next(&mut rng) else {
                    assert_eq!(want, Some(None), "trial {trial}, round {round}");
                    break;
                };
                if let Some(want) = want {
                    assert_eq!(Some(arm), want, "trial {trial}, round {round}");
                }
                // Now and then more samples before the next round (a caller that samples more
                // than it asks), which the kept pairs must notice.
                let extra = if round % 97 == 96 { 4 } else { 0 };
                for arm in (0..=extra).map(|e| (arm + e) % n) {
                    let reward = f64::from(rng.random_range(0..3u8)) * 0.5;
                    let swap = p.core.observe(arm, reward);
                    swaps += usize::from(swap.is_some());
                    p.crossed.sampled(arm, swap);
                }
            }
        }
        assert!(swaps > 1000, "{swaps}");
    }
}
