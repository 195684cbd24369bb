//! CC-UCB, Algorithm 1 of Zhou, Gan, Yang and Shen, "Cost-aware Cascading Bandits" (IJCAI 2018).
//!
//! Each slot `t > K`, for every channel `i`:
//! `u_i = sqrt(α·ln t / N_i)`, `U_i = θ̂_i + u_i`, `L_i = max(ĉ_i − u_i, ε)`;
//! the list holds every channel with `U_i / L_i > 1`, in decreasing order of `U_i / L_i`.
//! With known costs, `L_i = c_i` (the paper's "modified Algorithm 1").
//!
//! Choices where the paper is silent or ambiguous (also in the guide, policies.md):
//! - `t` is the slot index counted from 1, initialisation slots included, so the first UCB slot
//!   uses `ln(K + 1)`.
//! - The threshold is strict, `U/L > 1`, as in Algorithm 1 (the proof of Lemma 1 writes `≥`).
//! - Equal ratios are ordered by channel index.
//! - `N_i`, `θ̂_i`, `ĉ_i` change after each probe; since the list is fixed at the start of the
//!   slot this is the same as the paper's update at the end of the slot.

use crate::util::math;
use super::lazy_rank::{Class, LazyRanking, MonotoneIndex};
use super::{
    Builtin, Estimates, ParamError, Policy, SlotAhead, initial_probe, resort_by_key_desc, resort_by_nonnegative_key_desc,
};
use crate::model::channel::Environment;
use serde::{Deserialize, Serialize};

/// The exploration parameter α the paper states (used wherever a scenario gives none).
pub(crate) const DEFAULT_ALPHA: f64 = 1.5;

/// Largest α accepted: beyond it exploration never ends within any horizon a run can have, and
/// Theorem 2's bound (linear in α) stops being a number worth printing.
pub(crate) const MAX_ALPHA: f64 = 1000.0;
/// The floor ε of the cost's lower confidence bound.
pub(crate) const DEFAULT_EPSILON: f64 = 1e-5;

fn default_alpha() -> f64 {
    DEFAULT_ALPHA
}
fn default_epsilon() -> f64 {
    DEFAULT_EPSILON
}

/// `CcUcb(alpha: 1.5, epsilon: 1e-5)`: Algorithm 1 with unknown costs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CcUcbSpec {
    /// Exploration parameter α of `u = sqrt(α·ln t / N)` (the paper states 1.5).
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Floor ε of the cost's lower confidence bound.
    #[serde(default = "default_epsilon")]
    pub epsilon: f64,
}

impl Default for CcUcbSpec {
    fn default() -> Self {
        CcUcbSpec {
            alpha: DEFAULT_ALPHA,
            epsilon: DEFAULT_EPSILON,
        }
    }
}

impl Builtin for CcUcbSpec {
    const NS_PER_SLOT: (f64, f64) = (72.0, 7.35);
    const NAME: &'static str = "CcUcb";
    const SUMMARY: &'static str = "CC-UCB (Algorithm 1), unknown costs: rank U/L, keep U/L > 1";
    type Policy = CcUcb;

    fn bare() -> Result<Self, &'static str> {
        Ok(CcUcbSpec::default())
    }
    fn example() -> Self {
        CcUcbSpec::default()
    }
    fn label(&self) -> &'static str {
        "cc-ucb"
    }
    fn theorem2_alpha(&self) -> Option<f64> {
        Some(self.alpha)
    }
    fn check(&self, _k: usize) -> Vec<ParamError> {
        [
            ParamError::alpha(self.alpha),
            ParamError::epsilon(self.epsilon),
        ]
        .into_iter()
        .filter_map(Result::err)
        .collect()
    }
    fn build(&self, env: &Environment) -> CcUcb {
        CcUcb::unknown_cost(env.len(), self.alpha, self.epsilon)
    }
}

/// `CcUcbKnownCost(alpha: 1.5)`: CC-UCB with the true mean costs, `L_i = c_i`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CcUcbKnownCostSpec {
    /// Exploration parameter α.
    #[serde(default = "default_alpha")]
    pub alpha: f64,
}

