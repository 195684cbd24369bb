//! Writing results: `summary.json`, `curves.csv`, `report.md` (and charts, see `plots`).
//!
//! The report never simulates: everything here is computed from the checked scenario and the
//! finished statistics, or read back from saved files.

pub(crate) mod charts;
pub mod curves;
pub(crate) mod describe;
pub mod identification;
pub(crate) mod markdown;
pub(crate) mod plots;
pub mod runs;
pub mod summary;
pub mod sweep;

pub use plots::{
    AxisMode, Band, ChartError, ChartOptions, Format, MIN_SIZE, ValueAxis, parse_formats,
    parse_size,
};

use crate::output::{OutputDir, OutputError};
use crate::runner::RegretStats;
use crate::scenario::RegretScenario;
use std::path::PathBuf;
use summary::RegretSummary;

/// Why results could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A file could not be written.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// Serialising JSON failed.
    #[error("cannot serialise {file}: {error}")]
    Json {
        /// The file.
        file: &'static str,
        /// The underlying error.
        error: serde_json::Error,
    },
    /// Serialising CSV failed.
    #[error("cannot serialise a CSV file: {0}")]
    Csv(#[from] csv::Error),
    /// A chart failed.
    #[error(transparent)]
    Chart(#[from] plots::ChartError),
    /// Saved results could not be read back.
    #[error("{file} in {}: {message}", dir.display())]
    Saved {
        /// The folder.
        dir: PathBuf,
        /// The file.
        file: &'static str,
        /// What is wrong.
        message: String,
    },
}

/// Writes `summary.json`, `curves.csv`, the charts and `report.md` of a finished regret
/// scenario; returns the paths written.
pub fn write_regret(
    out: &OutputDir,
    s: &RegretScenario,
    results: &RegretStats,
    charts: &ChartOptions,
) -> Result<Vec<PathBuf>, ReportError> {
    let summary = summary::regret_summary(s, results);
    let rows = curves::rows(s, results);
    let mut written = Vec::new();
    let json = serde_json::to_vec_pretty(&summary).map_err(|source| ReportError::Json {
        file: "summary.json",
        error: source,
    })?;
    written.push(out.write("summary.json", &json)?);
    written.push(out.write("curves.csv", &curves::to_csv(&rows)?)?);
    written.push(out.write(runs::FILE, &runs::regret(s, results)?)?);
    written.extend(render_report(out, &summary, &rows, charts)?);
    Ok(written)
}

/// Draws the charts and writes `report.md` from a summary and its curves.
pub fn render_report(
    out: &OutputDir,
    summary: &RegretSummary,
    rows: &[curves::CurveRow],
    charts: &ChartOptions,
) -> Result<Vec<PathBuf>, ReportError> {
    let rendered = charts::regret_charts(out, summary, rows, charts)?;
    let mut written: Vec<PathBuf> = rendered
        .iter()
        .flat_map(|r| r.files.iter().cloned())
        .collect();
    let md = markdown::regret_report(summary, &embedded(&rendered, charts));
    written.push(out.write("report.md", md.as_bytes())?);
    Ok(written)
}

/// (caption, file) pairs for the report: the PNG where one was drawn, else the SVG.
pub fn embedded(rendered: &[charts::Rendered], charts: &ChartOptions) -> Vec<(String, String)> {
    let ext = if charts.formats.contains(&Format::Png) {
        "png"
    } else {
        "svg"
    };
    rendered
        .iter()
        .map(|r| (r.caption.clone(), format!("{}.{ext}", r.stem)))
        .collect()
}

/// What kind of results a folder holds, from its `summary.json`.
pub fn saved_kind(dir: &std::path::Path) -> Result<String, ReportError> {
    #[derive(serde::Deserialize)]
    struct Kind {
        kind: String,
    }
    let json = OutputDir::existing(dir).read("summary.json")?;
    let k: Kind = serde_json::from_slice(&json).map_err(|e| ReportError::Saved {
        dir: dir.to_path_buf(),
        file: "summary.json",
        message: format!("not a specprobe summary: {e}"),
    })?;
    Ok(k.kind)
}

/// Reads `summary.json` saved by an identification run.
pub fn load_identification(
    dir: &std::path::Path,
) -> Result<identification::IdentificationSummary, ReportError> {
    let json = OutputDir::existing(dir).read("summary.json")?;
    serde_json::from_slice(&json).map_err(|e| ReportError::Saved {
        dir: dir.to_path_buf(),
        file: "summary.json",
        message: format!("not an identification summary: {e}"),
    })
}

/// Reads `summary.json` saved by a sweep.
pub fn load_sweep(dir: &std::path::Path) -> Result<sweep::SweepSummary, ReportError> {
    let json = OutputDir::existing(dir).read("summary.json")?;
    serde_json::from_slice(&json).map_err(|e| ReportError::Saved {
        dir: dir.to_path_buf(),
        file: "summary.json",
        message: format!("not a sweep summary: {e}"),
    })
}

/// Reads `summary.json` and `curves.csv` saved by a regret run.
pub fn load_saved(
    dir: &std::path::Path,
) -> Result<(RegretSummary, Vec<curves::CurveRow>), ReportError> {
    let folder = OutputDir::existing(dir);
    let saved = |file: &'static str, message: String| ReportError::Saved {
        dir: dir.to_path_buf(),
        file,
        message,
    };
    let json = folder.read("summary.json")?;
    let summary: RegretSummary = serde_json::from_slice(&json)
        .map_err(|e| saved("summary.json", format!("not a regret summary: {e}")))?;
    if summary.kind != "regret" {
        return Err(saved(
            "summary.json",
            format!("kind is {:?}, expected \"regret\"", summary.kind),
        ));
    }
    let rows = curves::from_csv(&folder.read("curves.csv")?).map_err(|m| saved("curves.csv", m))?;
    Ok((summary, rows))
}
