//! `TimeLeftUcb`: the learner the time-left benchmark suggests. Each slot it plugs optimistic
//! indices into the dynamic programme of [`crate::model::time_left`] (known rates, slot
//! length and mean probe times; learnt availabilities and energy costs) and probes the list
//! the programme returns.
//!
//! With u_i = √(α·ln t / N_i) (CC-UCB's radius, t the slot from 1): the availability index
//! U_i = min(θ̂_i + u_i, 1), used as both the success and the stop probability (the learner
//! sees what it senses, so θ̂ estimates P(sensed idle)), and the energy cost index
//! L_i = max(ĉ_i − u_i − rate·d̄_i/T, 0), where ĉ_i averages the observed costs, which include
//! the time used in reward units (`rate·delay/T`, known and removed). The first K slots probe
//! each channel once. On a scenario without `reward: TimeLeft` the rule is the unit reward
//! (rate 1, an endless slot), and the programme returns the sensing-aware cascade optimum of
//! the indices. The programme takes 2^K·K steps a slot: at most [`MAX_CHANNELS`] channels.

use crate::util::math;
use super::{Builtin, Estimates, ParamError, Policy, initial_probe};
use crate::model::channel::Environment;
use crate::model::time_left::{Programme, TimeLeft};
use crate::util::rng::SimRng;
use serde::{Deserialize, Serialize};

/// Most channels: 2^12·12 ≈ 49 000 steps of the programme a slot.
pub(crate) const MAX_CHANNELS: usize = 12;

fn default_alpha() -> f64 {
    super::cc_ucb::DEFAULT_ALPHA
}

/// `TimeLeftUcb(alpha: 1.5)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TimeLeftUcbSpec {
    /// Exploration parameter α of `u = sqrt(α·ln t / N)`.
    #[serde(default = "default_alpha")]
    pub alpha: f64,
}

impl Builtin for TimeLeftUcbSpec {
    // The programme dominates: ~2^K·K·1.5 ns; these fit K ≤ 8 and are upper bounds below.
    const NS_PER_SLOT: (f64, f64) = (400.0, 400.0);
    const NAME: &'static str = "TimeLeftUcb";
    const SUMMARY: &'static str = "UCB indices plugged into the time-left dynamic programme, re-planned every slot (K ≤ 12)";
    type Policy = TimeLeftUcb;

    fn bare() -> Result<Self, &'static str> {
        Ok(TimeLeftUcbSpec {
            alpha: default_alpha(),
        })
    }
    fn example() -> Self {
        TimeLeftUcbSpec {
            alpha: default_alpha(),
        }
    }
    fn label(&self) -> &'static str {
        "time-left-ucb"
    }
    fn check(&self, k: usize) -> Vec<ParamError> {
        let mut errors: Vec<ParamError> = ParamError::alpha(self.alpha).err().into_iter().collect();
        if k > MAX_CHANNELS {
            errors.push(ParamError {
                param: "policy",
                rule: format!("TimeLeftUcb solves the time-left programme (2^K states) every slot: at most {MAX_CHANNELS} channels (got {k})"),
            });
        }
        errors
    }
    fn build(&self, env: &Environment) -> TimeLeftUcb {
        let k = env.len();
        let rule = env.time_left().cloned().unwrap_or_else(|| {
            let delays = env.channels().iter().map(|c| c.cost().mean_delay()).collect();
            TimeLeft::unit(k, delays)
        });
        let price = rule
            .delays()
            .iter()
            .map(|&d| rule.observed_cost(0.0, d))
            .collect();
        TimeLeftUcb {
            alpha: self.alpha,
            rule,
            price,
            est: Estimates::new(k),
            upper: vec![0.0; k],
            lower: vec![0.0; k],
            programme: Programme::default(),
        }
    }
}

/// The learner's state.
#[derive(Clone, Debug)]
pub(crate) struct TimeLeftUcb {
    alpha: f64,
    rule: TimeLeft,
    /// Per channel, the mean time price `rate·d̄/T` inside the observed cost.
    price: Vec<f64>,
    est: Estimates,
    upper: Vec<f64>,
    lower: Vec<f64>,
    programme: Programme,
}

impl Policy for TimeLeftUcb {
    fn plan(&mut self, t: u64, list: &mut Vec<usize>, _rng: &mut SimRng) {
        let k = self.upper.len();
        if let Some(i) = initial_probe(t, k) {
            list.push(i);
            return;
        }
        let s = (self.alpha * math::ln(t as f64)).sqrt();
        let (theta, cost, w) = (
            self.est.theta_hat(),
            self.est.cost_hat(),
            self.est.inv_sqrt_n(),
        );
        for i in 0..k {
            let u = s * w[i];
            self.upper[i] = (theta[i] + u).min(1.0);
            self.lower[i] = (cost[i] - u - self.price[i]).max(0.0);
        }
        self.rule.plan_into(
            &self.upper,
            &self.upper,
            &self.lower,
            self.rule.delays(),
            &mut self.programme,
            list,
        );
    }

    fn observe(&mut self, channel: usize, idle: bool, cost: f64) {
        self.est.observe(channel, idle, cost);
    }
}
