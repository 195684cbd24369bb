//! Outputs of identification scenarios: `summary.json` (`"kind": "identification"`),
//! `identification.csv`, charts of samples against the number of arms (the paper's Figures 2
//! and 3) and `report.md`.

pub(crate) mod charts;
pub(crate) mod check;
mod describe;
pub(crate) mod markdown;
pub(crate) mod runs;
pub(crate) mod summary;
pub(crate) mod sweep;

use self::charts::charts;
use self::markdown::markdown;
use self::summary::{IdentificationSummary, summary, to_csv};
use crate::engine::identification::IdentificationResults;
use crate::engine::identification::runner::IdentifyCell;
use crate::report::load::parse_json;
use crate::report::plots::ChartOptions;
use crate::report::saved::SavedResults;
use crate::report::{Artifact, ReportError};
use crate::scenario::IdentificationScenario;
use crate::scenario::Sweep;
use crate::store::folder::OutputDir;
use crate::store::names;
use crate::store::names::ResultKind;

impl IdentificationResults {
    /// What `summary.json` holds (for a sweep, its first cell's: see
    /// [`IdentificationResults::summaries`]).
    pub fn summary(&self) -> IdentificationSummary {
        let cells = Sweep::cells_or(self.scenario.sweep.as_deref(), &self.scenario);
        summary(&cells[0], &self.stats[0])
    }

    /// What `summary.json` holds: one summary, or one per cell of the scenario's sweep (as
    /// each cell's folder holds it).
    pub fn summaries(&self) -> Vec<IdentificationSummary> {
        let cells = Sweep::cells_or(self.scenario.sweep.as_deref(), &self.scenario);
        let runs = cells.iter().zip(&self.stats);
        runs.map(|(cell, st)| summary(cell, st)).collect()
    }
}

/// Every output of an identification scenario, rendered.
pub(crate) fn render(
    s: &IdentificationScenario,
    cells: &[IdentifyCell],
    opts: &ChartOptions,
) -> Result<Vec<Artifact>, ReportError> {
    let summary = summary(s, cells);
    let mut files = render_summary(&summary, opts)?;
    files.push(Artifact::new(
        names::RUNS,
        crate::report::identification::runs::identification(s, cells)?,
    ));
    Ok(files)
}

/// The outputs of a summary (also used to re-render saved results).
pub(crate) fn render_summary(
    summary: &IdentificationSummary,
    opts: &ChartOptions,
) -> Result<Vec<Artifact>, ReportError> {
    let json = serde_json::to_vec_pretty(summary).map_err(|source| ReportError::Json {
        file: names::SUMMARY,
        error: source,
    })?;
    let back: IdentificationSummary =
        crate::report::parse_json(&json).map_err(|message| ReportError::Unreadable {
            file: names::SUMMARY,
            message,
        })?;
    check::identification(&back).map_err(|message| ReportError::Unreadable {
        file: names::SUMMARY,
        message,
    })?;
    let mut files = vec![
        Artifact::new(names::SUMMARY, json),
        Artifact::new(names::IDENTIFICATION, to_csv(summary)?),
    ];
    files.extend(render_report(summary, opts)?);
    Ok(files)
}

/// The charts and `report.md` of a summary (what `specprobe plot` redoes).
pub(crate) fn render_report(
    summary: &IdentificationSummary,
    opts: &ChartOptions,
) -> Result<Vec<Artifact>, ReportError> {
    let rendered = charts(summary, opts)?;
    let files =
        crate::report::charts_and_report(rendered, opts, |embedded| markdown(summary, embedded));
    Ok(files)
}

/// Reads `summary.json` saved by an identification run, and checks it.
pub(crate) fn load_identification(
    dir: &std::path::Path,
) -> Result<IdentificationSummary, ReportError> {
    let json = OutputDir::existing(dir).read(names::SUMMARY)?;
    let saved = |message: String| ReportError::Saved {
        dir: dir.to_path_buf(),
        file: names::SUMMARY,
        message,
    };
    let summary: IdentificationSummary =
        parse_json(&json).map_err(|e| saved(format!("not an identification summary: {e}")))?;
    check::identification(&summary).map_err(saved)?;
    Ok(summary)
}

impl SavedResults for summary::IdentificationSummary {
    fn scenario(&self) -> &str {
        &self.scenario
    }

    fn kind(&self) -> ResultKind {
        ResultKind::Identification
    }

    fn render(&self, charts: &ChartOptions) -> Result<Vec<Artifact>, ReportError> {
        render_report(self, charts)
    }
}

impl crate::report::kind::ReportKind for IdentificationScenario {
    type Stats = Vec<Vec<IdentifyCell>>;
    fn render(
        &self,
        stats: &Vec<Vec<IdentifyCell>>,
        charts: &ChartOptions,
    ) -> Result<Vec<Artifact>, ReportError> {
        match &self.sweep {
            None => render(self, &stats[0], charts),
            Some(sw) => sweep::render_sweep(self, sw, stats, charts),
        }
    }
    fn load(found: ResultKind, dir: &std::path::Path) -> Option<crate::report::kind::Loaded> {
        use crate::report::saved::SavedResults;
        Some(match found {
            ResultKind::Identification => {
                load_identification(dir).map(|s| Box::new(s) as Box<dyn SavedResults>)
            }
            ResultKind::Sweep(crate::store::names::Swept::Identification) => {
                sweep::load_identification_sweep(dir).map(|s| Box::new(s) as Box<dyn SavedResults>)
            }
            _ => return None,
        })
    }
}

impl crate::report::compare::Comparable for IdentificationScenario {
    fn family(&self) -> Result<crate::report::compare::Family, String> {
        Err(format!(
            "compare draws regret curves; {:?} is an identification scenario (its report already compares algorithms)",
            self.name
        ))
    }
}
