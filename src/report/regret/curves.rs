//! `curves.csv`: one row per (experiment, policy, checkpoint), header first.
//!
//! Columns: `policy,t`, then `<metric>_mean,<metric>_std,<metric>_se,<metric>_ci95_lo,
//! <metric>_ci95_hi` for every metric of [`Metric::ALL`] (cumulative values at slot `t`: mean,
//! standard deviation across the `n` runs, standard error, and the 95 % Student-t interval of
//! the mean, empty for a single run), then `n` (the number of runs) and `experiment` (the
//! configuration label, or the scenario name); a sweep's file ends with `sweep_value`, the cell's
//! value of the swept field as a number. Floats are printed in Rust's shortest round-trip form and always carry a
//! decimal point or an exponent (`0.0`, not `0`), so the file reads back bit-exactly and every
//! float column parses as float.

use crate::engine::recorder::{Metric, N_METRICS};
use crate::engine::regret::runner::RegretStats;
use crate::report::format::float;
use crate::scenario::RegretScenario;
use crate::util::stats::MeanStd;

/// One row of `curves.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct CurveRow {
    /// Policy label.
    pub policy: String,
    /// Slot.
    pub t: u64,
    /// Runs.
    pub n: u64,
    /// Mean and standard deviation of each metric, in the order of the columns of `curves.csv`.
    pub values: [MeanStd; N_METRICS],
    /// Experiment label.
    pub experiment: String,
    /// The cell's value of the swept field, in a sweep's file (its `sweep_value` column).
    pub sweep_value: Option<f64>,
}

impl CurveRow {
    /// Mean and standard deviation of one metric.
    pub(crate) fn get(&self, m: Metric) -> MeanStd {
        self.values[m as usize]
    }

    /// The mean and standard deviation of the metric whose columns in `curves.csv` start with
    /// `name` (`pseudo_regret`, `reward`, `energy`, ...), if there is one.
    pub fn metric(&self, name: &str) -> Option<MeanStd> {
        Metric::ALL
            .iter()
            .find(|m| m.name() == name)
            .map(|&m| self.get(m))
    }

    /// Reads `curves.csv` (as `plot` does: every column checked).
    pub fn read_csv(bytes: &[u8]) -> Result<Vec<CurveRow>, String> {
        from_csv(bytes)
    }

    /// Standard error of one metric's mean.
    pub fn stderr(&self, m: Metric) -> f64 {
        self.values[m as usize].std / (self.n.max(1) as f64).sqrt()
    }

    /// The 95 % interval of one metric's mean (Student's t), `None` for one run.
    pub fn ci95(&self, m: Metric) -> Option<[f64; 2]> {
        let v = self.values[m as usize];
        crate::util::stats::ci95(self.n, v.mean, v.std)
    }
}

/// The header row.
pub(crate) fn header() -> Vec<String> {
    let mut h = vec!["policy".to_string(), "t".to_string()];
    for m in Metric::ALL {
        for part in ["mean", "std", "se", "ci95_lo", "ci95_hi"] {
            h.push(format!("{}_{part}", m.name()));
        }
    }
    h.push("n".to_string());
    h.push("experiment".to_string());
    h
}

/// The rows of a finished scenario, in scenario order.
pub(crate) fn rows(s: &RegretScenario, results: &RegretStats) -> Vec<CurveRow> {
    rows_in_cell(s, results, None)
}

/// A sweep cell: its label (`field = value`) and its value.
pub(crate) type SweepCell<'a> = Option<(&'a str, f64)>;

/// The experiment column of a sweep cell's rows: the cell (`field = value`), then the
/// configuration for a grid.
pub(crate) fn cell_experiment(cell: SweepCell, s: &RegretScenario, experiment: &str) -> String {
    match cell {
        None => experiment.to_string(),
        Some((c, _)) if s.is_grid => format!("{c} | {experiment}"),
        Some((c, _)) => c.to_string(),
    }
}

/// The rows of one sweep cell (`cell` names it in the experiment column), or of a plain
/// scenario (`None`).
pub(crate) fn rows_in_cell(
    s: &RegretScenario,
    results: &RegretStats,
    cell: SweepCell,
) -> Vec<CurveRow> {
    let mut out = Vec::new();
    for (exp, stats) in s.experiments.iter().zip(&results.stats) {
        for (p, st) in s.policies.iter().zip(stats) {
            for (i, &t) in results.checkpoints.iter().enumerate() {
                let mut values = [MeanStd::default(); N_METRICS];
                for m in Metric::ALL {
                    values[m as usize] = st.at(i, m);
                }
                out.push(CurveRow {
                    policy: p.label.clone(),
                    t,
                    n: st.runs,
                    values,
                    experiment: cell_experiment(cell, s, &exp.label),
                    sweep_value: cell.map(|(_, v)| v),
                });
            }
        }
    }
    out
}

