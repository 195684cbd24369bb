//! LUCB1 (Kalyanakrishnan, Tewari, Auer and Stone, "PAC Subset Selection in Stochastic
//! Multi-armed Bandits", ICML 2012), with ε = 0 (exact top-K identification).
//!
//! After sampling each arm once, round `t = 1, 2, …`: High = the K arms of largest empirical mean;
//! `h_t` = the High arm of lowest `μ̂ − β(u, t)`, `l_t` = the Low arm of highest `μ̂ + β(u, t)`,
//! with `β(u, t) = sqrt(ln(k₁ N t⁴/δ)/(2u))`, `k₁ = 5/4` (scaled by 2σ for σ-sub-Gaussian rewards,
//! see [`super::confidence`]). Stop when `UCB(l_t) − LCB(h_t) < ε = 0` and return High; otherwise
//! sample both `h_t` and `l_t`. The radius grows with `t` for every arm, so a plain search scans
//! the N arms every round; [`LazyExtreme`] instead keeps, per epoch of rounds, the few arms that
//! can be the extreme (the same arms, ties included). The per-arm factor `sqrt(2σ²/u)` is
//! cached.

use super::Identifier;
use super::Samples;
use super::confidence::{Guarantee, Setting};
use super::confidence::{lucb1_arm_factor, lucb1_log_term};
use super::{BuiltinIdentifier, Problem};
use super::lazy_extreme::{Arms, LazyExtreme};
use crate::util::ranking::{MeanSplit, Swap};
#[cfg(test)]
use crate::util::ranking::Ranked;
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
    /// `h_t`'s and `l_t`'s searches.
    lazy_high: LazyExtreme,
    lazy_low: LazyExtreme,
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
            lazy_high: LazyExtreme::new(n, true),
            lazy_low: LazyExtreme::new(n, false),
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
        // h_t: the lowest-ranked lower bound in High (smallest value, ties to the higher arm);
        // l_t: the highest-ranked upper bound in Low (largest value, ties to the lower arm).
        // Each is searched among the few arms that can be it this epoch (see `LazyExtreme`).
        let (n, delta) = (self.samples.len(), self.delta);
        let root_at = |t: u64| lucb1_log_term(t, n, delta).sqrt();
        let root = root_at(self.round);
        let arms = Arms {
            means: self.samples.means(),
            factor: &self.factor,
            in_high: split.sides(),
        };
        let h = self.lazy_high.find(&arms, self.round, root, root_at);
        let l = self.lazy_low.find(&arms, self.round, root, root_at);
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
            let swap = split.update(arm, self.samples.means()[arm]);
            let arms = Arms {
                means: self.samples.means(),
                factor: &self.factor,
                in_high: split.sides(),
            };
            for lazy in [&mut self.lazy_high, &mut self.lazy_low] {
                lazy.changed(&arms, arm);
                if let Some(Swap { demoted, promoted }) = swap {
                    // The other arm changed sides without changing its statistics.
                    lazy.changed(&arms, if demoted == arm { promoted } else { demoted });
                }
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::stream;

    /// LUCB1's (h_t, l_t) by the plain scan over `Ranked`, as the algorithm states it.
    fn plain(p: &Lucb1) -> Option<(usize, usize)> {
        let split = p.split.as_ref()?;
        let root = lucb1_log_term(p.round, p.samples.len(), p.delta).sqrt();
        let means = p.samples.means();
        let rank = |arm: usize, sign: f64| Ranked {
            value: means[arm] + sign * (root * p.factor[arm]),
            arm,
        };
        let h = (0..means.len())
            .filter(|&a| split.is_high(a))
            .map(|a| rank(a, -1.0))
            .min()?;
        let l = (0..means.len())
            .filter(|&a| !split.is_high(a))
            .map(|a| rank(a, 1.0))
            .max()?;
        Some((h.arm, l.arm))
    }

    /// The epoch-wise search picks the plain scan's arms, ties included (coarse rewards make
    /// equal means and equal counts common; every arm has the same law, so no run stops and
    /// runs last for many epochs, guards used up and sides swapped).
    #[test]
    fn next_samples_the_plain_scans_arms() {
        use rand::RngExt;
        let mut rng = stream(5, 5, 5);
        for trial in 0..160 {
            let n = if trial % 2 == 0 {
                2 + trial % 30
            } else {
                30 + trial % 130
            };
            let k = 1 + trial % (n - 1);
            let mut p = Lucb1::new(n, k, 0.05, 0.5);
            let mut rounds = 0;
            while let Some(arm) = p.next(&mut rng) {
                // `next` has just returned h_t and set l_t pending: compare before sampling.
                if let Some(l) = p.pending
                    && p.samples.initialised()
                {
                    p.round -= 1;
                    let want = plain(&p);
                    p.round += 1;
                    assert_eq!(want, Some((arm, l)), "trial {trial}, round {rounds}");
                }
                p.observe(arm, f64::from(rng.random_range(0..3u8)) * 0.5);
                rounds += 1;
                if rounds > 2500 {
                    break;
                }
            }
        }
    }
}
