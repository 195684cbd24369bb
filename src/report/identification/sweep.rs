//! An identification sweep's outputs, laid out as a many-users sweep's: each cell's full
//! identification results in a subfolder named after its value (`confidence=0.05/summary.json`,
//! …), and at the top `summary.json` (`"kind": "identification-sweep"`: every algorithm's
//! samples to stop and errors against the swept value), `sweep.csv`, one chart per instance,
//! size and setting (samples to stop against the swept value, 95 % intervals) and `report.md`.
//!
//! A cell's results line up with every other cell's by position: a sweep sets one numeric
//! field, so every cell has the same instances, sizes (one per entry of `arms`), settings and
//! algorithms in the same order; only the numbers differ (N itself when `arms[j]` is swept).

use super::summary::{CellSummary, IdentificationSummary, summary};
use super::{load_identification, render, render_report};
use crate::engine::identification::runner::IdentifyCell;
use crate::report::format::{float, sig, slug, whole};
use crate::report::plots::lines::Curve;
use crate::report::plots::{ChartOptions, render_chart};
use crate::report::saved::SavedResults;
use crate::report::sweep::{SweptAxis, cell_folders, check_top_agrees, saved_head};
use crate::report::{Artifact, Rendered, ReportError};
use crate::scenario::IdentificationScenario;
use crate::scenario::Sweep;
use crate::scenario::sweep::SweepAxis;
use crate::store::names::{self, ResultKind, Swept};
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use std::path::Path;

/// The top `summary.json` of an identification sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IdentificationSweepSummary {
    /// Always `"identification-sweep"`.
    pub kind: ResultKind,
    /// Scenario name.
    pub scenario: String,
    /// Scenario description.
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
    /// Each cell's subfolder, in the order of `values`.
    pub folders: Vec<String>,
    /// One entry per (instance, size, setting, algorithm) of a cell, with its value in each.
    pub entries: Vec<SweepEntry>,
}

/// One (instance, size, setting, algorithm) across the cells.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepEntry {
    /// Instance label.
    pub instance: String,
    /// Which of the instance's sizes (its `arms` entries), from 0.
    pub size: usize,
    /// `faithful` or `heuristic`.
    pub setting: String,
    /// Algorithm name.
    pub algorithm: String,
    /// Its results at each swept value.
    pub points: Vec<SweepPoint>,
}

/// One entry at one swept value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// The swept value.
    #[serde(serialize_with = "crate::report::format::whole_number")]
    pub value: f64,
    /// Number of arms N.
    pub n: usize,
    /// Size of the set to identify, K.
    pub k: usize,
    /// Runs.
    pub runs: u64,
    /// Mean samples to stop.
    pub samples_mean: f64,
    /// Its standard error.
    pub samples_stderr: f64,
    /// Its 95 % interval (Student's t; `null` for one run).
    pub samples_ci95: Option<[f64; 2]>,
    /// Runs that returned a wrong set.
    pub errors: u64,
    /// `errors / runs`: the empirical error rate, to read against the required ν.
    pub error_rate: f64,
    /// Runs stopped by the sample cap.
    pub capped: u64,
}

impl IdentificationSweepSummary {
    /// The charts' axis of the swept value.
    fn axis(&self) -> SweptAxis<'_> {
        SweptAxis::of(&self.field, &self.values, &self.axis_label, self.log_axis)
    }
}

/// Every output of an identification sweep.
pub(crate) fn render_sweep(
    s: &IdentificationScenario,
    sw: &Sweep<IdentificationScenario>,
    stats: &[Vec<IdentifyCell>],
    opts: &ChartOptions,
) -> Result<Vec<Artifact>, ReportError> {
    let folders = sweep_folders(&sw.field, &sw.values)?;
    let mut files = Vec::new();
    let mut summaries = Vec::with_capacity(sw.cells.len());
    for ((cell, st), folder) in sw.cells.iter().zip(stats).zip(&folders) {
        for f in render(cell, st, opts)? {
            files.push(f.in_folder(folder));
        }
        summaries.push(summary(cell, st));
    }
    let head = Head {
        scenario: &s.name,
        description: &s.description,
    };
    let top = top_summary(&head, &sw.field, &sw.values, &sw.axis, folders, &summaries);
    let json = serde_json::to_vec_pretty(&top).map_err(|error| ReportError::Json {
        file: names::SUMMARY,
        error,
    })?;
    files.push(Artifact::new(names::SUMMARY, json));
    files.push(Artifact::new(names::SWEEP, sweep_csv(&top)?));
    files.extend(render_top(&top, opts)?);
    Ok(files)
}

