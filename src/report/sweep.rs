//! Outputs of a sweep: `summary.json` (`"kind": "sweep"`: the table of every policy's final
//! values against the swept value, and each cell's full regret summary), `curves.csv` and
//! `runs.csv` (every cell's rows, the cell named in the `experiment` column and its value in the
//! numeric `sweep_value` column), charts of each
//! policy's final regret against the swept value with 95 % intervals, and `report.md`.

pub(crate) mod charts;
pub(crate) mod check;
mod describe;
pub(crate) mod markdown;
pub(crate) mod summary;

use self::charts::charts;
use self::markdown::markdown;
use self::summary::{SweepSummary, summary};
use crate::engine::regret::runner::RegretStats;
use crate::engine::sweep::SweepResults;
use crate::report::load::parse_json;
use crate::report::plots::ChartOptions;
use crate::report::regret::curves::{self, CurveRow};
use crate::report::saved::SavedResults;
use crate::report::{Artifact, ReportError};
use crate::scenario::{RegretScenario, SweepScenario};
use crate::store::folder::OutputDir;
use crate::store::names;
use crate::store::names::{ResultKind, Swept};

impl SweepResults {
    /// What `summary.json` holds.
    pub fn summary(&self) -> SweepSummary {
        summary(&self.scenario, &self.cells())
    }
}

/// Every output of a finished sweep, rendered.
pub(crate) fn render(
    s: &SweepScenario,
    cells: &[(&RegretScenario, &RegretStats)],
    opts: &ChartOptions,
) -> Result<Vec<Artifact>, ReportError> {
    let summary = summary(s, cells);
    let labels: Vec<String> = s
        .sweep
        .values
        .iter()
        .map(|&v| s.sweep.cell_label(v))
        .collect();
    let rows: Vec<CurveRow> = cells
        .iter()
        .zip(&labels)
        .zip(&s.sweep.values)
        .flat_map(|(((scenario, stats), label), &v)| {
            curves::rows_in_cell(scenario, stats, Some((label, v)))
        })
        .collect();
    let json = serde_json::to_vec_pretty(&summary).map_err(|source| ReportError::Json {
        file: names::SUMMARY,
        error: source,
    })?;
    let back: SweepSummary =
        crate::report::parse_json(&json).map_err(|message| ReportError::Unreadable {
            file: names::SUMMARY,
            message,
        })?;
    check::sweep(&back).map_err(|message| ReportError::Unreadable {
        file: names::SUMMARY,
        message,
    })?;
    let runs: Vec<(curves::SweepCell, &RegretScenario, &RegretStats)> = cells
        .iter()
        .zip(&labels)
        .zip(&s.sweep.values)
        .map(|(((scenario, stats), label), &v)| (Some((label.as_str(), v)), *scenario, *stats))
        .collect();
    let mut files = vec![
        Artifact::new(names::SUMMARY, json),
        Artifact::new(names::CURVES, curves::to_csv(&rows)?),
        Artifact::new(
            names::RUNS,
            crate::report::regret::runs::regret_cells(&runs)?,
        ),
    ];
    files.extend(render_report(&summary, opts)?);
    Ok(files)
}

/// The charts and `report.md` of a sweep's summary (what `plot` redoes).
pub(crate) fn render_report(
    summary: &SweepSummary,
    opts: &ChartOptions,
) -> Result<Vec<Artifact>, ReportError> {
    let rendered = charts(summary, opts)?;
    let files =
        crate::report::charts_and_report(rendered, opts, |embedded| markdown(summary, embedded));
    Ok(files)
}

/// Reads `summary.json` saved by a sweep, and checks it.
pub(crate) fn load_sweep(dir: &std::path::Path) -> Result<SweepSummary, ReportError> {
    let json = OutputDir::existing(dir).read(names::SUMMARY)?;
    let saved = |message: String| ReportError::Saved {
        dir: dir.to_path_buf(),
        file: names::SUMMARY,
        message,
    };
    let summary: SweepSummary =
        parse_json(&json).map_err(|e| saved(format!("not a sweep summary: {e}")))?;
    check::sweep(&summary).map_err(saved)?;
    // plot keeps curves.csv as it is: it must belong to this summary.
    let folder = OutputDir::existing(dir);
    if dir.join(names::CURVES).exists() {
        let curves = |message: String| ReportError::Saved {
            dir: dir.to_path_buf(),
            file: names::CURVES,
            message,
        };
        let rows = curves::from_csv(&folder.read(names::CURVES)?).map_err(curves)?;
        check::sweep_curves(&summary, &rows).map_err(curves)?;
    }
    Ok(summary)
}

