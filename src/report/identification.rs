//! Outputs of identification scenarios: `summary.json` (`"kind": "identification"`),
//! `identification.csv`, charts of samples against the number of arms (the paper's Figures 2
//! and 3) and `report.md`.

use super::ReportError;
use super::charts::{Rendered, slug};
use super::curves::float;
use super::markdown::sig;
use super::plots::bars::{BarSeries, GroupedBars};
use super::plots::lines::{Curve, LineChart};
use super::plots::{Band, ChartOptions, render};
use crate::output::OutputDir;
use crate::runner::IdentifyCell;
use crate::scenario::IdentificationScenario;
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use std::path::PathBuf;

/// The whole summary of an identification scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IdentificationSummary {
    /// Scenario name.
    pub scenario: String,
    /// Always `"identification"`.
    pub kind: String,
    /// Scenario description.
    pub description: String,
    /// Runs per cell.
    pub runs: u64,
    /// Seed.
    pub seed: u64,
    /// Required error probability ν.
    pub confidence: f64,
    /// ε of the faithful setting.
    pub faithful_epsilon: f64,
    /// Per-run sample cap.
    pub sample_cap: u64,
    /// One entry per (instance, N, setting, algorithm).
    pub results: Vec<CellSummary>,
}

/// Samples to stop over the runs of a cell.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleStats {
    /// Mean.
    pub mean: f64,
    /// Standard deviation across runs.
    pub std: f64,
    /// Standard error of the mean.
    pub stderr: f64,
    /// 95 % confidence interval of the mean (Student's t; `null` for one run).
    #[serde(default)]
    pub ci95: Option<[f64; 2]>,
    /// Median (exact; the mean of the two middle runs for an even number).
    pub p50: f64,
    /// Largest (exact).
    pub max: f64,
}

/// One (instance, N, setting, algorithm) cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellSummary {
    /// Instance label.
    pub instance: String,
    /// Instance family.
    pub family: String,
    /// `faithful` or `heuristic`.
    pub setting: String,
    /// Algorithm name.
    pub algorithm: String,
    /// Number of arms N.
    pub n: usize,
    /// Size of the set to identify, K.
    pub k: usize,
    /// The instance's complexity H = Σ Δ⁻².
    pub complexity: f64,
    /// ε used.
    pub epsilon: f64,
    /// δ used.
    pub delta: f64,
    /// Runs.
    pub runs: u64,
    /// Samples to stop.
    pub samples: SampleStats,
    /// Runs that returned a wrong set.
    pub errors: u64,
    /// Runs stopped by the sample cap.
    pub capped: u64,
}

/// Builds the summary.
pub fn summary(s: &IdentificationScenario, cells: &[IdentifyCell]) -> IdentificationSummary {
    let results = cells
        .iter()
        .map(|c| {
            let inst = &s.instances[c.instance];
            let arms = &inst.points[c.point];
            let st = &c.stats;
            let ms = st.samples.mean_std();
            let (median, max) = st.median_and_max();
            CellSummary {
                instance: inst.label.clone(),
                family: inst.family.clone(),
                setting: c.setting.name().to_string(),
                algorithm: c.name.clone(),
                n: arms.len(),
                k: arms.k(),
                complexity: arms.complexity(),
                epsilon: c.params.epsilon,
                delta: c.params.delta,
                runs: st.runs,
                samples: SampleStats {
                    mean: ms.mean,
                    std: ms.std,
                    stderr: st.samples.stderr(),
                    ci95: crate::stats::ci95(st.runs, ms.mean, ms.std),
                    p50: median,
                    max,
                },
                errors: st.errors,
                capped: st.capped,
            }
        })
        .collect();
    IdentificationSummary {
        scenario: s.name.clone(),
        kind: "identification".into(),
        description: s.description.clone(),
        runs: s.runs,
        seed: s.seed,
        confidence: s.confidence,
        faithful_epsilon: s.faithful_epsilon,
        sample_cap: s.sample_cap,
        results,
    }
}