/// Serialises rows to CSV bytes.
pub(crate) fn to_csv(rows: &[CurveRow]) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let sweep = rows.first().is_some_and(|r| r.sweep_value.is_some());
    let mut head = header();
    if sweep {
        head.push("sweep_value".into());
    }
    w.write_record(head)?;
    for r in rows {
        let mut rec = vec![r.policy.clone(), r.t.to_string()];
        for m in Metric::ALL {
            let v = r.get(m);
            rec.push(float(v.mean));
            rec.push(float(v.std));
            rec.push(float(r.stderr(m)));
            match r.ci95(m) {
                Some([lo, hi]) => {
                    rec.push(float(lo));
                    rec.push(float(hi));
                }
                None => rec.extend([String::new(), String::new()]),
            }
        }
        rec.push(r.n.to_string());
        rec.push(r.experiment.clone());
        if sweep {
            rec.push(r.sweep_value.map_or(String::new(), float));
        }
        w.write_record(&rec)?;
    }
    w.into_inner().map_err(|e| e.into_error().into())
}

/// Parses `curves.csv` written by [`to_csv`]; columns are found by name.
pub(crate) fn from_csv(bytes: &[u8]) -> Result<Vec<CurveRow>, String> {
    let mut r = csv::Reader::from_reader(bytes);
    let headers = r.headers().map_err(|e| e.to_string())?.clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| format!("column {name:?} is missing"))
    };
    let policy = col("policy")?;
    let t = col("t")?;
    let n = col("n")?;
    let experiment = col("experiment")?;
    let sweep_value = col("sweep_value").ok();
    let mut metric_cols = Vec::new();
    for m in Metric::ALL {
        metric_cols.push((
            col(&format!("{}_mean", m.name()))?,
            col(&format!("{}_std", m.name()))?,
        ));
    }
    let mut out = Vec::new();
    for (line, rec) in r.records().enumerate() {
        let rec = rec.map_err(|e| e.to_string())?;
        let num = |i: usize| -> Result<f64, String> {
            rec.get(i).unwrap_or("").parse::<f64>().map_err(|_| {
                format!(
                    "row {}: column {} is not a number",
                    line + 2,
                    headers.get(i).unwrap_or("?")
                )
            })
        };
        let mut values = [MeanStd::default(); N_METRICS];
        for (k, &(mc, sc)) in metric_cols.iter().enumerate() {
            values[k] = MeanStd {
                mean: num(mc)?,
                std: num(sc)?,
            };
        }
        out.push(CurveRow {
            policy: rec.get(policy).unwrap_or("").to_string(),
            n: rec
                .get(n)
                .unwrap_or("")
                .parse()
                .map_err(|_| format!("row {}: column n is not a number of runs", line + 2))?,
            t: rec
                .get(t)
                .unwrap_or("")
                .parse()
                .map_err(|_| format!("row {}: column t is not a slot number", line + 2))?,
            values,
            experiment: rec.get(experiment).unwrap_or("").to_string(),
            sweep_value: match sweep_value {
                None => None,
                Some(i) => Some(num(i)?),
            },
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_round_trips_exactly() {
        let mut values = [MeanStd::default(); N_METRICS];
        values[0] = MeanStd {
            mean: 0.1 + 0.2,
            std: 1e-300,
        };
        values[7] = MeanStd {
            mean: 123456.789,
            std: 0.0,
        };
        let rows = vec![CurveRow {
            policy: "cc-ucb, α=1".into(),
            t: 200_000,
            n: 7,
            values,
            experiment: "K=6 \"L\"=1".into(),
            sweep_value: None,
        }];
        let bytes = to_csv(&rows).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.starts_with(
            "policy,t,pseudo_regret_mean,pseudo_regret_std,pseudo_regret_se,pseudo_regret_ci95_lo,"
        ));
        // Floats keep a decimal point even when whole.
        assert!(text.contains(",0.0,"), "{text}");
        assert_eq!(from_csv(&bytes).unwrap(), rows);
    }
}
