//! `summary.json` for regret scenarios: the output contract of DESIGN.md, values at the horizon.
//!
//! A scenario with one channel list puts `policies`, `optimum` and `bounds` at the top level; a
//! grid lists them per configuration under `experiments`. The same types deserialise, so saved
//! results can be re-rendered (`specprobe plot`) and compared without simulating again.

use crate::engine::recorder::{Metric, PAIRED, PolicyStats};
use crate::engine::regret::runner::RegretStats;
use crate::model::channel::{BenchmarkKind, Environment};
use crate::model::sensing::SensingSpec;
use crate::model::theory::{Bounds, Optimum};
use crate::scenario::{RegretScenario, Units};
use crate::store::names::ResultKind;
use crate::util::math;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The whole summary of a regret scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RegretSummary {
    /// Scenario name.
    pub scenario: String,
    /// Always `"regret"`.
    pub kind: ResultKind,
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
    Single(Box<ExperimentSummary>),
}

impl RegretBody {
    /// The experiments, one for a single channel list.
    pub fn experiments(&self) -> &[ExperimentSummary] {
        match self {
            RegretBody::Grid { experiments } => experiments,
            RegretBody::Single(e) => std::slice::from_ref(e.as_ref()),
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
    /// What regret is measured against.
    #[serde(default = "stationary")]
    pub benchmark: BenchmarkKind,
    /// The benchmark's optimal list and its expected reward (at the first slot, for the
    /// dynamic oracle: see `segments`).
    pub optimum: Optimum,
    /// The dynamic oracle's lists, one per segment of slots (empty for the stationary oracle).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub segments: Vec<SegmentSummary>,
    /// The slot length in delay units, when the scenario sets one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot_duration: Option<f64>,
    /// The reward by the time left in the slot, when the scenario asks for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_left: Option<TimeLeftSummary>,
    /// Theorems 2 and 3 for this instance.
    pub bounds: Bounds,
    /// The channels' exact parameters.
    pub channels: Vec<ChannelSummary>,
    /// Published final regrets by policy label, where the scenario gives them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub reference: BTreeMap<String, f64>,
}

/// `reward: TimeLeft` as the results used it: a transmission on channel k earns
/// `rates[k]·(1 − t/T)` on an idle channel, `busy_rate·(1 − t/T)` on a busy one sensed idle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimeLeftSummary {
    /// Per channel, the rate on an idle channel.
    pub rates: Vec<f64>,
    /// The rate on a busy channel sensed idle.
    pub busy_rate: f64,
    /// The rate that prices a probe's time for learners (`rate · delay / T`).
    pub rate: f64,
}

impl TimeLeftSummary {
    /// The most a transmission can earn.
    pub fn max_gain(&self) -> f64 {
        self.rates.iter().fold(self.busy_rate, |a, &b| a.max(b))
    }
}

fn stationary() -> BenchmarkKind {
    BenchmarkKind::StationaryOracle
}

/// The dynamic oracle over one segment of slots.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SegmentSummary {
    /// First slot.
    pub first: u64,
    /// Last slot (the horizon for the last segment).
    pub last: u64,
    /// The optimal list and its expected reward per slot.
    pub optimum: Optimum,
}

/// Exact parameters of one channel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChannelSummary {
    /// Long-run idle probability θ (over the horizon for traces and piecewise channels).
    pub theta: f64,
    /// The occupancy process in scenario syntax (`i.i.d. θ = 0.8`, `Markov(...)`, ...).
    #[serde(default)]
    pub occupancy: String,
    /// Mean idle period in slots, where defined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_idle: Option<f64>,
    /// Mean busy period in slots, where defined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_busy: Option<f64>,
    /// Lag-1 autocorrelation of the slot-sampled state, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub autocorrelation: Option<f64>,
    /// Sensing error rates (absent when perfect).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensing: Option<SensingSpec>,
    /// Mean bandit cost c.
    pub mean_cost: f64,
    /// Mean energy per probe.
    pub mean_energy: f64,
    /// Mean delay per probe.
    pub mean_delay: f64,
}

/// A mean across runs with its spread and uncertainty.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stat {
    /// Runs it is computed from.
    #[serde(default)]
    pub n: u64,
    /// Mean across runs.
    pub mean: f64,
    /// Standard deviation across runs (`n − 1` in the denominator).
    pub std: f64,
    /// Standard error of the mean, `std/√n` (0 when read from a many-users summary written
    /// before it was recorded).
    #[serde(default)]
    pub stderr: f64,
    /// 95 % confidence interval of the mean, Student's t with n − 1 degrees of freedom
    /// (`null` for a single run).
    #[serde(default)]
    pub ci95: Option<[f64; 2]>,
}

impl Stat {
    /// The statistics of `n` values with this mean and standard deviation.
    pub fn of(n: u64, mean: f64, std: f64) -> Stat {
        Stat {
            n,
            mean,
            std,
            stderr: std / (n.max(1) as f64).sqrt(),
            ci95: crate::util::stats::ci95(n, mean, std),
        }
    }

