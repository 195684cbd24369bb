//! `runs.csv`: one row per (configuration, policy, run) with every value at the horizon, or per
//! (instance, N, setting, algorithm, run) for identification: the raw material for a user's own
//! tests and box plots. Rows come in scenario order, runs ascending; the mean of a column over a
//! policy's rows is exactly summary.json's mean (both from the same values), and merged shards
//! write the same file byte for byte.

use super::curves::float;
use crate::recorder::Metric;
use crate::runner::{IdentifyCell, RegretStats};
use crate::scenario::{IdentificationScenario, RegretScenario};

/// The file name.
pub const FILE: &str = "runs.csv";

/// `runs.csv` of a regret scenario.
pub fn regret(s: &RegretScenario, stats: &RegretStats) -> Result<Vec<u8>, csv::Error> {
    regret_cells(&[(None, s, stats)])
}

/// `runs.csv` of regret scenarios in one file (a sweep's cells, named in the experiment column
/// as in `curves.csv`).
pub(crate) fn regret_cells(
    cells: &[(Option<&str>, &RegretScenario, &RegretStats)],
) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["experiment", "policy", "run"];
    header.extend(Metric::ALL.iter().map(|m| m.name()));
    w.write_record(&header)?;
    for &(cell, s, stats) in cells {
        for (exp, per_policy) in s.experiments.iter().zip(&stats.stats) {
            let experiment = super::curves::cell_experiment(cell, s, &exp.label);
            for (p, st) in s.policies.iter().zip(per_policy) {
                for (run, row) in &st.finals {
                    let mut rec = vec![experiment.clone(), p.label.clone(), run.to_string()];
                    rec.extend(Metric::ALL.iter().map(|&m| float(row[m as usize])));
                    w.write_record(&rec)?;
                }
            }
        }
    }
    w.into_inner().map_err(|e| e.into_error().into())
}

/// `runs.csv` of an identification scenario.
pub fn identification(
    s: &IdentificationScenario,
    cells: &[IdentifyCell],
) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "instance",
        "n",
        "k",
        "setting",
        "algorithm",
        "run",
        "samples",
        "correct",
        "capped",
    ])?;
    for c in cells {
        let inst = &s.instances[c.instance];
        let arms = &inst.points[c.point];
        for (run, o) in &c.stats.outcomes {
            w.write_record([
                inst.label.clone(),
                arms.len().to_string(),
                arms.k().to_string(),
                c.setting.name().to_string(),
                c.name.clone(),
                run.to_string(),
                o.samples.to_string(),
                o.correct.to_string(),
                o.capped.to_string(),
            ])?;
        }
    }
    w.into_inner().map_err(|e| e.into_error().into())
}
