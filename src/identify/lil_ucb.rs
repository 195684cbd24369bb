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
        self.index.best().map(|r| r.arm)
    }

    fn observe(&mut self, arm: usize, reward: f64) {
        let first = self.samples.counts()[arm] == 0;
        self.samples.add(arm, reward);
        self.total += 1;
        let t = self.samples.counts()[arm];
        let key = self.samples.means()[arm] + (1.0 + self.beta) * self.lil.radius(t, self.delta);
        if first {
            self.index.insert(arm, key);
        } else {
            // The index moves within the ordered set, usually by a few places.
            self.index.replace(arm, self.key[arm], key);
        }
        self.key[arm] = key;
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
