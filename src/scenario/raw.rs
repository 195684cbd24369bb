//! The RON schema exactly as written in scenario files. Nothing here is trusted: `check`
//! turns these into the checked types of the parent module.

use crate::identify::AlgorithmSpec;
use crate::identify::confidence::Setting;
use crate::identify::instance::{Family, Rewards};
use crate::model::cost::CostWeights;
use crate::model::law::LawSpec;
pub(crate) use crate::model::occupancy::OccupancySpec;
use crate::model::sensing::RawSensing;
use crate::model::system_reward::SystemReward;
use crate::model::time_left::TimeLeftSpec;
use crate::multi::{Collision, Feedback, TeamSpec, Timing};
use crate::policy::PolicySpec;
use crate::util::stats::CheckpointSpec;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Declares [`RawScenario`], one variant per experiment kind that has a file form of its own,
/// from the list of the kinds (`experiment_kinds!`, in `lib.rs`).
macro_rules! raw_scenario {
    ($d:tt $(
        $(#[$doc:meta])* $kind:ident($s:path, $r:path, $b:path $(, raw $raw:path)? $(, writes $file:literal swept $swept:literal)?),
    )*) => {
        /// A scenario file: its top-level value names the experiment kind.
        #[derive(Clone, Debug, Deserialize, Serialize)]
        pub(crate) enum RawScenario {
            $($(
                #[doc = concat!("`", stringify!($kind), "( ... )`.")]
                $kind($raw),
            )?)*
        }
    };
}

experiment_kinds!($ raw_scenario);

fn default_confidence() -> f64 {
    0.01
}
fn default_settings() -> Vec<Setting> {
    vec![Setting::Faithful, Setting::Heuristic]
}
fn default_faithful_epsilon() -> f64 {
    0.01
}
fn default_sample_cap() -> u64 {
    100_000_000
}

/// `Identification( ... )`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawIdentification {
    /// Names the scenario in outputs and the default output folder.
    pub name: String,
    /// Free text shown in the report.
    #[serde(default)]
    pub description: String,
    /// Seed of every random stream.
    #[serde(default)]
    pub seed: u64,
    /// Runs per (instance, N, algorithm, setting).
    pub runs: u64,
    /// The required error probability ν (default 0.01, as in the paper).
    #[serde(default = "default_confidence")]
    pub confidence: f64,
    /// Faithful and/or heuristic parameters (default both).
    #[serde(default = "default_settings")]
    pub settings: Vec<Setting>,
    /// ε of the LIL radius in the faithful setting (default 0.01).
    #[serde(default = "default_faithful_epsilon")]
    pub faithful_epsilon: f64,
    /// Samples after which a run is stopped and counted as capped (default 10⁸).
    #[serde(default = "default_sample_cap")]
    pub sample_cap: u64,
    /// Reward law of every instance that gives none (default Gaussian with variance 1/4).
    #[serde(default)]
    pub rewards: Option<Rewards>,
    /// The instances.
    pub instances: Vec<RawInstance>,
    /// The algorithms.
    pub algorithms: Vec<AlgorithmSpec>,
    /// Runs the scenario at several values of one field (see [`super::sweep`]).
    #[serde(default)]
    pub sweep: Option<RawSweep>,
}

/// One instance family swept over numbers of arms.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawInstance {
    /// Unique label.
    pub label: String,
    /// How the means are generated.
    pub family: Family,
    /// How many arms to identify.
    pub k: KRule,
    /// Numbers of arms N to sweep (generated families only).
    #[serde(default)]
    pub arms: Vec<u64>,
    /// Reward law (default: the scenario's; Bernoulli for `Channels`).
    #[serde(default)]
    pub rewards: Option<Rewards>,
}

/// The size K of the set to identify.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub(crate) enum KRule {
    /// A fixed K.
    Fixed(u64),
    /// K = N/2 (rounded down).
    Half,
}

impl KRule {
    /// K for N arms.
    pub(crate) fn k(self, n: u64) -> u64 {
        match self {
            KRule::Fixed(k) => k,
            KRule::Half => n / 2,
        }
    }
}

fn one() -> u64 {
    1
}

/// What a transmission earns: `Unit` (1 on an idle channel, the papers'), or the rate times
/// the slot left after the probes (`TimeLeft(..)`, see [`crate::model::time_left`]).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub(crate) enum RewardSpec {
    /// 1 on an idle channel.
    #[default]
    Unit,
    /// The rate times the fraction of the slot left.
    TimeLeft(TimeLeftSpec),
}

/// `Regret( ... )`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRegret {
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
    /// Probe timing inside a slot (default: every probe at the slot's start, no limit).
    #[serde(default)]
    pub slot: Option<SlotSpec>,
    /// What a transmission earns (default 1 on an idle channel).
    #[serde(default)]
    pub reward: Option<RewardSpec>,
    /// The policy label paired differences are measured against (default: the first policy).
    #[serde(default)]
    pub reference: Option<String>,
    /// The channels (one experiment); exclusive with `grid`.
    #[serde(default)]
    pub channels: Vec<RawChannel>,
    /// Several channel configurations run with the same policies; exclusive with `channels`.
    #[serde(default)]
    pub grid: Vec<RawConfiguration>,
    /// The policies, each with a label unique in the scenario.
    pub policies: Vec<RawPolicy>,
    /// Runs the scenario at several values of one field.
    #[serde(default)]
    pub sweep: Option<RawSweep>,
}

