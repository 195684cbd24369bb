//! lil'UCB (Jamieson, Malloy, Nowak and Bubeck, "lil' UCB: An Optimal Exploration Algorithm for
//! Multi-Armed Bandits", COLT 2014), for the single best arm (K = 1).
//!
//! After sampling each arm once: sample `argmax_i μ̂_i + (1 + β)·U(T_i, δ)`; stop as soon as some
//! arm has `T_i ≥ 1 + λ Σ_{j≠i} T_j` and return the most sampled arm. Parameters:
//! - faithful: β = 1, λ = ((2 + β)/β)² = 9, ε and δ such that Theorem 2's error bound
//!   `4√(c_ε δ) + 4 c_ε δ` equals ν (the theoretically justified setting of their experiments);
//! - heuristic: β = 1/2, λ = 1 + 10/N (their "lil'UCB heuristic"), with ε = 0 and δ = ν as for
//!   every heuristic algorithm here.
//!
//! The index of an arm changes only when it is sampled, so indices sit in an ordered set; the
//! stopping test needs only the most sampled arm, tracked as counts grow.
//!
//! The leading arm is usually sampled many times in a row. While it is, its exact index (two
//! logarithms) is not needed: a lower bound of it that still beats the runner-up's index says
//! it stays the argmax. The arm's entry in the set is brought up to date (`settle`) only when
//! that bound does not decide, or when another arm is sampled, so every decision, and every
//! output bit, is the exact algorithm's.

use super::Identifier;
use super::Samples;
use super::confidence::Guarantee;
use super::confidence::{Lil, Setting};
use super::{BuiltinIdentifier, Problem, lil_of};
use crate::util::ranking::{Ranked, RankedSet};
use crate::util::rng::SimRng;

/// lil'UCB.
#[derive(Clone, Debug)]
pub(crate) struct LilUcb {
    lil: Lil,
    delta: f64,
    beta: f64,
    lambda: f64,
    samples: Samples,
    index: RankedSet,
    key: Vec<f64>,
    /// Each arm's [`Lil::iterated_log`] when its index was last computed exactly.
    iterated_log: Vec<f64>,
    /// The arm sampled since its entry in `index` was last computed, if any; that entry was
    /// the best when it was chosen, and no other arm has been sampled since.
    stale: Option<usize>,
    total: u64,
    most: Ranked,
}

impl LilUcb {
    /// `n` arms, LIL radius, confidence δ, β and λ of `setting`.
    pub(crate) fn new(n: usize, lil: Lil, delta: f64, setting: Setting) -> LilUcb {
        let (beta, lambda) = match setting {
            Setting::Faithful => (1.0, 9.0),
            Setting::Heuristic => (0.5, 1.0 + 10.0 / n as f64),
        };
        LilUcb {
            lil,
            delta,
            beta,
            lambda,
            samples: Samples::new(n),
            index: RankedSet::default(),
            key: vec![0.0; n],
            iterated_log: vec![f64::NAN; n],
            stale: None,
            total: 0,
            most: Ranked { value: 0.0, arm: 0 },
        }
    }
}

impl Identifier for LilUcb {
    fn next(&mut self, _rng: &mut SimRng) -> Option<usize> {
        if let Some(arm) = self.samples.initial() {
            return Some(arm);
        }
        let most = self.most.value;
        if most >= 1.0 + self.lambda * (self.total as f64 - most) {
            return None;
        }
        if let Some(arm) = self.stale {
            if self.still_best(arm) {
                return Some(arm);
            }
            self.settle(arm);
        }
        self.index.best().map(|r| r.arm)
    }

    fn observe(&mut self, arm: usize, reward: f64) {
        let first = self.samples.counts()[arm] == 0;
        self.samples.add(arm, reward);
        self.total += 1;
        let t = self.samples.counts()[arm];
        if first {
            let key = self.exact_index(arm);
            self.index.insert(arm, key);
            self.key[arm] = key;
        } else {
            match self.stale {
                Some(s) if s != arm => self.settle(s),
                _ => {}
            }
            self.stale = Some(arm);
        }
        let count = Ranked {
            value: t as f64,
            arm,
        };
        if count > self.most {
            self.most = count;
        }
    }

    fn answer(&self, out: &mut Vec<usize>) {
        out.push(self.most.arm);
    }
}