impl SavedResults for SweepSummary {
    fn scenario(&self) -> &str {
        &self.scenario
    }

    fn kind(&self) -> ResultKind {
        ResultKind::Sweep(Swept::Regret)
    }

    fn render(&self, charts: &ChartOptions) -> Result<Vec<Artifact>, ReportError> {
        render_report(self, charts)
    }
}

/// The folder of the cell at `v` of a sweep whose cells each write a result folder (many-users
/// and identification sweeps): `field=v`, with anything but letters, digits, `.`, `-` and `=`
/// written `_` (a field such as `channels[*].theta` makes `channels___.theta=0.5`).
pub(crate) fn cell_folder(field: &str, v: f64) -> String {
    format!("{field}={v}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '=' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Every cell's folder, or why a value makes none: the folders are derived from the field and
/// the values, never read from a file, so that a damaged summary cannot point `plot` outside
/// the results folder.
pub(crate) fn cell_folders(field: &str, values: &[f64]) -> Result<Vec<String>, String> {
    values
        .iter()
        .map(|&v| {
            let folder = cell_folder(field, v);
            if folder.starts_with('.') || folder.contains('/') {
                Err(format!("values: {v} makes no cell folder"))
            } else {
                Ok(folder)
            }
        })
        .collect()
}

/// The part of a saved sweep's top `summary.json` that names its cells; the rest is derived
/// again from the cells and must agree byte for byte.
#[derive(Debug, serde::Deserialize)]
struct SavedTop {
    kind: ResultKind,
    scenario: String,
    description: String,
    field: String,
    values: Vec<f64>,
    #[serde(default)]
    axis_label: Option<String>,
    #[serde(default)]
    log_axis: Option<bool>,
}

/// The horizontal axis of a chart against a sweep's values, as every kind of sweep summary
/// draws it from its `field`, `values`, `axis_label` and `log_axis`.
pub(crate) struct SweptAxis<'a> {
    /// Its title: the scenario's label, else the field path.
    pub title: &'a str,
    /// Whether it is logarithmic: as the scenario asked, else automatic.
    pub log: bool,
}

impl<'a> SweptAxis<'a> {
    /// The axis of a summary's sweep.
    pub(crate) fn of(
        field: &'a str,
        values: &[f64],
        label: &'a Option<String>,
        log: Option<bool>,
    ) -> SweptAxis<'a> {
        SweptAxis {
            title: label.as_deref().unwrap_or(field),
            log: crate::scenario::sweep::SweepAxis::is_log(log, values),
        }
    }

    /// The axis label: its title, said to be on a log scale when it is.
    pub(crate) fn x_label(&self) -> String {
        format!(
            "{}{}",
            self.title,
            if self.log { " (log scale)" } else { "" }
        )
    }

    /// A chart of `curves` against the swept value, as the sweeps draw them: each value's mean
    /// with its 95 % interval as an error bar, the value axis linear and from zero, every
    /// value stretching it. A kind changes what it draws otherwise by struct update.
    pub(crate) fn chart(
        &self,
        title: String,
        y_label: String,
        curves: Vec<crate::report::plots::lines::Curve>,
    ) -> crate::report::plots::lines::LineChart {
        crate::report::plots::lines::LineChart {
            title,
            x_label: self.x_label(),
            y_label,
            log_x: self.log,
            log_y: false,
            error_bars: true,
            curves,
            band: Some("95 % confidence interval".into()),
            references: Vec::new(),
            notes: Vec::new(),
            y_range_from: f64::NEG_INFINITY,
            y_from_zero: true,
            verticals: None,
        }
    }
}

