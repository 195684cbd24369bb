//! What a sweep's `summary.json` holds.

use crate::engine::runner::RegretStats;
use crate::report::regret::summary::{RegretSummary, Stat, regret_summary};
use crate::scenario::{RegretScenario, SweepScenario};
use crate::store::names::ResultKind;
use serde::{Deserialize, Serialize};

/// The whole summary of a sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepSummary {
    /// Scenario name.
    pub scenario: String,
    /// Always `"sweep"`.
    pub kind: String,
    /// Scenario description.
    #[serde(default)]
    pub description: String,
    /// The swept field.
    pub field: String,
    /// Its values, in scenario order.
    pub values: Vec<f64>,
    /// Every (value, configuration, policy) at the horizon.
    pub table: Vec<SweepRow>,
    /// Each cell's full summary, in the order of `values`.
    pub cells: Vec<RegretSummary>,
}

/// One policy on one configuration of one cell, at the horizon.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    /// The swept value.
    pub value: f64,
    /// Configuration label (grids only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration: Option<String>,
    /// Policy label.
    pub policy: String,
    /// Final pseudo-regret.
    pub pseudo_regret: Stat,
    /// Final realised regret.
    pub realized_regret: Stat,
    /// Net reward per slot.
    pub reward_per_slot: Stat,
}

/// Builds the summary of a finished sweep.
pub(crate) fn summary(
    s: &SweepScenario,
    cells: &[(&RegretScenario, &RegretStats)],
) -> SweepSummary {
    let cells: Vec<RegretSummary> = cells
        .iter()
        .map(|(scenario, stats)| regret_summary(scenario, stats))
        .collect();
    let mut table = Vec::new();
    for (&value, cell) in s.values.iter().zip(&cells) {
        for e in cell.experiments() {
            for p in &e.policies {
                table.push(SweepRow {
                    value,
                    configuration: e.label.clone(),
                    policy: p.name.clone(),
                    pseudo_regret: p.pseudo_regret,
                    realized_regret: p.realized_regret,
                    reward_per_slot: p.per_slot.reward,
                });
            }
        }
    }
    SweepSummary {
        scenario: s.name.clone(),
        kind: ResultKind::Sweep.as_str().into(),
        description: s.description.clone(),
        field: s.field.clone(),
        values: s.values.clone(),
        table,
        cells,
    }
}