/// `identification.csv`: one row per cell, header first.
pub fn to_csv(summary: &IdentificationSummary) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "instance",
        "setting",
        "algorithm",
        "n",
        "k",
        "runs",
        "samples_mean",
        "samples_std",
        "samples_stderr",
        "samples_ci95_lo",
        "samples_ci95_hi",
        "samples_p50",
        "samples_max",
        "errors",
        "capped",
        "epsilon",
        "delta",
        "complexity",
    ])?;
    for c in &summary.results {
        w.write_record([
            c.instance.clone(),
            c.setting.clone(),
            c.algorithm.clone(),
            c.n.to_string(),
            c.k.to_string(),
            c.runs.to_string(),
            float(c.samples.mean),
            float(c.samples.std),
            float(c.samples.stderr),
            c.samples.ci95.map_or(String::new(), |[lo, _]| float(lo)),
            c.samples.ci95.map_or(String::new(), |[_, hi]| float(hi)),
            float(c.samples.p50),
            float(c.samples.max),
            c.errors.to_string(),
            c.capped.to_string(),
            float(c.epsilon),
            float(c.delta),
            float(c.complexity),
        ])?;
    }
    w.into_inner().map_err(|e| e.into_error().into())
}

/// Distinct values in first-seen order.
fn distinct<T: PartialEq + Clone>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// The cells of `instance`, grouped by setting (in first-seen order).
fn by_setting<'a>(
    results: &'a [CellSummary],
    instance: &str,
) -> Vec<(String, Vec<&'a CellSummary>)> {
    let of_instance = || results.iter().filter(move |c| c.instance == instance);
    distinct(of_instance().map(|c| c.setting.clone()))
        .into_iter()
        .map(|setting| {
            let cells = of_instance().filter(|c| c.setting == setting).collect();
            (setting, cells)
        })
        .collect()
}