impl Default for CcUcbKnownCostSpec {
    fn default() -> Self {
        CcUcbKnownCostSpec {
            alpha: DEFAULT_ALPHA,
        }
    }
}

impl Builtin for CcUcbKnownCostSpec {
    const NS_PER_SLOT: (f64, f64) = (115.0, 2.8);
    const NAME: &'static str = "CcUcbKnownCost";
    const SUMMARY: &'static str = "CC-UCB with known mean costs (L_i = c_i)";
    type Policy = CcUcb;

    fn bare() -> Result<Self, &'static str> {
        Ok(CcUcbKnownCostSpec::default())
    }
    fn example() -> Self {
        CcUcbKnownCostSpec::default()
    }
    fn label(&self) -> &'static str {
        "cc-ucb-known-cost"
    }
    fn check(&self, _k: usize) -> Vec<ParamError> {
        ParamError::alpha(self.alpha).err().into_iter().collect()
    }
    fn build(&self, env: &Environment) -> CcUcb {
        CcUcb::known_cost(env.mean_cost().to_vec(), self.alpha)
    }
}
use crate::util::rng::SimRng;

/// CC-UCB with unknown or known mean costs.
#[derive(Clone, Debug)]
pub(crate) struct CcUcb {
    alpha: f64,
    epsilon: f64,
    known_cost: Option<Vec<f64>>,
    est: Estimates,
    key: Vec<f64>,
    /// Every channel, by decreasing ratio at the last slot: the next slot's sort starts here.
    order: Vec<usize>,
    /// From [`LAZY_FROM`] channels on, the list comes from the lazy ranking (the same list,
    /// in less than linear time per slot); below, from the full re-sort, faster there (the
    /// lazy ranking pays a heap operation per entry of the prefix the slot reads, ~40-100 for
    /// the exact expected reward, against a few ns per channel for the re-sort).
    lazy: Option<LazyRanking>,
    /// `sqrt(α ln t)`, one slot ahead (for the re-sort; the lazy ranking takes its levels
    /// itself).
    level: SlotAhead,
}

/// The number of channels from which the lazy ranking is used (measured: at K = 256 the
/// re-sort is faster, at K = 1024 the lazy ranking, `cargo bench --bench speed`).
pub(crate) const LAZY_FROM: usize = 512;

/// The CC-UCB index as the lazy ranking reads it: exactly [`ratio_list`]'s.
struct Index<'a> {
    est: &'a Estimates,
    known_cost: Option<&'a [f64]>,
    epsilon: f64,
}

impl MonotoneIndex for Index<'_> {
    #[inline]
    fn index(&self, i: usize, s: f64) -> f64 {
        let (theta, w) = (self.est.theta_hat()[i], self.est.inv_sqrt_n()[i]);
        match self.known_cost {
            None => {
                let u = s * w;
                (theta + u) / (self.est.cost_hat()[i] - u).max(self.epsilon)
            }
            Some(cost) => {
                let ratio = (theta + s * w) / cost[i];
                if ratio.is_nan() {
                    f64::NEG_INFINITY
                } else {
                    ratio
                }
            }
        }
    }

    #[inline]
    fn class(&self, i: usize) -> Class {
        let cost = match self.known_cost {
            None => self.est.cost_hat()[i],
            Some(c) => c[i],
        };
        [
            self.est.theta_hat()[i].to_bits(),
            cost.to_bits(),
            self.est.inv_sqrt_n()[i].to_bits(),
            0,
        ]
    }
}

impl CcUcb {
    /// Algorithm 1 as stated: costs estimated, `L_i = max(ĉ_i − u_i, ε)`.
    pub(crate) fn unknown_cost(k: usize, alpha: f64, epsilon: f64) -> CcUcb {
        CcUcb {
            alpha,
            epsilon,
            known_cost: None,
            est: Estimates::new(k),
            level: SlotAhead::default(),
            key: vec![0.0; k],
            order: (0..k).collect(),
            lazy: (k >= LAZY_FROM).then(|| LazyRanking::new(k, 1.0)),
        }
    }

