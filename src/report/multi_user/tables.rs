//! The many-users tables: `curves.csv` (written from the statistics, read back for `plot`
//! and `compare`), `runs.csv`, `users.csv` and `channels.csv`.

use super::summary::{MultiUserSummary, Stat};
use super::{METRICS, METRICS_V2};
use crate::engine::multi_user::runner::MultiStats;
use crate::engine::multi_user::slot_loop::N_MULTI;
use crate::engine::pipeline::{PartLabels, RunRows};
use crate::engine::recorder::Metric;
use crate::report::ReportError;
use crate::scenario::MultiUserScenario;

/// A metric's mean and standard deviation over the runs at one checkpoint, as `curves.csv`
/// holds them (shortest round-trip decimals: reading them back gives the same `f64`s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Point {
    /// Mean over runs.
    pub mean: f64,
    /// Sample standard deviation over runs.
    pub std: f64,
    /// Runs (0: read from a `curves.csv` written before the column was).
    pub n: u64,
}

/// One checkpoint of one policy: the slot, and each metric of [`METRICS`] (`None`: no value,
/// e.g. a pseudo-regret without a closed form).
pub(crate) type Row = (u64, [Option<Point>; METRICS.len()]);

/// Every policy's curves, in scenario order: what `curves.csv` holds and the charts draw, the
/// same whether built from the statistics or read back from the file.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct CurveTable {
    /// Per policy, its label and rows.
    pub policies: Vec<(String, Vec<Row>)>,
}

impl CurveTable {
    /// The table of a run's statistics.
    pub(crate) fn of(s: &MultiUserScenario, stats: &MultiStats) -> CurveTable {
        let policies = s
            .policies
            .iter()
            .zip(&stats.stats)
            .map(|(p, st)| {
                let rows = stats
                    .checkpoints
                    .iter()
                    .zip(&st.curves)
                    .map(|(&t, c)| {
                        let point = |i: usize| {
                            (c[i].count() > 0).then(|| {
                                let ms = c[i].mean_std();
                                Point {
                                    mean: ms.mean,
                                    std: ms.std,
                                    n: c[i].count(),
                                }
                            })
                        };
                        (t, METRICS.map(|(_, i)| point(i)))
                    })
                    .collect();
                (p.label.clone(), rows)
            })
            .collect();
        CurveTable { policies }
    }

    /// The columns: per metric its mean, standard deviation, standard error and 95 %
    /// interval (as a single user's `curves.csv`), then the runs `n`.
    fn header() -> Vec<String> {
        let mut header = vec!["policy".to_string(), "t".to_string()];
        for (name, _) in METRICS {
            for what in ["mean", "std", "se", "ci95_lo", "ci95_hi"] {
                header.push(format!("{name}_{what}"));
            }
        }
        header.push("n".into());
        header
    }

    /// The columns of a `curves.csv` written before the standard errors were (read only).
    fn header_v1() -> Vec<String> {
        let mut header = vec!["policy".to_string(), "t".to_string()];
        for (name, _) in &METRICS[..METRICS_V2] {
            header.push(format!("{name}_mean"));
            header.push(format!("{name}_std"));
        }
        header
    }

    /// The columns of a `curves.csv` written with standard errors but before the energy/delay
    /// split and missed opportunities (read only).
    fn header_v2() -> Vec<String> {
        let mut header = vec!["policy".to_string(), "t".to_string()];
        for (name, _) in &METRICS[..METRICS_V2] {
            for what in ["mean", "std", "se", "ci95_lo", "ci95_hi"] {
                header.push(format!("{name}_{what}"));
            }
        }
        header.push("n".into());
        header
    }

    /// `curves.csv`: per policy and checkpoint, each metric's mean, standard deviation,
    /// standard error and 95 % interval of the mean (Student's t), and the runs.
    pub(crate) fn to_csv(&self) -> Result<Vec<u8>, ReportError> {
        let rows = self.policies.iter().flat_map(|(label, rows)| {
            rows.iter().map(move |(t, points)| {
                let mut r = vec![label.clone(), t.to_string()];
                let mut n = 0;
                for p in points {
                    match p {
                        None => r.extend(std::iter::repeat_n(String::new(), 5)),
                        Some(p) => {
                            n = n.max(p.n);
                            let s = Stat::of(p.n, p.mean, p.std);
                            let [lo, hi] =
                                s.ci95.map_or([String::new(), String::new()], |[lo, hi]| {
                                    [num(lo), num(hi)]
                                });
                            r.extend([num(p.mean), num(p.std), num(s.stderr), lo, hi]);
                        }
                    }
                }
                r.push(n.to_string());
                r
            })
        });
        csv_bytes(&Self::header(), rows)
    }

