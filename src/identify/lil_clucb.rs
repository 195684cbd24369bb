//! lil'CLUCB, Algorithm 2 of Jiang, Li and Qiao (2017): CLUCB (Chen et al., NIPS 2014) with a
//! time-independent LIL radius `U(T_i, δ/N)` for every arm.
//!
//! `M_t` = the K arms of largest empirical mean; revised means are `μ̂ − u` in `M_t` and `μ̂ + u`
//! outside; `M̃_t` = the K arms of largest revised mean. Stop and return `M_t` when
//! `M_t = M̃_t`; otherwise sample the arm of largest radius in the symmetric difference.
//!
//! `M̃_t` differs from `M_t` by exactly the pairs (j-th lowest revised mean in `M_t`, j-th highest
//! outside) in which the outsider ranks higher: those pairs are read off the ordered bounds of
//! [`LucbCore`] without re-sorting.

use super::Identifier;
use super::confidence::Guarantee;
use super::confidence::Lil;
use super::lucb_core::LucbCore;
use super::{BuiltinIdentifier, Problem, lil_of};
use crate::util::ranking::Ranked;
use crate::util::rng::SimRng;

/// lil'CLUCB.
#[derive(Clone, Debug)]
pub(crate) struct LilClucb {
    core: LucbCore,
}

impl LilClucb {
    /// `n` arms, top `k`, confidence parameter δ.
    pub(crate) fn new(n: usize, k: usize, lil: Lil, delta: f64) -> LilClucb {
        let omega = delta / n as f64;
        LilClucb {
            core: LucbCore::new(n, k, lil, omega, omega),
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
        // in one sorted run (N up to about a thousand) the pairs are read off two slices.
        let radius = self.core.radius_keys();
        match self.core.bound_slices() {
            Some((high, low)) => widest(
                high.iter().copied().zip(low.iter().rev().copied()),
                radius,
            ),
            None => widest(
                self.core
                    .high_keys_by_bound()
                    .zip(self.core.low_keys_by_bound()),
                radius,
            ),
        }
    }

    fn observe(&mut self, arm: usize, reward: f64) {
        self.core.observe(arm, reward);
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
