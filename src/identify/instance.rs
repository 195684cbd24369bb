//! Identification instances: the arms' means (from the paper's families, an explicit list or the
//! channels of a regret scenario) and their reward laws.

use crate::util::math;
use rand::Rng;
use rand::distr::{Bernoulli, Distribution};
use rand_distr::Normal;
use serde::{Deserialize, Serialize};

/// How the arms' means are generated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) enum Family {
    /// "1-sparse": the top K arms have mean 1/2, the others 0 (Top-K and, with K = 1, Best-1).
    OneSparse,
    /// "α-Exponential" (Top-K): `μ_i = (N−K)/N + (K/N)((K−i)/K)^α` for `i ≤ K`,
    /// `μ_i = (N−K)/N − ((N−K)/N)((i−K)/(N−K))^α` for `i > K`.
    Exponential {
        /// The exponent α.
        alpha: f64,
    },
    /// "lil-Exponential" (Best-1, from lil'UCB): `μ_1 = 1`, `μ_i = 1 − ((i−1)/N)^α` for `i > 1`.
    LilExponential {
        /// The exponent α.
        alpha: f64,
    },
    /// Explicit means, one per arm.
    Means(Vec<f64>),
    /// The idle probabilities θ of a regret scenario's channels (the first channel list, or the
    /// grid configuration named by `configuration`); a path relative to this scenario's folder.
    Channels {
        /// The regret scenario file.
        scenario: String,
        /// The grid configuration's label (grids only).
        #[serde(default)]
        configuration: Option<String>,
    },
}

impl Family {
    /// A short name for outputs.
    pub(crate) fn describe(&self) -> String {
        match self {
            Family::OneSparse => "1-sparse".into(),
            Family::Exponential { alpha } => format!("{alpha}-exponential"),
            Family::LilExponential { alpha } => format!("lil-exponential α={alpha}"),
            Family::Means(m) => format!("explicit ({} arms)", m.len()),
            Family::Channels { scenario, .. } => format!("channels of {scenario}"),
        }
    }

    /// The means for `n` arms and top `k` (generated families; `Means`/`Channels` are resolved
    /// by the scenario loader).
    pub(crate) fn means(&self, n: usize, k: usize) -> Vec<f64> {
        let (nf, kf) = (n as f64, k as f64);
        match self {
            Family::OneSparse => (0..n).map(|i| if i < k { 0.5 } else { 0.0 }).collect(),
            Family::Exponential { alpha } => (1..=n)
                .map(|i| {
                    let i = i as f64;
                    if i <= kf {
                        (nf - kf) / nf + (kf / nf) * math::powf((kf - i) / kf, *alpha)
                    } else {
                        (nf - kf) / nf - ((nf - kf) / nf) * math::powf((i - kf) / (nf - kf), *alpha)
                    }
                })
                .collect(),
            Family::LilExponential { alpha } => (1..=n)
                .map(|i| {
                    if i == 1 {
                        1.0
                    } else {
                        1.0 - math::powf((i - 1) as f64 / nf, *alpha)
                    }
                })
                .collect(),
            Family::Means(m) => m.clone(),
            Family::Channels { .. } => Vec::new(),
        }
    }
}

/// `1st`, `2nd`, `3rd`, `4th`, …, `11th`, `12th`, `13th`, `21st`.
pub(crate) fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The reward law of a sample.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) enum Rewards {
    /// Normal with the arm's mean and this variance (the paper: 1/4).
    Gaussian {
        /// Variance σ².
        variance: f64,
    },
    /// Bernoulli with the arm's mean (a channel probe: idle or busy).
    Bernoulli,
}

impl Rewards {
    /// Sub-Gaussian parameter σ used by the confidence radii (1/2 for Bernoulli).
    pub(crate) fn sigma(self) -> f64 {
        match self {
            Rewards::Gaussian { variance } => variance.sqrt(),
            Rewards::Bernoulli => 0.5,
        }
    }
}

#[derive(Clone, Debug)]
enum Sampler {
    Gaussian(Normal<f64>),
    Bernoulli(Bernoulli),
}

/// A checked instance: means, samplers, and the true top-K set.
#[derive(Clone, Debug)]
pub(crate) struct Arms {
    means: Vec<f64>,
    k: usize,
    samplers: Vec<Sampler>,
    best: Vec<bool>,
    rewards: Rewards,
}

