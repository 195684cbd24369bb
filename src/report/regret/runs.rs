//! `runs.csv`: one row per (configuration, policy, run) with every value at the horizon, or per
//! (instance, N, setting, algorithm, run) for identification: the raw material for a user's own
//! tests and box plots. Rows come in scenario order, runs ascending; the mean of a column over a
//! policy's rows is exactly summary.json's mean (both from the same values), and merged shards
//! write the same file byte for byte.

use crate::engine::recorder::{Metric, Row};
use crate::engine::runner::RegretStats;
use crate::report::format::float;
use crate::scenario::RegretScenario;

/// `runs.csv` of a regret scenario.
pub(crate) fn regret(s: &RegretScenario, stats: &RegretStats) -> Result<Vec<u8>, csv::Error> {
    regret_cells(&[(None, s, stats)])
}

/// `runs.csv` of regret scenarios in one file (a sweep's cells, named in the experiment column
/// as in `curves.csv`).
pub(crate) fn regret_cells(
    cells: &[(Option<&str>, &RegretScenario, &RegretStats)],
) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(header()?);
    for &(cell, s, stats) in cells {
        for (exp, per_policy) in s.experiments.iter().zip(&stats.stats) {
            let experiment = crate::report::regret::curves::cell_experiment(cell, s, &exp.label);
            for (p, st) in s.policies.iter().zip(per_policy) {
                write_rows(&mut w, &experiment, &p.label, &st.finals)?;
            }
        }
    }
    w.into_inner().map_err(|e| e.into_error().into())
}

/// The header line of a regret `runs.csv`.
pub(crate) fn header() -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["experiment", "policy", "run"];
    header.extend(Metric::ALL.iter().map(|m| m.name()));
    w.write_record(&header)?;
    w.into_inner().map_err(|e| e.into_error().into())
}

/// The rows of one (experiment, policy), runs as given: the file is the header followed by
/// these rows for every pair in scenario order, so rows written as the runs finish (see
/// `app::runs_file`) make the same bytes.
pub(crate) fn write_rows<W: std::io::Write>(
    w: &mut csv::Writer<W>,
    experiment: &str,
    policy: &str,
    rows: &[(u64, Row)],
) -> Result<(), csv::Error> {
    for (run, row) in rows {
        w.write_field(experiment)?;
        w.write_field(policy)?;
        w.write_field(run.to_string())?;
        for &m in Metric::ALL.iter() {
            w.write_field(float(row[m as usize]))?;
        }
        w.write_record(None::<&[u8]>)?;
    }
    Ok(())
}
