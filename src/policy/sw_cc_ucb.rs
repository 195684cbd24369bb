//! Sliding-window CC-UCB: CC-UCB's rule on the observations of the last τ slots only, after
//! Garivier and Moulines' SW-UCB ("On upper-confidence bound policies for switching bandit
//! problems", ALT 2011). For channels that change, old observations mislead; forgetting them
//! lets the policy track a switch at the price of permanent exploration.
//!
//! Planning slot t: with `N_i`, `θ̂_i`, `ĉ_i` over the probes of slots `t − τ … t − 1`,
//! `u_i = sqrt(α·ln(min(t, τ)) / N_i)`, `U_i = θ̂_i + u_i`, `L_i = max(ĉ_i − u_i, ε)` (or `c_i`
//! with known costs); list every channel with `U_i/L_i > 1` in decreasing order (ties by index).
//! A channel with no probe in the window has an infinite index and is listed first: the
//! window's own exploration. The first K slots probe each channel alone, as CC-UCB does.
//! (Garivier and Moulines write the padding `B·sqrt(ξ log(min(t, τ))/N)`; α plays ξ's part with
//! B = 1, as in CC-UCB.) Window sums are updated incrementally (an observation enters when made
//! and leaves τ slots later).

use crate::util::math;
use super::cc_ucb::{DEFAULT_ALPHA, DEFAULT_EPSILON, ratio_list};
use super::{Builtin, ParamError, Policy, initial_probe};
use crate::model::channel::Environment;
use crate::util::rng::SimRng;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

fn default_alpha() -> f64 {
    DEFAULT_ALPHA
}
fn default_epsilon() -> f64 {
    DEFAULT_EPSILON
}

/// `SwCcUcb(window: 5000, alpha: 1.5, epsilon: 1e-5, known_cost: false)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SwCcUcbSpec {
    /// Window τ in slots (no default: it should match how fast the channels change).
    pub window: u64,
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

impl Builtin for SwCcUcbSpec {
    const NS_PER_SLOT: (f64, f64) = (120.0, 17.8);
    const NAME: &'static str = "SwCcUcb";
    const SUMMARY: &'static str = "sliding-window CC-UCB (after Garivier & Moulines' SW-UCB): CC-UCB on the last `window` slots";
    type Policy = SwCcUcb;

    fn bare() -> Result<Self, &'static str> {
        Err("window")
    }
    fn example() -> Self {
        SwCcUcbSpec {
            window: 5000,
            alpha: DEFAULT_ALPHA,
            epsilon: DEFAULT_EPSILON,
            known_cost: false,
        }
    }
    fn label(&self) -> &'static str {
        "sw-cc-ucb"
    }
    fn check(&self, _k: usize) -> Vec<ParamError> {
        let mut errors: Vec<ParamError> = [
            ParamError::alpha(self.alpha),
            ParamError::epsilon(self.epsilon),
        ]
        .into_iter()
        .filter_map(Result::err)
        .collect();
        if self.window < 2 {
            errors.push(ParamError {
                param: "window",
                rule: format!("must be at least 2 slots (got {})", self.window),
            });
        }
        errors
    }

    /// The window's observations: at most `window` slots of at most 8 probes each (longer
    /// lists are rare; the estimate is a bound in spirit).
    fn extra_memory(&self, k: u64, horizon: u64) -> u64 {
        const ENTRY: u64 = 32;
        self.window
            .min(horizon)
            .saturating_mul(k.min(8))
            .saturating_mul(ENTRY)
    }
    fn build(&self, env: &Environment) -> SwCcUcb {
        SwCcUcb::new(
            env.len(),
            self.window,
            self.alpha,
            self.epsilon,
            self.known_cost.then(|| env.mean_cost().to_vec()),
        )
    }
}

/// Sliding-window CC-UCB.
#[derive(Clone, Debug)]
pub(crate) struct SwCcUcb {
    window: u64,
    alpha: f64,
    epsilon: f64,
    known_cost: Option<Vec<f64>>,
    n: Vec<u64>,
    idle: Vec<u64>,
    cost: Vec<f64>,
    /// (slot, channel, idle, cost) of the window's probes, oldest first.
    seen: VecDeque<(u64, usize, bool, f64)>,
    slot: u64,
    theta_hat: Vec<f64>,
    cost_hat: Vec<f64>,
    inv_sqrt_n: Vec<f64>,
    key: Vec<f64>,
    order: Vec<usize>,
}

impl SwCcUcb {
    /// `k` channels, window τ, exploration α, floor ε; `known_cost` replaces the cost estimates.
    pub(crate) fn new(
        k: usize,
        window: u64,
        alpha: f64,
        epsilon: f64,
        known_cost: Option<Vec<f64>>,
    ) -> SwCcUcb {
        SwCcUcb {
            window,
            alpha,
            epsilon,
            known_cost,
            n: vec![0; k],
            idle: vec![0; k],
            cost: vec![0.0; k],
            seen: VecDeque::new(),
            slot: 0,
            theta_hat: vec![0.0; k],
            cost_hat: vec![0.0; k],
            inv_sqrt_n: vec![f64::INFINITY; k],
            key: vec![0.0; k],
            order: (0..k).collect(),
        }
    }
}

impl Policy for SwCcUcb {
    fn plan(&mut self, t: u64, list: &mut Vec<usize>, _rng: &mut SimRng) {
        self.slot = t;
        // Forget the probes of slot t − τ and earlier.
        while let Some(&(s, i, idle, cost)) = self.seen.front() {
            if s + self.window >= t {
                break;
            }
            self.seen.pop_front();
            self.n[i] -= 1;
            self.idle[i] -= u64::from(idle);
            self.cost[i] -= cost;
        }
        let k = self.n.len();
        if let Some(i) = initial_probe(t, k) {
            list.push(i);
            return;
        }
        for i in 0..k {
            let n = self.n[i] as f64;
            (self.theta_hat[i], self.cost_hat[i], self.inv_sqrt_n[i]) = if self.n[i] == 0 {
                (0.0, 0.0, f64::INFINITY)
            } else {
                (self.idle[i] as f64 / n, self.cost[i] / n, 1.0 / n.sqrt())
            };
        }
        let s = (self.alpha * math::ln(t.min(self.window) as f64)).sqrt();
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

    fn observe(&mut self, channel: usize, idle: bool, cost: f64) {
        self.n[channel] += 1;
        self.idle[channel] += u64::from(idle);
        self.cost[channel] += cost;
        self.seen.push_back((self.slot, channel, idle, cost));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After a switch, the window forgets: a channel that was always idle for the window's
    /// first half and always busy since drops out once the busy probes dominate the window.
    #[test]
    fn the_window_forgets_old_probes() {
        let mut p = SwCcUcb::new(2, 100, 0.01, 1e-5, Some(vec![0.5, 0.5]));
        let mut rng = crate::util::rng::stream(0, 0, 0);
        let mut list = Vec::new();
        for t in 1..=400u64 {
            list.clear();
            p.plan(t, &mut list, &mut rng);
            // Channel 0 idle until slot 200, busy after; channel 1 never idle.
            if list.contains(&0) || t <= 2 {
                p.observe(0, t <= 200, 0.5);
            }
            if t == 2 {
                p.observe(1, false, 0.5);
            }
        }
        assert!(p.n[0] <= 100, "only the window's probes count: {}", p.n[0]);
        assert!(
            p.idle[0] == 0,
            "the idle probes before the switch are forgotten"
        );
    }
}
