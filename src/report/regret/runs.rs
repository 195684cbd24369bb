//! `runs.csv`: one row per (configuration, policy, run) with every value at the horizon, or per
//! (instance, N, setting, algorithm, run) for identification: the raw material for a user's own
//! tests and box plots. Rows come in scenario order, runs ascending; the mean of a column over a
//! policy's rows is exactly summary.json's mean (both from the same values), and merged shards
//! write the same file byte for byte.

use crate::engine::pipeline::{PartLabels, RunRows};
use crate::engine::recorder::{Metric, Row};
use crate::engine::regret::runner::RegretStats;
use crate::report::format::{float, whole};
use crate::report::regret::curves::{SweepCell, cell_experiment};
use crate::scenario::RegretScenario;

/// `runs.csv` of a regret scenario.
pub(crate) fn regret(s: &RegretScenario, stats: &RegretStats) -> Result<Vec<u8>, csv::Error> {
    regret_cells(&[(None, s, stats)])
}

/// The header line of a regret `runs.csv`; a sweep's has `sweep_value` after `experiment`,
/// and one under `reward: TimeLeft` ends with `pu_returns` (the transmissions the primary
/// user's return interrupted in the run).
fn header_of(sweep: bool, returns: bool) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["experiment"];
    if sweep {
        header.push("sweep_value");
    }
    header.extend(["policy", "run"]);
    header.extend(Metric::ALL.iter().map(|m| m.name()));
    if returns {
        header.push(Metric::PuReturns.name());
    }
    w.write_record(&header)?;
    w.into_inner().map_err(|e| e.into_error().into())
}

/// `runs.csv` of regret scenarios in one file (a sweep's cells, named in the experiment column
/// as in `curves.csv`, their values in `sweep_value`).
pub(crate) fn regret_cells(
    cells: &[(SweepCell, &RegretScenario, &RegretStats)],
) -> Result<Vec<u8>, csv::Error> {
    let sweep = cells.first().is_some_and(|(cell, _, _)| cell.is_some());
    let returns = cells.iter().any(|(_, s, _)| counts_returns(s));
    let mut w = csv::Writer::from_writer(header_of(sweep, returns)?);
    for &(cell, s, stats) in cells {
        for (exp, per_policy) in s.experiments.iter().zip(&stats.stats) {
            let experiment = cell_experiment(cell, s, &exp.label);
            let value = cell.map(|(_, v)| float(v));
            for (p, st) in s.policies.iter().zip(per_policy) {
                write_cell_rows(
                    &mut w,
                    &experiment,
                    value.as_deref(),
                    &p.label,
                    &st.finals,
                    returns,
                )?;
            }
        }
    }
    w.into_inner().map_err(|e| e.into_error().into())
}

/// Whether `s` counts the primary user's returns (`reward: TimeLeft`): its `runs.csv` then
/// has their column.
pub(crate) fn counts_returns(s: &RegretScenario) -> bool {
    s.experiments.iter().any(|e| e.env.time_left().is_some())
}

/// The header line of a regret `runs.csv` (with `returns`: the `pu_returns` column).
pub(crate) fn header(returns: bool) -> Result<Vec<u8>, csv::Error> {
    header_of(false, returns)
}

/// The header of a regret scenario's `runs.csv` (or why it cannot be written) and the labels of
/// its parts, (experiment, policy) pairs in scenario order: what the runs stream writes.
pub(crate) fn parts(s: &RegretScenario) -> (Result<Vec<u8>, String>, Vec<PartLabels>) {
    let returns = counts_returns(s);
    let labels = s
        .experiments
        .iter()
        .flat_map(|e| {
            let experiment = cell_experiment(None, s, &e.label);
            s.policies.iter().map(move |p| PartLabels {
                experiment: experiment.clone(),
                policy: p.label.clone(),
                returns,
            })
        })
        .collect();
    (header(returns).map_err(|e| e.to_string()), labels)
}

impl RunRows for Vec<(u64, Row)> {
    fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }

    fn write(
        &self,
        w: &mut csv::Writer<&mut dyn std::io::Write>,
        part: &PartLabels,
    ) -> Result<(), csv::Error> {
        write_rows(w, &part.experiment, &part.policy, self, part.returns)
    }
}

/// The rows of one (experiment, policy), runs as given: the file is the header followed by
/// these rows for every pair in scenario order, so rows written as the runs finish (see
/// `app::runs_file`) make the same bytes.
pub(crate) fn write_rows<W: std::io::Write>(
    w: &mut csv::Writer<W>,
    experiment: &str,
    policy: &str,
    rows: &[(u64, Row)],
    returns: bool,
) -> Result<(), csv::Error> {
    write_cell_rows(w, experiment, None, policy, rows, returns)
}

/// [`write_rows`] with a sweep cell's value (`sweep_value`) after the experiment.
fn write_cell_rows<W: std::io::Write>(
    w: &mut csv::Writer<W>,
    experiment: &str,
    sweep_value: Option<&str>,
    policy: &str,
    rows: &[(u64, Row)],
    returns: bool,
) -> Result<(), csv::Error> {
    for (run, row) in rows {
        w.write_field(experiment)?;
        if let Some(v) = sweep_value {
            w.write_field(v)?;
        }
        w.write_field(policy)?;
        w.write_field(run.to_string())?;
        for &m in Metric::ALL.iter() {
            let v = row[m as usize];
            w.write_field(if m.is_count() { whole(v) } else { float(v) })?;
        }
        if returns {
            w.write_field(whole(row[Metric::PuReturns as usize]))?;
        }
        w.write_record(None::<&[u8]>)?;
    }
    Ok(())
}
