//! What a sweep's `summary.json` holds.

use crate::engine::regret::runner::RegretStats;
use crate::report::regret::summary::{RegretSummary, Stat, regret_summary};
use crate::scenario::{RegretScenario, SweepScenario};
use crate::store::names::{ResultKind, Swept};
use serde::{Deserialize, Serialize};

/// The whole summary of a sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepSummary {
    /// Scenario name.
    pub scenario: String,
    /// Always `"sweep"`.
    pub kind: ResultKind,
    /// Scenario description.
    #[serde(default)]
    pub description: String,
    /// The swept field.
    pub field: String,
    /// Its values, in scenario order.
    #[serde(serialize_with = "crate::report::format::whole_numbers")]
    pub values: Vec<f64>,
    /// The charts' title for the swept value, when the scenario gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis_label: Option<String>,
    /// Whether the swept value's axis is logarithmic, when the scenario said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_axis: Option<bool>,
    /// Every (value, configuration, policy) at the horizon.
    pub table: Vec<SweepRow>,
    /// Each cell's full summary, in the order of `values`.
    pub cells: Vec<RegretSummary>,
}

/// One policy on one configuration of one cell, at the horizon.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    /// The swept value.
    #[serde(serialize_with = "crate::report::format::whole_number")]
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

impl SweepSummary {
    /// The swept value's axis title: the scenario's label, else the field path.
    pub fn axis_title(&self) -> &str {
        self.axis().title
    }

    /// Whether the swept value's axis is logarithmic (as asked, else automatic).
    pub fn is_log(&self) -> bool {
        self.axis().log
    }

    /// The charts' axis of the swept value.
    pub(crate) fn axis(&self) -> crate::report::sweep::SweptAxis<'_> {
        let (field, values) = (&self.field, &self.values);
        crate::report::sweep::SweptAxis::of(field, values, &self.axis_label, self.log_axis)
    }
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
    for (&value, cell) in s.sweep.values.iter().zip(&cells) {
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
        kind: ResultKind::Sweep(Swept::Regret),
        description: s.description.clone(),
        field: s.sweep.field.clone(),
        values: s.sweep.values.clone(),
        axis_label: s.sweep.axis.label.clone(),
        log_axis: s.sweep.axis.log,
        table,
        cells,
    }
}
