//! UCB1 (Auer, Cesa-Bianchi and Fischer 2002) on one channel per slot: the classic bandit view
//! of the problem, a sanity baseline.
//!
//! It always probes exactly one channel (a classic bandit has no "probe nothing" arm), the one of
//! largest index `mean + sqrt(2 ln t / N)`, where the mean is of
//! - `reward: Net` (default): the cost-aware net reward `X − Y ∈ [−1, 1]` rescaled to
//!   `(X − Y + 1)/2 ∈ [0, 1]`; the rescaling halves every gap, so it explores about four times
//!   as long as classic UCB1;
//! - `reward: Idle`: the idle indicator X alone: classic UCB1 on Bernoulli arms, as SMPyBandits
//!   and banditpylib run it, so that a plain-bandit run is comparable with theirs.
//!
//! Its regret is linear whenever the UCR-T1 list holds more than one channel, or none.

use super::{Builtin, Estimates, ParamError, Policy, SlotAhead, initial_probe};
use crate::model::channel::Environment;
use serde::{Deserialize, Serialize};

/// What UCB1 averages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Ucb1Reward {
    /// The net reward `(X − Y + 1)/2` (cost-aware).
    #[default]
    Net,
    /// The idle indicator X (classic UCB1).
    Idle,
}

fn is_net(r: &Ucb1Reward) -> bool {
    *r == Ucb1Reward::Net
}

/// `Ucb1(reward: Net)` or `Ucb1(reward: Idle)`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Ucb1Spec {
    /// What the index averages (default the net reward).
    #[serde(default, skip_serializing_if = "is_net")]
    pub reward: Ucb1Reward,
}

impl Builtin for Ucb1Spec {
    const NS_PER_SLOT: (f64, f64) = (33.0, 0.9);
    const NAME: &'static str = "Ucb1";
    const SUMMARY: &'static str = "UCB1 on one channel per slot, on the net reward X − Y (or reward: Idle, classic UCB1 on X)";
    type Policy = Ucb1;

    fn bare() -> Result<Self, &'static str> {
        Ok(Ucb1Spec::default())
    }
    fn example() -> Self {
        Ucb1Spec::default()
    }
    fn label(&self) -> &'static str {
        match self.reward {
            Ucb1Reward::Net => "ucb1",
            Ucb1Reward::Idle => "ucb1-idle",
        }
    }
    fn check(&self, _k: usize) -> Vec<ParamError> {
        Vec::new()
    }
    fn single_channel(&self) -> bool {
        true
    }
    fn build(&self, env: &Environment) -> Ucb1 {
        Ucb1::new(env.len(), self.reward)
    }
}
use crate::util::rng::SimRng;

/// Single-channel UCB1.
#[derive(Clone, Debug)]
pub(crate) struct Ucb1 {
    est: Estimates,
    reward: Ucb1Reward,
    /// `sqrt(2 ln t)`, one slot ahead.
    level: SlotAhead,
}

impl Ucb1 {
    /// `k` channels, averaging `reward`.
    pub(crate) fn new(k: usize, reward: Ucb1Reward) -> Ucb1 {
        Ucb1 {
            est: Estimates::new(k),
            reward,
            level: SlotAhead::default(),
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
        let s = self.level.get(t, level);
        let (theta_hat, cost_hat, inv) = (
            self.est.theta_hat(),
            self.est.cost_hat(),
            self.est.inv_sqrt_n(),
        );
        // The reward kind is matched once per slot, and the loops run over zipped slices
        // (no bounds checks): this is the whole of a classic bandit's decision.
        let best = match self.reward {
            Ucb1Reward::Net => argmax(
                theta_hat
                    .iter()
                    .zip(cost_hat)
                    .map(|(&th, &c)| 0.5 * (th - c + 1.0)),
                inv,
                s,
            ),
            Ucb1Reward::Idle => argmax(theta_hat.iter().copied(), inv, s),
        };
        list.push(best);
        self.level.prepare_next(t, level);
    }

    #[inline]
    fn observe(&mut self, channel: usize, idle: bool, cost: f64) {
        self.est.observe(channel, idle, cost);
    }
}

/// UCB1's common exploration factor `sqrt(2 ln t)`.
#[inline]
fn level(t: u64) -> f64 {
    (2.0 * (t as f64).ln()).sqrt()
}

/// The channel of largest `mean + s · inv` (strictly: ties go to the lowest index).
#[inline(always)]
fn argmax(means: impl Iterator<Item = f64>, inv: &[f64], s: f64) -> usize {
    let mut best = 0;
    let mut best_index = f64::NEG_INFINITY;
    for (i, (mean, &inv)) in means.zip(inv).enumerate() {
        let index = mean + s * inv;
        if index > best_index {
            best = i;
            best_index = index;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_best_net_reward_channel() {
        let mut p = Ucb1::new(2, Ucb1Reward::Net);
        for _ in 0..1000 {
            p.observe(0, true, 0.9); // net 0.1
            p.observe(1, true, 0.2); // net 0.8
        }
        let mut list = Vec::new();
        p.plan(2001, &mut list, &mut crate::util::rng::stream(0, 0, 0));
        assert_eq!(list, vec![1]);
    }
}
