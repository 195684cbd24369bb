//! Outputs of a sweep: `summary.json` (`"kind": "sweep"`: the table of every policy's final
//! values against the swept value, and each cell's full regret summary), `curves.csv` and
//! `runs.csv` (every cell's rows, the cell named in the `experiment` column), charts of each
//! policy's final regret against the swept value with 95 % intervals, and `report.md`.

use super::ReportError;
use super::charts::Rendered;
use super::curves::{self, CurveRow};
use super::markdown::{charts_section, count, interval, sig};
use super::plots::lines::{Curve, LineChart};
use super::plots::{ChartError, ChartOptions, render};
use super::summary::{RegretSummary, Stat, regret_summary};
use crate::output::OutputDir;
use crate::runner::RegretStats;
use crate::scenario::{RegretScenario, SweepScenario};
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use std::path::PathBuf;

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
pub fn summary(s: &SweepScenario, cells: &[(&RegretScenario, &RegretStats)]) -> SweepSummary {
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
        kind: "sweep".into(),
        description: s.description.clone(),
        field: s.field.clone(),
        values: s.values.clone(),
        table,
        cells,
    }
}

/// Writes every output of a finished sweep.
pub fn write(
    out: &OutputDir,
    s: &SweepScenario,
    cells: &[(&RegretScenario, &RegretStats)],
    opts: &ChartOptions,
) -> Result<Vec<PathBuf>, ReportError> {
    let summary = summary(s, cells);
    let labels: Vec<String> = s.values.iter().map(|&v| s.cell_label(v)).collect();
    let rows: Vec<CurveRow> = cells
        .iter()
        .zip(&labels)
        .flat_map(|((scenario, stats), label)| curves::rows_in_cell(scenario, stats, Some(label)))
        .collect();
    let json = serde_json::to_vec_pretty(&summary).map_err(|source| ReportError::Json {
        file: "summary.json",
        error: source,
    })?;
    let back: SweepSummary =
        super::parse_json(&json).map_err(|message| ReportError::Unreadable {
            file: "summary.json",
            message,
        })?;
    super::check::sweep(&back).map_err(|message| ReportError::Unreadable {
        file: "summary.json",
        message,
    })?;
    let runs: Vec<(Option<&str>, &RegretScenario, &RegretStats)> = cells
        .iter()
        .zip(&labels)
        .map(|((scenario, stats), label)| (Some(label.as_str()), *scenario, *stats))
        .collect();
    let mut written = vec![
        out.write("summary.json", &json)?,
        out.write("curves.csv", &curves::to_csv(&rows)?)?,
        out.write(super::runs::FILE, &super::runs::regret_cells(&runs)?)?,
    ];
    written.extend(render_report(out, &summary, opts)?);
    Ok(written)
}

/// Draws the charts and writes `report.md` from a sweep's summary (what `plot` redoes).
pub fn render_report(
    out: &OutputDir,
    summary: &SweepSummary,
    opts: &ChartOptions,
) -> Result<Vec<PathBuf>, ReportError> {
    let rendered = charts(out, summary, opts)?;
    let mut written: Vec<PathBuf> = rendered
        .iter()
        .flat_map(|r| r.files.iter().cloned())
        .collect();
    let md = markdown(summary, &super::embedded(&rendered, opts));
    written.push(out.write("report.md", md.as_bytes())?);
    Ok(written)
}

/// The configurations of the sweep (`None` for a single channel list).
fn configurations(s: &SweepSummary) -> Vec<Option<String>> {
    let mut out: Vec<Option<String>> = Vec::new();
    for r in &s.table {
        if !out.contains(&r.configuration) {
            out.push(r.configuration.clone());
        }
    }
    out
}

fn policies(s: &SweepSummary) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in &s.table {
        if !out.contains(&r.policy) {
            out.push(r.policy.clone());
        }
    }
    out
}

