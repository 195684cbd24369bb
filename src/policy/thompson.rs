//! Cost-aware Thompson sampling: not in the paper; a Bayesian counterpart of CC-UCB that users
//! commonly compare against.
//!
//! Each channel keeps a Beta(1 + idle, 1 + busy) posterior on θ and a Beta posterior on c. Costs
//! are in [0, 1] but not binary, so the cost posterior takes fractional updates,
//! Beta(1 + Σy, 1 + Σ(1 − y)): the conjugate update of a Bernoulli observation with `y` as its
//! expected value, deterministic (no extra coin flip per probe, unlike the Bernoulli trick of
//! Agrawal and Goyal), and exact for Bernoulli costs. Each slot it samples θ̃ and c̃ for every
//! channel, lists the channels with θ̃/c̃ > 1 in decreasing order of θ̃/c̃ (ties by index).
//! It needs no initialisation: the uniform priors already make every channel's ratio exceed 1
//! with positive probability.

use super::{Builtin, ParamError, Policy, sort_by_key_desc};
use crate::model::channel::Environment;
use crate::util::rng::SimRng;
use rand::distr::Distribution;
use crate::util::det_float::Det;
use rand_distr::Beta;
use serde::{Deserialize, Serialize};

/// `ThompsonSampling(known_cost: false)`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ThompsonSpec {
    /// Use the true mean costs instead of sampling them.
    #[serde(default)]
    pub known_cost: bool,
}

impl Builtin for ThompsonSpec {
    const NS_PER_SLOT: (f64, f64) = (1000.0, 207.0);
    const NAME: &'static str = "ThompsonSampling";
    const SUMMARY: &'static str =
        "cost-aware Thompson sampling (not in the paper): Beta posteriors, rank sampled θ/c > 1";
    type Policy = ThompsonSampling;

    fn bare() -> Result<Self, &'static str> {
        Ok(ThompsonSpec::default())
    }
    fn example() -> Self {
        ThompsonSpec::default()
    }
    fn label(&self) -> &'static str {
        if self.known_cost {
            "cost-aware-ts-known-cost"
        } else {
            "cost-aware-ts"
        }
    }
    fn check(&self, _k: usize) -> Vec<ParamError> {
        Vec::new()
    }
    fn build(&self, env: &Environment) -> ThompsonSampling {
        ThompsonSampling::new(env.len(), self.known_cost.then(|| env.mean_cost().to_vec()))
    }
}

/// Cost-aware Thompson sampling.
#[derive(Clone, Debug)]
pub(crate) struct ThompsonSampling {
    known_cost: Option<Vec<f64>>,
    idle_a: Vec<f64>,
    idle_b: Vec<f64>,
    cost_a: Vec<f64>,
    cost_b: Vec<f64>,
    /// Each channel's two posteriors, rebuilt when an observation changes them (a slot samples
    /// every channel but observes a few: at K = 1024, `Beta::new` was 7 % of the run).
    idle: Vec<Beta<Det>>,
    cost: Vec<Beta<Det>>,
    key: Vec<f64>,
}

impl ThompsonSampling {
    /// `k` channels; `known_cost` replaces the cost posterior with the true mean costs.
    pub(crate) fn new(k: usize, known_cost: Option<Vec<f64>>) -> ThompsonSampling {
        ThompsonSampling {
            known_cost,
            idle_a: vec![1.0; k],
            idle_b: vec![1.0; k],
            cost_a: vec![1.0; k],
            cost_b: vec![1.0; k],
            idle: vec![beta(1.0, 1.0); k],
            cost: vec![beta(1.0, 1.0); k],
            key: vec![0.0; k],
        }
    }
}

/// Beta(a, b) on `Det`: the same draws with the deterministic logarithm and exponential.
fn beta(a: f64, b: f64) -> Beta<Det> {
    // a, b ≥ 1 always, so the constructor cannot fail.
    Beta::new(Det(a), Det(b)).expect("posterior parameters are at least 1")
}

impl Policy for ThompsonSampling {
    fn plan(&mut self, _t: u64, list: &mut Vec<usize>, rng: &mut SimRng) {
        for i in 0..self.key.len() {
            let theta = self.idle[i].sample(rng).0;
            let cost = match &self.known_cost {
                Some(c) => c[i],
                None => self.cost[i].sample(rng).0,
            };
            let ratio = theta / cost;
            if ratio > 1.0 {
                self.key[i] = ratio;
                list.push(i);
            }
        }
        sort_by_key_desc(list, &self.key);
    }

    #[inline]
    fn observe(&mut self, channel: usize, idle: bool, cost: f64) {
        if idle {
            self.idle_a[channel] += 1.0;
        } else {
            self.idle_b[channel] += 1.0;
        }
        self.cost_a[channel] += cost;
        self.cost_b[channel] += 1.0 - cost;
        self.idle[channel] = beta(self.idle_a[channel], self.idle_b[channel]);
        if self.known_cost.is_none() {
            self.cost[channel] = beta(self.cost_a[channel], self.cost_b[channel]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concentrated_posteriors_give_the_ucr_t1_list() {
        let mut p = ThompsonSampling::new(3, None);
        // θ = (0.8, 0.3, 0.6), c = 0.5 for all, observed 10 000 times each.
        for (ch, theta) in [(0, 0.8), (1, 0.3), (2, 0.6)] {
            for j in 0..10_000 {
                p.observe(ch, (j as f64) < theta * 10_000.0, 0.5);
            }
        }
        let mut rng = crate::util::rng::stream(0, 0, 0);
        for _ in 0..20 {
            let mut list = Vec::new();
            p.plan(1, &mut list, &mut rng);
            assert_eq!(list, vec![0, 2]);
        }
    }
}
