//! UCB1 (Auer, Cesa-Bianchi and Fischer 2002) on one channel per slot: the classic bandit view
//! of the problem, a sanity baseline.
//!
//! Probing a single channel yields the net reward `X − Y ∈ [−1, 1]`; UCB1 runs on its rescaling
//! `(X − Y + 1)/2 ∈ [0, 1]` with index `mean + sqrt(2 ln t / N)` and always probes exactly one
//! channel (a classic bandit has no "probe nothing" arm). Its regret is linear whenever the
//! UCR-T1 list holds more than one channel, or none.

use super::{Builtin, Estimates, ParamError, Policy, initial_probe};
use crate::channel::Environment;
use serde::{Deserialize, Serialize};

/// `Ucb1`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ucb1Spec {}

impl Builtin for Ucb1Spec {
    const NAME: &'static str = "Ucb1";
    const SUMMARY: &'static str =
        "UCB1 on one channel per slot (net reward X − Y): sanity baseline";
    type Policy = Ucb1;

    fn bare() -> Result<Self, &'static str> {
        Ok(Ucb1Spec {})
    }
    fn example() -> Self {
        Ucb1Spec {}
    }
    fn label(&self) -> &'static str {
        "ucb1"
    }
    fn check(&self, _k: usize) -> Vec<ParamError> {
        Vec::new()
    }
    fn build(&self, env: &Environment) -> Ucb1 {
        Ucb1::new(env.len())
    }
}
use crate::rng::SimRng;

/// Single-channel UCB1 on the net reward.
#[derive(Clone, Debug)]
pub struct Ucb1 {
    est: Estimates,
}

impl Ucb1 {
    /// `k` channels.
    pub fn new(k: usize) -> Ucb1 {
        Ucb1 {
            est: Estimates::new(k),
        }
    }
}

impl Policy for Ucb1 {
    fn plan(&mut self, t: u64, list: &mut Vec<usize>, _rng: &mut SimRng) {
        let k = self.est.len();
        if let Some(i) = initial_probe(t, k) {
            list.push(i);
            return;
        }
        let s = (2.0 * (t as f64).ln()).sqrt();
        let (theta_hat, cost_hat, inv) = (
            self.est.theta_hat(),
            self.est.cost_hat(),
            self.est.inv_sqrt_n(),
        );
        let mut best = 0;
        let mut best_index = f64::NEG_INFINITY;
        for i in 0..k {
            let index = 0.5 * (theta_hat[i] - cost_hat[i] + 1.0) + s * inv[i];
            // Strict: ties go to the lowest index.
            if index > best_index {
                best = i;
                best_index = index;
            }
        }
        list.push(best);
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
    fn picks_the_best_net_reward_channel() {
        let mut p = Ucb1::new(2);
        for _ in 0..1000 {
            p.observe(0, true, 0.9); // net 0.1
            p.observe(1, true, 0.2); // net 0.8
        }
        let mut list = Vec::new();
        p.plan(2001, &mut list, &mut crate::rng::stream(0, 0, 0));
        assert_eq!(list, vec![1]);
    }
}
