//! Checks of a saved sweep summary: see [`crate::report::check`].

use crate::report::check::{Failure, fail, finite, require, stat};
use crate::report::regret::check::{curve_row, regret};
use crate::report::regret::curves::CurveRow;
use crate::report::sweep::summary::SweepSummary;
use crate::store::names::{ResultKind, Swept};

/// A sweep's summary: values, one cell per value (each a sound regret summary), and a table
/// whose rows name listed values and policies.
pub(crate) fn sweep(s: &SweepSummary) -> Result<(), Failure> {
    s.kind
        .expect(ResultKind::Sweep(Swept::Regret))
        .or_else(|why| fail("kind", why))?;
    require(!s.values.is_empty(), "values", || "is empty".into())?;
    for (i, v) in s.values.iter().enumerate() {
        finite(*v, format!("values[{i}]"))?;
        require(!s.values[..i].contains(v), format!("values[{i}]"), || {
            format!("{v} is listed twice")
        })?;
    }
    let axis = crate::scenario::sweep::SweepAxis {
        label: s.axis_label.clone(),
        log: s.log_axis,
    };
    if let Some((field, rule)) = axis.problems(&s.values).into_iter().next() {
        return fail(
            if field == "log" {
                "log_axis"
            } else {
                "axis_label"
            },
            rule,
        );
    }
    require(s.cells.len() == s.values.len(), "cells", || {
        format!("{} cells for {} values", s.cells.len(), s.values.len())
    })?;
    for (i, c) in s.cells.iter().enumerate() {
        regret(c, None).map_err(|e| format!("cells[{i}].{e}"))?;
    }
    require(!s.table.is_empty(), "table", || "is empty".into())?;
    for (i, r) in s.table.iter().enumerate() {
        let field = format!("table[{i}]");
        let Some(cell) = s.values.iter().position(|v| *v == r.value) else {
            return fail(&field, format!("value {} is not among the values", r.value));
        };
        let known =
            s.cells[cell].experiments().iter().any(|e| {
                e.label == r.configuration && e.policies.iter().any(|p| p.name == r.policy)
            }) || (r.configuration.is_none()
                && s.cells[cell]
                    .experiments()
                    .iter()
                    .any(|e| e.policies.iter().any(|p| p.name == r.policy)));
        require(known, &field, || {
            format!(
                "policy {:?} is not in the cell of value {}",
                r.policy, r.value
            )
        })?;
        let runs = s.cells[cell].runs;
        stat(&r.pseudo_regret, runs, &format!("{field}.pseudo_regret"))?;
        stat(
            &r.realized_regret,
            runs,
            &format!("{field}.realized_regret"),
        )?;
        stat(
            &r.reward_per_slot,
            runs,
            &format!("{field}.reward_per_slot"),
        )?;
    }
    Ok(())
}

/// A sweep's `curves.csv` against its summary: every row's cell (`field = value`, then `|` and
/// the configuration in a grid) is one of the values, its policy one of that cell's, and the
/// row itself sound for that cell ([`curve_row`]).
pub(crate) fn sweep_curves(s: &SweepSummary, rows: &[CurveRow]) -> Result<(), Failure> {
    let labels: Vec<String> = s
        .values
        .iter()
        .map(|v| format!("{} = {v}", s.field))
        .collect();
    for (r, row) in rows.iter().enumerate() {
        let line = r + 2;
        let (cell_label, configuration) = match row.experiment.split_once(" | ") {
            Some((c, e)) => (c, Some(e)),
            None => (row.experiment.as_str(), None),
        };
        let Some(i) = labels.iter().position(|l| l == cell_label) else {
            return fail(
                format!("line {line}: experiment"),
                format!(
                    "{cell_label:?} is not a cell of this sweep ({})",
                    labels.join(", ")
                ),
            );
        };
        // Files written before the column existed have none; one that is there must agree.
        if let Some(v) = row.sweep_value {
            require(
                v == s.values[i],
                format!("line {line}: sweep_value"),
                || format!("{v} is not the value of the cell {cell_label:?}"),
            )?;
        }
        let cell = &s.cells[i];
        let known = cell.experiments().iter().any(|e| {
            (configuration.is_none() || e.label.as_deref() == configuration)
                && e.policies.iter().any(|p| p.name == row.policy)
        });
        require(known, format!("line {line}: policy"), || {
            format!("{:?} is not in the cell {cell_label:?}", row.policy)
        })?;
        curve_row(row, cell.horizon, cell.runs, line)?;
    }
    Ok(())
}
