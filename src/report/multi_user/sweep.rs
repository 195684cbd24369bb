//! A many-users sweep's outputs: each cell's full many-users results in a subfolder named
//! after its value (`users=4/summary.json`, …), and at the top `summary.json` (`"kind":
//! "multi-user-sweep"`: every policy's values at the horizon against the swept value),
//! `sweep.csv`, the chart `sweep` (system regret at the horizon against the value) and
//! `report.md`.

use super::summary::{MultiUserSummary, Stat, summary};
use super::tables::{CurveTable, csv_bytes, num};
use super::{cell, render};
use crate::engine::multi_user::runner::MultiStats;
use crate::report::format::sig;
use crate::report::plots::lines::{Curve, LineChart, spans_decades};
use crate::report::plots::{Band, ChartOptions, render_chart};
use crate::report::sweep::{SweptAxis, cell_folder, check_top_agrees, saved_head};
use crate::report::{Artifact, Rendered, ReportError};
use crate::scenario::MultiUserScenario;
use crate::scenario::Sweep;
use crate::scenario::sweep::SweepAxis;
use crate::store::names::{self, ResultKind, Swept};
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;

/// The metrics at the horizon a sweep reports per policy and value, in column order.
const AT_HORIZON: [&str; 4] = [
    "pseudo_regret",
    "realized_regret",
    "su_collisions",
    "reward",
];

/// One cell of the sweep.
#[derive(Clone, Debug, Serialize)]
struct SweepCell {
    #[serde(serialize_with = "crate::report::format::whole_number")]
    value: f64,
    folder: String,
    users: usize,
    channels: usize,
    /// Slots per run (the reward per slot of `report.md` divides by it).
    horizon: u64,
    benchmark: String,
    benchmark_reward_per_slot: f64,
}

/// One policy at one value.
#[derive(Clone, Debug, Serialize)]
struct SweepPoint {
    #[serde(serialize_with = "crate::report::format::whole_number")]
    value: f64,
    runs: u64,
    at_horizon: std::collections::BTreeMap<String, Option<Stat>>,
    jain_fairness: Option<Stat>,
}

#[derive(Clone, Debug, Serialize)]
struct SweepPolicy {
    name: String,
    policy: String,
    points: Vec<SweepPoint>,
    /// The regret at the horizon against the swept value, fitted by a line.
    #[serde(skip_serializing_if = "Option::is_none")]
    fit: Option<LineFit>,
}

/// A straight line fitted by least squares to a policy's mean regret at the horizon against
/// the swept value (every cell one point, equally weighted). Its slope is a fixed linear
/// combination of the cells' means, which are independent, so its standard error follows
/// exactly from theirs: `se² = Σ (x_i − x̄)² se_i² / (Σ (x_i − x̄)²)²`; the interval is ±1.96 se
/// (the Monte Carlo uncertainty of the slope of the mean curve, not the curve's departure from
/// a line). Against a jammers' budget C this is the regret per jammed slot, Ω(C) and Õ(C) in
/// the adversarial multi-player literature.
#[derive(Clone, Debug, Serialize)]
struct LineFit {
    /// The metric fitted (`pseudo_regret`, or `realized_regret` where a cell lacks it).
    metric: &'static str,
    /// The regret per unit of the swept value.
    slope: f64,
    /// Its standard error, from the cells' standard errors.
    slope_stderr: f64,
    /// `slope ± 1.96 stderr`.
    slope_ci95: [f64; 2],
    /// The fitted regret at value 0.
    intercept: f64,
}

impl LineFit {
    /// The fit of `(x, mean, stderr)` points, if two values differ.
    fn of(metric: &'static str, points: &[(f64, f64, f64)]) -> Option<LineFit> {
        let n = points.len() as f64;
        let (mx, my) = points
            .iter()
            .fold((0.0, 0.0), |(a, b), &(x, y, _)| (a + x / n, b + y / n));
        let sxx: f64 = points.iter().map(|&(x, _, _)| (x - mx) * (x - mx)).sum();
        if points.len() < 2 || sxx.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return None;
        }
        let slope = points.iter().map(|&(x, y, _)| (x - mx) * y).sum::<f64>() / sxx;
        let var: f64 = points
            .iter()
            .map(|&(x, _, se)| (x - mx) * (x - mx) * se * se)
            .sum::<f64>()
            / (sxx * sxx);
        let se = var.sqrt();
        Some(LineFit {
            metric,
            slope,
            slope_stderr: se,
            slope_ci95: [slope - 1.96 * se, slope + 1.96 * se],
            intercept: my - slope * mx,
        })
    }
}

