//! Writing results: `summary.json`, `curves.csv`, `report.md` (and charts, see `plots`).
//!
//! The report never simulates: everything here is computed from the checked scenario and the
//! finished statistics, or read back from saved files.

pub(crate) mod check;
pub(crate) mod compare;
pub(crate) mod describe;
pub(crate) mod format;
pub(crate) mod identification;
pub(crate) mod kind;
pub(crate) mod load;
pub(crate) mod multi_user;
pub(crate) mod plots;
pub(crate) mod regret;
pub(crate) mod saved;
pub(crate) mod streamed;
pub(crate) mod sweep;

pub(crate) use load::parse_json;
pub(crate) use load::saved_kind;
pub(crate) use plots::ChartOptions;
pub(crate) use plots::Format;
pub(crate) use regret::load_saved;
pub(crate) use regret::regret_from_files;

use crate::engine::results::Results;
use crate::store::folder::OutputError;
use crate::store::names::ResultKind;
use std::path::{Path, PathBuf};

/// Why results could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A saved result file could not be read.
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

/// A file of a result set, rendered in memory: its name in the folder and its bytes. Report
/// code only produces these; one writer (`app::export`) stages and commits them.
#[derive(Clone, PartialEq, Eq)]
pub struct Artifact {
    /// The file name inside the result folder (`summary.json`, `regret.png`, ...).
    pub name: String,
    /// Its content (empty for a file already written to the staging folder, see
    /// [`Artifact::is_staged`]).
    pub bytes: Vec<u8>,
    /// Written to the staging folder while the run went on (`runs.csv` of a command-line run).
    staged: bool,
}

impl Artifact {
    /// The same file in `folder` of the result folder (a sweep's cell writes its own results
    /// there).
    pub(crate) fn in_folder(self, folder: &str) -> Artifact {
        Artifact::new(format!("{folder}/{}", self.name), self.bytes)
    }

    /// A named buffer.
    pub fn new(name: impl Into<String>, bytes: Vec<u8>) -> Artifact {
        Artifact {
            name: name.into(),
            bytes,
            staged: false,
        }
    }

    /// A file the run already wrote into the staging folder under `name`.
    pub(crate) fn staged(name: impl Into<String>) -> Artifact {
        Artifact {
            name: name.into(),
            bytes: Vec::new(),
            staged: true,
        }
    }

    /// Whether the file is in the staging folder already rather than in `bytes`.
    pub fn is_staged(&self) -> bool {
        self.staged
    }
}

impl std::fmt::Debug for Artifact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.staged {
            true => write!(f, "Artifact({}, staged)", self.name),
            false => write!(f, "Artifact({}, {} bytes)", self.name, self.bytes.len()),
        }
    }
}

/// Reads and checks the results of `dir`, which declares kind `found`: the kind that writes
/// `found` reads it (see [`kind::ReportKind::load`]); anything no kind claims is read as
/// regret results (a comparison stays a comparison).
pub(crate) fn load_any(
    dir: &Path,
    found: Option<ResultKind>,
) -> Result<Box<dyn saved::SavedResults>, ReportError> {
    let claimed = crate::scenario::first_kind!(|K| {
        found.and_then(|k| <K as kind::ReportKind>::load(k, dir))
    });
    match claimed {
        Some(loaded) => loaded,
        None => regret::load_unclaimed(dir, found),
    }
}

/// Every file of a finished (unsharded) result set.
pub(crate) fn render_results(
    results: &Results,
    charts: &ChartOptions,
) -> Result<Vec<Artifact>, ReportError> {
    use kind::ReportKind;
    crate::scenario::each_kind!(in Results, results, r => r.scenario.render(&r.stats, charts))
}

/// A chart rendered in every requested format.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Rendered {
    /// Caption for the report.
    pub caption: String,
    /// File name without extension.
    pub stem: String,
    /// Its files, one per format.
    pub files: Vec<Artifact>,
}

/// The bytes of file `name` among rendered `files` (results read back from what was rendered,
/// for `compare`).
pub(crate) fn rendered<'a>(
    files: &'a [Artifact],
    name: &'static str,
) -> Result<&'a [u8], ReportError> {
    files
        .iter()
        .find(|f| f.name == name)
        .map(|f| f.bytes.as_slice())
        .ok_or_else(|| ReportError::Unreadable {
            file: name,
            message: "not rendered".into(),
        })
}

/// The charts' files and `report.md`, whose text `markdown` writes around the charts it embeds
/// (their captions and files, in the format `opts` draws first): how every report ends.
pub(crate) fn charts_and_report(
    rendered: Vec<Rendered>,
    opts: &ChartOptions,
    markdown: impl FnOnce(&[(String, String)]) -> String,
) -> Vec<Artifact> {
    let md = markdown(&embedded(&rendered, opts));
    let mut files: Vec<Artifact> = rendered.into_iter().flat_map(|r| r.files).collect();
    files.push(Artifact::new(crate::store::names::REPORT, md.into_bytes()));
    files
}

/// (caption, file) pairs for the report: the PNG where one was drawn, else the SVG.
pub(crate) fn embedded(rendered: &[Rendered], charts: &ChartOptions) -> Vec<(String, String)> {
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
