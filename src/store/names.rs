//! The names in a result folder and the kinds of result set, each in one place (contract:
//! other tools read these files by name).

use crate::engine::results::Results;
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};

/// `summary.json`: every headline number.
pub(crate) const SUMMARY: &str = "summary.json";
/// `curves.csv`: every metric at every checkpoint.
pub(crate) const CURVES: &str = "curves.csv";
/// `runs.csv`: one row per run with its values at the horizon.
pub(crate) const RUNS: &str = "runs.csv";
/// `identification.csv`: an identification scenario's table.
pub(crate) const IDENTIFICATION: &str = "identification.csv";
/// `users.csv`: a many-users scenario's per-user results.
pub(crate) const USERS: &str = "users.csv";
/// `channels.csv`: a many-users scenario's per-channel results.
pub(crate) const CHANNELS: &str = "channels.csv";
/// `sweep.csv`: a sweep's table, one row per policy and value.
pub(crate) const SWEEP: &str = "sweep.csv";
/// The data files a result folder may hold (the charts and the report aside): what the Python
/// package reads back (a sweep's cells' own are in their folders).
pub const DATA_FILES: [&str; 7] = [
    SUMMARY,
    CURVES,
    RUNS,
    IDENTIFICATION,
    USERS,
    CHANNELS,
    SWEEP,
];
/// `report.md`: the summary tables with the charts.
pub(crate) const REPORT: &str = "report.md";
/// `partial.json`: one shard's exact statistics, for `merge`.
pub(crate) const PARTIAL: &str = "partial.json";
/// `.specprobe.json`: which scenario wrote a result folder, and its files.
pub(crate) const MARKER: &str = ".specprobe.json";

/// Declares [`ResultKind`] and [`Swept`], with every kind's spelling in files, from the list
/// of the experiment kinds (`experiment_kinds!`, in `lib.rs`): a kind that writes folders of its
/// own gives its `kind` and its sweeps'.
macro_rules! result_kinds {
    ($d:tt $(
        $(#[$doc:meta])* $kind:ident($s:path, $r:path, $b:path $(, raw $raw:path)? $(, writes $file:literal swept $swept:literal)?),
    )*) => {
        /// What a result folder holds: the `kind` of its `summary.json` and of its marker,
        /// written as [`ResultKind::as_str`] spells it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ResultKind {
            $($(
                #[doc = concat!("A `", stringify!($kind), "` scenario's results (`\"", $file, "\"`).")]
                $kind,
            )?)*
            /// A sweep's results, of the kind swept: one kind of result for every sweep, each
            /// spelled as before in files (a regret sweep holds its cells' summaries in its
            /// own; the others, each cell's results in a subfolder).
            Sweep(Swept),
            /// One shard's partial results.
            Partial,
            /// A comparison of several scenarios.
            Comparison,
        }

        /// The kind of scenario a sweep runs at each value.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Swept {
            $($(
                #[doc = concat!("`", stringify!($kind), "` scenarios (`\"", $swept, "\"`).")]
                $kind,
            )?)*
        }

        /// Every kind with its spelling in files.
        const ALL: &[(ResultKind, &str)] = &[
            $($(
                (ResultKind::$kind, $file),
                (ResultKind::Sweep(Swept::$kind), $swept),
            )?)*
            (ResultKind::Partial, "partial"),
            (ResultKind::Comparison, "comparison"),
        ];

        /// Every kind's spelling, in the order of [`ALL`] (errors list them so).
        const NAMES: &[&str] = &[$($($file, $swept,)?)* "partial", "comparison"];
    };
}

experiment_kinds!($ result_kinds);

impl Serialize for ResultKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ResultKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ResultKind, D::Error> {
        let name = String::deserialize(d)?;
        match name.as_str() {
            // Markers written by earlier versions spelled the many-users kind so: still read.
            "multi_user" => Ok(ResultKind::MultiUser),
            other => ResultKind::parse(other)
                .ok_or_else(|| serde::de::Error::unknown_variant(other, NAMES)),
        }
    }
}

/// The kind of result set a scenario's unsharded run writes, said once per scenario kind (in
/// the kind's `store/partial/<kind>.rs`).
pub(crate) trait Writes {
    fn writes(&self) -> ResultKind;
}

impl ResultKind {
    /// What a run of `s` writes: one shard's partial results when `sharded`, else the
    /// scenario kind's own.
    pub(crate) fn of(s: &Scenario, sharded: bool) -> ResultKind {
        if sharded {
            return ResultKind::Partial;
        }
        crate::scenario::each_kind!(s, s => s.writes())
    }

