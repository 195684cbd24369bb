//! Probing cost: energy and delay, combined into the bandit cost `Y = w_E·E + w_D·D ∈ [0, 1]`.
//!
//! A channel either gives the paper's single cost law (`cost: Bernoulli(0.55)`), or separate
//! energy and delay laws that the scenario's weights combine. A plain cost is recorded as energy
//! in cost units (`w_E = 1`) with zero delay, so that energy curves stay meaningful for the
//! paper's scenarios.

use crate::model::law::Law;
use serde::{Deserialize, Serialize};

/// Weights that turn energy and delay into the bandit cost.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CostWeights {
    /// Weight of one unit of energy (w_E ≥ 0).
    #[serde(default = "one")]
    pub energy: f64,
    /// Weight of one unit of delay (w_D ≥ 0).
    #[serde(default = "one")]
    pub delay: f64,
}

fn one() -> f64 {
    1.0
}

impl Default for CostWeights {
    fn default() -> Self {
        CostWeights {
            energy: 1.0,
            delay: 1.0,
        }
    }
}

/// What one probe cost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct ProbeCost {
    /// Energy spent, in the scenario's energy unit.
    pub energy: f64,
    /// Delay incurred, in the scenario's delay unit.
    pub delay: f64,
    /// The bandit cost `Y ∈ [0, 1]` the policy observes.
    pub cost: f64,
}

/// A channel's checked cost model.
#[derive(Clone, Debug)]
pub(crate) enum CostModel {
    /// The paper's single cost law.
    Plain(Law),
    /// Separate energy and delay laws, weighted into the bandit cost (boxed: twice a plain
    /// law's size, and a scenario may declare 2¹⁸ channels).
    Split(Box<SplitCost>),
}

/// Separate energy and delay laws, weighted into the bandit cost.
#[derive(Clone, Debug)]
pub(crate) struct SplitCost {
    /// Energy per probe.
    pub(crate) energy: Law,
    /// Delay per probe.
    pub(crate) delay: Law,
    /// The scenario's weights.
    pub(crate) weights: CostWeights,
}

impl CostModel {
    /// Exact mean bandit cost `c = E[Y]`.
    pub(crate) fn mean(&self) -> f64 {
        match self {
            CostModel::Plain(law) => law.mean(),
            CostModel::Split(split) => {
                let (energy, delay, weights) = (&split.energy, &split.delay, &split.weights);
                weights.energy * energy.mean() + weights.delay * delay.mean()
            }
        }
    }

    /// Exact mean energy per probe (a plain cost counts as energy).
    pub(crate) fn mean_energy(&self) -> f64 {
        match self {
            CostModel::Plain(law) => law.mean(),
            CostModel::Split(split) => split.energy.mean(),
        }
    }

    /// Exact mean delay per probe (zero for a plain cost).
    pub(crate) fn mean_delay(&self) -> f64 {
        match self {
            CostModel::Plain(_) => 0.0,
            CostModel::Split(split) => split.delay.mean(),
        }
    }

    /// Smallest interval that holds every value of `Y` (weights are non-negative).
    pub(crate) fn support(&self) -> (f64, f64) {
        match self {
            CostModel::Plain(law) => law.support(),
            CostModel::Split(split) => {
                let (energy, delay, weights) = (&split.energy, &split.delay, &split.weights);
                let (elo, ehi) = energy.support();
                let (dlo, dhi) = delay.support();
                (
                    weights.energy * elo + weights.delay * dlo,
                    weights.energy * ehi + weights.delay * dhi,
                )
            }
        }
    }

    /// Smallest interval that holds every delay of a probe (zero for a plain cost).
    pub(crate) fn delay_support(&self) -> (f64, f64) {
        match self {
            CostModel::Plain(_) => (0.0, 0.0),
            CostModel::Split(split) => split.delay.support(),
        }
    }

    /// The cost of a probe in slot `t`, from the channel's counter streams (`key` for the
    /// energy or plain cost, `delay_key` for the delay): the same for every player.
    #[inline]
    pub(crate) fn sample_at(&self, key: u64, delay_key: u64, t: u64) -> ProbeCost {
        match self {
            CostModel::Plain(law) => {
                let y = law.sample_at(key, t);
                ProbeCost {
                    energy: y,
                    delay: 0.0,
                    cost: y,
                }
            }
            CostModel::Split(split) => {
                let (energy, delay, weights) = (&split.energy, &split.delay, &split.weights);
                let e = energy.sample_at(key, t);
                let d = delay.sample_at(delay_key, t);
                ProbeCost {
                    energy: e,
                    delay: d,
                    cost: weights.energy * e + weights.delay * d,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::law::LawSpec;

    #[test]
    fn split_cost_mean_and_support_follow_the_weights() {
        let model = CostModel::Split(Box::new(SplitCost {
            energy: Law::new(&LawSpec::Uniform { lo: 1.0, hi: 3.0 }).unwrap(),
            delay: Law::new(&LawSpec::Constant(2.0)).unwrap(),
            weights: CostWeights {
                energy: 0.1,
                delay: 0.2,
            },
        }));
        assert!((model.mean() - (0.1 * 2.0 + 0.2 * 2.0)).abs() < 1e-15);
        let (lo, hi) = model.support();
        assert!((lo - 0.5).abs() < 1e-15 && (hi - 0.7).abs() < 1e-15);
        for t in 0..1000 {
            let c = model.sample_at(3, 4, t);
            assert!((c.cost - (0.1 * c.energy + 0.2 * c.delay)).abs() < 1e-15);
            assert!((lo..=hi).contains(&c.cost));
        }
    }

    #[test]
    fn plain_cost_is_energy_in_cost_units() {
        let model = CostModel::Plain(Law::new(&LawSpec::Constant(0.4)).unwrap());
        let c = model.sample_at(0, 0, 1);
        assert_eq!((c.energy, c.delay, c.cost), (0.4, 0.0, 0.4));
        assert_eq!(model.mean_delay(), 0.0);
    }
}
