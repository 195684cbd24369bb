//! `summary.json` for regret scenarios: the output contract of DESIGN.md, values at the horizon.
//!
//! A scenario with one channel list puts `policies`, `optimum` and `bounds` at the top level; a
//! grid lists them per configuration under `experiments`. The same types deserialise, so saved
//! results can be re-rendered (`specprobe plot`) and compared without simulating again.

use crate::recorder::{Metric, PolicyStats};
use crate::runner::RegretStats;
use crate::scenario::{RegretScenario, Units};
use crate::theory::{Bounds, Optimum};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The whole summary of a regret scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RegretSummary {
    /// Scenario name.
    pub scenario: String,
    /// Always `"regret"`.
    pub kind: String,
    /// Scenario description.
    #[serde(default)]
    pub description: String,
    /// Slots per run.
    pub horizon: u64,
    /// Runs per policy.
    pub runs: u64,
    /// Seed.
    pub seed: u64,
    /// Units of energy and delay.
    #[serde(default)]
    pub units: Units,
    /// One experiment or a grid of them.
    #[serde(flatten)]
    pub body: RegretBody,
}

impl RegretSummary {
    /// The experiments: one for a single channel list, one per configuration of a grid.
    pub fn experiments(&self) -> &[ExperimentSummary] {
        self.body.experiments()
    }
}

/// One experiment (fields at the top level) or several.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RegretBody {
    /// A grid: one entry per configuration.
    Grid {
        /// The configurations, in scenario order.
        experiments: Vec<ExperimentSummary>,
    },
    /// A single channel list.
    Single(ExperimentSummary),
}

impl RegretBody {
    /// The experiments, one for a single channel list.
    pub fn experiments(&self) -> &[ExperimentSummary] {
        match self {
            RegretBody::Grid { experiments } => experiments,
            RegretBody::Single(e) => std::slice::from_ref(e),
        }
    }
}

/// Results of every policy on one channel configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExperimentSummary {
    /// Configuration label (grids only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// One entry per policy, in scenario order.
    pub policies: Vec<PolicySummary>,
    /// The UCR-T1 list and its expected reward.
    pub optimum: Optimum,
    /// Theorems 2 and 3 for this instance.
    pub bounds: Bounds,
    /// The channels' exact parameters.
    pub channels: Vec<ChannelSummary>,
    /// Published final regrets by policy label, where the scenario gives them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub reference: BTreeMap<String, f64>,
}

/// Exact parameters of one channel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChannelSummary {
    /// Idle probability θ.
    pub theta: f64,
    /// Mean bandit cost c.
    pub mean_cost: f64,
    /// Mean energy per probe.
    pub mean_energy: f64,
    /// Mean delay per probe.
    pub mean_delay: f64,
}

/// Mean, standard deviation across runs and standard error of the mean.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stat {
    /// Mean across runs.
    pub mean: f64,
    /// Standard deviation across runs.
    pub std: f64,
    /// Standard error of the mean, `std/√runs`.
    pub stderr: f64,
}

/// Probes per slot over all slots of all runs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProbeStats {
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Maximum.
    pub max: f64,
}

/// One policy's results at the horizon.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicySummary {
    /// The label the scenario gives the policy.
    pub name: String,
    /// The policy and its parameters, in scenario syntax.
    pub policy: String,
    /// Cumulative pseudo-regret at the horizon.
    pub pseudo_regret: Stat,
    /// Cumulative realised regret at the horizon.
    pub realized_regret: Stat,
    /// Mean net reward per slot.
    pub reward_per_slot: f64,
    /// Mean energy per slot.
    pub energy_per_slot: f64,
    /// Mean delay per slot.
    pub delay_per_slot: f64,
    /// Mean bandit cost per slot.
    pub cost_per_slot: f64,
    /// Fraction of slots in which an idle channel was found.
    pub idle_found_per_slot: f64,
    /// Probes per slot.
    pub probes_per_slot: ProbeStats,
    /// Mean number of probes of each channel per run.
    pub channel_probes: Vec<f64>,
    /// `[probes in a slot, number of slots]` over all slots of all runs (from the hdrhistogram).
    #[serde(default)]
    pub probe_distribution: Vec<[u64; 2]>,
}

impl PolicySummary {
    /// Summarises one policy's statistics.
    pub fn new(name: &str, policy: String, stats: &PolicyStats, horizon: u64) -> PolicySummary {
        let runs = stats.runs.max(1) as f64;
        let stat = |m: Metric| {
            let v = stats.final_value(m);
            Stat {
                mean: v.mean,
                std: v.std,
                stderr: v.std / runs.sqrt(),
            }
        };
        let per_slot = |m: Metric| stats.final_value(m).mean / horizon as f64;
        let h = &stats.probes;
        PolicySummary {
            name: name.to_string(),
            policy,
            pseudo_regret: stat(Metric::PseudoRegret),
            realized_regret: stat(Metric::RealizedRegret),
            reward_per_slot: per_slot(Metric::Reward),
            energy_per_slot: per_slot(Metric::Energy),
            delay_per_slot: per_slot(Metric::Delay),
            cost_per_slot: per_slot(Metric::Cost),
            idle_found_per_slot: per_slot(Metric::IdleFound),
            probes_per_slot: ProbeStats {
                mean: per_slot(Metric::Probes),
                p50: h.value_at_quantile(0.5) as f64,
                p99: h.value_at_quantile(0.99) as f64,
                max: h.max() as f64,
            },
            channel_probes: stats
                .channel_probes
                .iter()
                .map(|&c| c as f64 / runs)
                .collect(),
            probe_distribution: stats
                .probe_counts()
                .into_iter()
                .map(|(v, c)| [v, c])
                .collect(),
        }
    }
}

/// Builds the summary of a finished regret scenario.
pub fn regret_summary(s: &RegretScenario, results: &RegretStats) -> RegretSummary {
    let experiments: Vec<ExperimentSummary> = s
        .experiments
        .iter()
        .zip(&results.stats)
        .map(|(exp, stats)| {
            let env = &exp.env;
            ExperimentSummary {
                label: s.is_grid.then(|| exp.label.clone()),
                policies: s
                    .policies
                    .iter()
                    .zip(stats)
                    .map(|(p, st)| PolicySummary::new(&p.label, p.describe(), st, s.horizon))
                    .collect(),
                optimum: env.optimum().clone(),
                bounds: Bounds::of(env.theta(), env.mean_cost(), s.theorem2_alpha(), s.horizon),
                channels: env
                    .channels()
                    .iter()
                    .map(|c| ChannelSummary {
                        theta: c.theta(),
                        mean_cost: c.cost().mean(),
                        mean_energy: c.cost().mean_energy(),
                        mean_delay: c.cost().mean_delay(),
                    })
                    .collect(),
                reference: exp.reference.clone(),
            }
        })
        .collect();
    let body = if s.is_grid {
        RegretBody::Grid { experiments }
    } else {
        RegretBody::Single(experiments.into_iter().next().expect("one experiment"))
    };
    RegretSummary {
        scenario: s.name.clone(),
        kind: "regret".to_string(),
        description: s.description.clone(),
        horizon: s.horizon,
        runs: s.runs,
        seed: s.seed,
        units: s.units.clone(),
        body,
    }
}