    /// What `results` are written as: a shard's partial results, else what their scenario's
    /// unsharded run writes ([`ResultKind::of`]).
    pub(crate) fn of_results(results: &Results) -> ResultKind {
        if results.shard().is_some() {
            return ResultKind::Partial;
        }
        crate::scenario::each_kind!(in Results, results, r => r.scenario.writes())
    }

    /// As `summary.json` and the marker write it.
    pub fn as_str(self) -> &'static str {
        ALL.iter()
            .find(|(k, _)| *k == self)
            .map(|(_, name)| *name)
            .expect("every kind is in ALL")
    }

    /// The kind a `kind` string names.
    pub fn parse(s: &str) -> Option<ResultKind> {
        ALL.iter().find(|(_, name)| *name == s).map(|(k, _)| *k)
    }
}

impl ResultKind {
    /// `Ok` when `self` is `want`; else why not, as a saved summary's `kind` field is
    /// reported (`"regret", expected "sweep"`).
    pub(crate) fn expect(self, want: ResultKind) -> Result<(), String> {
        if self == want {
            Ok(())
        } else {
            Err(format!("\"{self}\", expected \"{want}\""))
        }
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

    /// Every result file's name is spelled here alone: no other production source of the
    /// library holds it as a string (test modules, which build folders by hand, may).
    #[test]
    fn result_file_names_are_spelled_only_here() {
        let names: Vec<&str> = DATA_FILES
            .into_iter()
            .chain([REPORT, PARTIAL, MARKER])
            .collect();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut stack = vec![root];
        let mut offences = Vec::new();
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                // Test-only files and the test modules at the end of a file are exempt.
                if path.ends_with("names.rs")
                    || path.ends_with("testing.rs")
                    || path.ends_with("tamper.rs")
                {
                    continue;
                }
                let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
                for name in &names {
                    if code.contains(&format!("\"{name}\"")) {
                        offences.push(format!("{}: \"{name}\"", path.display()));
                    }
                }
            }
        }
        assert!(
            offences.is_empty(),
            "spell these through store::names: {offences:#?}"
        );
    }

    #[test]
    fn kinds_round_trip_as_summaries_write_them() {
        // The spellings of every kind, as files written before sweeps were one kind (and
        // before the kinds were one list) hold them: the contract, written out.
        let contract = [
            (ResultKind::Regret, "regret"),
            (ResultKind::Identification, "identification"),
            (ResultKind::Sweep(Swept::Regret), "sweep"),
            (ResultKind::Partial, "partial"),
            (ResultKind::Comparison, "comparison"),
            (ResultKind::MultiUser, "multi-user"),
            (ResultKind::Sweep(Swept::MultiUser), "multi-user-sweep"),
            (
                ResultKind::Sweep(Swept::Identification),
                "identification-sweep",
            ),
        ];
        assert_eq!(ALL.len(), contract.len());
        assert_eq!(NAMES.len(), contract.len());
        for (k, name) in contract {
            assert!(ALL.contains(&(k, name)) && NAMES.contains(&name), "{name}");
            assert_eq!(k.as_str(), name);
            assert_eq!(ResultKind::parse(name), Some(k));
            assert_eq!(serde_json::to_string(&k).unwrap(), format!("\"{name}\""));
            let back: ResultKind = serde_json::from_str(&format!("\"{name}\"")).unwrap();
            assert_eq!(back, k);
        }
        assert_eq!(ResultKind::parse("nope"), None);
        let err = serde_json::from_str::<ResultKind>("\"nope\"").unwrap_err();
        assert!(err.to_string().contains("unknown variant `nope`"), "{err}");
        // A summary's `kind` that is not the expected one is reported with both spellings.
        let sweep = ResultKind::Sweep(Swept::Regret);
        assert_eq!(sweep.expect(sweep), Ok(()));
        assert_eq!(
            ResultKind::Sweep(Swept::MultiUser).expect(sweep),
            Err("\"multi-user-sweep\", expected \"sweep\"".to_string())
        );
        assert_eq!(
            ResultKind::Regret.expect(sweep),
            Err("\"regret\", expected \"sweep\"".to_string())
        );
        // A marker of an earlier version still reads.
        let old: ResultKind = serde_json::from_str("\"multi_user\"").unwrap();
        assert_eq!(old, ResultKind::MultiUser);
    }
}