    /// The same statistics of the values divided by `d` (per-slot values of totals).
    pub fn scaled(&self, d: f64) -> Stat {
        Stat {
            n: self.n,
            mean: self.mean / d,
            std: self.std / d,
            stderr: self.stderr / d,
            ci95: self.ci95.map(|[lo, hi]| [lo / d, hi / d]),
        }
    }
}

/// An optional [`Stat`], or a bare number (a mean written by an older version: no spread,
/// `n` 0).
pub(crate) fn stat_or_mean<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Stat>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Stat(Stat),
        Mean(f64),
    }
    Ok(match Option::<Either>::deserialize(d)? {
        None => None,
        Some(Either::Stat(s)) => Some(s),
        Some(Either::Mean(mean)) => Some(Stat {
            n: 0,
            mean,
            std: 0.0,
            stderr: 0.0,
            ci95: None,
        }),
    })
}

/// Per-slot means (totals at the horizon divided by it) with their intervals.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PerSlot {
    /// Net reward.
    pub reward: Stat,
    /// Bandit cost.
    pub cost: Stat,
    /// Energy.
    pub energy: Stat,
    /// Delay.
    pub delay: Stat,
    /// Probes.
    pub probes: Stat,
    /// Successful transmissions (idle channel found).
    pub idle_found: Stat,
    /// Collisions with the primary user.
    pub pu_collisions: Stat,
    /// Idle channels sensed busy.
    pub missed_opportunities: Stat,
}

/// A policy's final regret minus the reference policy's, run by run on the same sample paths.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Paired {
    /// The reference policy's label.
    pub reference: String,
    /// Pseudo-regret difference: mean over runs and its standard error.
    pub pseudo_regret: Difference,
    /// Realised-regret difference (the reference's reward minus this policy's).
    pub realized_regret: Difference,
}

/// A paired difference and what the unpaired comparison would give.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    /// Mean of the per-run differences.
    pub mean: f64,
    /// Standard error of that mean, from the per-run differences.
    pub stderr: f64,
    /// 95 % confidence interval of the mean difference (Student's t).
    #[serde(default)]
    pub ci95: Option<[f64; 2]>,
    /// The standard error of the difference of the two means were the runs independent,
    /// `sqrt(se₁² + se₂²)`: `(unpaired_stderr/stderr)²` is how many times more runs an unpaired
    /// comparison needs for the same precision.
    pub unpaired_stderr: f64,
}

impl Difference {
    /// The difference of `metric` (one of [`PAIRED`]) between `stats` and `reference`, run by
    /// run (streamed into `stats.paired` during the run).
    fn of(stats: &PolicyStats, reference: &PolicyStats, metric: Metric) -> Difference {
        let d = &stats.paired[PAIRED
            .iter()
            .position(|&m| m == metric)
            .expect("a paired metric")];
        let se = |s: &PolicyStats| s.final_moments(metric).stderr();
        Difference {
            mean: d.mean(),
            stderr: d.stderr(),
            ci95: crate::util::stats::ci95(d.count(), d.mean(), d.std()),
            unpaired_stderr: math::hypot(se(stats), se(reference)),
        }
    }
}