impl LilUcb {
    /// `arm`'s index `μ̂ + (1 + β)·U(T, δ)`, exactly, remembering its iterated logarithm.
    fn exact_index(&mut self, arm: usize) -> f64 {
        let t = self.samples.counts()[arm];
        let g = self.lil.iterated_log(t, self.delta);
        self.iterated_log[arm] = g;
        self.samples.means()[arm] + (1.0 + self.beta) * self.lil.radius_of(t, g)
    }

    /// Brings the stale arm's entry in the set up to date; it moves by a few places, usually.
    fn settle(&mut self, arm: usize) {
        self.stale = None;
        let key = self.exact_index(arm);
        self.index.replace(arm, self.key[arm], key);
        self.key[arm] = key;
    }

    /// Whether the stale `arm` is still the argmax, decided without its exact index: its
    /// entry is the set's best (it was chosen as such), and a lower bound of its index, from
    /// its iterated logarithm at its last exact index, beats the runner-up's. Every operation
    /// from the bound of the radius to the index is monotone, so the exact index is at least
    /// the bound; `false` means "not decided", never "not the best".
    fn still_best(&self, arm: usize) -> bool {
        let t = self.samples.counts()[arm];
        let Some(radius) = self.lil.radius_below(t, self.iterated_log[arm]) else {
            return false;
        };
        let mut keys = self.index.keys_descending();
        if keys.next().map(Ranked::arm_of_key) != Some(arm) {
            return false;
        }
        let below = self.samples.means()[arm] + (1.0 + self.beta) * radius;
        keys.next()
            .is_none_or(|second| below > Ranked::from_key(second).value)
    }
}

/// The scenario entry `LilUcb`: lil'UCB (Jamieson, Malloy, Nowak, Bubeck 2014); K = 1 only.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LilUcbEntry;

impl BuiltinIdentifier for LilUcbEntry {
    type Algorithm = LilUcb;
    const LABEL: &'static str = "lil'UCB";
    const GUARANTEE: Guarantee = Guarantee::LilUcb;
    const SINGLE_BEST: bool = true;
    fn build(p: &Problem) -> LilUcb {
        LilUcb::new(p.arms, lil_of(p), p.params.delta, p.setting)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::stream;

    /// The arm the algorithm should sample: every index computed exactly, the largest (ties:
    /// lower index) taken.
    fn plain(p: &LilUcb) -> Option<usize> {
        let (means, counts) = (p.samples.means(), p.samples.counts());
        (0..means.len())
            .map(|arm| Ranked {
                value: means[arm] + (1.0 + p.beta) * p.lil.radius(counts[arm], p.delta),
                arm,
            })
            .max()
            .map(|r| r.arm)
    }

    /// Deciding from a bound while the leader is resampled picks the exact argmax, ties
    /// included: coarse rewards make equal means and counts common, and two close laws (every
    /// third arm half a unit better) make long runs with many changes of leader. The stopping rule is never met by construction
    /// (λ is huge), so every run lasts its 3 000 samples.
    #[test]
    fn next_samples_the_exact_argmax() {
        use rand::RngExt;
        let mut rng = stream(6, 6, 6);
        let mut decided_by_bound = 0;
        for trial in 0..60 {
            let n = 2 + trial % 40;
            let lil = Lil {
                epsilon: [0.0, 0.01][trial % 2],
                sigma: 0.5,
            };
            let setting = [Setting::Faithful, Setting::Heuristic][trial / 2 % 2];
            let mut p = LilUcb::new(n, lil, [0.05, 1e-4][trial / 4 % 2], setting);
            p.lambda = 1e12;
            for round in 0..3000 {
                let want = p.samples.initialised().then(|| plain(&p));
                let stale_before = p.stale;
                let arm = p.next(&mut rng).expect("never stops");
                if let Some(want) = want {
                    assert_eq!(Some(arm), want, "trial {trial}, round {round}");
                    if p.stale.is_some() && stale_before == p.stale {
                        decided_by_bound += 1;
                    }
                }
                let reward = if arm.is_multiple_of(3) { 0.5 } else { 0.0 };
                p.observe(arm, reward + f64::from(rng.random_range(0..3u8)) * 0.5);
            }
        }
        // The bound must have decided a good share, or this test would test nothing new.
        assert!(decided_by_bound > 10_000, "{decided_by_bound}");
    }
}