impl Arms {
    /// Builds the arms; fails (with the rule) when the law rejects a mean or when the top-K set
    /// is not unique (`μ_[K] = μ_[K+1]`).
    pub(crate) fn new(means: Vec<f64>, k: usize, rewards: Rewards) -> Result<Arms, String> {
        let n = means.len();
        if !(1..n).contains(&k) {
            return Err(format!("K = {k} must satisfy 1 ≤ K < N = {n}"));
        }
        if let Some((i, m)) = means.iter().enumerate().find(|(_, m)| !m.is_finite()) {
            return Err(format!("mean of arm {i} is not finite ({m})"));
        }
        let samplers = means
            .iter()
            .enumerate()
            .map(|(i, &m)| match rewards {
                Rewards::Gaussian { variance } => Normal::new(m, variance.sqrt())
                    .map(Sampler::Gaussian)
                    .map_err(|_| format!("variance {variance} is not a valid Gaussian variance")),
                Rewards::Bernoulli => Bernoulli::new(m).map(Sampler::Bernoulli).map_err(|_| {
                    format!("mean of arm {i} is {m}: Bernoulli rewards need means in [0, 1]")
                }),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut sorted = means.clone();
        sorted.sort_by(|a, b| b.total_cmp(a));
        let (kth, next) = (sorted[k - 1], sorted[k]);
        if kth == next {
            return Err(format!(
                "the top-{k} set is not unique: the {} and {} largest means are both {kth}",
                ordinal(k),
                ordinal(k + 1)
            ));
        }
        let best = means.iter().map(|&m| m >= kth).collect();
        Ok(Arms {
            means,
            k,
            samplers,
            best,
            rewards,
        })
    }

    /// Number of arms, N.
    pub(crate) fn len(&self) -> usize {
        self.means.len()
    }

    /// Size of the set to identify.
    pub(crate) fn k(&self) -> usize {
        self.k
    }

    /// The means.
    pub(crate) fn means(&self) -> &[f64] {
        &self.means
    }

    /// The reward law.
    pub(crate) fn rewards(&self) -> Rewards {
        self.rewards
    }

    /// The true top-K set: the arms' indices (as in `means[i]`, from 0), ascending.
    pub(crate) fn top_set(&self) -> Vec<usize> {
        (0..self.len()).filter(|&i| self.best[i]).collect()
    }

    /// Whether `answer` is exactly the true top-K set.
    pub(crate) fn is_correct(&self, answer: &[usize]) -> bool {
        answer.len() == self.k && answer.iter().all(|&a| self.best[a])
    }

    /// The complexity `H = Σ Δ_i⁻²` of the instance (gaps as defined in the paper).
    pub(crate) fn complexity(&self) -> f64 {
        let mut sorted = self.means.clone();
        sorted.sort_by(|a, b| b.total_cmp(a));
        let (kth, next) = (sorted[self.k - 1], sorted[self.k]);
        self.means
            .iter()
            .map(|&m| {
                let gap = if m >= kth { m - next } else { kth - m };
                1.0 / (gap * gap)
            })
            .sum()
    }

    /// Draws one sample of arm `i`.
    #[inline]
    pub(crate) fn sample<R: Rng + ?Sized>(&self, i: usize, rng: &mut R) -> f64 {
        match &self.samplers[i] {
            Sampler::Gaussian(d) => d.sample(rng),
            Sampler::Bernoulli(d) => {
                if d.sample(rng) {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_follow_the_papers_definitions() {
        assert_eq!(Family::OneSparse.means(4, 2), vec![0.5, 0.5, 0.0, 0.0]);
        // α-exponential with N = 4, K = 2, α = 1: 3/4 boundary... (N−K)/N = 0.5:
        // i=1: 0.5 + 0.5·(1/2) = 0.75; i=2: 0.5; i=3: 0.5 − 0.5·(1/2) = 0.25; i=4: 0.
        assert_eq!(
            Family::Exponential { alpha: 1.0 }.means(4, 2),
            vec![0.75, 0.5, 0.25, 0.0]
        );
        // lil-exponential with N = 4, α = 1: 1, 1 − 1/4, 1 − 2/4, 1 − 3/4.
        assert_eq!(
            Family::LilExponential { alpha: 1.0 }.means(4, 1),
            vec![1.0, 0.75, 0.5, 0.25]
        );
        let exp = Family::Exponential { alpha: 0.3 }.means(100, 50);
        assert!(exp.windows(2).all(|w| w[0] > w[1]), "strictly decreasing");
    }

    #[test]
    fn top_k_must_be_unique_and_answers_are_checked() {
        assert!(
            Arms::new(vec![0.5, 0.5, 0.1], 1, Rewards::Bernoulli)
                .unwrap_err()
                .contains("not unique")
        );
        assert!(
            Arms::new(vec![0.5, 1.5], 1, Rewards::Bernoulli)
                .unwrap_err()
                .contains("[0, 1]")
        );
        let arms = Arms::new(vec![0.2, 0.9, 0.5], 2, Rewards::Gaussian { variance: 0.25 }).unwrap();
        assert!(arms.is_correct(&[2, 1]));
        assert!(!arms.is_correct(&[0, 1]));
        // H = Σ Δ⁻²: gaps 0.3 (arm 0 vs μ_[2] = 0.5), 0.7 and 0.3 (vs μ_[3] = 0.2).
        let h = 1.0 / 0.09 + 1.0 / 0.49 + 1.0 / 0.09;
        assert!((arms.complexity() - h).abs() < 1e-9);
    }
}
