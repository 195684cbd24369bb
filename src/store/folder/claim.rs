//! Who wrote a result folder, and what of it may be replaced.
//!
//! The marker `.specprobe.json` names the scenario, the kind of result set and every file and
//! folder of the set. A later command replaces the folder without `--force` only when the
//! marker names the same scenario and the same kind and the folder holds nothing the marker
//! does not list: a user's `notes.txt` or `analysis/` beside the results, a shard's
//! `partial.json` where complete results were, or results of another kind are never deleted
//! without being asked. A folder with no marker, or with a marker from before markers listed
//! their files, is replaced only with `--force` (judging by names deleted a user's CSVs and
//! PNGs beside a copied `summary.json`), unless it holds nothing but specprobe's data files
//! of this very scenario (`summary.json`, `curves.csv`, …, exactly those names).

use super::OutputError;
use crate::store::names::{self, ResultKind};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Format tag of the marker.
pub(super) const MARKER_FORMAT: &str = "specprobe-results/1";

/// Entries a folder may hold before it is judged too large to be a result set of ours (the
/// walk stops there; such a folder is replaced only with `--force`).
const MAX_ENTRIES: usize = 100_000;

/// `.specprobe.json`: which scenario wrote a result folder, and what the set holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct Marker {
    pub(super) format: String,
    pub(super) scenario: String,
    pub(super) kind: String,
    pub(super) version: String,
    /// Every file and folder of the set (folders end in `/`), the marker itself excepted;
    /// absent in markers written before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) files: Option<Vec<String>>,
}

impl Marker {
    /// The marker of a set of `kind` for `scenario`, its files listed at commit.
    pub(super) fn new(scenario: &str, kind: ResultKind) -> Marker {
        Marker {
            format: MARKER_FORMAT.into(),
            scenario: scenario.into(),
            kind: kind.as_str().into(),
            version: env!("CARGO_PKG_VERSION").into(),
            files: None,
        }
    }

    /// The marker of `dir`, when it holds one of ours (never through a link).
    pub(super) fn read(dir: &Path) -> Option<Marker> {
        read_json::<Marker>(&dir.join(names::MARKER)).filter(|m| m.format == MARKER_FORMAT)
    }

    /// The kind it names (earlier spellings included).
    fn kind(&self) -> Option<ResultKind> {
        serde_json::from_value(serde_json::Value::String(self.kind.clone())).ok()
    }
}

/// Every entry under `dir`, relative, sorted, folders ending in `/` (links and other
/// non-files listed as they are, never followed); `None` past [`MAX_ENTRIES`].
pub(super) fn listing(dir: &Path) -> std::io::Result<Option<Vec<String>>> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((path, prefix)) = stack.pop() {
        for entry in std::fs::read_dir(&path)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = format!("{prefix}{name}");
            if out.len() >= MAX_ENTRIES {
                return Ok(None);
            }
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                out.push(format!("{rel}/"));
                stack.push((entry.path(), format!("{rel}/")));
            } else {
                out.push(rel);
            }
        }
    }
    out.sort();
    Ok(Some(out))
}

/// What the destination held before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Previous {
    /// Nothing: the folder did not exist or was empty.
    Nothing,
    /// Earlier results of the same scenario and kind, and nothing else.
    SameScenario,
    /// Something else, replaced because [`super::Replace::Any`] allowed it (described).
    Forced(String),
}

/// What `path` holds, and whether `replace` allows writing `kind` results of `scenario` over
/// it.
pub(super) fn previous(
    path: &Path,
    scenario: &str,
    kind: ResultKind,
    replace: super::Replace,
) -> Result<Previous, OutputError> {
    let entries = match listing(path) {
        Ok(Some(e)) => e,
        Ok(None) => {
            return refuse(path, replace, format!("more than {MAX_ENTRIES} entries"));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Previous::Nothing),
        Err(error) => {
            return Err(OutputError::Create {
                path: path.to_path_buf(),
                error,
            });
        }
    };
    if entries.is_empty() {
        return Ok(Previous::Nothing);
    }
    // Only what a marker lists as specprobe's is replaced without `--force`: a folder with no
    // marker, or with one from before markers listed their files, may hold anything a user
    // put there (a copied summary.json does not make the folder ours).
    //
    // Bare data files of this very scenario (a user's copy of a result's data, or what the
    // Python package's `Results.plot` writes before drawing), a sweep's cells' in folders one
    // level down: nothing in the folder is a user's own, and `plot` carries the data files
    // over.
    let data = |e: &str| match e.split_once('/') {
        None => names::DATA_FILES.contains(&e),
        Some((_, "")) => true,
        Some((_, file)) => names::DATA_FILES.contains(&file),
    };
    let bare_data = || {
        entries
            .iter()
            .filter(|e| *e != names::MARKER)
            .all(|e| data(e))
            && data_owner(path).as_deref() == Some(scenario)
    };
    let marker = Marker::read(path);
    if let Some(marker) = &marker {
        if marker.scenario != scenario {
            return refuse(
                path,
                replace,
                format!("the results of another scenario, {:?}", marker.scenario),
            );
        }
        if let Some(theirs) = marker.kind()
            && theirs != kind
        {
            return refuse(
                path,
                replace,
                format!("{theirs} results of this scenario (this command writes {kind} results)"),
            );
        }
    }
    let Some(listed) = marker.as_ref().and_then(|m| m.files.as_ref()) else {
        if bare_data() {
            return Ok(Previous::SameScenario);
        }
        let what = match marker {
            None => format!(
                "{} and no record ({}) of which specprobe wrote",
                describe(&entries),
                names::MARKER
            ),
            Some(_) => format!(
                "results of an earlier specprobe whose record does not list its files, among {}",
                describe(&entries)
            ),
        };
        return refuse(path, replace, what);
    };
    let extras: Vec<String> = entries
        .into_iter()
        .filter(|e| e != names::MARKER)
        .filter(|e| listed.binary_search(e).is_err())
        .collect();
    if extras.is_empty() {
        Ok(Previous::SameScenario)
    } else {
        refuse(
            path,
            replace,
            format!("this scenario's results and {}", not_ours(&extras)),
        )
    }
}

