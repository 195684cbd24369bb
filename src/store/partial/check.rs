//! What `merge` checks before it trusts a shard: the file alone (format, checksum, shard
//! bounds, run count), the shards together (same scenario, version and split, every shard once)
//! and every body against the re-checked scenario. Each failure names the file, shard and field.

use crate::engine::shard::Shard;
use crate::store::names;
use crate::store::partial::blame::Blame;
use crate::store::partial::*;
use serde::Deserialize;

use std::path::{Path, PathBuf};

/// Why partial results cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// Nothing to merge.
    #[error("merge needs at least one folder holding a partial.json")]
    Empty,
    /// A file could not be read or parsed.
    #[error("{}: {message}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// Partials of different scenarios, settings or shard counts.
    #[error("{} does not belong with {}: {what}", path.display(), first.display())]
    Mismatch {
        /// The odd one.
        path: PathBuf,
        /// The first partial.
        first: PathBuf,
        /// What differs.
        what: String,
    },
    /// A shard is missing or given twice.
    #[error("{0}")]
    Coverage(String),
    /// A field of a partial is damaged or inconsistent.
    #[error("{} (shard {shard}): {field}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Its shard, as it says.
        shard: Shard,
        /// The field, e.g. `body.stats[0][1].finals`.
        field: String,
        /// What is wrong.
        message: String,
    },
}

/// Reads `partial.json` from `dir` (or `dir` itself when it is the file) and checks what can be
/// checked alone: format, checksum, shard bounds and run count.
pub(crate) fn read(dir: &Path) -> Result<(PathBuf, Partial), MergeError> {
    let path = if dir.is_dir() {
        dir.join(names::PARTIAL)
    } else {
        dir.to_path_buf()
    };
    let unreadable = |message: String| MergeError::Unreadable {
        path: path.clone(),
        message,
    };
    let bytes = crate::util::input::read_bounded(&path, crate::util::input::MAX_RESULT_BYTES)
        .map_err(|e| unreadable(format!("cannot read: {e}")))?;
    #[derive(Deserialize)]
    struct Format {
        format: String,
    }
    match serde_json::from_slice::<Format>(&bytes) {
        Ok(f) if f.format != FORMAT => {
            return Err(unreadable(format!(
                "format {:?}, expected {FORMAT:?} (written by another specprobe version? rerun the shards with this one)",
                f.format
            )));
        }
        _ => {}
    }
    let p: Partial = serde_json::from_slice(&bytes).map_err(|e| {
        unreadable(format!(
            "not a specprobe partial result (damaged or truncated?): {e}"
        ))
    })?;
    let blame = Blame {
        path: &path,
        shard: p.shard,
    };
    blame.require(p.checksum == p.digest(), "checksum", || {
        "does not match the content: the file was changed or damaged after the shard wrote it"
            .into()
    })?;
    // The checksum covers what was parsed; the file must be exactly that, as specprobe writes
    // it, so that nothing read (an added key, say) lies outside the checksum.
    let canonical = serde_json::to_vec(&p).map_err(|e| unreadable(e.to_string()))?;
    blame.require(canonical == bytes, "(file)", || {
        "is not the partial as specprobe writes it (a key added or reordered, or the file reformatted): the file was changed after the shard wrote it".into()
    })?;
    if let Some(key) = super::mac::key() {
        let tag = p.mac.as_deref().unwrap_or("");
        blame.require(super::mac::verify(&key, &p.checksum, tag), "mac", || {
            if p.mac.is_none() {
                format!(
                    "missing: {} is set, so every shard must be signed with it (run the shards with the same key)",
                    super::mac::KEY_VAR
                )
            } else {
                format!(
                    "does not verify under {}: the file was forged, or signed with another key",
                    super::mac::KEY_VAR
                )
            }
        })?;
    }
    blame.require(p.version == env!("CARGO_PKG_VERSION"), "version", || {
        format!(
            "written by specprobe {}, and this is specprobe {}: rerun the shards with this version (results may differ between versions)",
            p.version,
            env!("CARGO_PKG_VERSION")
        )
    })?;
    blame.require(
        p.shard.count >= 1 && p.shard.index < p.shard.count,
        "shard",
        || {
            format!(
                "index {} is not below the count {}",
                p.shard.index, p.shard.count
            )
        },
    )?;
    blame.require(p.shard.count <= p.total_runs, "shard.count", || {
        format!(
            "{} shards for {} runs (at most one shard per run)",
            p.shard.count, p.total_runs
        )
    })?;
    blame.require(p.runs == p.shard.runs_of(p.total_runs), "runs", || {
        format!(
            "says {} runs, but shard {} of {} runs holds {}",
            p.runs,
            p.shard,
            p.total_runs,
            p.shard.runs_of(p.total_runs)
        )
    })?;
    Ok((path, p))
}

