//! Reading saved results back: a folder's kind and JSON parsed with the failing field named.

use crate::report::ReportError;
use crate::store::folder::OutputDir;
use crate::store::names;

/// What kind of results a folder holds, from its `summary.json`.
pub(crate) fn saved_kind(dir: &std::path::Path) -> Result<String, ReportError> {
    #[derive(serde::Deserialize)]
    struct Kind {
        kind: String,
    }
    let json = OutputDir::existing(dir).read(names::SUMMARY)?;
    let k: Kind = serde_json::from_slice(&json).map_err(|e| ReportError::Saved {
        dir: dir.to_path_buf(),
        file: names::SUMMARY,
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