    /// The known-cost variant: `L_i = c_i`, the true mean cost.
    pub(crate) fn known_cost(mean_cost: Vec<f64>, alpha: f64) -> CcUcb {
        let k = mean_cost.len();
        CcUcb {
            alpha,
            epsilon: 0.0,
            known_cost: Some(mean_cost),
            est: Estimates::new(k),
            level: SlotAhead::default(),
            key: vec![0.0; k],
            order: (0..k).collect(),
            lazy: (k >= LAZY_FROM).then(|| LazyRanking::new(k, 1.0)),
        }
    }
}

/// CC-UCB's ranking, shared by its windowed and discounted variants: with exploration factor
/// `s` (`u_i = s/√N_i`), every channel's ratio `U_i/L_i` into `key`, `order` re-sorted from last
/// slot's (nearly sorted already), and the channels with ratio > 1 appended to `list` in that
/// order (one total order on the ratios, ties by index).
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn ratio_list(
    s: f64,
    theta_hat: &[f64],
    cost_hat: &[f64],
    inv_sqrt_n: &[f64],
    known_cost: Option<&[f64]>,
    epsilon: f64,
    key: &mut [f64],
    order: &mut [usize],
    list: &mut Vec<usize>,
) {
    let k = key.len();
    match known_cost {
        None => {
            for i in 0..k {
                let u = s * inv_sqrt_n[i];
                let lower = (cost_hat[i] - u).max(epsilon);
                key[i] = (theta_hat[i] + u) / lower;
            }
        }
        Some(cost) => {
            for i in 0..k {
                // A free channel (c = 0) gets an infinite ratio; 0/0 (nothing known to be
                // gained at no cost) is never listed.
                let ratio = (theta_hat[i] + s * inv_sqrt_n[i]) / cost[i];
                key[i] = if ratio.is_nan() {
                    f64::NEG_INFINITY
                } else {
                    ratio
                };
            }
        }
    }
    match known_cost {
        // (θ̂ + u)/max(ĉ − u, ε) with θ̂, u ≥ 0 and ε > 0: never below +0.
        None => resort_by_nonnegative_key_desc(order, key),
        Some(_) => resort_by_key_desc(order, key),
    }
    let listed = order.iter().take_while(|&&i| key[i] > 1.0).count();
    list.extend_from_slice(&order[..listed]);
}

impl CcUcb {
    /// [`Policy::plan`] on many channels, by the lazy ranking. Out of line: inlined, it made
    /// the few-channels path spill registers (CC-UCB at K = 6: 4 instructions a slot more).
    #[inline(never)]
    fn plan_lazy(&mut self, t: u64, list: &mut Vec<usize>) {
        let alpha = self.alpha;
        let level = |t: u64| (alpha * math::ln(t as f64)).sqrt();
        if let Some(lazy) = &mut self.lazy {
            let index = Index {
                est: &self.est,
                known_cost: self.known_cost.as_deref(),
                epsilon: self.epsilon,
            };
            lazy.start(t, level, &index);
            lazy.extend(&index, list);
        }
    }
}

impl Policy for CcUcb {
    fn plan(&mut self, t: u64, list: &mut Vec<usize>, _rng: &mut SimRng) {
        let k = self.est.len();
        if let Some(i) = initial_probe(t, k) {
            list.push(i);
            return;
        }
        if self.lazy.is_some() {
            self.plan_lazy(t, list);
            return;
        }
        let alpha = self.alpha;
        let level = |t: u64| (alpha * math::ln(t as f64)).sqrt();
        let s = self.level.get(t, level);
        ratio_list(
            s,
            self.est.theta_hat(),
            self.est.cost_hat(),
            self.est.inv_sqrt_n(),
            self.known_cost.as_deref(),
            self.epsilon,
            &mut self.key,
            &mut self.order,
            list,
        );
        self.level.prepare_next(t, level);
    }

    #[inline]
    fn observe(&mut self, channel: usize, idle: bool, cost: f64) {
        self.est.observe(channel, idle, cost);
        if let Some(lazy) = &mut self.lazy {
            lazy.touch(channel);
        }
    }

