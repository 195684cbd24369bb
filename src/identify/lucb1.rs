//! LUCB1 (Kalyanakrishnan, Tewari, Auer and Stone, "PAC Subset Selection in Stochastic
//! Multi-armed Bandits", ICML 2012), with ε = 0 (exact top-K identification).
//!
//! After sampling each arm once, round `t = 1, 2, …`: High = the K arms of largest empirical mean;
//! `h_t` = the High arm of lowest `μ̂ − β(u, t)`, `l_t` = the Low arm of highest `μ̂ + β(u, t)`,
//! with `β(u, t) = sqrt(ln(k₁ N t⁴/δ)/(2u))`, `k₁ = 5/4` (scaled by 2σ for σ-sub-Gaussian rewards,
//! see [`super::confidence`]). Stop when `UCB(l_t) − LCB(h_t) < ε = 0` and return High; otherwise
//! sample both `h_t` and `l_t`. The radius grows with `t` for every arm, so each round scans the
//! arms (O(N)); the per-arm factor `sqrt(2σ²/u)` is cached.

use super::Identifier;
use super::Samples;
use super::confidence::{Guarantee, Setting};
use super::confidence::{lucb1_arm_factor, lucb1_log_term};
use super::{BuiltinIdentifier, Problem};
use crate::util::ranking::{MeanSplit, Ranked};
use crate::util::rng::SimRng;

/// LUCB1.
#[derive(Clone, Debug)]
pub(crate) struct Lucb1 {
    k: usize,
    delta: f64,
    sigma: f64,
    samples: Samples,
    factor: Vec<f64>,
    split: Option<MeanSplit>,
    round: u64,
    pending: Option<usize>,
}

impl Lucb1 {
    /// `n` arms, top `k`, confidence δ, σ-sub-Gaussian rewards.
    pub(crate) fn new(n: usize, k: usize, delta: f64, sigma: f64) -> Lucb1 {
        Lucb1 {
            k,
            delta,
            sigma,
            samples: Samples::new(n),
            factor: vec![f64::INFINITY; n],
            split: None,
            round: 1,
            pending: None,
        }
    }
}

impl Identifier for Lucb1 {
    fn next(&mut self, _rng: &mut SimRng) -> Option<usize> {
        if let Some(arm) = self.samples.initial().or_else(|| self.pending.take()) {
            return Some(arm);
        }
        let split = self
            .split
            .get_or_insert_with(|| MeanSplit::new(self.samples.means(), self.k));
        let root = lucb1_log_term(self.round, self.samples.len(), self.delta).sqrt();
        let means = self.samples.means();
        let mut h: Option<Ranked> = None;
        let mut l: Option<Ranked> = None;
        for (arm, (&m, &f)) in means.iter().zip(&self.factor).enumerate() {
            let r = root * f;
            if split.is_high(arm) {
                let lcb = Ranked { value: m - r, arm };
                if h.is_none_or(|x| lcb < x) {
                    h = Some(lcb);
                }
            } else {
                let ucb = Ranked { value: m + r, arm };
                if l.is_none_or(|x| ucb > x) {
                    l = Some(ucb);
                }
            }
        }
        let (h, l) = (h?, l?);
        if h.value > l.value {
            return None;
        }
        self.round += 1;
        self.pending = Some(l.arm);
        Some(h.arm)
    }

    fn observe(&mut self, arm: usize, reward: f64) {
        self.samples.add(arm, reward);
        self.factor[arm] = lucb1_arm_factor(self.samples.counts()[arm], self.sigma);
        if let Some(split) = &mut self.split {
            split.update(arm, self.samples.means()[arm]);
        }
    }

    fn answer(&self, out: &mut Vec<usize>) {
        match &self.split {
            Some(s) => out.extend(s.high()),
            None => out.extend(MeanSplit::new(self.samples.means(), self.k).high()),
        }
    }
}

/// The scenario entry `Lucb1`: LUCB1 (Kalyanakrishnan, Tewari, Auer, Stone 2012): faithful only, the paper has no heuristic version of it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lucb1Entry;

impl BuiltinIdentifier for Lucb1Entry {
    type Algorithm = Lucb1;
    const LABEL: &'static str = "LUCB1";
    const GUARANTEE: Guarantee = Guarantee::Delta;

    fn runs_in(setting: Setting) -> bool {
        setting == Setting::Faithful
    }

    fn build(p: &Problem) -> Lucb1 {
        Lucb1::new(p.arms, p.k, p.params.delta, p.sigma)
    }
}