/// The header every slotted experiment shares (name, horizon, runs, checkpoints, cost weights,
/// the slot's length), borrowed from its raw scenario so that one checker reads it for every
/// kind. The raw structs keep these fields inline because serde's `flatten` cannot be combined
/// with `deny_unknown_fields`, which names a misspelt field.
pub(crate) struct RawHeader<'a> {
    /// `name`.
    pub name: &'a str,
    /// `description`.
    pub description: &'a str,
    /// `seed`.
    pub seed: u64,
    /// `units`.
    pub units: &'a RawUnits,
    /// `horizon`, in slots.
    pub horizon: u64,
    /// `runs`.
    pub runs: u64,
    /// `checkpoints`.
    pub checkpoints: &'a CheckpointSpec,
    /// `weights`.
    pub weights: &'a CostWeights,
    /// `slot`.
    pub slot: Option<&'a SlotSpec>,
}

/// `header()` for raw scenarios that declare the header's fields inline (under the same
/// names), written once.
macro_rules! raw_header {
    ($($raw:ty),*) => {$(
        impl $raw {
            /// This scenario's shared header.
            pub(crate) fn header(&self) -> RawHeader<'_> {
                RawHeader {
                    name: &self.name,
                    description: &self.description,
                    seed: self.seed,
                    units: &self.units,
                    horizon: self.horizon,
                    runs: self.runs,
                    checkpoints: &self.checkpoints,
                    weights: &self.weights,
                    slot: self.slot.as_ref(),
                }
            }
        }
    )*};
}

raw_header!(RawRegret, RawMultiUser);

/// `slot: (duration: 10.0)`: the slot's length in the delay's units. Probe k of a slot happens
/// after the delays of the probes before it; a probe that would start after the slot ends is
/// not made.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct SlotSpec {
    /// Slot length in delay units (> 0).
    pub duration: f64,
}

/// `sweep: (field: "...", values: [...])`: see [`super::sweep`].
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSweep {
    /// The field, named as errors name fields.
    pub field: String,
    /// The values, one cell each.
    pub values: Vec<f64>,
    /// The charts' title for the swept value (default: the field path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// A logarithmic axis for the swept value (default: when the values are positive and span
    /// 20× or more).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<bool>,
}

/// Units shown on charts and tables.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawUnits {
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
pub(crate) struct RawChannel {
    /// How many identical channels this entry stands for (default 1).
    #[serde(default = "one")]
    pub count: u64,
    /// Probability of being idle in a slot, i.i.d. (the papers' setting); exclusive with
    /// `occupancy`.
    #[serde(default)]
    pub theta: Option<f64>,
    /// An occupancy process; exclusive with `theta`.
    #[serde(default)]
    pub occupancy: Option<OccupancySpec>,
    /// Sensing error rates or an energy detector (default perfect).
    #[serde(default)]
    pub sensing: Option<RawSensing>,
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
pub(crate) struct RawConfiguration {
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
pub(crate) struct RawPolicy {
    /// Label in outputs (default: the policy's canonical name).
    #[serde(default)]
    pub label: Option<String>,
    /// The policy and its parameters.
    pub policy: PolicySpec,
}

/// `MultiUser( ... )` as written.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawMultiUser {
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
    /// Monte Carlo runs per policy.
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
    /// Probe timing inside a slot.
    #[serde(default)]
    pub slot: Option<SlotSpec>,
    /// What a transmission earns, for every user (default 1 on an idle channel).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reward: Option<RewardSpec>,
    /// Number of users, M.
    pub users: u64,
    /// How users sense each other (default `Synchronous`).
    #[serde(default)]
    pub timing: Timing,
    /// What happens when several users transmit on one channel (default `AllLost`).
    #[serde(default)]
    pub collision: Collision,
    /// What a user observes (default `SensingThenCollision`).
    #[serde(default)]
    pub feedback: Feedback,
    /// Per-user means (i.i.d. and Markov channels): one row per channel, one value per user
    /// (user 0's column repeats the channels' own long-run idle probability).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_theta: Option<Vec<Vec<f64>>>,
    /// How the users' rewards of a slot combine (default the sum).
    #[serde(default, skip_serializing_if = "SystemReward::is_linear")]
    pub system_reward: SystemReward,
    /// The policies see the channels under a uniform relabelling drawn at the start of every
    /// run, as the reference codes that shuffle their arms (default: as declared).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shuffle: bool,
    /// Adversaries that jam the users' transmissions (see [`crate::model::jamming`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jammers: Vec<crate::model::jamming::JammerSpec>,
    /// Runs the scenario at several values of one field (see [`super::sweep`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<RawSweep>,
    /// The channels.
    pub channels: Vec<RawChannel>,
    /// The multi-player policies, each with a label unique in the scenario.
    pub policies: Vec<RawTeam>,
}

/// One multi-player policy entry.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTeam {
    /// Label in outputs (default: the policy's canonical name).
    #[serde(default)]
    pub label: Option<String>,
    /// The policy every user runs.
    pub policy: TeamSpec,
}
