//! The system reward of many users (Shi, Xiong, Shen & Yang, "Heterogeneous Multi-player
//! Multi-armed Bandits: Closing the Gap and Generalization", NeurIPS 2021, section 5): what the
//! users earn together in a slot, from each user's reward `r_u` (1 for a transmission
//! acknowledged on an idle channel, 0 otherwise):
//! - `Linear` (the default): `Σ_u r_u`, the classic system reward;
//! - `MaxMin`: `min_u r_u`, max-min fairness: the slot counts only when every user earned;
//! - `ProportionalFairness(epsilon)`: `Σ_u ln(ε + r_u)`, proportional fairness (the BEACON
//!   repository's ε = 0.01 by default).
//!
//! Its benchmark is the assignment of distinct channels to the users of largest *expected*
//! system reward. Users on distinct channels earn independently (each channel its own path),
//! user u on channel k with probability `s_uk` (idle and sensed idle), so the expectations
//! are `Σ s`, `Π s` and `Σ [s ln(1 + ε) + (1 − s) ln ε]`: a max-weight matching on `s`, on
//! `ln s` and on `s` again ([`super::matching`]). A scenario's realised regret is then
//! `Σ_t f(benchmark's rewards) − f(users' rewards)` on the same paths.

use crate::util::math;
use serde::{Deserialize, Serialize};

/// How the users' rewards of a slot combine (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) enum SystemReward {
    /// `Σ r_u`.
    #[default]
    Linear,
    /// `min_u r_u`.
    MaxMin,
    /// `Σ ln(ε + r_u)`.
    ProportionalFairness {
        /// ε > 0 (default 0.01).
        #[serde(default = "default_epsilon")]
        epsilon: f64,
    },
}

fn default_epsilon() -> f64 {
    0.01
}

/// A success probability below this counts as 0 in the max-min matching's `ln s` (a finite
/// weight, so that the matching avoids it where it can).
const TINY: f64 = 1e-300;

impl SystemReward {
    /// Whether it is the classic sum (which every other measure of the engine already is).
    pub(crate) fn is_linear(&self) -> bool {
        *self == SystemReward::Linear
    }