/// `summary.json` of a many-users sweep.
#[derive(Clone, Debug, Serialize)]
struct SweepSummary {
    kind: ResultKind,
    scenario: String,
    description: String,
    field: String,
    #[serde(serialize_with = "crate::report::format::whole_numbers")]
    values: Vec<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    axis_label: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    log_axis: Option<bool>,
    cells: Vec<SweepCell>,
    policies: Vec<SweepPolicy>,
}

impl SweepSummary {
    /// The charts' axis of the swept value.
    fn axis(&self) -> SweptAxis<'_> {
        SweptAxis::of(&self.field, &self.values, &self.axis_label, self.log_axis)
    }
}

/// Every output of a many-users sweep.
pub(crate) fn render_sweep(
    s: &MultiUserScenario,
    sw: &Sweep<MultiUserScenario>,
    stats: &[MultiStats],
    opts: &ChartOptions,
) -> Result<Vec<Artifact>, ReportError> {
    let mut files = Vec::new();
    let mut summaries: Vec<MultiUserSummary> = Vec::new();
    for ((cell, st), &v) in sw.cells.iter().zip(stats).zip(&sw.values) {
        let folder = cell_folder(&sw.field, v);
        for f in render(cell, st, opts)? {
            files.push(f.in_folder(&folder));
        }
        summaries.push(summary(cell, st));
    }
    let top = top_summary(
        &s.header.name,
        &s.header.description,
        &sw.field,
        &sw.values,
        &sw.axis,
        &summaries,
    );
    let json = serde_json::to_vec_pretty(&top).map_err(|error| ReportError::Json {
        file: names::SUMMARY,
        error,
    })?;
    files.push(Artifact::new(names::SUMMARY, json));
    files.push(Artifact::new(crate::store::names::SWEEP, sweep_csv(&top)?));
    files.extend(render_top(&top, opts)?);
    Ok(files)
}

/// The top `summary.json` of a sweep, from its cells' summaries (in the order of `values`).
fn top_summary(
    scenario: &str,
    description: &str,
    field: &str,
    values: &[f64],
    axis: &SweepAxis,
    summaries: &[MultiUserSummary],
) -> SweepSummary {
    let policies = summaries.first().map_or(0, |c| c.policies.len());
    let mut top = SweepSummary {
        kind: ResultKind::Sweep(Swept::MultiUser),
        scenario: scenario.to_string(),
        description: description.to_string(),
        field: field.to_string(),
        values: values.to_vec(),
        axis_label: axis.label.clone(),
        log_axis: axis.log,
        cells: summaries
            .iter()
            .zip(values)
            .map(|(c, &v)| SweepCell {
                value: v,
                folder: cell_folder(field, v),
                users: c.users,
                channels: c.channels,
                horizon: c.horizon,
                benchmark: c.benchmark.name.clone(),
                benchmark_reward_per_slot: c.benchmark.expected_reward_per_slot,
            })
            .collect(),
        policies: (0..policies)
            .map(|p| SweepPolicy {
                name: summaries[0].policies[p].name.clone(),
                policy: summaries[0].policies[p].policy.clone(),
                points: summaries
                    .iter()
                    .zip(values)
                    .map(|(c, &v)| {
                        let ps = &c.policies[p];
                        SweepPoint {
                            value: v,
                            runs: ps.runs,
                            at_horizon: AT_HORIZON
                                .iter()
                                .map(|&m| (m.to_string(), ps.at_horizon[m]))
                                .collect(),
                            jain_fairness: ps.jain_fairness,
                        }
                    })
                    .collect(),
                fit: None,
            })
            .collect(),
    };
    let metric = regret_metric(&top.policies);
    for p in &mut top.policies {
        let points: Option<Vec<(f64, f64, f64)>> = p
            .points
            .iter()
            .map(|pt| pt.at_horizon[metric.0].map(|s| (pt.value, s.mean, s.stderr)))
            .collect();
        p.fit = points.and_then(|pts| LineFit::of(metric.0, &pts));
    }
    top
}

/// The top chart and `report.md` of a sweep (what `plot` redraws; the cells' own charts and
/// reports are drawn by [`super::render_report`]).
fn render_top(top: &SweepSummary, opts: &ChartOptions) -> Result<Vec<Artifact>, ReportError> {
    let rendered = chart(top, opts)?;
    let files =
        crate::report::charts_and_report(rendered, opts, |embedded| markdown(top, embedded));
    Ok(files)
}

/// A saved many-users sweep read back and checked: every cell's summary and curve table (each
/// checked as a many-users folder is), and a top `summary.json` that is exactly what those
/// cells give. What `plot` redraws.
#[derive(Debug)]
pub(crate) struct SavedSweep {
    top: SweepSummary,
    /// Each cell's folder, summary and curve table, in the order of the swept values.
    pub(crate) cells: Vec<(String, MultiUserSummary, CurveTable)>,
}

