//! Partial results of a sharded run, and merging them.
//!
//! `specprobe run --shard I/N` simulates only the runs `r` with `r % N == I` and writes
//! `partial.json`: the exact statistics of those runs (sums kept as exact expansions, counts,
//! histograms), the scenario's source text and overrides, and a fingerprint of the checked
//! scenario, the shard's run count, the producing version and a SHA-256 checksum of the whole.
//! `specprobe merge` trusts none of it: it checks the checksum (damage), that the partials
//! belong together (same fingerprint and version, same shard count, every shard exactly once,
//! shard runs adding up to the scenario's), and every body against the re-checked scenario
//! (experiments, policies, checkpoints, channels, cells, each shard's own run indices, counts,
//! finite values, and the last checkpoint against the per-run rows). Each failure names the
//! file, the shard and the field. It then merges the statistics exactly and writes the same
//! `summary.json`, `curves.csv` and `runs.csv` as the unsharded run, byte for byte.
//!
//! The checksum detects damage (truncation, a flipped digit, an edited number), not a
//! determined forger, who can recompute it; the consistency checks catch much of what a
//! careless edit would leave, but nothing here authenticates a file.

use crate::engine::results::Results;
use crate::engine::shard::Shard;
use crate::scenario::additions::Additions;
use crate::scenario::{self, Overrides, Scenario};

mod blame;
mod check;
mod identification;
mod kind;
mod mac;
mod merge;
mod multi_user;
mod regret;

pub use check::MergeError;
use kind::Sharded;
pub use merge::merge;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Format tag of `partial.json`.
pub(crate) const FORMAT: &str = "specprobe-partial/2";

/// One shard's results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Partial {
    /// Always [`FORMAT`].
    pub format: String,
    /// Scenario name.
    pub scenario: String,
    /// Hash of the checked scenario with its overrides and added policies (hex).
    pub fingerprint: String,
    /// The scenario file as given to `run`.
    pub source_path: PathBuf,
    /// Its text, so that `merge` needs nothing else.
    pub source_text: String,
    /// Overrides applied.
    pub overrides: Overrides,
    /// Policies (regret) or algorithms (identification) a library user added, after the
    /// scenario's own, as (label, description); `merge` rebuilds them by name.
    #[serde(default)]
    pub custom: Vec<(String, String)>,
    /// The labels of those a library user declared `one_channel` (many users only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub one_channel: Vec<String>,
    /// Which runs this shard holds.
    pub shard: Shard,
    /// Runs of the scenario, all shards together.
    pub total_runs: u64,
    /// Runs this shard holds (`r % count == index`).
    pub runs: u64,
    /// The specprobe version that wrote it.
    pub version: String,
    /// The statistics.
    pub body: PartialBody,
    /// SHA-256 (hex) of this file as written with this field empty.
    pub checksum: String,
    /// HMAC-SHA256 (hex) of the checksum under `SPECPROBE_SHARD_KEY`, when a key was set
    /// (see [`mac`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac: Option<String>,
}

/// Declares [`PartialBody`], a shard's statistics in `partial.json`, one variant per
/// experiment kind with the kind's own body (in `partial/<kind>.rs`), from the list of the
/// kinds (`experiment_kinds!`, in `lib.rs`). Each body is a struct in a newtype variant, which
/// serde writes as the struct variants it replaced (`{"Regret": {"checkpoints": …}}`): the
/// files are unchanged.
macro_rules! partial_body {
    ($d:tt $(
        $(#[$doc:meta])* $kind:ident($s:path, $r:path, $b:path $(, raw $raw:path)? $(, writes $file:literal swept $swept:literal)?),
    )*) => {
        /// A shard's statistics, of its scenario's kind.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        pub(crate) enum PartialBody {
            $(
                #[doc = concat!("A `", stringify!($kind), "` scenario's.")]
                $kind($b),
            )*
        }
    };
}

experiment_kinds!($ partial_body);

