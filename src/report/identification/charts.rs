//! The charts of an identification report: samples against N, errors and capped runs.

use crate::report::format::slug;
use crate::report::identification::summary::{CellSummary, IdentificationSummary};
use crate::report::plots::bars::{BarSeries, GroupedBars};
use crate::report::plots::lines::{Curve, LineChart};
use crate::report::plots::{Band, ChartOptions, render_chart};
use crate::report::{Rendered, ReportError};

/// Distinct values in first-seen order.
pub(crate) fn distinct<T: PartialEq + Clone>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// The cells of `instance`, grouped by setting (in first-seen order).
pub(crate) fn by_setting<'a>(
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
pub(crate) fn charts(
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
                            key: None,
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
                    notes: vec![format!("K = {}", join(&k_note))],
                    y_range_from: 0.0,
                    y_from_zero: false,
                    verticals: None,
                };
                render_chart(&chart, &stem, opts)?
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
                render_chart(&chart, &stem, opts)?
            };
            let goal = if k_note == [1] {
                "the best arm".to_string()
            } else {
                format!("the top K = {} arms", join(&k_note))
            };
            let against = if sizes.len() > 1 {
                format!("against the number of arms N = {}", join(&sizes))
            } else {
                format!("at N = {}", sizes[0])
            };
            rendered.push(Rendered {
                caption: format!(
                    "Samples to stop to identify {goal}, {against}, {setting} setting, per algorithm (mean, {}): {instance}",
                    opts.band.describe()
                ),
                stem,
                files,
            });
        }
    }
    Ok(rendered)
}

/// `1, 2, 5`.
fn join(xs: &[usize]) -> String {
    xs.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