impl SavedSweep {
    /// The scenario's name.
    pub(crate) fn scenario(&self) -> &str {
        &self.top.scenario
    }

    /// Every chart and `report.md`, the cells' under their folders.
    pub(crate) fn render(&self, opts: &ChartOptions) -> Result<Vec<Artifact>, ReportError> {
        let mut files = Vec::new();
        for (folder, summary, table) in &self.cells {
            for f in super::render_report(summary, table, opts)? {
                files.push(f.in_folder(folder));
            }
        }
        files.extend(render_top(&self.top, opts)?);
        Ok(files)
    }
}

/// Reads a saved many-users sweep from `dir` (see [`SavedSweep`]). Errors name the file.
pub(crate) fn load_multi_user_sweep(dir: &Path) -> Result<SavedSweep, ReportError> {
    let (json, head) = saved_head(
        dir,
        ResultKind::Sweep(Swept::MultiUser),
        "a many-users sweep summary",
    )?;
    let saved = |message: String| ReportError::Saved {
        dir: dir.to_path_buf(),
        file: names::SUMMARY,
        message,
    };
    let mut cells = Vec::with_capacity(head.folders.len());
    for folder in head.folders {
        let (summary, table) = super::load_multi_user(&dir.join(&folder))?;
        cells.push((folder, summary, table));
    }
    let summaries: Vec<MultiUserSummary> = cells.iter().map(|(_, s, _)| s.clone()).collect();
    let names_of = |s: &MultiUserSummary| -> Vec<String> {
        s.policies.iter().map(|p| p.name.clone()).collect()
    };
    if let Some(bad) = cells
        .iter()
        .find(|(_, s, _)| names_of(s) != names_of(&summaries[0]))
    {
        return Err(saved(format!(
            "the cell {} holds the policies {:?}, the first cell {:?}",
            bad.0,
            names_of(&bad.1),
            names_of(&summaries[0])
        )));
    }
    let top = top_summary(
        &head.scenario,
        &head.description,
        &head.field,
        &head.values,
        &head.axis,
        &summaries,
    );
    let differs = "a value at the horizon, a count or a benchmark differs";
    check_top_agrees(dir, &json, &top, differs)?;
    Ok(SavedSweep { top, cells })
}

fn sweep_csv(top: &SweepSummary) -> Result<Vec<u8>, ReportError> {
    let mut header = vec!["policy".to_string(), top.field.clone(), "runs".to_string()];
    for m in AT_HORIZON {
        header.push(format!("{m}_mean"));
        header.push(format!("{m}_std"));
    }
    header.extend(["jain_mean".to_string(), "jain_std".to_string()]);
    let rows = top.policies.iter().flat_map(|p| {
        p.points.iter().map(move |pt| {
            let mut r = vec![p.name.clone(), num(pt.value), pt.runs.to_string()];
            for x in AT_HORIZON
                .iter()
                .map(|m| &pt.at_horizon[*m])
                .chain([&pt.jain_fairness])
            {
                match x {
                    Some(s) => r.extend([num(s.mean), num(s.std)]),
                    None => r.extend([String::new(), String::new()]),
                }
            }
            r
        })
    });
    csv_bytes(&header, rows)
}

/// The regret metric drawn and fitted: the pseudo-regret where every cell of every policy
/// has it, else the realised.
fn regret_metric(policies: &[SweepPolicy]) -> (&'static str, &'static str) {
    let pseudo = policies.iter().all(|p| {
        p.points
            .iter()
            .all(|pt| pt.at_horizon["pseudo_regret"].is_some())
    });
    if pseudo {
        ("pseudo_regret", "system pseudo-regret at the horizon")
    } else {
        ("realized_regret", "system realised regret at the horizon")
    }
}

fn half_width(s: &Stat, runs: u64, band: Band) -> f64 {
    match band {
        Band::Sd => s.std,
        Band::Se => s.std / (runs.max(1) as f64).sqrt(),
        Band::Ci95 => s.ci95.map_or(0.0, |[lo, hi]| (hi - lo) / 2.0),
    }
}

