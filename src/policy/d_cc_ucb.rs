//! Discounted CC-UCB: CC-UCB's rule on observations weighted by γ^(age in slots), after
//! Garivier and Moulines' D-UCB ("On upper-confidence bound policies for switching bandit
//! problems", ALT 2011).
//!
//! Planning slot t: `N_i = Σ_s γ^(t−1−s)·1{i probed in slot s}` over slots s < t, `θ̂_i`, `ĉ_i`
//! the discounted means, `n = Σ_i N_i`, `u_i = sqrt(α·ln(max(n, e)) / N_i)`, then CC-UCB's
//! ratio rule with `U_i = θ̂_i + u_i`, `L_i = max(ĉ_i − u_i, ε)` (or `c_i` with known costs). The
//! first K slots probe each channel alone. (Garivier and Moulines' padding is
//! `2B·sqrt(ξ log n_t(γ)/N_t(γ, i))`; here α plays `4ξ` with B = 1, so that γ = 1 is CC-UCB with
//! `ln n` in place of `ln t`. `ln n` is floored at 1 so that the padding never vanishes.)

use crate::util::math;
use super::cc_ucb::{DEFAULT_ALPHA, DEFAULT_EPSILON, ratio_list};
use super::{Builtin, ParamError, Policy, initial_probe};
use crate::model::channel::Environment;
use crate::util::rng::SimRng;
use serde::{Deserialize, Serialize};

fn default_alpha() -> f64 {
    DEFAULT_ALPHA
}
fn default_epsilon() -> f64 {
    DEFAULT_EPSILON
}

/// `DCcUcb(discount: 0.999, alpha: 1.5, epsilon: 1e-5, known_cost: false)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DCcUcbSpec {
    /// Discount γ per slot, in (0, 1) (no default: 1 − 1/γ is the memory in slots).
    pub discount: f64,
    /// Exploration parameter α.
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Floor ε of the cost's lower confidence bound.
    #[serde(default = "default_epsilon")]
    pub epsilon: f64,
    /// Use the true mean costs (`L_i = c_i`).
    #[serde(default)]
    pub known_cost: bool,
}

impl Builtin for DCcUcbSpec {
    const NS_PER_SLOT: (f64, f64) = (100.0, 29.7);
    const NAME: &'static str = "DCcUcb";
    const SUMMARY: &'static str = "discounted CC-UCB (after Garivier & Moulines' D-UCB): observations weighted by discount^age";
    type Policy = DCcUcb;

    fn bare() -> Result<Self, &'static str> {
        Err("discount")
    }
    fn example() -> Self {
        DCcUcbSpec {
            discount: 0.999,
            alpha: DEFAULT_ALPHA,
            epsilon: DEFAULT_EPSILON,
            known_cost: false,
        }
    }
    fn label(&self) -> &'static str {
        "d-cc-ucb"
    }
    fn check(&self, _k: usize) -> Vec<ParamError> {
        let mut errors: Vec<ParamError> = [
            ParamError::alpha(self.alpha),
            ParamError::epsilon(self.epsilon),
        ]
        .into_iter()
        .filter_map(Result::err)
        .collect();
        if !(self.discount > 0.0 && self.discount < 1.0) {
            errors.push(ParamError {
                param: "discount",
                rule: format!("must lie in (0, 1) (got {})", self.discount),
            });
        }
        errors
    }
    fn build(&self, env: &Environment) -> DCcUcb {
        DCcUcb::new(
            env.len(),
            self.discount,
            self.alpha,
            self.epsilon,
            self.known_cost.then(|| env.mean_cost().to_vec()),
        )
    }
}

/// Discounted CC-UCB.
#[derive(Clone, Debug)]
pub(crate) struct DCcUcb {
    discount: f64,
    alpha: f64,
    epsilon: f64,
    known_cost: Option<Vec<f64>>,
    n: Vec<f64>,
    idle: Vec<f64>,
    cost: Vec<f64>,
    theta_hat: Vec<f64>,
    cost_hat: Vec<f64>,
    inv_sqrt_n: Vec<f64>,
    key: Vec<f64>,
    order: Vec<usize>,
}

impl DCcUcb {
    /// `k` channels, discount γ, exploration α, floor ε; `known_cost` replaces the cost
    /// estimates.
    pub(crate) fn new(
        k: usize,
        discount: f64,
        alpha: f64,
        epsilon: f64,
        known_cost: Option<Vec<f64>>,
    ) -> DCcUcb {
        DCcUcb {
            discount,
            alpha,
            epsilon,
            known_cost,
            n: vec![0.0; k],
            idle: vec![0.0; k],
            cost: vec![0.0; k],
            theta_hat: vec![0.0; k],
            cost_hat: vec![0.0; k],
            inv_sqrt_n: vec![f64::INFINITY; k],
            key: vec![0.0; k],
            order: (0..k).collect(),
        }
    }
}

impl Policy for DCcUcb {
    fn plan(&mut self, t: u64, list: &mut Vec<usize>, _rng: &mut SimRng) {
        let k = self.n.len();
        if let Some(i) = initial_probe(t, k) {
            list.push(i);
        } else {
            let total: f64 = self.n.iter().sum();
            for i in 0..k {
                let n = self.n[i];
                (self.theta_hat[i], self.cost_hat[i], self.inv_sqrt_n[i]) = if n > 0.0 {
                    (self.idle[i] / n, self.cost[i] / n, 1.0 / n.sqrt())
                } else {
                    (0.0, 0.0, f64::INFINITY)
                };
            }
            let s = (self.alpha * math::ln(total).max(1.0)).sqrt();
            ratio_list(
                s,
                &self.theta_hat,
                &self.cost_hat,
                &self.inv_sqrt_n,
                self.known_cost.as_deref(),
                self.epsilon,
                &mut self.key,
                &mut self.order,
                list,
            );
        }
        // This slot's probes enter with weight 1; everything before ages by one slot.
        for v in self
            .n
            .iter_mut()
            .chain(&mut self.idle)
            .chain(&mut self.cost)
        {
            *v *= self.discount;
        }
    }

    fn observe(&mut self, channel: usize, idle: bool, cost: f64) {
        self.n[channel] += 1.0;
        self.idle[channel] += f64::from(u8::from(idle));
        self.cost[channel] += cost;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_observations_fade() {
        let mut p = DCcUcb::new(1, 0.5, 1.5, 1e-5, None);
        let mut rng = crate::util::rng::stream(0, 0, 0);
        let mut list = Vec::new();
        p.plan(1, &mut list, &mut rng);
        p.observe(0, true, 0.2);
        for t in 2..=4 {
            list.clear();
            p.plan(t, &mut list, &mut rng);
        }
        // Weight of the slot-1 probe after three more slots: 0.5³.
        assert!((p.n[0] - 0.125).abs() < 1e-15);
        assert!((p.idle[0] / p.n[0] - 1.0).abs() < 1e-15);
    }
}
