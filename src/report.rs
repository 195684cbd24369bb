//! Writing results: `summary.json`, `curves.csv`, `report.md` (and charts, see `plots`).
//!
//! The report never simulates: everything here is computed from the checked scenario and the
//! finished statistics, or read back from saved files.

pub(crate) mod charts;
pub(crate) mod check;
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
    /// Results about to be written would not read back (a bug: nothing is replaced).
    #[error("{file} would not read back ({message}); nothing was replaced")]
    Unreadable {
        /// The file.
        file: &'static str,
        /// Why.
        message: String,
    },
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
    let csv = curves::to_csv(&rows)?;
    reads_back_regret(&json, &csv)?;
    written.push(out.write("summary.json", &json)?);
    written.push(out.write("curves.csv", &csv)?);
    written.push(out.write(runs::FILE, &runs::regret(s, results)?)?);
    written.extend(render_report(out, &summary, &rows, charts)?);
    Ok(written)
}

/// What `run` writes, `plot` and `compare` must read: the summary and curves are read back and
/// checked exactly as they will be, before anything is written.
fn reads_back_regret(json: &[u8], csv: &[u8]) -> Result<(), ReportError> {
    let unreadable = |file, message| ReportError::Unreadable { file, message };
    let summary = parse_regret(json).map_err(|m| unreadable("summary.json", m))?;
    let rows = curves::from_csv(csv).map_err(|m| unreadable("curves.csv", m))?;
    check::regret(&summary, Some(&rows)).map_err(|m| unreadable("summary.json", m))
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

/// Parses JSON, naming the field at fault (`policies[0].pseudo_regret.mean: invalid type ...`).
pub(crate) fn parse_json<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            e.into_inner().to_string()
        } else {
            format!("{path}: {}", e.into_inner())
        }
    })?;
    de.end().map_err(|e| e.to_string())?;
    Ok(value)
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

/// Reads `summary.json` saved by an identification run, and checks it.
pub fn load_identification(
    dir: &std::path::Path,
) -> Result<identification::IdentificationSummary, ReportError> {
    let json = OutputDir::existing(dir).read("summary.json")?;
    let saved = |message: String| ReportError::Saved {
        dir: dir.to_path_buf(),
        file: "summary.json",
        message,
    };
    let summary: identification::IdentificationSummary =
        parse_json(&json).map_err(|e| saved(format!("not an identification summary: {e}")))?;
    check::identification(&summary).map_err(saved)?;
    Ok(summary)
}

/// Reads `summary.json` saved by a sweep, and checks it.
pub fn load_sweep(dir: &std::path::Path) -> Result<sweep::SweepSummary, ReportError> {
    let json = OutputDir::existing(dir).read("summary.json")?;
    let saved = |message: String| ReportError::Saved {
        dir: dir.to_path_buf(),
        file: "summary.json",
        message,
    };
    let summary: sweep::SweepSummary =
        parse_json(&json).map_err(|e| saved(format!("not a sweep summary: {e}")))?;
    check::sweep(&summary).map_err(saved)?;
    Ok(summary)
}

/// Reads `summary.json` and `curves.csv` saved by a regret run, and checks them together.
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
    let summary = parse_regret(&json)
        .map_err(|e| saved("summary.json", format!("not a regret summary: {e}")))?;
    check::regret(&summary, None).map_err(|m| saved("summary.json", m))?;
    let rows = curves::from_csv(&folder.read("curves.csv")?).map_err(|m| saved("curves.csv", m))?;
    check::regret(&summary, Some(&rows)).map_err(|m| saved("curves.csv", m))?;
    Ok((summary, rows))
}