/// Checks that the partials belong together and cover every shard exactly once.
pub(crate) fn check_together(parts: &[(PathBuf, Partial)]) -> Result<(), MergeError> {
    let (first_path, first) = parts.first().ok_or(MergeError::Empty)?;
    let count = first.shard.count;
    let mut seen = std::collections::BTreeMap::<u64, &Path>::new();
    for (path, p) in parts {
        let mismatch = |what: String| MergeError::Mismatch {
            path: path.clone(),
            first: first_path.clone(),
            what,
        };
        if p.fingerprint != first.fingerprint || p.scenario != first.scenario {
            return Err(mismatch(format!(
                "scenario {:?} (fingerprint {}) vs {:?} (fingerprint {}): a different scenario, seed, horizon or number of runs",
                p.scenario, p.fingerprint, first.scenario, first.fingerprint
            )));
        }
        if p.source_text != first.source_text
            || p.overrides != first.overrides
            || p.custom != first.custom
            || p.one_channel != first.one_channel
        {
            return Err(mismatch(
                "the same fingerprint but a different stored scenario text, overrides or added policies (edited?)".into(),
            ));
        }
        if p.version != first.version {
            return Err(mismatch(format!(
                "written by specprobe {} and {}: rerun the shards with one version",
                p.version, first.version
            )));
        }
        if p.shard.count != count || p.total_runs != first.total_runs {
            return Err(mismatch(format!(
                "shard {} of {} runs vs shard count {count} of {} runs",
                p.shard, p.total_runs, first.total_runs
            )));
        }
        if let Some(other) = seen.insert(p.shard.index, path) {
            return Err(MergeError::Coverage(format!(
                "shard {} appears twice: {} and {}",
                p.shard,
                other.display(),
                path.display()
            )));
        }
    }
    let missing = count - seen.len() as u64;
    if missing > 0 {
        let listed: Vec<String> = (0..count)
            .filter(|i| !seen.contains_key(i))
            .take(10)
            .map(|i| format!("{i}/{count}"))
            .collect();
        return Err(MergeError::Coverage(format!(
            "missing shard{} {}{} of {} (merge needs every shard exactly once)",
            if missing == 1 { "" } else { "s" },
            listed.join(", "),
            if missing > 10 {
                format!(" and {} more", missing - 10)
            } else {
                String::new()
            },
            first.scenario
        )));
    }
    let runs: u64 = parts.iter().map(|(_, p)| p.runs).sum();
    if runs != first.total_runs {
        return Err(MergeError::Coverage(format!(
            "the shards hold {runs} runs, the scenario {}",
            first.total_runs
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn partial(index: u64, count: u64, fingerprint: &str) -> (PathBuf, Partial) {
        (
            PathBuf::from(format!("shard{index}")),
            Partial {
                format: FORMAT.into(),
                scenario: "s".into(),
                fingerprint: fingerprint.into(),
                source_path: "s.ron".into(),
                source_text: String::new(),
                overrides: Overrides::default(),
                custom: Vec::new(),
                one_channel: Vec::new(),
                shard: Shard { index, count },
                total_runs: 10,
                runs: Shard { index, count }.runs_of(10),
                version: "0".into(),
                body: PartialBody::Identification(identification::IdentificationBody {
                    cells: Vec::new(),
                }),
                checksum: String::new(),
                mac: None,
            },
        )
    }

    #[test]
    fn coverage_and_mismatches_are_reported() {
        let ok = [partial(0, 2, "a"), partial(1, 2, "a")];
        check_together(&ok).unwrap();
        let err = check_together(&[partial(0, 2, "a")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing shard 1/2"), "{err}");
        let err = check_together(&[partial(0, 2, "a"), partial(0, 2, "a")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("appears twice"), "{err}");
        let err = check_together(&[partial(0, 2, "a"), partial(1, 2, "b")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("fingerprint"), "{err}");
        let err = check_together(&[partial(0, 2, "a"), partial(1, 3, "a")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("shard count 2"), "{err}");
    }
}
