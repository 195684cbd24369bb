//! Best-K arm identification (pure exploration): find the K arms of largest mean with
//! confidence 1 − ν using as few samples as possible.
//!
//! In spectrum terms: before committing to a probing list, a radio spends a sensing budget to
//! find its K best channels. Algorithms implement [`Identifier`]: they name the next arm to sample
//! or stop; the engine ([`identify()`]) draws the samples, enforces the per-run sample cap and
//! checks the answer. Every algorithm starts by sampling each arm once (counted).
//!
//! Algorithms (one file each): [`Lucb1`] (Kalyanakrishnan et al. 2012), [`LilUcb`] (Jamieson et
//! al. 2014, K = 1), [`LilLucb`] (Jamieson and Nowak 2014), [`LucbPlusPlus`] (Simchowitz,
//! Jamieson and Recht 2017), [`LilRandLucb`] and [`LilClucb`] (Jiang, Li and Qiao 2017). The
//! last four share the LUCB skeleton of [`lucb_core`]. Their radii and the faithful/heuristic
//! parameter choices live in [`confidence`].

pub(crate) mod confidence;
mod custom;
mod episode;
pub(crate) mod instance;
mod lil_clucb;
mod lil_lucb;
mod lil_rand_lucb;
mod lil_ucb;
mod lucb1;
pub(crate) mod lucb_core;
mod lucb_pp;
mod stats;

pub(crate) use custom::Algorithm;
pub use custom::CustomIdentifier;
pub use custom::IdentifierFactory;
pub use custom::Problem;
pub(crate) use episode::IdentifyOutcome;
pub(crate) use episode::identify;
pub(crate) use lil_clucb::LilClucb;
pub(crate) use lil_lucb::LilLucb;
pub(crate) use lil_rand_lucb::LilRandLucb;
pub(crate) use lil_ucb::LilUcb;
pub(crate) use lucb_pp::LucbPlusPlus;
pub(crate) use lucb1::Lucb1;
pub(crate) use stats::IdentifyStats;

use crate::util::rng::SimRng;
use confidence::{Guarantee, Lil, Params, Setting};
use serde::{Deserialize, Serialize};

/// A best-K identification algorithm.
///
/// The engine asks for the next arm to sample until the algorithm stops (`None`) or the sample
/// cap is reached, reports each sample back, then asks for the answer. Object safe: an algorithm
/// written outside specprobe runs as a `Box<dyn Identifier>`.
///
/// # Example
/// Uniform sampling (round robin) that stops once every arm has `m` samples and answers the K
/// best empirical means:
/// ```
/// use specprobe::{Identifier, SimRng};
///
/// struct RoundRobin { m: u64, k: usize, n: Vec<u64>, sum: Vec<f64>, next: usize }
///
/// impl Identifier for RoundRobin {
///     fn next(&mut self, _rng: &mut SimRng) -> Option<usize> {
///         let arm = self.next;
///         if self.n[arm] == self.m {
///             return None;
///         }
///         self.next = (arm + 1) % self.n.len();
///         Some(arm)
///     }
///     fn observe(&mut self, arm: usize, reward: f64) {
///         self.n[arm] += 1;
///         self.sum[arm] += reward;
///     }
///     fn answer(&self, out: &mut Vec<usize>) {
///         out.extend(0..self.n.len());
///         out.sort_by(|&a, &b| self.sum[b].total_cmp(&self.sum[a]));
///         out.truncate(self.k);
///     }
/// }
///
/// let mut a = RoundRobin { m: 2, k: 1, n: vec![0; 3], sum: vec![0.0; 3], next: 0 };
/// let mut rng = specprobe::stream(1, 0, 0);
/// let mut samples = 0;
/// while let Some(arm) = a.next(&mut rng) {
///     a.observe(arm, if arm == 2 { 1.0 } else { 0.0 });
///     samples += 1;
/// }
/// let mut best = Vec::new();
/// a.answer(&mut best);
/// assert_eq!((samples, best), (6, vec![2]));
/// ```
pub trait Identifier {
    /// The next arm to sample, or `None` to stop. `rng` is this run's algorithm stream.
    fn next(&mut self, rng: &mut SimRng) -> Option<usize>;

    /// Learns one sample of `arm`.
    fn observe(&mut self, arm: usize, reward: f64);

    /// Writes the current answer (K arms, any order) into `out` (cleared by the caller). Called
    /// after a stop, or when the sample cap cut the run short.
    fn answer(&self, out: &mut Vec<usize>);
}

