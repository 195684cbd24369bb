//! CascadeUCB1, Algorithm 1 of Kveton, Szepesvári, Wen and Ashkan, "Cascading Bandits: Learning
//! to Rank in the Cascade Model" (ICML 2015).
//!
//! Each slot the list is the `L` channels of largest UCB1 index of the idle probability,
//! `θ̂_i + sqrt(1.5·ln t / N_i)`, in decreasing order of the index; costs are ignored. This is the
//! cost-oblivious baseline the cost-aware paper compares against.
//!
//! Kveton et al. initialise with one free observation of every item; here the common
//! initialisation (each channel probed alone once, counted in the horizon and the regret) is used
//! instead so that every policy pays for what it learns, and `t` is the slot index.

use crate::util::math;
use super::{Builtin, Estimates, ParamError, Policy, SlotAhead, initial_probe, top_by_key};
use crate::model::channel::Environment;
use serde::{Deserialize, Serialize};

/// `CascadeUcb1(list_len: L)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CascadeUcb1Spec {
    /// List length L (no default: the baseline is told it).
    pub list_len: usize,
}

impl Builtin for CascadeUcb1Spec {
    const NS_PER_SLOT: (f64, f64) = (100.0, 7.1);
    const NAME: &'static str = "CascadeUcb1";
    const SUMMARY: &'static str =
        "CascadeUCB1 (Kveton et al. 2015): top-L channels by UCB1 index of θ, cost-oblivious";
    type Policy = CascadeUcb1;

    fn bare() -> Result<Self, &'static str> {
        Err("list_len")
    }
    fn example() -> Self {
        CascadeUcb1Spec { list_len: 3 }
    }
    fn label(&self) -> &'static str {
        "cascade-ucb1"
    }
    fn check(&self, k: usize) -> Vec<ParamError> {
        ParamError::list_len("list_len", self.list_len, k)
            .err()
            .into_iter()
            .collect()
    }
    fn build(&self, env: &Environment) -> CascadeUcb1 {
        CascadeUcb1::new(env.len(), self.list_len)
    }
}
use crate::util::rng::SimRng;

/// CascadeUCB1 with list length `L`.
#[derive(Clone, Debug)]
pub(crate) struct CascadeUcb1 {
    list_len: usize,
    est: Estimates,
    key: Vec<f64>,
    /// `sqrt(1.5 ln t)`, one slot ahead.
    level: SlotAhead,
}

/// CascadeUCB1's exploration factor `sqrt(1.5 ln t)`.
#[inline]
fn level(t: u64) -> f64 {
    (1.5 * math::ln(t as f64)).sqrt()
}

impl CascadeUcb1 {
    /// `k` channels, lists of `list_len`.
    pub(crate) fn new(k: usize, list_len: usize) -> CascadeUcb1 {
        CascadeUcb1 {
            list_len,
            est: Estimates::new(k),
            key: vec![0.0; k],
            level: SlotAhead::default(),
        }
    }
}

impl Policy for CascadeUcb1 {
    fn plan(&mut self, t: u64, list: &mut Vec<usize>, _rng: &mut SimRng) {
        let k = self.est.len();
        if let Some(i) = initial_probe(t, k) {
            list.push(i);
            return;
        }
        let s = self.level.get(t, level);
        let (theta_hat, inv_sqrt_n) = (self.est.theta_hat(), self.est.inv_sqrt_n());
        for i in 0..k {
            self.key[i] = theta_hat[i] + s * inv_sqrt_n[i];
        }
        top_by_key(list, &self.key, self.list_len);
        self.level.prepare_next(t, level);
    }

    #[inline]
    fn observe(&mut self, channel: usize, idle: bool, cost: f64) {
        self.est.observe(channel, idle, cost);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_top_l_by_ucb_ignoring_costs() {
        let mut p = CascadeUcb1::new(3, 2);
        // Channel 2 is idle often but very costly: CascadeUCB1 lists it anyway.
        for (ch, idles) in [
            (0, [false; 4]),
            (1, [true, false, false, false]),
            (2, [true; 4]),
        ] {
            for idle in idles {
                p.observe(ch, idle, if ch == 2 { 1.0 } else { 0.1 });
            }
        }
        let mut list = Vec::new();
        p.plan(10, &mut list, &mut crate::util::rng::stream(0, 0, 0));
        assert_eq!(list, vec![2, 1]);
    }
}
