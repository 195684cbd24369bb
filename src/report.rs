//! Writing results: `summary.json`, `curves.csv`, `report.md` (and charts, see `plots`).
//!
//! The report never simulates: everything here is computed from the checked scenario and the
//! finished statistics, or read back from saved files.

pub mod curves;
pub mod markdown;
pub mod summary;

use crate::output::{OutputDir, OutputError};
use crate::runner::RegretResults;
use crate::scenario::RegretScenario;
use std::path::PathBuf;

/// Why results could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A file could not be written.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// Serialising JSON failed.
    #[error("cannot serialise {file}: {source}")]
    Json {
        /// The file.
        file: &'static str,
        /// The underlying error.
        source: serde_json::Error,
    },
    /// Serialising CSV failed.
    #[error("cannot serialise curves.csv: {0}")]
    Csv(#[from] csv::Error),
}

/// Writes `summary.json`, `curves.csv` and `report.md` of a finished regret scenario; returns
/// the paths written.
pub fn write_regret(
    out: &OutputDir,
    s: &RegretScenario,
    results: &RegretResults,
) -> Result<Vec<PathBuf>, ReportError> {
    let summary = summary::regret_summary(s, results);
    let rows = curves::rows(s, results);
    let mut written = Vec::new();
    let json = serde_json::to_vec_pretty(&summary).map_err(|source| ReportError::Json {
        file: "summary.json",
        source,
    })?;
    written.push(out.write("summary.json", &json)?);
    written.push(out.write("curves.csv", &curves::to_csv(&rows)?)?);
    let md = markdown::regret_report(&summary, &[]);
    written.push(out.write("report.md", md.as_bytes())?);
    Ok(written)
}