/// The cells' folders, or the error that a value makes none.
fn sweep_folders(field: &str, values: &[f64]) -> Result<Vec<String>, ReportError> {
    cell_folders(field, values).map_err(|message| ReportError::Unreadable {
        file: names::SUMMARY,
        message,
    })
}

/// What the scenario says of the sweep, as the top summary repeats it.
struct Head<'a> {
    scenario: &'a str,
    description: &'a str,
}

/// The top summary from the cells' summaries (in the order of `values`).
fn top_summary(
    head: &Head<'_>,
    field: &str,
    values: &[f64],
    axis: &SweepAxis,
    folders: Vec<String>,
    cells: &[IdentificationSummary],
) -> IdentificationSweepSummary {
    let first = cells.first().map_or(&[][..], |c| &c.results[..]);
    let entries = first
        .iter()
        .enumerate()
        .map(|(j, c)| SweepEntry {
            instance: c.instance.clone(),
            size: size_index(first, j),
            setting: c.setting.clone(),
            algorithm: c.algorithm.clone(),
            points: cells
                .iter()
                .zip(values)
                .filter_map(|(cell, &v)| cell.results.get(j).map(|r| point(v, r)))
                .collect(),
        })
        .collect();
    IdentificationSweepSummary {
        kind: ResultKind::Sweep(Swept::Identification),
        scenario: head.scenario.to_string(),
        description: head.description.to_string(),
        field: field.to_string(),
        values: values.to_vec(),
        axis_label: axis.label.clone(),
        log_axis: axis.log,
        folders,
        entries,
    }
}

/// Which of its instance's sizes result `j` is: the distinct N of that instance before it.
fn size_index(results: &[CellSummary], j: usize) -> usize {
    let c = &results[j];
    let mut sizes: Vec<usize> = Vec::new();
    for r in results[..j].iter().filter(|r| r.instance == c.instance) {
        if !sizes.contains(&r.n) {
            sizes.push(r.n);
        }
    }
    sizes.iter().position(|&n| n == c.n).unwrap_or(sizes.len())
}

fn point(value: f64, r: &CellSummary) -> SweepPoint {
    SweepPoint {
        value,
        n: r.n,
        k: r.k,
        runs: r.runs,
        samples_mean: r.samples.mean,
        samples_stderr: r.samples.stderr,
        samples_ci95: r.samples.ci95,
        errors: r.errors,
        error_rate: if r.runs == 0 {
            0.0
        } else {
            r.errors as f64 / r.runs as f64
        },
        capped: r.capped,
    }
}

/// `sweep.csv`: one row per entry and value.
fn sweep_csv(top: &IdentificationSweepSummary) -> Result<Vec<u8>, ReportError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let head = [
        "instance",
        "size",
        "setting",
        "algorithm",
        top.field.as_str(),
        "n",
        "k",
        "runs",
        "samples_mean",
        "samples_stderr",
        "samples_ci95_lo",
        "samples_ci95_hi",
        "errors",
        "error_rate",
        "capped",
    ];
    w.write_record(head)?;
    for e in &top.entries {
        for p in &e.points {
            w.write_record([
                e.instance.clone(),
                e.size.to_string(),
                e.setting.clone(),
                e.algorithm.clone(),
                whole(p.value),
                p.n.to_string(),
                p.k.to_string(),
                p.runs.to_string(),
                float(p.samples_mean),
                float(p.samples_stderr),
                p.samples_ci95.map_or(String::new(), |[lo, _]| float(lo)),
                p.samples_ci95.map_or(String::new(), |[_, hi]| float(hi)),
                p.errors.to_string(),
                float(p.error_rate),
                p.capped.to_string(),
            ])?;
        }
    }
    Ok(w.into_inner()
        .map_err(|e| csv::Error::from(e.into_error()))?)
}

