//! A policy written outside specprobe, entering the same runner as the built-in ones.
//!
//! The runner calls the factory once per run with the experiment's [`Environment`] (K, the mean
//! costs for known-cost policies, the stationary θ for oracles) and drives the boxed policy through
//! the same slot loop, statistics and outputs: the only difference from a built-in policy is one
//! dynamic call per `plan` and per `observe`.

use super::Policy;
use crate::model::channel::Environment;
use std::sync::Arc;

/// Builds a user's policy for one run of one experiment.
pub type PolicyFactory = Arc<dyn Fn(&Environment) -> Box<dyn Policy> + Send + Sync>;

/// A user's policy: a description for the outputs (in place of a built-in's scenario syntax)
/// and the factory that builds it.
#[derive(Clone)]
pub struct CustomPolicy {
    description: String,
    factory: Option<PolicyFactory>,
    /// Declared to list at most one channel a slot (see [`CustomPolicy::one_channel`]).
    one_channel: bool,
}

impl std::fmt::Debug for CustomPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CustomPolicy")
            .field("description", &self.description)
            .field("runnable", &self.factory.is_some())
            .field("one_channel", &self.one_channel)
            .finish()
    }
}

impl CustomPolicy {
    /// A policy built by `factory` for every run; `description` appears as its `policy` in
    /// `summary.json` and the report (e.g. `"EpsGreedy(epsilon: 0.05)"`).
    pub fn new<P, F>(description: impl Into<String>, factory: F) -> CustomPolicy
    where
        P: Policy + 'static,
        F: Fn(&Environment) -> P + Send + Sync + 'static,
    {
        CustomPolicy {
            description: description.into(),
            factory: Some(Arc::new(move |env: &Environment| {
                Box::new(factory(env)) as Box<dyn Policy>
            })),
            one_channel: false,
        }
    }

    /// A policy from a factory that already boxes (for bindings to other languages).
    pub fn from_factory(description: impl Into<String>, factory: PolicyFactory) -> CustomPolicy {
        CustomPolicy {
            description: description.into(),
            factory: Some(factory),
            one_channel: false,
        }
    }

    /// A stand-in that carries the description only: `merge` rebuilds a scenario's policy list
    /// from partial results and never simulates.
    pub(crate) fn placeholder(description: impl Into<String>, one_channel: bool) -> CustomPolicy {
        CustomPolicy {
            description: description.into(),
            factory: None,
            one_channel,
        }
    }

    /// Declares that the policy lists at most one channel a slot (the classic bandit: probe
    /// one channel, transmit if idle). On a `MultiUser` scenario, where every user runs its
    /// own copy, the team is then measured as the built-in one-channel teams are (the M best
    /// channels as the benchmark, the pseudo-regret, its decomposition and the lower bounds),
    /// so adding it changes nothing about the others. Every list is checked: a longer one
    /// stops the run with a [`super::ListFault`] naming the policy, the user and the slot.
    pub fn one_channel(mut self) -> CustomPolicy {
        self.one_channel = true;
        self
    }

    /// Whether it is declared to list at most one channel a slot.
    pub fn lists_one_channel(&self) -> bool {
        self.one_channel
    }

    /// The description shown in outputs.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Whether it can be simulated (a stand-in cannot).
    pub(crate) fn runnable(&self) -> bool {
        self.factory.is_some()
    }

    /// The policy for one run, or `None` for a stand-in.
    pub(crate) fn build(&self, env: &Environment) -> Option<Box<dyn Policy>> {
        self.factory.as_ref().map(|f| f(env))
    }
}
