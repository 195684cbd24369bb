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
        // The symmetric difference M_t Δ M̃_t, and its arm of largest radius (ties: lower
        // index), in `Ranked`'s order through integer keys: the pairs' bounds as
        // `Ranked::key`s, the radii as `order_key`s.
        let radius = self.core.radius_keys();
        let (mut widest, mut widest_arm) = (0u64, usize::MAX);
        for (h, l) in self.core.high_keys_by_bound().zip(self.core.low_keys_by_bound()) {
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

    fn observe(&mut self, arm: usize, reward: f64) {
        self.core.observe(arm, reward);
    }

    fn answer(&self, out: &mut Vec<usize>) {
        self.core.answer(out);
    }
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
