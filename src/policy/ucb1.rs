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
//!
//! Under specprobe's convention (the default) `t` is the slot and the first K slots probe the
//! channels in order (the paper's initialisation); `convention: SMPyBandits` gives
//! SMPyBandits' `UCB`: `t` counts the samples so far (`t − 1`), and ties, the first K slots'
//! among them, are broken uniformly at random ([`super::one_channel`]).

use crate::util::math;
use super::one_channel::{Decide, Reward};
use super::{
    Builtin, Clock, Convention, Estimates, IndexKind, ParamError, Policy, Rules, SlotAhead, Ties,
    initial_probe,
};
use crate::model::channel::Environment;
use serde::{Deserialize, Serialize};

/// `Ucb1(reward: Net)` or `Ucb1(reward: Idle)`, with the definitions its index follows
/// (`convention: SMPyBandits`, `time`, `ties`: see [`super::Rules`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Ucb1Spec {
    /// What the index averages (default the net reward).
    #[serde(default, skip_serializing_if = "Reward::is_net")]
    pub reward: Reward,
    /// Whose definitions the index follows (default specprobe's).
    #[serde(default, skip_serializing_if = "Convention::is_default")]
    pub convention: Convention,
    /// The `t` of `ln t`, overriding the convention's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<Clock>,
    /// How ties are broken, overriding the convention's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ties: Option<Ties>,
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
        match (self.reward, self.convention) {
            (Reward::Net, Convention::Specprobe) => "ucb1",
            (Reward::Idle, Convention::Specprobe) => "ucb1-idle",
            (Reward::Net, Convention::SMPyBandits) => "ucb1-smpy",
            (Reward::Idle, Convention::SMPyBandits) => "ucb1-idle-smpy",
        }
    }
    fn check(&self, _k: usize) -> Vec<ParamError> {
        Vec::new()
    }
    fn single_channel(&self) -> bool {
        true
    }
    fn learns_idle_only(&self) -> bool {
        self.reward == Reward::Idle
    }
    fn among_users(&self) -> Self {
        Ucb1Spec {
            ties: self.ties.or(Some(Ties::Random)),
            ..self.clone()
        }
    }
    fn build(&self, env: &Environment) -> Ucb1 {
        let rules = Rules::new(self.convention, self.time, self.ties).at_horizon(env.horizon());
        let mut p = Ucb1::new(env.len(), self.reward);
        if !rules.is_default() {
            p.ruled = Some(Decide {
                kind: IndexKind::Ucb,
                reward: self.reward,
                rules,
                log_log: 0.0,
                noise: false,
            });
        }
        p
    }
}
use crate::util::rng::SimRng;

/// Single-channel UCB1.
#[derive(Clone, Debug)]
pub(crate) struct Ucb1 {
    est: Estimates,
    reward: Reward,
    /// `sqrt(2 ln t)`, one slot ahead.
    level: SlotAhead,
    /// The decision under rules other than specprobe's (see the module docs).
    ruled: Option<Decide>,
}

impl Ucb1 {
    /// `k` channels, averaging `reward`.
    pub(crate) fn new(k: usize, reward: Reward) -> Ucb1 {
        Ucb1 {
            est: Estimates::new(k),
            reward,
            level: SlotAhead::default(),
            ruled: None,
        }
    }
}

impl Policy for Ucb1 {
    fn plan(&mut self, t: u64, list: &mut Vec<usize>, rng: &mut SimRng) {
        if let Some(d) = &self.ruled {
            list.push(d.choose(&self.est, t, rng));
            return;
        }
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
            Reward::Net => argmax(
                theta_hat
                    .iter()
                    .zip(cost_hat)
                    .map(|(&th, &c)| 0.5 * (th - c + 1.0)),
                inv,
                s,
            ),
            Reward::Idle => argmax(theta_hat.iter().copied(), inv, s),
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
    (2.0 * math::ln(t as f64)).sqrt()
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
        let mut p = Ucb1::new(2, Reward::Net);
        for _ in 0..1000 {
            p.observe(0, true, 0.9); // net 0.1
            p.observe(1, true, 0.2); // net 0.8
        }
        let mut list = Vec::new();
        p.plan(2001, &mut list, &mut crate::util::rng::stream(0, 0, 0));
        assert_eq!(list, vec![1]);
    }
}
