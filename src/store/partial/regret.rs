//! A regret scenario's (or regret sweep cell's) partial results: per experiment, per policy,
//! the exact moments of every checkpoint, the probe histogram and counts, and each run's row.

use super::blame::Blame;
use super::kind::PartialKind;
use super::kind::{Sharded, SweepOf, sharded_by};
use super::{MergeError, PartialBody};
use crate::engine::recorder::{PartialStats, PolicyStats};
use crate::engine::regret::runner::RegretStats;
use crate::scenario::RegretScenario;
use crate::scenario::{PolicyKind, SweepScenario};
use crate::store::names::{ResultKind, Swept, Writes};
use crate::util::stats::Moments;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A regret shard's statistics, in `partial.json`: per experiment, per policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct RegretBody {
    /// Slots of the curves.
    pub(crate) checkpoints: Vec<u64>,
    /// `stats[e][p]`.
    pub(crate) stats: Vec<Vec<PartialStats>>,
}

/// The regret kind's partial results.
pub(crate) struct RegretPartial;

impl PartialKind for RegretPartial {
    type Scenario = RegretScenario;
    type Stats = RegretStats;

    fn body(results: &RegretStats) -> PartialBody {
        PartialBody::Regret(RegretBody {
            checkpoints: results.checkpoints.clone(),
            stats: results
                .stats
                .iter()
                .map(|e| e.iter().map(PolicyStats::to_parts).collect())
                .collect(),
        })
    }

    fn check(
        blame: &Blame,
        field: &str,
        s: &RegretScenario,
        body: &PartialBody,
        runs: u64,
    ) -> Result<(), MergeError> {
        let PartialBody::Regret(RegretBody { checkpoints, stats }) = body else {
            return Err(blame.at(field, "is not a regret scenario's statistics"));
        };
        blame.require(
            *checkpoints == s.header.checkpoints.slots(s.header.horizon),
            format!("{field}.checkpoints"),
            || "differ from the scenario's".into(),
        )?;
        blame.require(
            stats.len() == s.experiments.len(),
            format!("{field}.stats"),
            || {
                format!(
                    "holds {} experiments, the scenario {}",
                    stats.len(),
                    s.experiments.len()
                )
            },
        )?;
        for (e, (exp, experiment)) in stats.iter().zip(&s.experiments).enumerate() {
            blame.require(
                exp.len() == s.policies.len(),
                format!("{field}.stats[{e}]"),
                || {
                    format!(
                        "holds {} policies, the scenario {}",
                        exp.len(),
                        s.policies.len()
                    )
                },
            )?;
            for (p, ps) in exp.iter().enumerate() {
                check_policy_stats(
                    blame,
                    &format!("{field}.stats[{e}][{p}]"),
                    ps,
                    runs,
                    checkpoints.len(),
                    experiment.env.len(),
                    s.header.horizon,
                )?;
            }
        }
        Ok(())
    }

    fn fold(
        s: &RegretScenario,
        bodies: &[(&Path, &PartialBody)],
    ) -> Result<RegretStats, MergeError> {
        let bad = |path: &Path, message: String| MergeError::Unreadable {
            path: path.to_path_buf(),
            message,
        };
        let checkpoints = s.header.checkpoints.slots(s.header.horizon);
        let mut merged: Option<Vec<Vec<PolicyStats>>> = None;
        for &(path, body) in bodies {
            let PartialBody::Regret(RegretBody {
                checkpoints: cp,
                stats,
            }) = body
            else {
                return Err(bad(path, "not a regret partial result".into()));
            };
            if *cp != checkpoints {
                return Err(bad(
                    path,
                    "its checkpoints differ from the scenario's".into(),
                ));
            }
            let mut these = Vec::new();
            for (e, exp) in stats.iter().enumerate() {
                let k =
                    s.experiments.get(e).map(|x| x.env.len()).ok_or_else(|| {
                        bad(path, format!("experiment {e} is not in the scenario"))
                    })?;
                let row = exp
                    .iter()
                    .map(|ps| PolicyStats::from_parts(ps.clone(), k))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|m| bad(path, m))?;
                these.push(row);
            }
            merged = Some(match merged {
                None => these,
                Some(mut acc) => {
                    for (a, b) in acc.iter_mut().zip(&these) {
                        for (x, y) in a.iter_mut().zip(b) {
                            x.merge(y);
                        }
                    }
                    acc
                }
            });
        }
        let mut stats = RegretStats {
            checkpoints,
            stats: merged.unwrap_or_default(),
            streamed: false,
        };
        stats.pair_finals(s.reference_index());
        Ok(stats)
    }
}

/// Checks one (experiment, policy)'s statistics from a shard against the scenario.
fn check_policy_stats(
    blame: &Blame,
    field: &str,
    ps: &PartialStats,
    runs: u64,
    checkpoints: usize,
    k: usize,
    horizon: u64,
) -> Result<(), MergeError> {
    blame.require(ps.runs == runs, format!("{field}.runs"), || {
        format!("says {} runs, the shard holds {runs}", ps.runs)
    })?;
    check_curves(blame, field, ps, runs, checkpoints)?;
    check_probes(blame, field, ps, runs, k, horizon)?;
    check_finals(blame, field, ps, runs, checkpoints)
}