    /// Reads `curves.csv` back; the error names the line and the column.
    pub(crate) fn from_csv(bytes: &[u8]) -> Result<CurveTable, String> {
        let mut r = csv::Reader::from_reader(bytes);
        let header: Vec<String> = r
            .headers()
            .map_err(|e| e.to_string())?
            .iter()
            .map(String::from)
            .collect();
        // Per metric, how many columns (5 now, 2 in files written before the standard errors)
        // and how many metrics (the last three came later).
        let (stride, metrics) = if header == Self::header() {
            (5, METRICS.len())
        } else if header == Self::header_v2() {
            (5, METRICS_V2)
        } else if header == Self::header_v1() {
            (2, METRICS_V2)
        } else {
            return Err(format!(
                "the header is not a many-users curves.csv's (want {})",
                Self::header().join(",")
            ));
        };
        let mut table = CurveTable::default();
        for (i, record) in r.records().enumerate() {
            let line = i + 2;
            let record = record.map_err(|e| format!("line {line}: {e}"))?;
            let field = |j: usize| record.get(j).unwrap_or("");
            let t: u64 = field(1)
                .parse()
                .map_err(|_| format!("line {line}, column t: {:?} is not a slot", field(1)))?;
            let n: u64 = if stride == 5 {
                let at = header.len() - 1;
                field(at)
                    .parse()
                    .map_err(|_| format!("line {line}, column n: {:?} is not a count", field(at)))?
            } else {
                0
            };
            let mut points = [None; METRICS.len()];
            for (m, point) in points.iter_mut().enumerate().take(metrics) {
                let (mean, std) = (field(2 + stride * m), field(3 + stride * m));
                if mean.is_empty() && std.is_empty() {
                    continue;
                }
                let parse = |x: &str, what: &str| {
                    x.parse::<f64>()
                        .ok()
                        .filter(|v| v.is_finite())
                        .ok_or_else(|| {
                            format!(
                                "line {line}, column {}_{what}: {x:?} is not a finite number",
                                METRICS[m].0
                            )
                        })
                };
                *point = Some(Point {
                    mean: parse(mean, "mean")?,
                    std: parse(std, "std")?,
                    n,
                });
            }
            let label = field(0);
            match table.policies.last_mut() {
                Some((l, rows)) if l == label => {
                    if rows.last().is_some_and(|(before, _)| *before >= t) {
                        return Err(format!(
                            "line {line}: slot {t} does not follow the previous one"
                        ));
                    }
                    rows.push((t, points));
                }
                _ => table.policies.push((label.to_string(), vec![(t, points)])),
            }
        }
        Ok(table)
    }
}

pub(super) fn csv_bytes(
    header: &[String],
    rows: impl Iterator<Item = Vec<String>>,
) -> Result<Vec<u8>, ReportError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header)?;
    for r in rows {
        w.write_record(&r)?;
    }
    w.into_inner()
        .map_err(|e| ReportError::Csv(csv::Error::from(e.into_error())))
}

pub(super) fn num(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        String::new()
    }
}

/// The header line of a many-users `runs.csv` (with `returns`, under `reward: TimeLeft`,
/// the `pu_returns` column: user-slots whose transmission the primary user's return
/// interrupted in the run).
pub(crate) fn runs_header(returns: bool) -> Result<Vec<u8>, ReportError> {
    let mut header = vec!["policy".to_string(), "run".to_string()];
    header.extend(METRICS.iter().map(|(n, _)| n.to_string()));
    if returns {
        header.push(Metric::PuReturns.name().to_string());
    }
    csv_bytes(&header, std::iter::empty())
}

/// The header of a many-users scenario's `runs.csv` (or why it cannot be written) and the
/// labels of its parts, its policies in scenario order: what the runs stream writes.
pub(crate) fn runs_parts(s: &MultiUserScenario) -> (Result<Vec<u8>, String>, Vec<PartLabels>) {
    let returns = s.env.time_left().is_some();
    let labels = s
        .policies
        .iter()
        .map(|p| PartLabels {
            experiment: String::new(),
            policy: p.label.clone(),
            returns,
        })
        .collect();
    (runs_header(returns).map_err(|e| e.to_string()), labels)
}

impl RunRows for Vec<(u64, [f64; N_MULTI])> {
    fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }

    fn write(
        &self,
        w: &mut csv::Writer<&mut dyn std::io::Write>,
        part: &PartLabels,
    ) -> Result<(), csv::Error> {
        write_runs(w, &part.policy, self, part.returns)
    }
}

/// The rows of one policy, runs as given: `runs.csv` is the header followed by these rows for
/// every policy in scenario order, so rows written as the runs finish make the same bytes.
pub(crate) fn write_runs<W: std::io::Write>(
    w: &mut csv::Writer<W>,
    policy: &str,
    rows: &[(u64, [f64; N_MULTI])],
    returns: bool,
) -> Result<(), csv::Error> {
    for (run, row) in rows {
        w.write_field(policy)?;
        w.write_field(run.to_string())?;
        for &(_, i) in &METRICS {
            w.write_field(num(row[i]))?;
        }
        if returns {
            w.write_field(num(row[Metric::PuReturns as usize]))?;
        }
        w.write_record(None::<&[u8]>)?;
    }
    Ok(())
}

