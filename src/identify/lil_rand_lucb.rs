//! lil'RandLUCB, Algorithm 1 of Jiang, Li and Qiao, "Practical Algorithms for Best-K
//! Identification in Multi-Armed Bandits" (2017).
//!
//! Radii `U(T_i, δ/(2(N−K)))` in High and `U(T_i, δ/(2K))` in Low, as LUCB++; stop when
//! `μ̂_h − u_h ≥ μ̂_l + u_l` and return High; otherwise sample *one* arm: `h_t` with probability
//! `T_l/(T_h + T_l)`, else `l_t` (the less sampled of the two is favoured).

use super::Identifier;
use super::confidence::Guarantee;
use super::confidence::Lil;
use super::lucb_core::LucbCore;
use super::{BuiltinIdentifier, Problem, lil_of};
use crate::util::rng::SimRng;
use rand::RngExt;

/// lil'RandLUCB.
#[derive(Clone, Debug)]
pub(crate) struct LilRandLucb {
    core: LucbCore,
}

impl LilRandLucb {
    /// `n` arms, top `k`, confidence parameter δ.
    pub(crate) fn new(n: usize, k: usize, lil: Lil, delta: f64) -> LilRandLucb {
        LilRandLucb {
            core: LucbCore::split_radii(n, k, lil, delta),
        }
    }
}

impl Identifier for LilRandLucb {
    fn next(&mut self, rng: &mut SimRng) -> Option<usize> {
        if let Some(arm) = self.core.initial() {
            return Some(arm);
        }
        let (h, l) = self.core.extremes()?;
        if h.value >= l.value {
            return None;
        }
        let counts = self.core.samples().counts();
        let (th, tl) = (counts[h.arm] as f64, counts[l.arm] as f64);
        let u: f64 = rng.random();
        Some(if u < tl / (th + tl) { h.arm } else { l.arm })
    }

    fn observe(&mut self, arm: usize, reward: f64) {
        self.core.observe(arm, reward);
    }

    fn answer(&self, out: &mut Vec<usize>) {
        self.core.answer(out);
    }
}

/// The scenario entry `LilRandLucb`: lil'RandLUCB (Jiang, Li, Qiao 2017, Algorithm 1).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LilRandLucbEntry;

impl BuiltinIdentifier for LilRandLucbEntry {
    type Algorithm = LilRandLucb;
    const LABEL: &'static str = "lil'RandLUCB";
    const GUARANTEE: Guarantee = Guarantee::CEpsDelta;
    fn build(p: &Problem) -> LilRandLucb {
        LilRandLucb::new(p.arms, p.k, lil_of(p), p.params.delta)
    }
}