/// A boxed algorithm is an algorithm (one dynamic call per step).
impl<I: Identifier + ?Sized> Identifier for Box<I> {
    #[inline]
    fn next(&mut self, rng: &mut SimRng) -> Option<usize> {
        (**self).next(rng)
    }
    #[inline]
    fn observe(&mut self, arm: usize, reward: f64) {
        (**self).observe(arm, reward);
    }
    fn answer(&self, out: &mut Vec<usize>) {
        (**self).answer(out);
    }
}

/// Per-arm counts and sums, and the "sample each arm once" initialisation.
#[derive(Clone, Debug)]
pub(crate) struct Samples {
    count: Vec<u64>,
    sum: Vec<f64>,
    mean: Vec<f64>,
    next_initial: usize,
}

impl Samples {
    /// No samples of `n` arms.
    pub(crate) fn new(n: usize) -> Samples {
        Samples {
            count: vec![0; n],
            sum: vec![0.0; n],
            mean: vec![0.0; n],
            next_initial: 0,
        }
    }

    /// During initialisation, the next arm to sample once.
    pub(crate) fn initial(&mut self) -> Option<usize> {
        (self.next_initial < self.count.len()).then(|| {
            self.next_initial += 1;
            self.next_initial - 1
        })
    }

    /// Whether every arm has its first sample.
    pub(crate) fn initialised(&self) -> bool {
        self.next_initial >= self.count.len() && self.count.iter().all(|&c| c > 0)
    }

    /// Records a sample.
    pub(crate) fn add(&mut self, arm: usize, reward: f64) {
        self.count[arm] += 1;
        self.sum[arm] += reward;
        self.mean[arm] = self.sum[arm] / self.count[arm] as f64;
    }

    /// Samples of each arm, `T_i`.
    pub(crate) fn counts(&self) -> &[u64] {
        &self.count
    }

    /// Empirical means.
    pub(crate) fn means(&self) -> &[f64] {
        &self.mean
    }

    /// Number of arms.
    pub(crate) fn len(&self) -> usize {
        self.count.len()
    }
}

/// An algorithm as a scenario names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum AlgorithmSpec {
    /// LUCB1 (Kalyanakrishnan, Tewari, Auer, Stone 2012).
    Lucb1,
    /// lil'UCB (Jamieson, Malloy, Nowak, Bubeck 2014); K = 1 only.
    LilUcb,
    /// lil'LUCB (Jamieson and Nowak 2014), generalised to top-K.
    LilLucb,
    /// LUCB++ (Simchowitz, Jamieson, Recht 2017).
    LucbPlusPlus,
    /// lil'RandLUCB (Jiang, Li, Qiao 2017, Algorithm 1).
    LilRandLucb,
    /// lil'CLUCB (Jiang, Li, Qiao 2017, Algorithm 2).
    LilClucb,
}

impl AlgorithmSpec {
    /// Every algorithm, in the paper's order.
    pub const ALL: [AlgorithmSpec; 6] = [
        AlgorithmSpec::Lucb1,
        AlgorithmSpec::LilUcb,
        AlgorithmSpec::LilLucb,
        AlgorithmSpec::LucbPlusPlus,
        AlgorithmSpec::LilRandLucb,
        AlgorithmSpec::LilClucb,
    ];

    /// Name in outputs.
    pub fn name(self) -> &'static str {
        match self {
            AlgorithmSpec::Lucb1 => "LUCB1",
            AlgorithmSpec::LilUcb => "lil'UCB",
            AlgorithmSpec::LilLucb => "lil'LUCB",
            AlgorithmSpec::LucbPlusPlus => "LUCB++",
            AlgorithmSpec::LilRandLucb => "lil'RandLUCB",
            AlgorithmSpec::LilClucb => "lil'CLUCB",
        }
    }

    /// How its error probability depends on δ (fixes δ in the faithful setting).
    pub fn guarantee(self) -> Guarantee {
        match self {
            AlgorithmSpec::Lucb1 => Guarantee::Delta,
            AlgorithmSpec::LilUcb => Guarantee::LilUcb,
            AlgorithmSpec::LilLucb | AlgorithmSpec::LucbPlusPlus | AlgorithmSpec::LilRandLucb => {
                Guarantee::CEpsDelta
            }
            AlgorithmSpec::LilClucb => Guarantee::CEpsDeltaPowOverN,
        }
    }

    /// Whether the algorithm runs in `setting` (LUCB1 has no heuristic version in the paper).
    pub fn runs_in(self, setting: Setting) -> bool {
        !(self == AlgorithmSpec::Lucb1 && setting == Setting::Heuristic)
    }

    /// Builds the algorithm for `n` arms, top `k`, rewards σ-sub-Gaussian.
    pub fn build(
        self,
        n: usize,
        k: usize,
        sigma: f64,
        setting: Setting,
        params: Params,
    ) -> AnyIdentifier {
        let lil = Lil {
            epsilon: params.epsilon,
            sigma,
        };
        match self {
            AlgorithmSpec::Lucb1 => AnyIdentifier::Lucb1(Lucb1::new(n, k, params.delta, sigma)),
            AlgorithmSpec::LilUcb => {
                AnyIdentifier::LilUcb(LilUcb::new(n, lil, params.delta, setting))
            }
            AlgorithmSpec::LilLucb => AnyIdentifier::LilLucb(LilLucb::new(n, k, lil, params.delta)),
            AlgorithmSpec::LucbPlusPlus => {
                AnyIdentifier::LucbPlusPlus(LucbPlusPlus::new(n, k, lil, params.delta))
            }
            AlgorithmSpec::LilRandLucb => {
                AnyIdentifier::LilRandLucb(LilRandLucb::new(n, k, lil, params.delta))
            }
            AlgorithmSpec::LilClucb => {
                AnyIdentifier::LilClucb(LilClucb::new(n, k, lil, params.delta))
            }
        }
    }
}