/// `runs.csv`: each run's values at the horizon (Selfish fails on a few runs only: the
/// distribution matters).
pub(super) fn runs(s: &MultiUserScenario, stats: &MultiStats) -> Result<Vec<u8>, ReportError> {
    let returns = s.env.time_left().is_some();
    let mut w = csv::Writer::from_writer(runs_header(returns)?);
    for (p, st) in s.policies.iter().zip(&stats.stats) {
        write_runs(&mut w, &p.label, &st.finals, returns)?;
    }
    w.into_inner()
        .map_err(|e| ReportError::Csv(csv::Error::from(e.into_error())))
}

fn stat_cells(x: &Option<Stat>) -> [String; 2] {
    match x {
        Some(s) => [num(s.mean), num(s.std)],
        None => [String::new(), String::new()],
    }
}

pub(super) fn users_csv(summary: &MultiUserSummary) -> Result<Vec<u8>, ReportError> {
    let header: Vec<String> = [
        "policy",
        "user",
        "reward_mean",
        "reward_std",
        "successes_mean",
        "successes_std",
        "switches_mean",
        "switches_std",
    ]
    .map(String::from)
    .to_vec();
    let rows = summary.policies.iter().flat_map(|p| {
        p.users.iter().map(|u| {
            let mut r = vec![p.name.clone(), u.user.to_string()];
            for x in [&u.reward, &u.successes, &u.switches] {
                r.extend(stat_cells(x));
            }
            r
        })
    });
    csv_bytes(&header, rows)
}

pub(super) fn channels_csv(summary: &MultiUserSummary) -> Result<Vec<u8>, ReportError> {
    let header: Vec<String> = [
        "policy",
        "channel",
        "theta",
        "selections_mean",
        "selections_std",
        "collisions_mean",
        "collisions_std",
        "probes_per_run",
    ]
    .map(String::from)
    .to_vec();
    let rows = summary.policies.iter().flat_map(|p| {
        p.channels.iter().map(|c| {
            let mut r = vec![p.name.clone(), c.channel.to_string(), num(c.theta)];
            r.extend(stat_cells(&c.selections));
            r.extend(stat_cells(&c.collisions));
            r.push(num(c.probes_per_run));
            r
        })
    });
    csv_bytes(&header, rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(mean: f64, std: f64, n: u64) -> Option<Point> {
        Some(Point { mean, std, n })
    }

    /// `curves.csv` carries each metric's standard error and 95 % interval and the runs, and
    /// reads back to the same table; a file written before those columns still reads (n = 0).
    #[test]
    fn curves_carry_standard_errors_and_old_files_still_read() {
        let mut points = [None; METRICS.len()];
        points[1] = point(10.0, 4.0, 4);
        points[2] = point(2.5, 0.0, 4);
        let table = CurveTable {
            policies: vec![("p".into(), vec![(7, points)])],
        };
        let bytes = table.to_csv().unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
        let row: Vec<&str> = text.lines().nth(1).unwrap().split(',').collect();
        let at = |name: &str| row[header.iter().position(|h| *h == name).unwrap()];
        assert_eq!(at("realized_regret_se"), "2");
        let lo: f64 = at("realized_regret_ci95_lo").parse().unwrap();
        assert!((lo - (10.0 - 3.182_446 * 2.0)).abs() < 1e-5, "{lo}");
        assert_eq!(at("pseudo_regret_se"), "");
        assert_eq!(at("n"), "4");
        assert_eq!(CurveTable::from_csv(&bytes).unwrap(), table);
        // The same file in the earlier columns.
        let mut old = csv::Writer::from_writer(Vec::new());
        old.write_record(CurveTable::header_v1()).unwrap();
        let mut r = vec!["p".to_string(), "7".to_string()];
        for p in &points[..METRICS_V2] {
            match p {
                Some(p) => r.extend([p.mean.to_string(), p.std.to_string()]),
                None => r.extend([String::new(), String::new()]),
            }
        }
        old.write_record(&r).unwrap();
        let read = CurveTable::from_csv(&old.into_inner().unwrap()).unwrap();
        let (_, rows) = &read.policies[0];
        assert_eq!(rows[0].1[1], point(10.0, 4.0, 0));
        // With standard errors, before the energy/delay split and missed opportunities: the
        // same file less their columns reads, those metrics absent.
        let keep = 2 + 5 * METRICS_V2;
        let cut: String = text
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                let mut kept = f[..keep].to_vec();
                kept.push(f[f.len() - 1]);
                kept.join(",") + "\n"
            })
            .collect();
        let read = CurveTable::from_csv(cut.as_bytes()).unwrap();
        let (_, rows) = &read.policies[0];
        assert_eq!(rows[0].1[1], point(10.0, 4.0, 4));
        assert!(rows[0].1[METRICS_V2..].iter().all(Option::is_none));
    }
}