/// One exact moment per (checkpoint, metric), each over the shard's runs.
fn check_curves(
    blame: &Blame,
    field: &str,
    ps: &PartialStats,
    runs: u64,
    checkpoints: usize,
) -> Result<(), MergeError> {
    blame.require(
        ps.curves.len() == checkpoints,
        format!("{field}.curves"),
        || {
            format!(
                "holds {} checkpoints, the scenario {checkpoints} (truncated?)",
                ps.curves.len()
            )
        },
    )?;
    for (c, row) in ps.curves.iter().enumerate() {
        for (m, moments) in row.iter().enumerate() {
            blame.require(
                moments.is_sound() && moments.count() == runs,
                format!("{field}.curves[{c}][{m}]"),
                || {
                    format!(
                        "holds {} values (the shard has {runs} runs) or sums that are not finite",
                        moments.count()
                    )
                },
            )?;
        }
    }
    Ok(())
}

/// A count per channel, and a probe histogram of every slot of every run, none above K.
fn check_probes(
    blame: &Blame,
    field: &str,
    ps: &PartialStats,
    runs: u64,
    k: usize,
    horizon: u64,
) -> Result<(), MergeError> {
    blame.require(
        ps.channel_probes.len() == k,
        format!("{field}.channel_probes"),
        || {
            format!(
                "{} channel counts for {k} channels",
                ps.channel_probes.len()
            )
        },
    )?;
    let mut slots = 0u64;
    for &(value, count) in &ps.probes {
        blame.require(value <= k as u64, format!("{field}.probes"), || {
            format!("{value} probes in a slot, with {k} channels")
        })?;
        slots = slots.saturating_add(count);
    }
    blame.require(
        slots == runs.saturating_mul(horizon),
        format!("{field}.probes"),
        || {
            format!(
                "counts {slots} slots, the shard's runs hold {}",
                runs.saturating_mul(horizon)
            )
        },
    )
}

/// One finite row per run, in the shard's run order, that the last checkpoint and the channel
/// counts summarise exactly.
fn check_finals(
    blame: &Blame,
    field: &str,
    ps: &PartialStats,
    runs: u64,
    checkpoints: usize,
) -> Result<(), MergeError> {
    blame.require(
        ps.finals.len() as u64 == runs,
        format!("{field}.finals"),
        || format!("holds {} runs, the shard {runs}", ps.finals.len()),
    )?;
    // Each row's run checked where it stands, with the row's other checks (the first
    // problem in row order is the one named).
    for (i, (run, row)) in ps.finals.iter().enumerate() {
        blame.holds_run(&format!("{field}.finals[{i}]"), i, *run)?;
        blame.require(
            row.iter().all(|x| x.is_finite()),
            format!("{field}.finals[{i}]"),
            || "holds a value that is not finite".into(),
        )?;
    }
    // The last checkpoint is the horizon: its moments summarise exactly the per-run rows.
    if let Some(last) = ps.curves.last() {
        for (m, moments) in last.iter().enumerate() {
            let mut from_rows = Moments::default();
            for (_, row) in &ps.finals {
                from_rows.add(row[m]);
            }
            blame.require(
                moments.totals() == from_rows.totals(),
                format!("{field}.curves[{}][{m}]", checkpoints - 1),
                || "disagrees with the per-run rows at the horizon (edited?)".into(),
            )?;
        }
    }
    let probes: f64 = ps
        .finals
        .iter()
        .map(|(_, r)| r[crate::engine::recorder::Metric::Probes as usize])
        .sum();
    let counted: u64 = ps.channel_probes.iter().sum();
    blame.require(
        probes == counted as f64,
        format!("{field}.channel_probes"),
        || format!("add up to {counted} probes, the per-run rows to {probes}"),
    )?;
    // An interrupted transmission was one on a channel found idle, run by run, and the runs'
    // counts add up to the total.
    use crate::engine::recorder::Metric;
    for (i, (_, r)) in ps.finals.iter().enumerate() {
        let (returns, found) = (r[Metric::PuReturns as usize], r[Metric::IdleFound as usize]);
        blame.require(
            returns >= 0.0 && returns <= found && returns.fract() == 0.0,
            format!("{field}.finals[{i}]"),
            || format!("{returns} interrupted transmissions, with {found} found idle"),
        )?;
    }
    let per_run: f64 = ps
        .finals
        .iter()
        .map(|(_, r)| r[Metric::PuReturns as usize])
        .sum();
    blame.require(
        per_run == ps.pu_returns as f64,
        format!("{field}.pu_returns"),
        || {
            format!(
                "{} interrupted transmissions, the per-run rows {per_run}",
                ps.pu_returns
            )
        },
    )?;
    Ok(())
}

/// The policies a library user added, as (label, description).
fn custom_policies(s: &RegretScenario) -> Vec<(String, String)> {
    s.policies
        .iter()
        .filter(|p| matches!(p.policy, PolicyKind::Custom(_)))
        .map(|p| (p.label.clone(), p.describe()))
        .collect()
}

impl Sharded for RegretScenario {
    type Stats = RegretStats;
    fn custom(&self) -> Vec<(String, String)> {
        custom_policies(self)
    }
    sharded_by!(RegretPartial, |s| s);
}

/// A regret sweep: a [`SweepOf`] regret bodies; its added policies are every cell's.
impl Sharded for SweepScenario {
    type Stats = Vec<RegretStats>;
    fn custom(&self) -> Vec<(String, String)> {
        self.sweep
            .cells
            .first()
            .map(custom_policies)
            .unwrap_or_default()
    }
    sharded_by!(SweepOf<RegretPartial>, |s| &s.sweep);
}

impl Writes for RegretScenario {
    fn writes(&self) -> ResultKind {
        ResultKind::Regret
    }
}

impl Writes for SweepScenario {
    fn writes(&self) -> ResultKind {
        ResultKind::Sweep(Swept::Regret)
    }
}