/// A built-in identification algorithm by its scenario name (`"LilRandLucb"`), built for a
/// problem: for an algorithm of your own that wraps or extends a built-in one.
pub fn builtin_identifier(name: &str, problem: &Problem) -> Result<Box<dyn Identifier>, String> {
    let spec: AlgorithmSpec = crate::util::ron_text::ron_options()
        .from_str(name)
        .map_err(|e| format!("{name:?} is not an identification algorithm: {e}"))?;
    Ok(Box::new(spec.build(
        problem.arms,
        problem.k,
        problem.sigma,
        problem.setting,
        problem.params,
    )))
}

/// A built algorithm of any kind; [`AnyIdentifier::visit`] hands the concrete type to generic
/// code (one dispatch per run).
pub enum AnyIdentifier {
    /// LUCB1.
    Lucb1(Lucb1),
    /// lil'UCB.
    LilUcb(LilUcb),
    /// lil'LUCB.
    LilLucb(LilLucb),
    /// LUCB++.
    LucbPlusPlus(LucbPlusPlus),
    /// lil'RandLUCB.
    LilRandLucb(LilRandLucb),
    /// lil'CLUCB.
    LilClucb(LilClucb),
    /// An algorithm written outside specprobe.
    Custom(Box<dyn Identifier>),
}

/// A built algorithm of any kind is an algorithm (a match per call; the engine itself uses
/// [`AnyIdentifier::visit`] and dispatches once per run). Lets a user wrap a built-in one.
impl Identifier for AnyIdentifier {
    fn next(&mut self, rng: &mut SimRng) -> Option<usize> {
        any_identifier!(self, a => a.next(rng))
    }
    fn observe(&mut self, arm: usize, reward: f64) {
        any_identifier!(self, a => a.observe(arm, reward))
    }
    fn answer(&self, out: &mut Vec<usize>) {
        any_identifier!(self, a => a.answer(out))
    }
}

/// Runs `$body` with `$a` bound to the concrete algorithm inside an [`AnyIdentifier`].
macro_rules! any_identifier {
    ($value:expr, $a:ident => $body:expr) => {
        match $value {
            AnyIdentifier::Lucb1($a) => $body,
            AnyIdentifier::LilUcb($a) => $body,
            AnyIdentifier::LilLucb($a) => $body,
            AnyIdentifier::LucbPlusPlus($a) => $body,
            AnyIdentifier::LilRandLucb($a) => $body,
            AnyIdentifier::LilClucb($a) => $body,
            AnyIdentifier::Custom($a) => $body,
        }
    };
}
use any_identifier;

impl std::fmt::Debug for AnyIdentifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            AnyIdentifier::Lucb1(_) => "Lucb1",
            AnyIdentifier::LilUcb(_) => "LilUcb",
            AnyIdentifier::LilLucb(_) => "LilLucb",
            AnyIdentifier::LucbPlusPlus(_) => "LucbPlusPlus",
            AnyIdentifier::LilRandLucb(_) => "LilRandLucb",
            AnyIdentifier::LilClucb(_) => "LilClucb",
            AnyIdentifier::Custom(_) => "Custom",
        };
        f.write_str(name)
    }
}

/// Generic code that runs with a concrete algorithm type.
pub trait IdentifierVisitor {
    /// What the visit returns.
    type Output;
    /// Runs with the concrete algorithm.
    fn visit<I: Identifier>(self, algorithm: I) -> Self::Output;
}

impl AnyIdentifier {
    /// Dispatches once to the concrete type.
    pub fn visit<V: IdentifierVisitor>(self, v: V) -> V::Output {
        any_identifier!(self, a => v.visit(a))
    }
}
