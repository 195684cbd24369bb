//! An identification algorithm written outside specprobe, run beside the built-in ones.

use super::confidence::{Guarantee, Params, Setting};
use super::{AlgorithmSpec, AnyIdentifier, Identifier};
use std::sync::Arc;

/// What an identification algorithm is told about one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Problem {
    /// Number of arms N.
    pub arms: usize,
    /// Size K of the set to identify.
    pub k: usize,
    /// Sub-Gaussian parameter σ of the rewards (1/2 for Bernoulli rewards).
    pub sigma: f64,
    /// The required error probability ν.
    pub confidence: f64,
    /// The parameter setting this cell reports under.
    pub setting: Setting,
    /// ε of the LIL radius and δ the built-in algorithms would get with a guarantee of δ
    /// (LUCB1's): δ = ν, ε = 0. A user's algorithm is free to derive its own from ν.
    pub params: Params,
}

/// Builds a user's identification algorithm for one run.
pub type IdentifierFactory = Arc<dyn Fn(&Problem) -> Box<dyn Identifier> + Send + Sync>;

/// A user's identification algorithm: its name in outputs and its factory.
#[derive(Clone)]
pub struct CustomIdentifier {
    name: String,
    factory: Option<IdentifierFactory>,
}

impl std::fmt::Debug for CustomIdentifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CustomIdentifier")
            .field("name", &self.name)
            .field("runnable", &self.factory.is_some())
            .finish()
    }
}

impl CustomIdentifier {
    /// An algorithm called `name` in the outputs, built by `factory` for every run.
    pub fn new<I, F>(name: impl Into<String>, factory: F) -> CustomIdentifier
    where
        I: Identifier + 'static,
        F: Fn(&Problem) -> I + Send + Sync + 'static,
    {
        CustomIdentifier {
            name: name.into(),
            factory: Some(Arc::new(move |p: &Problem| {
                Box::new(factory(p)) as Box<dyn Identifier>
            })),
        }
    }

    /// An algorithm from a factory that already boxes (for bindings to other languages).
    pub fn from_factory(name: impl Into<String>, factory: IdentifierFactory) -> CustomIdentifier {
        CustomIdentifier {
            name: name.into(),
            factory: Some(factory),
        }
    }

    /// A stand-in with the name only, for merging partial results.
    pub(crate) fn placeholder(name: impl Into<String>) -> CustomIdentifier {
        CustomIdentifier {
            name: name.into(),
            factory: None,
        }
    }

    /// The name in outputs.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// A built-in or a user's algorithm.
#[derive(Clone, Debug)]
pub(crate) enum Algorithm {
    /// One of specprobe's algorithms.
    Builtin(AlgorithmSpec),
    /// A user's algorithm.
    Custom(CustomIdentifier),
}

impl Algorithm {
    /// The name in outputs (`LUCB1`, ..., or the user's name).
    pub(crate) fn name(&self) -> &str {
        match self {
            Algorithm::Builtin(a) => a.name(),
            Algorithm::Custom(c) => c.name(),
        }
    }

    /// Whether it runs in `setting` (a user's algorithm runs in every setting of the scenario).
    pub(crate) fn runs_in(&self, setting: Setting) -> bool {
        match self {
            Algorithm::Builtin(a) => a.runs_in(setting),
            Algorithm::Custom(_) => true,
        }
    }

    /// How its error probability depends on δ (a user's algorithm is given δ = ν).
    pub(crate) fn guarantee(&self) -> Guarantee {
        match self {
            Algorithm::Builtin(a) => a.guarantee(),
            Algorithm::Custom(_) => Guarantee::Delta,
        }
    }

    /// Builds it for one run, or `None` for a stand-in.
    pub(crate) fn build(&self, problem: &Problem) -> Option<AnyIdentifier> {
        match self {
            Algorithm::Builtin(a) => Some(a.build(problem)),
            Algorithm::Custom(c) => c
                .factory
                .as_ref()
                .map(|f| AnyIdentifier::Custom(f(problem))),
        }
    }
}
