//! A regret scenario's report: `summary.json` ([`summary`]), `curves.csv` ([`curves`]),
//! `runs.csv` ([`runs`]), the charts ([`charts`]) and `report.md` ([`markdown`]), and reading
//! them back for `plot` and `compare` ([`check`]).

pub(crate) mod bars;
pub(crate) mod charts;
pub(crate) mod check;
pub(crate) mod curves;
mod describe;
pub(crate) mod markdown;
pub(crate) mod runs;
pub(crate) mod summary;

use crate::engine::regret::RegretResults;
use crate::engine::regret::runner::RegretStats;
use crate::report::Rendered;
use crate::report::format::slug;
use crate::report::load::parse_json;
use crate::report::plots::ChartOptions;
use crate::report::plots::{AxisMode, ChartError};
use crate::report::regret::bars::{grid_chart, paired_chart, probe_charts};
use crate::report::regret::charts::{Source, experiment_label, time_charts};
use crate::report::saved::SavedResults;
use crate::report::{Artifact, ReportError};
use crate::scenario::RegretScenario;
use crate::store::folder::OutputDir;
use crate::store::names;
use crate::store::names::ResultKind;
use curves::CurveRow;
use summary::RegretSummary;

impl RegretResults {
    /// What `summary.json` holds.
    pub fn summary(&self) -> RegretSummary {
        summary::regret_summary(&self.scenario, &self.stats)
    }

    /// The rows of `curves.csv`.
    pub fn curves(&self) -> Vec<curves::CurveRow> {
        curves::rows(&self.scenario, &self.stats)
    }
}

/// `summary.json`, `curves.csv`, `runs.csv`, the charts and `report.md` of a finished regret
/// scenario.
pub(crate) fn render_regret(
    s: &RegretScenario,
    results: &RegretStats,
    charts: &ChartOptions,
) -> Result<Vec<Artifact>, ReportError> {
    let summary = summary::regret_summary(s, results);
    let rows = curves::rows(s, results);
    let json = serde_json::to_vec_pretty(&summary).map_err(|source| ReportError::Json {
        file: names::SUMMARY,
        error: source,
    })?;
    let csv = curves::to_csv(&rows)?;
    reads_back_regret(&json, &csv)?;
    let mut files = vec![
        Artifact::new(names::SUMMARY, json),
        Artifact::new(names::CURVES, csv),
        match results.streamed {
            // Written to the staging folder as the runs finished.
            true => Artifact::staged(names::RUNS),
            false => Artifact::new(names::RUNS, runs::regret(s, results)?),
        },
    ];
    files.extend(render_report(&summary, &rows, charts)?);
    Ok(files)
}

/// What `run` writes, `plot` and `compare` must read: the summary and curves are read back and
/// checked exactly as they will be, before anything is written.
fn reads_back_regret(json: &[u8], csv: &[u8]) -> Result<(), ReportError> {
    let unreadable = |file, message| ReportError::Unreadable { file, message };
    let summary = parse_regret(json).map_err(|m| unreadable(names::SUMMARY, m))?;
    let rows = curves::from_csv(csv).map_err(|m| unreadable(names::CURVES, m))?;
    check::regret(&summary, Some(&rows)).map_err(|m| unreadable(names::SUMMARY, m))
}

/// The charts and `report.md` of a summary and its curves.
pub(crate) fn render_report(
    summary: &RegretSummary,
    rows: &[curves::CurveRow],
    charts: &ChartOptions,
) -> Result<Vec<Artifact>, ReportError> {
    let rendered = regret_charts(summary, rows, charts)?;
    let files = crate::report::charts_and_report(rendered, charts, |embedded| {
        markdown::regret_report(summary, embedded)
    });
    Ok(files)
}

/// A regret summary; when it does not parse, the body is parsed again as the variant its keys
/// announce (a grid's `experiments`, or one experiment), so that the error names the field
/// rather than "did not match any variant".
fn parse_regret(bytes: &[u8]) -> Result<RegretSummary, String> {
    let generic = match parse_json::<RegretSummary>(bytes) {
        Ok(s) => return Ok(s),
        Err(e) => e,
    };
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return Err(generic);
    };
    let detail = match value.get("experiments") {
        Some(experiments) => {
            serde_path_to_error::deserialize::<_, Vec<summary::ExperimentSummary>>(experiments)
                .err()
                .map(|e| {
                    let path = bracket(&e.path().to_string());
                    format!("experiments{path}: {}", e.into_inner())
                })
        }
        None => serde_path_to_error::deserialize::<_, summary::ExperimentSummary>(&value)
            .err()
            .map(|e| {
                let path = e.path().to_string();
                format!("{path}: {}", e.into_inner())
            }),
    };
    Err(detail.unwrap_or(generic))
}

/// `[0].policies` from a path that starts with an index.
fn bracket(path: &str) -> String {
    if path == "." {
        String::new()
    } else {
        path.to_string()
    }
}