/// Final pseudo- and realised regret against the swept value, one line per policy, with 95 %
/// intervals as error bars.
fn charts(
    out: &OutputDir,
    s: &SweepSummary,
    opts: &ChartOptions,
) -> Result<Vec<Rendered>, ChartError> {
    let mut rendered = Vec::new();
    if opts.formats.is_empty() {
        return Ok(rendered);
    }
    let positive = s.values.iter().all(|&v| v > 0.0);
    let (lo, hi) = s
        .values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    let log_x = positive && hi >= 20.0 * lo;
    for (c, configuration) in configurations(s).iter().enumerate() {
        for (metric, name, pick) in [
            ("pseudo-regret", "pseudo-regret", 0),
            ("realized-regret", "realised regret", 1),
        ] {
            let curves: Vec<Curve> = policies(s)
                .into_iter()
                .map(|policy| Curve {
                    points: s
                        .table
                        .iter()
                        .filter(|r| &r.configuration == configuration && r.policy == policy)
                        .map(|r| {
                            let st = if pick == 0 {
                                r.pseudo_regret
                            } else {
                                r.realized_regret
                            };
                            let half = st.ci95.map_or(0.0, |[lo, hi]| (hi - lo) / 2.0);
                            (r.value, st.mean, half)
                        })
                        .collect(),
                    label: policy,
                })
                .collect();
            let what = configuration
                .as_ref()
                .map_or(String::new(), |l| format!(" — {l}"));
            let stem = match configuration {
                None => format!("sweep-{metric}"),
                Some(l) => format!("sweep-config{}-{}-{metric}", c + 1, super::charts::slug(l)),
            };
            let chart = LineChart {
                title: format!("{}: final {name} against {}{what}", s.scenario, s.field),
                x_label: format!("{}{}", s.field, if log_x { " (log scale)" } else { "" }),
                y_label: format!("final {name}"),
                log_x,
                log_y: false,
                error_bars: true,
                curves,
                band: Some("95 % confidence interval".into()),
                references: Vec::new(),
                notes: Vec::new(),
                y_range_from: f64::NEG_INFINITY,
                y_from_zero: pick == 0,
                verticals: None,
            };
            let files = render(&chart, out, &stem, opts)?;
            rendered.push(Rendered {
                caption: format!(
                    "Final {name} against {}{what} (mean over runs, 95 % interval)",
                    s.field
                ),
                stem,
                files,
            });
        }
    }
    Ok(rendered)
}

/// `report.md` of a sweep: the table of every policy's final regret against the swept value.
pub fn markdown(s: &SweepSummary, charts: &[(String, String)]) -> String {
    let mut out = format!("# {}\n\n", s.scenario);
    if !s.description.is_empty() {
        let _ = writeln!(out, "{}\n", s.description.trim());
    }
    let runs = s.cells.first().map_or(0, |c| c.runs);
    let _ = writeln!(
        out,
        "Sweep of `{}` over {}, {} per cell; each cell runs exactly as a separate scenario with that value would (same seed and random streams).\n",
        s.field,
        count(s.values.len() as u64, "value"),
        count(runs, "run")
    );
    let policies = policies(s);
    for configuration in configurations(s) {
        if let Some(l) = &configuration {
            let _ = writeln!(out, "## {l}\n");
        }
        let _ = writeln!(
            out,
            "Final pseudo-regret, mean [95 % interval]; realised regret below each.\n"
        );
        let mut head = format!("| {} |", s.field);
        let mut rule = "|---:|".to_string();
        for p in &policies {
            let _ = write!(head, " {p} |");
            rule.push_str("---:|");
        }
        let _ = writeln!(out, "{head}\n{rule}");
        for &v in &s.values {
            let mut row = format!("| {v} |");
            for p in &policies {
                match s
                    .table
                    .iter()
                    .find(|r| r.value == v && r.policy == *p && r.configuration == configuration)
                {
                    Some(r) => {
                        let _ = write!(
                            row,
                            " {} {}<br>{} {} |",
                            sig(r.pseudo_regret.mean, 4),
                            interval(r.pseudo_regret.ci95),
                            sig(r.realized_regret.mean, 4),
                            interval(r.realized_regret.ci95)
                        );
                    }
                    None => row.push_str(" – |"),
                }
            }
            let _ = writeln!(out, "{row}");
        }
        out.push('\n');
    }
    charts_section(&mut out, charts);
    out
}