fn chart(top: &SweepSummary, opts: &ChartOptions) -> Result<Vec<Rendered>, ReportError> {
    if opts.formats.is_empty() {
        return Ok(Vec::new());
    }
    let (metric, what) = regret_metric(&top.policies);
    let swept = top.axis();
    let curves: Vec<Curve> = top
        .policies
        .iter()
        .map(|p| Curve {
            key: None,
            label: p.name.clone(),
            points: p
                .points
                .iter()
                .filter_map(|pt| {
                    pt.at_horizon[metric]
                        .as_ref()
                        .map(|s| (pt.value, s.mean, half_width(s, pt.runs, opts.band)))
                })
                .collect(),
        })
        .collect();
    let log_y = spans_decades(&curves);
    let title = format!("{} — {what}", top.scenario);
    let y_label = format!("{what}{}", if log_y { " (log scale)" } else { "" });
    // The spread the user chose (`--band`), and a log value axis when the regrets span decades.
    let chart = LineChart {
        log_y,
        band: Some(opts.band.describe().into()),
        notes: vec![format!(
            "each value's benchmark in report.md; {} cells",
            top.values.len()
        )],
        y_range_from: 0.0,
        y_from_zero: !log_y,
        ..swept.chart(title, y_label, curves)
    };
    Ok(vec![Rendered {
        caption: match &top.axis_label {
            Some(label) => format!("The {what} of every policy against {label}"),
            None => format!("The {what} of every policy against `{}`", top.field),
        },
        stem: "sweep".into(),
        files: render_chart(&chart, "sweep", opts)?,
    }])
}

/// A table of one row per policy and one column per swept value, each cell `value(point,
/// cell)`; with `benchmark`, the benchmark's reward per slot as the first row.
fn value_table(
    md: &mut String,
    top: &SweepSummary,
    benchmark: bool,
    value: impl Fn(&SweepPoint, &SweepCell) -> String,
) {
    let _ = write!(md, "| policy |");
    for v in &top.values {
        let _ = write!(md, " {} = {v} |", top.field);
    }
    let _ = write!(md, "\n|---|");
    for _ in &top.values {
        md.push_str("---:|");
    }
    md.push('\n');
    if benchmark {
        md.push_str("| *benchmark* |");
        for c in &top.cells {
            let _ = write!(md, " {} |", sig(c.benchmark_reward_per_slot, 4));
        }
        md.push('\n');
    }
    for p in &top.policies {
        let _ = write!(md, "| {} |", p.name);
        for (pt, c) in p.points.iter().zip(&top.cells) {
            let _ = write!(md, " {} |", value(pt, c));
        }
        md.push('\n');
    }
}

fn markdown(top: &SweepSummary, charts: &[(String, String)]) -> String {
    let mut md = format!(
        "# {} (many users, sweep of `{}`)\n\n",
        top.scenario, top.field
    );
    if !top.description.is_empty() {
        let _ = writeln!(md, "{}\n", top.description);
    }
    let _ = writeln!(
        md,
        "| `{}` | M | K | benchmark (per slot) | folder |\n|---:|---:|---:|---|---|",
        top.field
    );
    for c in &top.cells {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} ({}) | [{}]({}/report.md) |",
            c.value,
            c.users,
            c.channels,
            c.benchmark,
            sig(c.benchmark_reward_per_slot, 6),
            c.folder,
            c.folder
        );
    }
    let (metric, what) = regret_metric(&top.policies);
    // A sweep of policies that all play their benchmark (the oracle) has nothing but zeros to
    // show for regret: one sentence instead of a table of them, and the throughput below.
    let all_zero = top.policies.iter().all(|p| {
        p.points.iter().all(|pt| {
            pt.at_horizon[metric]
                .as_ref()
                .is_some_and(|s| s.mean == 0.0 && s.std == 0.0)
        })
    });
    if all_zero {
        let _ = writeln!(
            md,
            "\nThe {what} is 0 in every run of every policy at every value: each plays its benchmark (as the oracle does). The throughput below compares them.\n"
        );
    } else {
        let _ = writeln!(md, "\n{what} (mean ± sd over runs):\n");
        value_table(&mut md, top, false, |pt, _| cell(&pt.at_horizon[metric]));
    }
    if top.policies.iter().any(|p| p.fit.is_some()) {
        let _ = writeln!(
            md,
            "\nA line through each policy's mean {what} against `{}` (least squares over the cells; the interval is the slope's 95 % from the cells' standard errors):\n\n| policy | slope (per unit of `{}`) | 95 % interval | at 0 |\n|---|---:|---:|---:|",
            top.field, top.field
        );
        for p in &top.policies {
            if let Some(f) = &p.fit {
                let _ = writeln!(
                    md,
                    "| {} | {} | [{}, {}] | {} |",
                    p.name,
                    sig(f.slope, 4),
                    sig(f.slope_ci95[0], 4),
                    sig(f.slope_ci95[1], 4),
                    sig(f.intercept, 4)
                );
            }
        }
        md.push('\n');
    }
    let _ = writeln!(
        md,
        "Throughput: the system net reward per slot, all users together (mean ± sd over runs; the benchmark's in the first row):\n"
    );
    value_table(&mut md, top, true, |pt, c| {
        pt.at_horizon["reward"].as_ref().map_or("—".into(), |s| {
            let t = c.horizon.max(1) as f64;
            format!("{} ± {}", sig(s.mean / t, 4), sig(s.std / t, 3))
        })
    });
    md.push('\n');
    crate::report::format::charts_section(&mut md, charts);
    md
}
