//! `curves.csv`: one row per (experiment, policy, checkpoint), header first.
//!
//! Columns: `policy,t`, then `<metric>_mean,<metric>_std` for every metric of
//! [`Metric::ALL`] (cumulative values at slot `t`, mean and standard deviation across runs), and
//! `experiment` last (the configuration label, or the scenario name). Numbers are printed in
//! Rust's shortest round-trip form, so the file reads back bit-exactly.

use crate::recorder::{Metric, N_METRICS};
use crate::runner::RegretStats;
use crate::scenario::RegretScenario;
use crate::stats::MeanStd;

/// One row of `curves.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct CurveRow {
    /// Policy label.
    pub policy: String,
    /// Slot.
    pub t: u64,
    /// Mean and standard deviation of each metric, in [`Metric::ALL`] order.
    pub values: [MeanStd; N_METRICS],
    /// Experiment label.
    pub experiment: String,
}

impl CurveRow {
    /// Mean and standard deviation of one metric.
    pub fn get(&self, m: Metric) -> MeanStd {
        self.values[m as usize]
    }
}

/// The header row.
pub fn header() -> Vec<String> {
    let mut h = vec!["policy".to_string(), "t".to_string()];
    for m in Metric::ALL {
        h.push(format!("{}_mean", m.name()));
        h.push(format!("{}_std", m.name()));
    }
    h.push("experiment".to_string());
    h
}

/// The rows of a finished scenario, in scenario order.
pub fn rows(s: &RegretScenario, results: &RegretStats) -> Vec<CurveRow> {
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
                    values,
                    experiment: exp.label.clone(),
                });
            }
        }
    }
    out
}

/// Serialises rows to CSV bytes.
pub fn to_csv(rows: &[CurveRow]) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header())?;
    for r in rows {
        let mut rec = vec![r.policy.clone(), r.t.to_string()];
        for v in &r.values {
            rec.push(v.mean.to_string());
            rec.push(v.std.to_string());
        }
        rec.push(r.experiment.clone());
        w.write_record(&rec)?;
    }
    w.into_inner().map_err(|e| e.into_error().into())
}

/// Parses `curves.csv` written by [`to_csv`]; columns are found by name.
pub fn from_csv(bytes: &[u8]) -> Result<Vec<CurveRow>, String> {
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
    let experiment = col("experiment")?;
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
            t: rec
                .get(t)
                .unwrap_or("")
                .parse()
                .map_err(|_| format!("row {}: column t is not a slot number", line + 2))?,
            values,
            experiment: rec.get(experiment).unwrap_or("").to_string(),
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
            values,
            experiment: "K=6 \"L\"=1".into(),
        }];
        let bytes = to_csv(&rows).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.starts_with("policy,t,pseudo_regret_mean,pseudo_regret_std,"));
        assert_eq!(from_csv(&bytes).unwrap(), rows);
    }
}
