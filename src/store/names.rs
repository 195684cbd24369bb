//! The names in a result folder and the kinds of result set, each in one place (contract:
//! other tools read these files by name).

use serde::{Deserialize, Serialize};

/// `summary.json`: every headline number.
pub(crate) const SUMMARY: &str = "summary.json";
/// `curves.csv`: every metric at every checkpoint.
pub(crate) const CURVES: &str = "curves.csv";
/// `runs.csv`: one row per run with its values at the horizon.
pub(crate) const RUNS: &str = "runs.csv";
/// `identification.csv`: an identification scenario's table.
pub(crate) const IDENTIFICATION: &str = "identification.csv";
/// `report.md`: the summary tables with the charts.
pub(crate) const REPORT: &str = "report.md";
/// `partial.json`: one shard's exact statistics, for `merge`.
pub(crate) const PARTIAL: &str = "partial.json";
/// `.specprobe.json`: which scenario wrote a result folder, and its files.
pub(crate) const MARKER: &str = ".specprobe.json";

/// What a result folder holds: the `kind` of its `summary.json` and of its marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultKind {
    /// A regret scenario's results.
    Regret,
    /// An identification scenario's results.
    Identification,
    /// A sweep's results.
    Sweep,
    /// One shard's partial results.
    Partial,
    /// A comparison of several scenarios.
    Comparison,
    /// A many-users scenario's results (the marker spells the kind as `summary.json` does;
    /// markers written before said `multi_user`).
    #[serde(rename = "multi-user", alias = "multi_user")]
    MultiUser,
    /// A many-users sweep's results (each cell's in a subfolder).
    #[serde(rename = "multi-user-sweep")]
    MultiUserSweep,
}

impl ResultKind {
    /// As `summary.json` and the marker write it.
    pub fn as_str(self) -> &'static str {
        match self {
            ResultKind::Regret => "regret",
            ResultKind::Identification => "identification",
            ResultKind::Sweep => "sweep",
            ResultKind::Partial => "partial",
            ResultKind::Comparison => "comparison",
            ResultKind::MultiUser => "multi-user",
            ResultKind::MultiUserSweep => "multi-user-sweep",
        }
    }

    /// The kind a `kind` string names.
    pub fn parse(s: &str) -> Option<ResultKind> {
        [
            ResultKind::Regret,
            ResultKind::Identification,
            ResultKind::Sweep,
            ResultKind::Partial,
            ResultKind::Comparison,
            ResultKind::MultiUser,
            ResultKind::MultiUserSweep,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

impl std::fmt::Display for ResultKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_as_summaries_write_them() {
        for k in [
            ResultKind::Regret,
            ResultKind::Identification,
            ResultKind::Sweep,
            ResultKind::Partial,
            ResultKind::Comparison,
            ResultKind::MultiUser,
            ResultKind::MultiUserSweep,
        ] {
            assert_eq!(ResultKind::parse(k.as_str()), Some(k));
            assert_eq!(serde_json::to_string(&k).unwrap(), format!("\"{k}\""));
        }
        assert_eq!(ResultKind::parse("nope"), None);
        // A marker of an earlier version still reads.
        let old: ResultKind = serde_json::from_str("\"multi_user\"").unwrap();
        assert_eq!(old, ResultKind::MultiUser);
    }
}
