//! kl-UCB (Garivier & Cappé 2011) on one channel per slot: the classic bandit's kl-UCB, and,
//! as `Selfish(policy: KlUcb(reward: Idle))`, the Selfish learner of Besson & Kaufmann's
//! experiments (SMPyBandits' `Selfish(…, klUCB)`).
//!
//! It probes one channel per slot, the one of largest index `max{q : N · kl(μ̂, q) ≤ ln t}`
//! (Bernoulli divergence, c = 1, no `ln ln t` term; [`crate::model::kl_search::kl_upper`]), where
//! the mean is of the net reward `(X − Y + 1)/2` (`reward: Net`, the default, as `Ucb1`'s) or of
//! the idle indicator X (`reward: Idle`). A channel never probed has an infinite index, so the
//! first K slots probe each channel once: in index order under specprobe's convention (the
//! paper's initialisation), in a uniform order under `convention: SMPyBandits`, which also
//! counts the `t` of `ln t` in samples (see [`super::Rules`]).
//!
//! Two parameters make it Trinh & Combes' randomized Selfish KL-UCB (arXiv 2102.10200), for
//! users without sensing (`Selfish(policy: KlUcb(reward: Idle, c: …, noise: true))` under
//! `feedback: NoSensing`, where a collision zeroes the reward): `c`, the exploration function
//! `f(t) = ln t + c·ln ln t` (default 0, `ln t`; `ln ln t` read as `ln max(ln t, 1)`), and
//! `noise`, Gaussian noise of standard deviation `1/(t + 1)` added to every index each slot,
//! which breaks the symmetric equilibria where copies of one deterministic index policy
//! collide forever. With noise, once every channel has a sample, the choice steps the channels'
//! root searches best-first, only as far as it needs ([`Decide::choose_with`]): the same choice
//! and draws, except that two noisy indices equal to the last bit (probability nil) go to the
//! lower channel without a tie draw.

use super::one_channel::{Decide, NoisyScratch, Reward};
use super::{Builtin, Clock, Convention, Estimates, IndexKind, ParamError, Policy, Rules, Ties};
use crate::model::channel::Environment;
use crate::util::rng::SimRng;
use serde::{Deserialize, Serialize};

/// `KlUcb(reward: …, convention: …, time: …, ties: …)`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct KlUcbSpec {
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
    /// The c of the exploration function `ln t + c·ln ln t` (default 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub c: f64,
    /// Gaussian noise of standard deviation `1/(t + 1)` on every index (default false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub noise: bool,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

impl Builtin for KlUcbSpec {
    const NAME: &'static str = "KlUcb";
    const SUMMARY: &'static str = "kl-UCB on one channel per slot, on the net reward X − Y (or reward: Idle, classic kl-UCB on X)";
    // A root search per channel and slot: measured like the others by
    // scripts/calibrate-costs.py.
    const NS_PER_SLOT: (f64, f64) = (40.0, 60.0);
    type Policy = KlUcb;

    fn bare() -> Result<Self, &'static str> {
        Ok(KlUcbSpec::default())
    }
    fn example() -> Self {
        KlUcbSpec::default()
    }
    fn label(&self) -> &'static str {
        match (self.reward, self.convention, self.noise) {
            (Reward::Net, Convention::Specprobe, false) => "klucb",
            (Reward::Idle, Convention::Specprobe, false) => "klucb-idle",
            (Reward::Net, Convention::SMPyBandits, false) => "klucb-smpy",
            (Reward::Idle, Convention::SMPyBandits, false) => "klucb-idle-smpy",
            (Reward::Net, Convention::Specprobe, true) => "klucb-rand",
            (Reward::Idle, Convention::Specprobe, true) => "klucb-idle-rand",
            (Reward::Net, Convention::SMPyBandits, true) => "klucb-rand-smpy",
            (Reward::Idle, Convention::SMPyBandits, true) => "klucb-idle-rand-smpy",
        }
    }
    fn check(&self, _k: usize) -> Vec<ParamError> {
        if self.c.is_finite() && self.c >= 0.0 {
            return Vec::new();
        }
        vec![ParamError {
            param: "c",
            rule: format!(
                "the c of ln t + c·ln ln t must be finite and at least 0 (got {})",
                self.c
            ),
        }]
    }
    fn single_channel(&self) -> bool {
        true
    }
    fn learns_idle_only(&self) -> bool {
        self.reward == Reward::Idle
    }
    fn among_users(&self) -> Self {
        KlUcbSpec {
            ties: self.ties.or(Some(Ties::Random)),
            ..self.clone()
        }
    }
    fn build(&self, env: &Environment) -> KlUcb {
        KlUcb {
            est: Estimates::new(env.len()),
            scratch: NoisyScratch::default(),
            decide: Decide {
                kind: IndexKind::KlUcb,
                reward: self.reward,
                rules: Rules::new(self.convention, self.time, self.ties).at_horizon(env.horizon()),
                log_log: self.c,
                noise: self.noise,
            },
        }
    }
}

/// Single-channel kl-UCB.
#[derive(Clone, Debug)]
pub(crate) struct KlUcb {
    est: Estimates,
    decide: Decide,
    /// The noisy indices' searches, kept between slots so that a slot allocates nothing.
    scratch: NoisyScratch,
}

impl Policy for KlUcb {
    fn plan(&mut self, t: u64, list: &mut Vec<usize>, rng: &mut SimRng) {
        list.push(
            self.decide
                .choose_with(&self.est, t, rng, &mut self.scratch),
        );
    }

    #[inline]
    fn observe(&mut self, channel: usize, idle: bool, cost: f64) {
        self.est.observe(channel, idle, cost);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::channel::Channel;
    use crate::model::cost::CostModel;
    use crate::model::law::{Law, LawSpec};

    fn env(theta: &[f64]) -> Environment {
        Environment::new(
            theta
                .iter()
                .map(|&t| Channel::new(t, CostModel::Plain(Law::new(&LawSpec::Constant(0.0)).unwrap())))
                .collect(),
        )
    }

    /// The paper's start (each channel once, in order), then the channel of largest kl-UCB
    /// index: a channel seen idle every time beats one seen busy every time.
    #[test]
    fn starts_in_order_then_follows_the_index() {
        let spec = KlUcbSpec {
            reward: Reward::Idle,
            ..KlUcbSpec::default()
        };
        let mut p = spec.build(&env(&[0.2, 0.9, 0.5]));
        let mut rng = crate::util::rng::stream(1, 0, 0);
        let mut list = Vec::new();
        for t in 1..=3 {
            list.clear();
            p.plan(t, &mut list, &mut rng);
            assert_eq!(list, [t as usize - 1]);
            p.observe(list[0], list[0] == 1, 0.0);
        }
        list.clear();
        p.plan(4, &mut list, &mut rng);
        assert_eq!(list, [1]);
    }
}