impl Partial {
    /// The partial result of a sharded simulation.
    pub(crate) fn of(results: &Results) -> Partial {
        use crate::scenario::each_kind;
        let (scenario, custom, one_channel, body) = each_kind!(in Results, results, r => {
            let s = &r.scenario;
            (Scenario::from(s.clone()), s.custom(), s.one_channel(), s.body(&r.stats))
        });
        let source = scenario.source();
        let shard = results.shard().unwrap_or_default();
        let mut partial = Partial {
            format: FORMAT.into(),
            scenario: scenario.name().to_string(),
            fingerprint: scenario.fingerprint(),
            source_path: source.path.clone(),
            source_text: source.text.to_string(),
            overrides: results.overrides(),
            custom,
            one_channel,
            shard,
            total_runs: scenario.runs(),
            runs: shard.runs_of(scenario.runs()),
            version: env!("CARGO_PKG_VERSION").into(),
            body,
            checksum: String::new(),
            mac: None,
        };
        partial.checksum = partial.digest();
        partial.mac = mac::key().map(|key| mac::sign(&key, &partial.checksum));
        partial
    }

    /// The partial with its checksum recomputed over its current content: what a determined
    /// forger does after editing one. The checksum is there to catch damage, not forgery; the
    /// tests and the fuzz target use this to reach the checks behind it.
    #[cfg(any(test, feature = "fuzzing"))]
    pub(crate) fn resealed(mut self) -> Partial {
        self.checksum = self.digest();
        self
    }

    /// SHA-256 (hex) of the partial serialised with an empty checksum.
    fn digest(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        let mut unsigned = serde_json::Serializer::new(HashWriter(&mut hasher));
        let blank = Blank(self);
        blank
            .serialize(&mut unsigned)
            .expect("a partial result serialises");
        hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// The checked scenario this partial was simulated from: its stored text re-parsed, the
    /// overrides re-applied and the added policies rebuilt by name.
    fn scenario(&self, path: &Path) -> Result<Scenario, MergeError> {
        let unreadable = |message: String| MergeError::Unreadable {
            path: path.to_path_buf(),
            message,
        };
        let parsed = scenario::parse(&self.source_text, &self.source_path)
            .map_err(|e| unreadable(format!("re-checking the stored scenario: {e}")))?
            .with_overrides(&self.overrides)
            .map_err(|e| unreadable(format!("re-applying the overrides: {e}")))?;
        // The user's entries, known here by their names only, as placeholders.
        let named = Additions {
            named: self.custom.clone(),
            one_channel: self.one_channel.clone(),
            ..Additions::default()
        };
        let scenario = parsed
            .with_additions(&named)
            .map_err(|e| unreadable(format!("re-adding the user's entries: {e}")))?;
        if scenario.fingerprint() != self.fingerprint {
            return Err(unreadable(format!(
                "the stored scenario no longer gives fingerprint {} (a file it refers to changed?); rerun the shards",
                self.fingerprint
            )));
        }
        Ok(scenario)
    }
}

/// A partial serialised with an empty checksum, without copying it.
struct Blank<'a>(&'a Partial);

impl Serialize for Blank<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let p = self.0;
        let mut st = serializer.serialize_struct("Partial", 15)?;
        st.serialize_field("format", &p.format)?;
        st.serialize_field("scenario", &p.scenario)?;
        st.serialize_field("fingerprint", &p.fingerprint)?;
        st.serialize_field("source_path", &p.source_path)?;
        st.serialize_field("source_text", &p.source_text)?;
        st.serialize_field("overrides", &p.overrides)?;
        st.serialize_field("custom", &p.custom)?;
        if p.one_channel.is_empty() {
            st.skip_field("one_channel")?;
        } else {
            st.serialize_field("one_channel", &p.one_channel)?;
        }
        st.serialize_field("shard", &p.shard)?;
        st.serialize_field("total_runs", &p.total_runs)?;
        st.serialize_field("runs", &p.runs)?;
        st.serialize_field("version", &p.version)?;
        st.serialize_field("body", &p.body)?;
        st.serialize_field("checksum", "")?;
        st.end()
    }
}

/// Feeds serialised bytes to a hasher.
struct HashWriter<'a, D>(&'a mut D);

impl<D: sha2::Digest> std::io::Write for HashWriter<'_, D> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
