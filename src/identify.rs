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
mod crossed;
mod custom;
mod episode;
pub(crate) mod instance;
mod lazy_extreme;
pub(crate) mod lucb_core;
#[macro_use]
mod registry_macro;
mod stats;

pub(crate) use custom::Algorithm;
pub use custom::CustomIdentifier;
pub use custom::IdentifierFactory;
pub use custom::Problem;
pub(crate) use episode::IdentifyOutcome;
pub(crate) use episode::identify;
pub(crate) use stats::IdentifyStats;

use crate::util::rng::SimRng;

// The registry of built-in identification algorithms: one line per file, naming each algorithm
// as scenarios write it and its entry (a [`BuiltinIdentifier`]). From it come the
// `AlgorithmSpec` a scenario names, the built `AnyIdentifier` and its dispatch. A new
// algorithm is its file plus its line here.
builtin_identifiers! {
    lucb1::{Lucb1(Lucb1Entry)},
    lil_ucb::{LilUcb(LilUcbEntry)},
    lil_lucb::{LilLucb(LilLucbEntry)},
    lucb_pp::{LucbPlusPlus(LucbPlusPlusEntry)},
    lil_rand_lucb::{LilRandLucb(LilRandLucbEntry)},
    lil_clucb::{LilClucb(LilClucbEntry)},
}
use confidence::{Guarantee, Lil, Setting};

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

/// The scenario entry of a built-in identification algorithm: its names, its guarantee and
/// how it is built for a problem.
///
/// A new built-in algorithm is one file that defines the algorithm (an [`Identifier`]) and a
/// unit type implementing this trait, plus one line in the registry (`identify/registry.rs`):
/// the scenario name, the outputs' name, the parameter choice, the scenario checks and the
/// engine's static dispatch all come from there.
pub(crate) trait BuiltinIdentifier {
    /// The algorithm it builds.
    type Algorithm: Identifier;
    /// The name in outputs, e.g. `lil'UCB`.
    const LABEL: &'static str;
    /// How its error probability depends on δ (fixes δ in the faithful setting).
    const GUARANTEE: Guarantee;
    /// Whether it identifies only the single best arm (K = 1).
    const SINGLE_BEST: bool = false;

    /// Whether it runs in `setting` (an algorithm with no heuristic version in its paper
    /// does not).
    fn runs_in(_setting: Setting) -> bool {
        true
    }

    /// Builds it for one run (δ and ε already chosen in `problem.params`).
    fn build(problem: &Problem) -> Self::Algorithm;
}

/// The LIL radius of a problem: ε of its parameters, σ of its rewards.
pub(crate) fn lil_of(problem: &Problem) -> Lil {
    Lil {
        epsilon: problem.params.epsilon,
        sigma: problem.sigma,
    }
}

/// A built-in identification algorithm by its scenario name (`"LilRandLucb"`), built for a
/// problem: for an algorithm of your own that wraps or extends a built-in one.
pub fn builtin_identifier(name: &str, problem: &Problem) -> Result<Box<dyn Identifier>, String> {
    let spec: AlgorithmSpec = crate::util::ron_text::ron_options()
        .from_str(name)
        .map_err(|e| format!("{name:?} is not an identification algorithm: {e}"))?;
    Ok(Box::new(spec.build(problem)))
}

/// Generic code that runs with a concrete algorithm type.
pub(crate) trait IdentifierVisitor {
    /// What the visit returns.
    type Output;
    /// Runs with the concrete algorithm.
    fn visit<I: Identifier>(self, algorithm: I) -> Self::Output;
}