/// The groups charted and tabled together: (instance, size, setting), in entry order.
fn groups(top: &IdentificationSweepSummary) -> Vec<(&str, usize, &str)> {
    let mut out: Vec<(&str, usize, &str)> = Vec::new();
    for e in &top.entries {
        let g = (e.instance.as_str(), e.size, e.setting.as_str());
        if !out.contains(&g) {
            out.push(g);
        }
    }
    out
}

/// The entries of group `g`.
fn entries_of<'a>(
    top: &'a IdentificationSweepSummary,
    g: (&'a str, usize, &'a str),
) -> impl Iterator<Item = &'a SweepEntry> {
    top.entries
        .iter()
        .filter(move |e| (e.instance.as_str(), e.size, e.setting.as_str()) == g)
}

/// Whether an instance has several sizes (then charts and headings name which).
fn sized(top: &IdentificationSweepSummary, instance: &str) -> bool {
    top.entries
        .iter()
        .any(|e| e.instance == instance && e.size > 0)
}

/// A group's words: `instance (setting)`, with the size's N where the instance has several.
fn group_title(top: &IdentificationSweepSummary, g: (&str, usize, &str)) -> String {
    let (instance, size, setting) = g;
    if sized(top, instance) {
        let n = entries_of(top, g)
            .next()
            .and_then(|e| e.points.first())
            .map_or(0, |p| p.n);
        format!("{instance}, size {} (N = {n} first) ({setting})", size + 1)
    } else {
        format!("{instance} ({setting})")
    }
}

/// One chart per group: mean samples to stop against the swept value, one line per
/// algorithm, 95 % intervals as error bars.
fn charts(
    top: &IdentificationSweepSummary,
    opts: &ChartOptions,
) -> Result<Vec<Rendered>, ReportError> {
    let mut rendered = Vec::new();
    if opts.formats.is_empty() {
        return Ok(rendered);
    }
    let swept = top.axis();
    let axis = swept.title;
    for (i, g) in groups(top).into_iter().enumerate() {
        let curves = entries_of(top, g)
            .map(|e| Curve {
                key: None,
                points: e
                    .points
                    .iter()
                    .map(|p| {
                        let half = p.samples_ci95.map_or(0.0, |[lo, hi]| (hi - lo) / 2.0);
                        (p.value, p.samples_mean, half)
                    })
                    .collect(),
                label: e.algorithm.clone(),
            })
            .collect();
        let what = group_title(top, g);
        // Numbered, so that two instances whose labels slug alike keep their own files.
        let stem = format!("sweep-{}-{}-{}", i + 1, slug(g.0), g.2);
        let title = format!("{}: samples to stop against {axis} — {what}", top.scenario);
        let chart = swept.chart(title, "mean samples to stop".into(), curves);
        let files = render_chart(&chart, &stem, opts)?;
        rendered.push(Rendered {
            caption: format!(
                "Samples to stop against {axis} — {what} (mean over runs, 95 % interval)"
            ),
            stem,
            files,
        });
    }
    Ok(rendered)
}