/// `what` replaced when `replace` allows it, else the error that says so.
fn refuse(path: &Path, replace: super::Replace, what: String) -> Result<Previous, OutputError> {
    match replace {
        super::Replace::Any => Ok(Previous::Forced(what)),
        super::Replace::SameScenario => Err(OutputError::Occupied {
            path: path.to_path_buf(),
            what,
        }),
    }
}

/// "3 entries (notes.txt, analysis/, analysis/fit.py)".
fn describe(entries: &[String]) -> String {
    let mut shown: Vec<&str> = entries.iter().map(String::as_str).take(3).collect();
    if entries.len() > 3 {
        shown.push("…");
    }
    format!(
        "{} entr{} ({})",
        entries.len(),
        if entries.len() == 1 { "y" } else { "ies" },
        shown.join(", ")
    )
}

/// "3 entries that specprobe did not write (notes.txt, analysis/, analysis/fit.py)".
fn not_ours(entries: &[String]) -> String {
    describe(entries).replacen(" (", " that specprobe did not write (", 1)
}

/// The scenario named by a folder's `summary.json`, if it has one that parses.
fn data_owner(path: &Path) -> Option<String> {
    #[derive(Deserialize)]
    struct Named {
        scenario: String,
    }
    read_json::<Named>(&path.join(names::SUMMARY)).map(|n| n.scenario)
}

/// `file` parsed as JSON, when it is a regular file (never through a link) that parses.
fn read_json<T: serde::de::DeserializeOwned>(file: &Path) -> Option<T> {
    if !std::fs::symlink_metadata(file).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let bytes =
        crate::util::input::read_bounded(file, crate::util::input::MAX_RESULT_BYTES).ok()?;
    serde_json::from_slice(&bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::folder::Replace;

    fn marker(dir: &Path, kind: ResultKind, files: Option<Vec<&str>>) {
        let mut m = Marker::new("s", kind);
        m.files = files.map(|f| f.into_iter().map(String::from).collect());
        std::fs::write(dir.join(names::MARKER), serde_json::to_vec(&m).unwrap()).unwrap();
    }

    #[test]
    fn only_what_the_marker_lists_is_replaced_without_force() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        std::fs::create_dir(d.join("cell")).unwrap();
        for f in ["summary.json", "cell/runs.csv"] {
            std::fs::write(d.join(f), "x").unwrap();
        }
        marker(
            d,
            ResultKind::Regret,
            Some(vec!["cell/", "cell/runs.csv", "summary.json"]),
        );
        let same = |k| previous(d, "s", k, Replace::SameScenario);
        assert_eq!(same(ResultKind::Regret).unwrap(), Previous::SameScenario);
        // Another kind, another scenario, or a file of the user's: refused, and what would be
        // lost is named.
        let e = same(ResultKind::Partial).unwrap_err().to_string();
        assert!(e.contains("regret results") && e.contains("partial"), "{e}");
        let e = previous(d, "t", ResultKind::Regret, Replace::SameScenario)
            .unwrap_err()
            .to_string();
        assert!(e.contains("another scenario"), "{e}");
        std::fs::write(d.join("cell/notes.txt"), "mine").unwrap();
        let e = same(ResultKind::Regret).unwrap_err().to_string();
        assert!(e.contains("cell/notes.txt"), "{e}");
        assert!(matches!(
            previous(d, "s", ResultKind::Regret, Replace::Any).unwrap(),
            Previous::Forced(_)
        ));
    }

    #[test]
    fn folders_without_a_list_of_their_files_need_force() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        // An earlier version's marker (no file list), then no marker at all: a copied
        // summary.json does not make the user's files ours.
        std::fs::write(d.join("summary.json"), r#"{"scenario": "s"}"#).unwrap();
        std::fs::write(d.join("analysis.csv"), "mine").unwrap();
        marker(d, ResultKind::Regret, None);
        let same = || previous(d, "s", ResultKind::Regret, Replace::SameScenario);
        let e = same().unwrap_err().to_string();
        assert!(
            e.contains("does not list its files")
                && e.contains("analysis.csv")
                && e.contains("--force"),
            "{e}"
        );
        std::fs::remove_file(d.join(names::MARKER)).unwrap();
        let e = same().unwrap_err().to_string();
        assert!(
            e.contains("no record (.specprobe.json)") && e.contains("analysis.csv"),
            "{e}"
        );
        // Nothing but this scenario's data files: nothing of a user's to lose.
        std::fs::remove_file(d.join("analysis.csv")).unwrap();
        std::fs::write(d.join("curves.csv"), "x").unwrap();
        assert_eq!(same().unwrap(), Previous::SameScenario);
        assert!(previous(d, "t", ResultKind::Regret, Replace::SameScenario).is_err());
        std::fs::write(d.join("analysis.csv"), "mine").unwrap();
        assert!(matches!(
            previous(d, "s", ResultKind::Regret, Replace::Any).unwrap(),
            Previous::Forced(_)
        ));
    }

    #[test]
    fn links_are_listed_never_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let (d, elsewhere) = (tmp.path().join("d"), tmp.path().join("elsewhere"));
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(elsewhere.join("precious"), "x").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&elsewhere, d.join("link")).unwrap();
        let l = listing(&d).unwrap().unwrap();
        #[cfg(unix)]
        assert_eq!(l, ["link"]);
    }
}
