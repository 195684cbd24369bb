//! Channels and the environment a policy probes.
//!
//! Each slot, channel `i` is idle with probability `θ_i`, independently across channels and
//! slots. The state is drawn when the channel is probed (the same law as drawing every state at
//! the start of the slot, and the only way to keep a slot's cost independent of K).

use crate::cost::{CostModel, ProbeCost};
use crate::theory::{Optimum, expected_reward};
use rand::Rng;
use rand::distr::{Bernoulli, Distribution};

/// One checked channel.
#[derive(Clone, Debug)]
pub struct Channel {
    theta: f64,
    idle: Bernoulli,
    cost: CostModel,
}

impl Channel {
    /// A channel idle with probability `theta` (checked to lie in [0, 1] by the caller; a
    /// value outside is a bug, not bad input, hence the panic).
    pub fn new(theta: f64, cost: CostModel) -> Channel {
        Channel {
            theta,
            idle: Bernoulli::new(theta).expect("θ validated to lie in [0, 1]"),
            cost,
        }
    }

    /// Probability of being idle in a slot.
    pub fn theta(&self) -> f64 {
        self.theta
    }

    /// The cost model.
    pub fn cost(&self) -> &CostModel {
        &self.cost
    }
}

/// What a probe revealed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Probe {
    /// The channel was idle.
    pub idle: bool,
    /// What the probe cost.
    pub cost: ProbeCost,
}

/// The channels of one experiment, with the quantities every slot needs precomputed.
#[derive(Clone, Debug)]
pub struct Environment {
    channels: Vec<Channel>,
    theta: Vec<f64>,
    mean_cost: Vec<f64>,
    optimum: Optimum,
}

impl Environment {
    /// Builds the environment and its UCR-T1 optimum.
    pub fn new(channels: Vec<Channel>) -> Environment {
        let theta: Vec<f64> = channels.iter().map(Channel::theta).collect();
        let mean_cost: Vec<f64> = channels.iter().map(|c| c.cost.mean()).collect();
        let optimum = Optimum::of(&theta, &mean_cost);
        Environment {
            channels,
            theta,
            mean_cost,
            optimum,
        }
    }

    /// Number of channels, K.
    pub fn len(&self) -> usize {
        self.channels.len()
    }

    /// Whether there are no channels (never true for a validated scenario).
    pub fn is_empty(&self) -> bool {
        self.channels.is_empty()
    }

    /// The channels.
    pub fn channels(&self) -> &[Channel] {
        &self.channels
    }

    /// Idle probabilities θ.
    pub fn theta(&self) -> &[f64] {
        &self.theta
    }

    /// Exact mean bandit costs c.
    pub fn mean_cost(&self) -> &[f64] {
        &self.mean_cost
    }

    /// The UCR-T1 optimum.
    pub fn optimum(&self) -> &Optimum {
        &self.optimum
    }

    /// Exact expected net reward of a list (see [`expected_reward`]).
    #[inline]
    pub fn expected_reward(&self, list: &[usize]) -> f64 {
        expected_reward(list, &self.theta, &self.mean_cost)
    }

    /// Probes channel `i` once.
    #[inline]
    pub fn probe<R: Rng + ?Sized>(&self, i: usize, rng: &mut R) -> Probe {
        let ch = &self.channels[i];
        let idle = ch.idle.sample(rng);
        Probe {
            idle,
            cost: ch.cost.sample(rng),
        }
    }
}
