//! The RON schema exactly as written in scenario files. Nothing here is trusted: `check`
//! turns these into the checked types of the parent module.

use crate::cost::CostWeights;
use crate::law::LawSpec;
use crate::policy::PolicySpec;
use crate::stats::CheckpointSpec;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A scenario file: its top-level value names the experiment kind.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub enum RawScenario {
    /// A regret experiment (the cost-aware cascading bandit).
    Regret(RawRegret),
}

fn one() -> u64 {
    1
}

/// `Regret( ... )`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawRegret {
    /// Names the scenario in outputs and the default output folder.
    pub name: String,
    /// Free text shown in the report.
    #[serde(default)]
    pub description: String,
    /// Seed of every random stream.
    #[serde(default)]
    pub seed: u64,
    /// Slots per run, T.
    pub horizon: u64,
    /// Monte Carlo runs per policy, R.
    pub runs: u64,
    /// Where curves are recorded.
    #[serde(default)]
    pub checkpoints: CheckpointSpec,
    /// Units of energy and delay, for reports.
    #[serde(default)]
    pub units: RawUnits,
    /// Weights of energy and delay in the bandit cost.
    #[serde(default)]
    pub weights: CostWeights,
    /// The channels (one experiment); exclusive with `grid`.
    #[serde(default)]
    pub channels: Vec<RawChannel>,
    /// Several channel configurations run with the same policies; exclusive with `channels`.
    #[serde(default)]
    pub grid: Vec<RawConfiguration>,
    /// The policies, each with a label unique in the scenario.
    pub policies: Vec<RawPolicy>,
}

/// Units shown on charts and tables.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RawUnits {
    /// Energy unit, e.g. `"mJ"`.
    #[serde(default)]
    pub energy: String,
    /// Delay unit, e.g. `"ms"`.
    #[serde(default)]
    pub delay: String,
}

/// One channel entry; `count` repeats it.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawChannel {
    /// How many identical channels this entry stands for (default 1).
    #[serde(default = "one")]
    pub count: u64,
    /// Probability of being idle in a slot.
    pub theta: f64,
    /// The paper's single cost law; exclusive with `energy`/`delay`.
    #[serde(default)]
    pub cost: Option<LawSpec>,
    /// Energy per probe (a missing `delay` is zero).
    #[serde(default)]
    pub energy: Option<LawSpec>,
    /// Delay per probe (a missing `energy` is zero).
    #[serde(default)]
    pub delay: Option<LawSpec>,
}

/// One configuration of a grid.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawConfiguration {
    /// Unique label, shown in outputs.
    pub label: String,
    /// The channels.
    pub channels: Vec<RawChannel>,
    /// Published values of the final regret per policy label, for comparison in reports.
    #[serde(default)]
    pub reference: BTreeMap<String, f64>,
}

/// One policy entry.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawPolicy {
    /// Label in outputs (default: the policy's canonical name).
    #[serde(default)]
    pub label: Option<String>,
    /// The policy and its parameters.
    pub policy: PolicySpec,
}