    /// Its name in `summary.json` and reports.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            SystemReward::Linear => "linear",
            SystemReward::MaxMin => "max_min",
            SystemReward::ProportionalFairness { .. } => "proportional_fairness",
        }
    }

    /// What it is, in words.
    pub(crate) fn describe(&self) -> String {
        match self {
            SystemReward::Linear => "Σ_u r_u".into(),
            SystemReward::MaxMin => "min_u r_u (max-min fairness)".into(),
            SystemReward::ProportionalFairness { epsilon } => {
                format!("Σ_u ln({epsilon} + r_u) (proportional fairness)")
            }
        }
    }

    /// The rule its parameter breaks, if any.
    pub(crate) fn check(&self) -> Option<String> {
        match self {
            SystemReward::ProportionalFairness { epsilon }
                if !(epsilon.is_finite() && *epsilon > 0.0 && *epsilon <= 1e6) =>
            {
                Some(format!(
                    "ProportionalFairness: epsilon must lie in (0, 1e6] (ln(ε + r) of a reward of 0 must be finite; got {epsilon})"
                ))
            }
            _ => None,
        }
    }

    /// The slot's system reward of the users' rewards `r` (one per user).
    #[inline]
    pub(crate) fn of(&self, r: &[f64]) -> f64 {
        match self {
            SystemReward::Linear => {
                let mut sum = 0.0;
                for &x in r {
                    sum += x;
                }
                sum
            }
            SystemReward::MaxMin => r.iter().copied().fold(f64::INFINITY, f64::min),
            SystemReward::ProportionalFairness { epsilon } => {
                let mut sum = 0.0;
                for &x in r {
                    sum += math::ln(epsilon + x);
                }
                sum
            }
        }
    }

    /// The expected system reward of users earning independently, user u with probability
    /// `p[u]` (a silent user: 0).
    pub(crate) fn expected(&self, p: &[f64]) -> f64 {
        match self {
            SystemReward::Linear => p.iter().sum(),
            SystemReward::MaxMin => p.iter().product(),
            SystemReward::ProportionalFairness { epsilon } => {
                let (hit, miss) = (math::ln(1.0 + epsilon), math::ln(*epsilon));
                p.iter().map(|&q| q * hit + (1.0 - q) * miss).sum()
            }
        }
    }

    /// The assignment of distinct channels to users of largest expected system reward, user
    /// u earning `value[u][k]` on channel k (`None`: silent): see the module docs. `Linear`
    /// leaves silent a user whose every value is not positive (its values may be net of
    /// costs); the others assign every user they can.
    pub(crate) fn assign(&self, value: &[Vec<f64>], channels: usize) -> Vec<Option<usize>> {
        let users = value.len();
        match self {
            SystemReward::Linear => super::matching::assign_positive(value, channels),
            SystemReward::ProportionalFairness { .. } => {
                // Linear in s with slope ln((1 + ε)/ε) > 0: the matching on s, every user
                // with a channel of positive s placed.
                super::matching::assign_positive(value, channels)
            }
            SystemReward::MaxMin if users > channels => {
                // Some user is silent whatever the assignment: the minimum is 0. Any
                // assignment is optimal; the linear one is as good as any.
                super::matching::assign_positive(value, channels)
            }
            SystemReward::MaxMin => {
                let col = super::matching::max_weight(users, channels, |u, k| {
                    math::ln(value[u][k].max(TINY))
                });
                col.into_iter().map(Some).collect()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_rewards_and_their_expectations() {
        let pf = SystemReward::ProportionalFairness { epsilon: 0.01 };
        assert_eq!(SystemReward::Linear.of(&[1.0, 0.0, 1.0]), 2.0);
        assert_eq!(SystemReward::MaxMin.of(&[1.0, 0.0, 1.0]), 0.0);
        assert_eq!(SystemReward::MaxMin.of(&[1.0, 1.0]), 1.0);
        assert!((pf.of(&[1.0, 0.0]) - (math::ln(1.01f64) + math::ln(0.01f64))).abs() < 1e-15);
        assert!((SystemReward::MaxMin.expected(&[0.5, 0.4]) - 0.2).abs() < 1e-15);
        let e = pf.expected(&[0.5]);
        assert!((e - (0.5 * math::ln(1.01f64) + 0.5 * math::ln(0.01f64))).abs() < 1e-15);
        assert!(pf.check().is_none());
        assert!(
            SystemReward::ProportionalFairness { epsilon: 0.0 }
                .check()
                .is_some()
        );
    }

    /// The max-min matching maximises the product, which the linear one need not: here the
    /// sum is best with (0.9, 0.15) and the product with (0.5, 0.5).
    #[test]
    fn max_min_maximises_the_product() {
        let value = vec![vec![0.9, 0.5], vec![0.5, 0.15]];
        let lin = SystemReward::Linear.assign(&value, 2);
        assert_eq!(lin, vec![Some(0), Some(1)]);
        let mm = SystemReward::MaxMin.assign(&value, 2);
        assert_eq!(mm, vec![Some(1), Some(0)]);
    }

    /// Brute force over every assignment of distinct channels agrees with the matching for
    /// the product (M ≤ K ≤ 6).
    #[test]
    fn the_max_min_matching_equals_brute_force() {
        use rand::RngExt;
        let mut rng = crate::util::rng::stream(7, 0, 0);
        for _ in 0..200 {
            let users = rng.random_range(1..=4usize);
            let channels = rng.random_range(users..=6usize);
            let value: Vec<Vec<f64>> = (0..users)
                .map(|_| (0..channels).map(|_| rng.random::<f64>()).collect())
                .collect();
            fn best(u: usize, used: &mut Vec<bool>, v: &[Vec<f64>]) -> f64 {
                if u == v.len() {
                    return 1.0;
                }
                let mut b: f64 = 0.0;
                for c in 0..used.len() {
                    if !used[c] {
                        used[c] = true;
                        b = b.max(v[u][c] * best(u + 1, used, v));
                        used[c] = false;
                    }
                }
                b
            }
            let want = best(0, &mut vec![false; channels], &value);
            let got: f64 = SystemReward::MaxMin
                .assign(&value, channels)
                .iter()
                .enumerate()
                .map(|(u, c)| value[u][c.unwrap()])
                .product();
            assert!((got - want).abs() <= 1e-12 * want, "{got} vs {want}");
        }
    }
}