    #[inline]
    fn extend(&mut self, list: &mut Vec<usize>) -> bool {
        let Some(lazy) = &mut self.lazy else {
            return false;
        };
        let index = Index {
            est: &self.est,
            known_cost: self.known_cost.as_deref(),
            epsilon: self.epsilon,
        };
        lazy.extend(&index, list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::stream;

    fn plan(p: &mut CcUcb, t: u64) -> Vec<usize> {
        let mut list = Vec::new();
        p.plan(t, &mut list, &mut stream(0, 0, 0));
        list
    }

    #[test]
    fn initialisation_probes_each_channel_alone() {
        let mut p = CcUcb::unknown_cost(3, 1.5, 1e-5);
        for t in 1..=3 {
            assert_eq!(plan(&mut p, t), vec![t as usize - 1]);
            p.observe(t as usize - 1, false, 0.5);
        }
    }

    /// Hand-computed indices: channel 0 seen 4 times (3 idle, cost 0.4 each), channel 1 seen
    /// 4 times (1 idle, cost 0.9 each), at t = 20 with α = 1.5:
    /// u = sqrt(1.5·ln 20 / 4) = 1.0599; U0/L0 = 1.8099/ε (huge), U1/L1 = 1.3099/ε as well,
    /// so both are listed; at α = 0.01, u = 0.0865: U0/L0 = 0.8365/0.3135 = 2.668 > 1 and
    /// U1/L1 = 0.3365/0.8135 = 0.414 < 1, so only channel 0 is listed.
    #[test]
    fn indices_match_hand_computation() {
        for (alpha, want) in [(1.5, vec![0, 1]), (0.01, vec![0])] {
            let mut p = CcUcb::unknown_cost(2, alpha, 1e-5);
            for idle in [true, true, true, false] {
                p.observe(0, idle, 0.4);
            }
            for idle in [true, false, false, false] {
                p.observe(1, idle, 0.9);
            }
            assert_eq!(plan(&mut p, 20), want, "α = {alpha}");
        }
    }

    #[test]
    fn known_cost_variant_uses_true_costs() {
        let mut p = CcUcb::known_cost(vec![0.3, 0.9], 0.01);
        for ch in 0..2 {
            for idle in [true, false] {
                p.observe(ch, idle, 0.0);
            }
        }
        // θ̂ = 0.5 for both; u = sqrt(0.01·ln 100 / 2) = 0.152 at t = 100: 0.652/0.3 > 1, 0.652/0.9 < 1.
        assert_eq!(plan(&mut p, 100), vec![0]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        /// The lazy ranking gives the full sort's list, slot by slot, through exploration and
        /// beyond, with unknown and with known costs, Bernoulli and continuous costs.
        #[test]
        fn lazy_lists_equal_the_full_sort(
            k in 2usize..160,
            seed in 0u64..1000,
            known in proptest::bool::ANY,
            continuous in proptest::bool::ANY,
        ) {
            use rand::RngExt;
            let mut rng = stream(seed, 7, 7);
            let theta: Vec<f64> = (0..k).map(|_| rng.random::<f64>()).collect();
            let mean_cost: Vec<f64> = (0..k).map(|i| [0.0, 0.2, 0.4, 0.9][i % 4]).collect();
            let make = || match known {
                true => CcUcb::known_cost(mean_cost.clone(), 1.5),
                false => CcUcb::unknown_cost(k, 1.5, 1e-5),
            };
            let (mut lazy, mut full) = (make(), make());
            // Whatever K: the lazy ranking is used from LAZY_FROM channels on only for speed.
            lazy.lazy = Some(LazyRanking::new(k, 1.0));
            full.lazy = None;
            let cost = |rng: &mut crate::util::rng::SimRng, i: usize| match continuous {
                true => rng.random::<f64>() * 2.0 * mean_cost[i],
                false => f64::from(u8::from(rng.random::<f64>() < mean_cost[i])),
            };
            let slot = crate::policy::lazy_rank::same_lists(
                &mut lazy, &mut full, &theta, cost, 30 * k as u64, &mut rng,
            );
            proptest::prop_assert_eq!(slot, None);
        }
    }
}