/// The summary and curves of regret results rendered in memory (for `compare`, which draws
/// the scenarios it runs from exactly what it writes), checked as `plot` would.
pub(crate) fn regret_from_files(
    files: &[Artifact],
) -> Result<(RegretSummary, Vec<curves::CurveRow>), ReportError> {
    let file = |name| crate::report::rendered(files, name);
    let unreadable = |file, message| ReportError::Unreadable { file, message };
    let summary = parse_regret(file(names::SUMMARY)?).map_err(|m| unreadable(names::SUMMARY, m))?;
    let rows = curves::from_csv(file(names::CURVES)?).map_err(|m| unreadable(names::CURVES, m))?;
    check::regret(&summary, Some(&rows)).map_err(|m| unreadable(names::CURVES, m))?;
    Ok((summary, rows))
}

/// Reads `summary.json` and `curves.csv` saved by a regret run, and checks them together.
pub(crate) fn load_saved(
    dir: &std::path::Path,
) -> Result<(RegretSummary, Vec<curves::CurveRow>), ReportError> {
    let folder = OutputDir::existing(dir);
    let saved = |file: &'static str, message: String| ReportError::Saved {
        dir: dir.to_path_buf(),
        file,
        message,
    };
    let json = folder.read(names::SUMMARY)?;
    let summary = parse_regret(&json)
        .map_err(|e| saved(names::SUMMARY, format!("not a regret summary: {e}")))?;
    check::regret(&summary, None).map_err(|m| saved(names::SUMMARY, m))?;
    let rows =
        curves::from_csv(&folder.read(names::CURVES)?).map_err(|m| saved(names::CURVES, m))?;
    check::regret(&summary, Some(&rows)).map_err(|m| saved(names::CURVES, m))?;
    Ok((summary, rows))
}

/// Every chart of a regret report.
pub(crate) fn regret_charts(
    summary: &RegretSummary,
    rows: &[CurveRow],
    opts: &ChartOptions,
) -> Result<Vec<Rendered>, ChartError> {
    let mut rendered = Vec::new();
    if opts.formats.is_empty() {
        return Ok(rendered);
    }
    let source = [Source {
        label: String::new(),
        summary,
        rows,
    }];
    let exps = summary.body.experiments();
    if exps.len() > 1 {
        grid_chart(summary, opts, &mut rendered)?;
        // Per configuration: the regret curves on a log slot axis only (the grid chart holds the
        // final values; every other chart per configuration would be dozens of files).
        let per_config = ChartOptions {
            axis: AxisMode::Log,
            ..opts.clone()
        };
        for (i, e) in exps.iter().enumerate() {
            let label = experiment_label(summary, e);
            let prefix = format!("config{}-{}-", i + 1, slug(&label));
            time_charts(
                &source,
                Some((e, &label)),
                &prefix,
                &per_config,
                true,
                &mut rendered,
            )?;
        }
    } else {
        let e = &exps[0];
        let label = experiment_label(summary, e);
        time_charts(&source, Some((e, &label)), "", opts, false, &mut rendered)?;
        probe_charts(summary, e, "", opts, &mut rendered)?;
        paired_chart(&summary.scenario, e, opts, &mut rendered)?;
    }
    Ok(rendered)
}

/// Regret results (or a comparison's, which holds regret results).
pub(crate) struct SavedRegret(
    pub(crate) RegretSummary,
    pub(crate) Vec<CurveRow>,
    pub(crate) bool,
);

impl SavedResults for SavedRegret {
    fn scenario(&self) -> &str {
        &self.0.scenario
    }

    fn kind(&self) -> ResultKind {
        if self.2 {
            ResultKind::Comparison
        } else {
            ResultKind::Regret
        }
    }

    fn render(&self, charts: &ChartOptions) -> Result<Vec<Artifact>, ReportError> {
        render_report(&self.0, &self.1, charts)
    }
}

impl crate::report::kind::ReportKind for RegretScenario {
    type Stats = RegretStats;
    fn render(
        &self,
        stats: &RegretStats,
        charts: &ChartOptions,
    ) -> Result<Vec<Artifact>, ReportError> {
        render_regret(self, stats, charts)
    }
}

/// Reads a saved folder that no other kind claims as regret results: a regret scenario's, or
/// a comparison's (whose summary holds the scenarios side by side).
pub(crate) fn load_unclaimed(
    dir: &std::path::Path,
    found: Option<ResultKind>,
) -> crate::report::kind::Loaded {
    let (summary, rows) = load_saved(dir)?;
    let comparison = found == Some(ResultKind::Comparison);
    Ok(Box::new(SavedRegret(summary, rows, comparison)))
}

impl crate::report::compare::Comparable for RegretScenario {
    fn family(&self) -> Result<crate::report::compare::Family, String> {
        Ok(crate::report::compare::Family::Single)
    }
    fn saved_family(found: ResultKind) -> Option<crate::report::compare::Family> {
        (found == ResultKind::Regret).then_some(crate::report::compare::Family::Single)
    }
}
