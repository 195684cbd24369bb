//! LUCB++ (Simchowitz, Jamieson and Recht, "The Simulator: Understanding Adaptive Sampling in the
//! Moderate-Confidence Regime", COLT 2017): LUCB whose radii are `U(T_i, δ/(2(N−K)))` for arms in
//! High and `U(T_i, δ/(2K))` for arms in Low (each side's union bound runs only over the arms
//! that could be wrongly placed on it); each round samples both `h_t` and `l_t`; stop when
//! `μ̂_h − u_h ≥ μ̂_l + u_l` and return High. With K = N/2 it coincides with lil'LUCB.

use super::Identifier;
use super::confidence::Guarantee;
use super::confidence::Lil;
use super::lucb_core::LucbCore;
use super::{BuiltinIdentifier, Problem, lil_of};
use crate::util::rng::SimRng;

/// LUCB++.
#[derive(Clone, Debug)]
pub(crate) struct LucbPlusPlus {
    core: LucbCore,
}

impl LucbPlusPlus {
    /// `n` arms, top `k`, confidence parameter δ.
    pub(crate) fn new(n: usize, k: usize, lil: Lil, delta: f64) -> LucbPlusPlus {
        LucbPlusPlus {
            core: LucbCore::split_radii(n, k, lil, delta),
        }
    }
}

impl Identifier for LucbPlusPlus {
    fn next(&mut self, _rng: &mut SimRng) -> Option<usize> {
        self.core.next_both()
    }

    fn observe(&mut self, arm: usize, reward: f64) {
        self.core.observe(arm, reward);
    }

    fn answer(&self, out: &mut Vec<usize>) {
        self.core.answer(out);
    }
}

/// The scenario entry `LucbPlusPlus`: LUCB++ (Simchowitz, Jamieson, Recht 2017).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LucbPlusPlusEntry;

impl BuiltinIdentifier for LucbPlusPlusEntry {
    type Algorithm = LucbPlusPlus;
    const LABEL: &'static str = "LUCB++";
    const GUARANTEE: Guarantee = Guarantee::CEpsDelta;
    fn build(p: &Problem) -> LucbPlusPlus {
        LucbPlusPlus::new(p.arms, p.k, lil_of(p), p.params.delta)
    }
}