impl PerSlot {
    /// All zero (reading summaries written before per-slot intervals existed).
    fn empty() -> PerSlot {
        let z = Stat::of(0, 0.0, 0.0);
        PerSlot {
            reward: z,
            cost: z,
            energy: z,
            delay: z,
            probes: z,
            idle_found: z,
            pu_collisions: z,
            missed_opportunities: z,
        }
    }
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
    /// Fraction of slots in which the user transmitted on a truly idle channel.
    pub idle_found_per_slot: f64,
    /// Fraction of slots in which the user collided with the primary user (transmitted on a
    /// channel sensed idle but busy).
    #[serde(default)]
    pub pu_collisions_per_slot: f64,
    /// Idle channels sensed busy (missed opportunities) per slot.
    #[serde(default)]
    pub missed_opportunities_per_slot: f64,
    /// Under `reward: TimeLeft`: the fraction of slots whose transmission the primary user's
    /// return interrupted (interference to the primary user inside the slot), over the runs
    /// (n, spread, standard error and interval, as every statistic; a summary written before
    /// held the bare mean, read as a statistic of unknown spread).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "stat_or_mean"
    )]
    pub pu_returns_per_slot: Option<Stat>,
    /// This policy's paired difference to the reference policy (absent for the reference).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired: Option<Paired>,
    /// Every per-slot mean with its standard error and 95 % interval.
    #[serde(default = "PerSlot::empty")]
    pub per_slot: PerSlot,
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
    pub fn new(
        name: &str,
        policy: String,
        stats: &PolicyStats,
        horizon: u64,
        reference: Option<(&str, &PolicyStats)>,
    ) -> PolicySummary {
        let runs = stats.runs.max(1) as f64;
        let stat = |m: Metric| {
            let v = stats.final_value(m);
            Stat::of(stats.runs, v.mean, v.std)
        };
        let slot = |m: Metric| stat(m).scaled(horizon as f64);
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
            pu_collisions_per_slot: per_slot(Metric::PuCollisions),
            missed_opportunities_per_slot: per_slot(Metric::MissedOpportunities),
            pu_returns_per_slot: None,
            paired: reference
                .filter(|(label, _)| *label != name)
                .map(|(label, r)| Paired {
                    reference: label.to_string(),
                    pseudo_regret: Difference::of(stats, r, Metric::PseudoRegret),
                    realized_regret: Difference::of(stats, r, Metric::RealizedRegret),
                }),
            per_slot: PerSlot {
                reward: slot(Metric::Reward),
                cost: slot(Metric::Cost),
                energy: slot(Metric::Energy),
                delay: slot(Metric::Delay),
                probes: slot(Metric::Probes),
                idle_found: slot(Metric::IdleFound),
                pu_collisions: slot(Metric::PuCollisions),
                missed_opportunities: slot(Metric::MissedOpportunities),
            },
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

/// The dynamic oracle's segments up to the horizon (none for the stationary oracle).
fn segments(env: &Environment, horizon: u64) -> Vec<SegmentSummary> {
    if env.benchmark() == BenchmarkKind::StationaryOracle {
        return Vec::new();
    }
    env.epochs()
        .iter()
        .filter(|e| e.first <= horizon)
        .map(|e| SegmentSummary {
            first: e.first,
            last: e.last.min(horizon),
            optimum: e.optimum.clone(),
        })
        .collect()
}

/// Builds the summary of a finished regret scenario.
pub(crate) fn regret_summary(s: &RegretScenario, results: &RegretStats) -> RegretSummary {
    let experiments: Vec<ExperimentSummary> = s
        .experiments
        .iter()
        .zip(&results.stats)
        .map(|(exp, stats)| {
            let env = &exp.env;
            let reference = s
                .reference_index()
                .map(|r| (s.policies[r].label.as_str(), &stats[r]));
            ExperimentSummary {
                label: s.is_grid.then(|| exp.label.clone()),
                policies: s
                    .policies
                    .iter()
                    .zip(stats)
                    .map(|(p, st)| {
                        let mut summary = PolicySummary::new(
                            &p.label,
                            p.describe(),
                            st,
                            s.header.horizon,
                            reference,
                        );
                        if env.time_left().is_some() {
                            let v = st.final_value(Metric::PuReturns);
                            summary.pu_returns_per_slot = Some(
                                Stat::of(st.runs, v.mean, v.std)
                                    .scaled(s.header.horizon.max(1) as f64),
                            );
                        }
                        summary
                    })
                    .collect(),
                benchmark: env.benchmark(),
                optimum: env.optimum().clone(),
                segments: segments(env, s.header.horizon),
                slot_duration: env.slot_duration(),
                time_left: env.time_left().map(|tl| TimeLeftSummary {
                    rates: tl.rates().to_vec(),
                    busy_rate: tl.spec().busy_rate,
                    rate: tl.spec().rate,
                }),
                bounds: env.bounds(s.theorem2_alpha(), s.header.horizon),
                channels: env
                    .channels()
                    .iter()
                    .zip(env.theta())
                    .map(|(c, &theta)| {
                        let stats = c.occupancy().stats(s.header.horizon);
                        ChannelSummary {
                            theta,
                            occupancy: c.occupancy().describe(),
                            mean_idle: stats.mean_idle,
                            mean_busy: stats.mean_busy,
                            autocorrelation: stats.autocorrelation,
                            sensing: (!c.sensing().is_perfect()).then(|| c.sensing().spec()),
                            mean_cost: c.cost().mean(),
                            mean_energy: c.cost().mean_energy(),
                            mean_delay: c.cost().mean_delay(),
                        }
                    })
                    .collect(),
                reference: exp.reference.clone(),
            }
        })
        .collect();
    let body = if s.is_grid {
        RegretBody::Grid { experiments }
    } else {
        RegretBody::Single(Box::new(
            experiments.into_iter().next().expect("one experiment"),
        ))
    };
    RegretSummary {
        scenario: s.header.name.clone(),
        kind: ResultKind::Regret,
        description: s.header.description.clone(),
        horizon: s.header.horizon,
        runs: s.header.runs,
        seed: s.header.seed,
        units: s.header.units.clone(),
        body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bare mean from an older summary reads as a statistic of unknown spread; a
    /// statistic reads as itself.
    #[test]
    fn a_bare_mean_reads_as_a_statistic() {
        let old: PolicyJson = serde_json::from_str(r#"{"x": 0.25}"#).unwrap();
        assert_eq!(old.x.map(|s| (s.mean, s.n)), Some((0.25, 0)));
        let s = Stat::of(8, 1.5, 0.5);
        let text = format!(r#"{{"x": {}}}"#, serde_json::to_string(&s).unwrap());
        let new: PolicyJson = serde_json::from_str(&text).unwrap();
        assert_eq!(new.x, Some(s));
        let none: PolicyJson = serde_json::from_str("{}").unwrap();
        assert_eq!(none.x, None);
    }

    #[derive(serde::Deserialize)]
    struct PolicyJson {
        #[serde(default, deserialize_with = "stat_or_mean")]
        x: Option<Stat>,
    }
}
