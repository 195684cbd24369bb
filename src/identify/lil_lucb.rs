//! lil'LUCB: LUCB with LIL confidence bounds (Jamieson and Nowak, "Best-arm identification
//! algorithms for multi-armed bandits in the fixed confidence setting", CISS 2014), stated there
//! for K = 1 and generalised to top-K as in Jiang, Li and Qiao (2017): every arm's radius is
//! `U(T_i, δ/N)` (a union bound over the N arms); each round samples both `h_t` and `l_t`; stop
//! when `μ̂_h − u_h ≥ μ̂_l + u_l` and return High.

use super::Identifier;
use super::confidence::Guarantee;
use super::confidence::Lil;
use super::lucb_core::LucbCore;
use super::{BuiltinIdentifier, Problem, lil_of};
use crate::util::rng::SimRng;

/// lil'LUCB.
#[derive(Clone, Debug)]
pub(crate) struct LilLucb {
    core: LucbCore,
}

impl LilLucb {
    /// `n` arms, top `k`, confidence parameter δ.
    pub(crate) fn new(n: usize, k: usize, lil: Lil, delta: f64) -> LilLucb {
        let omega = delta / n as f64;
        LilLucb {
            core: LucbCore::new(n, k, lil, omega, omega),
        }
    }
}

impl Identifier for LilLucb {
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

/// The scenario entry `LilLucb`: lil'LUCB (Jamieson and Nowak 2014), generalised to top-K.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LilLucbEntry;

impl BuiltinIdentifier for LilLucbEntry {
    type Algorithm = LilLucb;
    const LABEL: &'static str = "lil'LUCB";
    const GUARANTEE: Guarantee = Guarantee::CEpsDelta;
    fn build(p: &Problem) -> LilLucb {
        LilLucb::new(p.arms, p.k, lil_of(p), p.params.delta)
    }
}