/// Samples against N per algorithm, one chart per (instance, setting).
pub fn charts(
    out: &OutputDir,
    summary: &IdentificationSummary,
    opts: &ChartOptions,
) -> Result<Vec<Rendered>, ReportError> {
    let mut rendered = Vec::new();
    if opts.formats.is_empty() {
        return Ok(rendered);
    }
    let r = &summary.results;
    for instance in distinct(r.iter().map(|c| c.instance.clone())) {
        for (setting, cells) in by_setting(r, &instance) {
            let algorithms = distinct(cells.iter().map(|c| c.algorithm.clone()));
            let sizes = distinct(cells.iter().map(|c| c.n));
            let k_note = distinct(cells.iter().map(|c| c.k));
            let title = format!("{} — {instance} ({setting})", summary.scenario);
            let spread = |c: &CellSummary| match opts.band {
                Band::Sd => c.samples.std,
                Band::Se => c.samples.stderr,
                Band::Ci95 => c.samples.ci95.map_or(0.0, |[lo, hi]| (hi - lo) / 2.0),
            };
            let stem = format!("samples-{}-{setting}", slug(&instance));
            let files = if sizes.len() > 1 {
                let chart = LineChart {
                    title: title.clone(),
                    x_label: "number of arms N (log scale)".into(),
                    y_label: "samples to stop (log scale)".into(),
                    log_x: true,
                    log_y: true,
                    error_bars: true,
                    curves: algorithms
                        .iter()
                        .map(|a| Curve {
                            label: a.clone(),
                            points: cells
                                .iter()
                                .filter(|c| &c.algorithm == a)
                                .map(|c| (c.n as f64, c.samples.mean, spread(c)))
                                .collect(),
                        })
                        .collect(),
                    band: Some(opts.band.describe().into()),
                    references: Vec::new(),
                    notes: vec![format!(
                        "K = {}",
                        k_note
                            .iter()
                            .map(|k| k.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )],
                    y_range_from: 0.0,
                    y_from_zero: false,
                    verticals: None,
                };
                render(&chart, out, &stem, opts)?
            } else {
                let chart = GroupedBars {
                    title: title.clone(),
                    x_label: "algorithm".into(),
                    y_label: "samples to stop".into(),
                    groups: algorithms.clone(),
                    series: vec![BarSeries {
                        label: format!("N = {}, K = {}", sizes[0], k_note[0]),
                        values: algorithms
                            .iter()
                            .map(|a| {
                                cells
                                    .iter()
                                    .find(|c| &c.algorithm == a)
                                    .map(|c| (c.samples.mean, spread(c)))
                            })
                            .collect(),
                    }],
                    points: Vec::new(),
                    log_y: true,
                    notes: vec![format!("whiskers: {}", opts.band.describe())],
                };
                render(&chart, out, &stem, opts)?
            };
            rendered.push(Rendered {
                caption: format!("Samples to stop against the number of arms: {title}"),
                stem,
                files,
            });
        }
    }
    Ok(rendered)
}

/// `report.md` of an identification scenario.
pub fn markdown(s: &IdentificationSummary, charts: &[(String, String)]) -> String {
    let mut out = format!("# {}\n\n", s.scenario);
    if !s.description.is_empty() {
        let _ = writeln!(out, "{}\n", s.description.trim());
    }
    let _ = writeln!(
        out,
        "Best-K identification: confidence ν = {}, {} per cell, seed {}, sample cap {} per run; \
         faithful setting ε = {} (δ chosen so that each algorithm's guaranteed error is at most ν), \
         heuristic setting ε = 0, δ = ν.\n",
        s.confidence,
        super::markdown::count(s.runs, "run"),
        s.seed,
        s.sample_cap,
        s.faithful_epsilon
    );
    let r = &s.results;
    for instance in distinct(r.iter().map(|c| c.instance.clone())) {
        let family = r
            .iter()
            .find(|c| c.instance == instance)
            .map(|c| c.family.clone())
            .unwrap_or_default();
        let _ = writeln!(out, "## {instance}\n\nFamily: {family}.\n");
        for (setting, cells) in by_setting(r, &instance) {
            let sizes = distinct(cells.iter().map(|c| (c.n, c.k)));
            let _ = writeln!(
                out,
                "### {setting}: mean samples to stop [95 % interval] (errors / capped runs when any)\n"
            );
            let mut head = "| algorithm |".to_string();
            let mut rule = "|---|".to_string();
            for (n, k) in &sizes {
                let _ = write!(head, " N = {n}, K = {k} |");
                rule.push_str("---:|");
            }
            let _ = writeln!(out, "{head}\n{rule}");
            for a in distinct(cells.iter().map(|c| c.algorithm.clone())) {
                let mut row = format!("| {a} |");
                for (n, k) in &sizes {
                    match cells
                        .iter()
                        .find(|c| c.algorithm == a && c.n == *n && c.k == *k)
                    {
                        Some(c) => {
                            let _ = write!(
                                row,
                                " {} {}",
                                sig(c.samples.mean, 4),
                                super::markdown::interval(c.samples.ci95)
                            );
                            if c.errors > 0 || c.capped > 0 {
                                let _ = write!(row, " ({} / {})", c.errors, c.capped);
                            }
                            row.push_str(" |");
                        }
                        None => row.push_str(" – |"),
                    }
                }
                let _ = writeln!(out, "{row}");
            }
            out.push('\n');
        }
    }
    super::markdown::charts_section(&mut out, charts);
    let _ = writeln!(
        out,
        "---\nSamples include the initial sample of every arm. A capped run is stopped at the cap and \
         its answer (the current empirical top-K set) is checked as it stands."
    );
    out
}

/// Writes every output of an identification scenario.
pub fn write(
    out: &OutputDir,
    s: &IdentificationScenario,
    cells: &[IdentifyCell],
    opts: &ChartOptions,
) -> Result<Vec<PathBuf>, ReportError> {
    let summary = summary(s, cells);
    let mut written = write_summary(out, &summary, opts)?;
    written.push(out.write(super::runs::FILE, &super::runs::identification(s, cells)?)?);
    Ok(written)
}

/// Writes the outputs of a summary (also used to re-render saved results).
pub fn write_summary(
    out: &OutputDir,
    summary: &IdentificationSummary,
    opts: &ChartOptions,
) -> Result<Vec<PathBuf>, ReportError> {
    let mut written = Vec::new();
    let json = serde_json::to_vec_pretty(summary).map_err(|source| ReportError::Json {
        file: "summary.json",
        error: source,
    })?;
    let back: IdentificationSummary =
        super::parse_json(&json).map_err(|message| ReportError::Unreadable {
            file: "summary.json",
            message,
        })?;
    super::check::identification(&back).map_err(|message| ReportError::Unreadable {
        file: "summary.json",
        message,
    })?;
    written.push(out.write("summary.json", &json)?);
    written.push(out.write("identification.csv", &to_csv(summary)?)?);
    written.extend(render_report(out, summary, opts)?);
    Ok(written)
}

/// Draws the charts and writes `report.md` from a summary (what `specprobe plot` redoes).
pub fn render_report(
    out: &OutputDir,
    summary: &IdentificationSummary,
    opts: &ChartOptions,
) -> Result<Vec<PathBuf>, ReportError> {
    let mut written = Vec::new();
    let rendered = charts(out, summary, opts)?;
    written.extend(rendered.iter().flat_map(|r| r.files.iter().cloned()));
    let md = markdown(summary, &super::embedded(&rendered, opts));
    written.push(out.write("report.md", md.as_bytes())?);
    Ok(written)
}