/// What a saved sweep's top summary says of the sweep itself, checked.
#[derive(Debug)]
pub(crate) struct SavedHead {
    /// Scenario name.
    pub scenario: String,
    /// Scenario description.
    pub description: String,
    /// The swept field.
    pub field: String,
    /// Its values.
    pub values: Vec<f64>,
    /// How the charts draw them.
    pub axis: crate::scenario::sweep::SweepAxis,
    /// Each cell's folder, in the order of the values.
    pub folders: Vec<String>,
}

/// Reads the top `summary.json` of a sweep saved in `dir`, of kind `kind` (`what` names such a
/// summary in errors): its bytes, and its head checked by [`head_of`].
pub(crate) fn saved_head(
    dir: &std::path::Path,
    kind: ResultKind,
    what: &str,
) -> Result<(Vec<u8>, SavedHead), ReportError> {
    let json = OutputDir::existing(dir).read(names::SUMMARY)?;
    let head = head_of(&json, kind, what).map_err(|message| ReportError::Saved {
        dir: dir.to_path_buf(),
        file: names::SUMMARY,
        message,
    })?;
    Ok((json, head))
}

/// Checks a sweep's saved top summary `json` (in `dir`) against `top`, the summary its cells
/// give: they agree byte for byte, or the error says, with `differs`, what may have changed.
pub(crate) fn check_top_agrees(
    dir: &std::path::Path,
    json: &[u8],
    top: &impl serde::Serialize,
    differs: &str,
) -> Result<(), ReportError> {
    let again = serde_json::to_vec_pretty(top).map_err(|error| ReportError::Json {
        file: names::SUMMARY,
        error,
    })?;
    if again != json {
        return Err(ReportError::Saved {
            dir: dir.to_path_buf(),
            file: names::SUMMARY,
            message: format!("does not agree with the summaries of its cells ({differs})"),
        });
    }
    Ok(())
}

/// The head of a sweep's top summary `json`: 1 to 1 000 values, an axis the scenario check
/// would allow, and a folder for every value.
fn head_of(json: &[u8], kind: ResultKind, what: &str) -> Result<SavedHead, String> {
    const MAX_CELLS: usize = crate::scenario::sweep::MAX_CELLS;
    let head: SavedTop = parse_json(json).map_err(|e| format!("not {what}: {e}"))?;
    if let Err(why) = head.kind.expect(kind) {
        return Err(format!("kind: {why}"));
    }
    if head.values.is_empty() || head.values.len() > MAX_CELLS {
        return Err(format!(
            "values: {} cells; a sweep has 1 to {MAX_CELLS}",
            head.values.len()
        ));
    }
    let axis = crate::scenario::sweep::SweepAxis {
        label: head.axis_label,
        log: head.log_axis,
    };
    if let Some((field, rule)) = axis.problems(&head.values).into_iter().next() {
        let field = if field == "log" {
            "log_axis"
        } else {
            "axis_label"
        };
        return Err(format!("{field}: {rule}"));
    }
    let folders = cell_folders(&head.field, &head.values)?;
    Ok(SavedHead {
        scenario: head.scenario,
        description: head.description,
        field: head.field,
        values: head.values,
        axis,
        folders,
    })
}

impl crate::report::kind::ReportKind for SweepScenario {
    type Stats = Vec<RegretStats>;
    fn render(
        &self,
        stats: &Vec<RegretStats>,
        charts: &ChartOptions,
    ) -> Result<Vec<Artifact>, ReportError> {
        let cells: Vec<_> = self.sweep.cells().iter().zip(stats).collect();
        render(self, &cells, charts)
    }
    fn load(found: ResultKind, dir: &std::path::Path) -> Option<crate::report::kind::Loaded> {
        let load = || Ok(Box::new(load_sweep(dir)?) as Box<dyn SavedResults>);
        (found == ResultKind::Sweep(Swept::Regret)).then(load)
    }
}

impl crate::report::compare::Comparable for SweepScenario {
    fn family(&self) -> Result<crate::report::compare::Family, String> {
        Err(format!(
            "compare draws regret curves over time; {:?} is a sweep (its report already draws every policy against `{}`)",
            self.name,
            self.sweep.field()
        ))
    }
}