/// `report.md`: per group, the mean samples to stop and the error rate at each value.
fn markdown(top: &IdentificationSweepSummary, charts: &[(String, String)]) -> String {
    let mut out = format!("# {}\n\n", top.scenario);
    if !top.description.is_empty() {
        let _ = writeln!(out, "{}\n", top.description.trim());
    }
    let _ = writeln!(
        out,
        "Best-K identification swept over `{}` ({} values). Each cell's full results are in its \
         folder ({}); the tables give the mean samples to stop with its 95 % interval and the \
         empirical error rate (wrong sets / runs; capped runs when any).\n",
        top.field,
        top.values.len(),
        top.folders
            .iter()
            .map(|f| format!("`{f}/`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for g in groups(top) {
        let _ = writeln!(out, "## {}\n", group_title(top, g));
        let _ = writeln!(
            out,
            "| {} | algorithm | N | K | runs | mean samples [95 % interval] | error rate | capped |\n|---:|---|---:|---:|---:|---|---:|---:|",
            top.axis().title
        );
        for e in entries_of(top, g) {
            for p in &e.points {
                let ci = p.samples_ci95.map_or(String::new(), |[lo, hi]| {
                    format!(" [{}, {}]", sig(lo, 4), sig(hi, 4))
                });
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {}{ci} | {} | {} |",
                    whole(p.value),
                    e.algorithm,
                    p.n,
                    p.k,
                    p.runs,
                    sig(p.samples_mean, 4),
                    sig(p.error_rate, 3),
                    p.capped
                );
            }
        }
        out.push('\n');
    }
    for (caption, image) in charts {
        let _ = writeln!(out, "{caption}\n\n{image}\n");
    }
    out
}

/// The top charts and `report.md` (what `plot` redraws; the cells' own are drawn by
/// [`render_report`]).
fn render_top(
    top: &IdentificationSweepSummary,
    opts: &ChartOptions,
) -> Result<Vec<Artifact>, ReportError> {
    let rendered = charts(top, opts)?;
    let files =
        crate::report::charts_and_report(rendered, opts, |embedded| markdown(top, embedded));
    Ok(files)
}

/// A saved identification sweep read back and checked: every cell's summary (each checked as
/// an identification folder is), and a top `summary.json` that is exactly what those cells
/// give. What `plot` redraws.
#[derive(Debug)]
pub(crate) struct SavedIdentificationSweep {
    top: IdentificationSweepSummary,
    cells: Vec<(String, IdentificationSummary)>,
}

/// Reads a saved identification sweep from `dir` (see [`SavedIdentificationSweep`]).
pub(crate) fn load_identification_sweep(
    dir: &Path,
) -> Result<SavedIdentificationSweep, ReportError> {
    let (json, head) = saved_head(
        dir,
        ResultKind::Sweep(Swept::Identification),
        "an identification sweep summary",
    )?;
    let saved = |message: String| ReportError::Saved {
        dir: dir.to_path_buf(),
        file: names::SUMMARY,
        message,
    };
    let mut cells = Vec::with_capacity(head.folders.len());
    for folder in &head.folders {
        let summary = load_identification(&dir.join(folder))?;
        cells.push((folder.clone(), summary));
    }
    let shape = |s: &IdentificationSummary| -> Vec<(String, String, String)> {
        let rows = s.results.iter();
        rows.map(|r| (r.instance.clone(), r.setting.clone(), r.algorithm.clone()))
            .collect()
    };
    if let Some((folder, bad)) = cells.iter().find(|(_, s)| shape(s) != shape(&cells[0].1)) {
        return Err(saved(format!(
            "the cell {folder} holds {} results, not those of the first cell ({} results; instances, settings and algorithms in one order)",
            bad.results.len(),
            cells[0].1.results.len()
        )));
    }
    let summaries: Vec<IdentificationSummary> = cells.iter().map(|(_, s)| s.clone()).collect();
    let h = Head {
        scenario: &head.scenario,
        description: &head.description,
    };
    let top = top_summary(
        &h,
        &head.field,
        &head.values,
        &head.axis,
        head.folders.clone(),
        &summaries,
    );
    let differs = "a count, a mean or a label differs";
    check_top_agrees(dir, &json, &top, differs)?;
    Ok(SavedIdentificationSweep { top, cells })
}

impl SavedResults for SavedIdentificationSweep {
    fn scenario(&self) -> &str {
        &self.top.scenario
    }

    fn kind(&self) -> ResultKind {
        ResultKind::Sweep(Swept::Identification)
    }

    fn render(&self, opts: &ChartOptions) -> Result<Vec<Artifact>, ReportError> {
        let mut files = Vec::new();
        for (folder, summary) in &self.cells {
            for f in render_report(summary, opts)? {
                files.push(f.in_folder(folder));
            }
        }
        files.extend(render_top(&self.top, opts)?);
        Ok(files)
    }

    fn subfolders(&self) -> Vec<&str> {
        self.cells
            .iter()
            .map(|(folder, _)| folder.as_str())
            .collect()
    }
}
