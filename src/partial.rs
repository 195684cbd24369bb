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

use crate::identify::confidence::{Params, Setting};
use crate::identify::{Algorithm, CustomIdentifier, IdentifyOutcome, IdentifyStats};
use crate::policy::CustomPolicy;
use crate::recorder::{PartialStats, PolicyStats};
use crate::runner::{IdentifyCell, RegretStats, Shard};
use crate::scenario::{
    self, IdentificationScenario, Overrides, PolicyEntry, PolicyKind, RegretScenario, Scenario,
};
use crate::simulation::{IdentificationResults, RegretResults, Results, SweepResults};
use crate::stats::Moments;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Format tag of `partial.json`.
pub const FORMAT: &str = "specprobe-partial/2";

/// File name of a partial result.
pub const FILE: &str = "partial.json";

/// One shard's results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Partial {
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
}

/// Statistics of a regret or identification shard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum PartialBody {
    /// Regret: per experiment, per policy.
    Regret {
        /// Slots of the curves.
        checkpoints: Vec<u64>,
        /// `stats[e][p]`.
        stats: Vec<Vec<PartialStats>>,
    },
    /// Identification: one entry per cell, in the scenario's order.
    Identification {
        /// The cells.
        cells: Vec<PartialCell>,
    },
    /// A sweep: one regret body per value, in the sweep's order.
    Sweep {
        /// The cells' bodies.
        cells: Vec<PartialBody>,
    },
}

/// One identification cell's statistics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartialCell {
    /// Instance index.
    pub instance: usize,
    /// Point index.
    pub point: usize,
    /// Setting.
    pub setting: Setting,
    /// Algorithm index in the scenario's list.
    pub algorithm: usize,
    /// Algorithm name.
    pub name: String,
    /// ε and δ.
    pub params: Params,
    /// Runs.
    pub runs: u64,
    /// Exact moments of the samples to stop.
    pub samples: Moments,
    /// Every run's outcome, by run index.
    pub outcomes: Vec<(u64, IdentifyOutcome)>,
    /// Wrong answers.
    pub errors: u64,
    /// Capped runs.
    pub capped: u64,
}

impl PartialCell {
    /// Serialisable form of a cell.
    pub fn from_cell(c: &IdentifyCell) -> PartialCell {
        PartialCell {
            instance: c.instance,
            point: c.point,
            setting: c.setting,
            algorithm: c.algorithm,
            name: c.name.clone(),
            params: c.params,
            runs: c.stats.runs,
            samples: c.stats.samples.clone(),
            outcomes: c.stats.outcomes.clone(),
            errors: c.stats.errors,
            capped: c.stats.capped,
        }
    }

    /// Back to a cell.
    pub fn to_cell(&self) -> Result<IdentifyCell, String> {
        let stats = IdentifyStats {
            runs: self.runs,
            samples: self.samples.clone(),
            errors: self.errors,
            capped: self.capped,
            outcomes: self.outcomes.clone(),
        };
        Ok(IdentifyCell {
            instance: self.instance,
            point: self.point,
            setting: self.setting,
            algorithm: self.algorithm,
            name: self.name.clone(),
            params: self.params,
            stats,
        })
    }
}

/// Regret statistics in serialisable form.
pub fn regret_body(results: &RegretStats) -> PartialBody {
    PartialBody::Regret {
        checkpoints: results.checkpoints.clone(),
        stats: results
            .stats
            .iter()
            .map(|e| e.iter().map(PolicyStats::to_parts).collect())
            .collect(),
    }
}

/// The policies a library user added, as (label, description).
fn custom_policies(s: &RegretScenario) -> Vec<(String, String)> {
    s.policies
        .iter()
        .filter(|p| matches!(p.policy, PolicyKind::Custom(_)))
        .map(|p| (p.label.clone(), p.describe()))
        .collect()
}

impl Partial {
    /// The partial result of a sharded simulation.
    pub fn of(results: &Results) -> Partial {
        let (scenario, custom, body) = match results {
            Results::Regret(r) => (
                Scenario::Regret(r.scenario.clone()),
                custom_policies(&r.scenario),
                regret_body(&r.stats),
            ),
            Results::Sweep(r) => (
                Scenario::Sweep(r.scenario.clone()),
                r.scenario
                    .cells
                    .first()
                    .map(custom_policies)
                    .unwrap_or_default(),
                PartialBody::Sweep {
                    cells: r.stats.iter().map(regret_body).collect(),
                },
            ),
            Results::Identification(r) => (
                Scenario::Identification(r.scenario.clone()),
                r.scenario
                    .algorithms
                    .iter()
                    .filter(|a| matches!(a, Algorithm::Custom(_)))
                    .map(|a| (a.name().to_string(), String::new()))
                    .collect(),
                PartialBody::Identification {
                    cells: r.cells.iter().map(PartialCell::from_cell).collect(),
                },
            ),
        };
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
            shard,
            total_runs: scenario.runs(),
            runs: shard.runs_of(scenario.runs()),
            version: env!("CARGO_PKG_VERSION").into(),
            body,
            checksum: String::new(),
        };
        partial.checksum = partial.digest();
        partial
    }

    /// The partial with its checksum recomputed over its current content: what a determined
    /// forger does after editing one. The checksum is there to catch damage, not forgery; the
    /// tests and the fuzz target use this to reach the checks behind it.
    pub fn resealed(mut self) -> Partial {
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
        let add = |mut s: RegretScenario| {
            s.policies
                .extend(self.custom.iter().map(|(label, description)| PolicyEntry {
                    label: label.clone(),
                    policy: PolicyKind::Custom(CustomPolicy::placeholder(description.clone())),
                }));
            s
        };
        let scenario = match parsed {
            Scenario::Regret(s) => Scenario::Regret(add(s)),
            Scenario::Sweep(mut s) => {
                s.cells = s.cells.into_iter().map(add).collect();
                Scenario::Sweep(s)
            }
            Scenario::Identification(mut s) => {
                s.algorithms.extend(self.custom.iter().map(|(name, _)| {
                    Algorithm::Custom(CustomIdentifier::placeholder(name.clone()))
                }));
                Scenario::Identification(s)
            }
        };
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
        let mut st = serializer.serialize_struct("Partial", 14)?;
        st.serialize_field("format", &p.format)?;
        st.serialize_field("scenario", &p.scenario)?;
        st.serialize_field("fingerprint", &p.fingerprint)?;
        st.serialize_field("source_path", &p.source_path)?;
        st.serialize_field("source_text", &p.source_text)?;
        st.serialize_field("overrides", &p.overrides)?;
        st.serialize_field("custom", &p.custom)?;
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

/// Builds [`MergeError::Invalid`] for one partial.
struct Blame<'a> {
    path: &'a Path,
    shard: Shard,
}

impl Blame<'_> {
    fn at(&self, field: impl Into<String>, message: impl Into<String>) -> MergeError {
        MergeError::Invalid {
            path: self.path.to_path_buf(),
            shard: self.shard,
            field: field.into(),
            message: message.into(),
        }
    }

    /// `Ok` when `ok`, else the error at `field`.
    fn require(
        &self,
        ok: bool,
        field: impl Into<String>,
        message: impl FnOnce() -> String,
    ) -> Result<(), MergeError> {
        if ok {
            Ok(())
        } else {
            Err(self.at(field, message()))
        }
    }
}

/// Reads `partial.json` from `dir` (or `dir` itself when it is the file) and checks what can be
/// checked alone: format, checksum, shard bounds and run count.
pub fn read(dir: &Path) -> Result<(PathBuf, Partial), MergeError> {
    let path = if dir.is_dir() {
        dir.join(FILE)
    } else {
        dir.to_path_buf()
    };
    let unreadable = |message: String| MergeError::Unreadable {
        path: path.clone(),
        message,
    };
    let bytes = crate::input::read_bounded(&path, crate::input::MAX_RESULT_BYTES)
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
pub fn check_together(parts: &[(PathBuf, Partial)]) -> Result<(), MergeError> {
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

/// The run indices shard `shard` holds, in order.
fn shard_runs(shard: Shard, runs: u64) -> impl Iterator<Item = u64> {
    (0..runs).map(move |i| shard.run(i))
}

/// Checks one (experiment, policy)'s statistics from a shard against the scenario.
fn check_policy_stats(
    blame: &Blame,
    field: &str,
    ps: &PartialStats,
    runs: u64,
    checkpoints: usize,
    k: usize,
    horizon: u64,
) -> Result<(), MergeError> {
    blame.require(ps.runs == runs, format!("{field}.runs"), || {
        format!("says {} runs, the shard holds {runs}", ps.runs)
    })?;
    blame.require(
        ps.curves.len() == checkpoints,
        format!("{field}.curves"),
        || {
            format!(
                "holds {} checkpoints, the scenario {checkpoints} (truncated?)",
                ps.curves.len()
            )
        },
    )?;
    for (c, row) in ps.curves.iter().enumerate() {
        for (m, moments) in row.iter().enumerate() {
            blame.require(
                moments.is_sound() && moments.count() == runs,
                format!("{field}.curves[{c}][{m}]"),
                || {
                    format!(
                        "holds {} values (the shard has {runs} runs) or sums that are not finite",
                        moments.count()
                    )
                },
            )?;
        }
    }
    blame.require(
        ps.channel_probes.len() == k,
        format!("{field}.channel_probes"),
        || {
            format!(
                "{} channel counts for {k} channels",
                ps.channel_probes.len()
            )
        },
    )?;
    let mut slots = 0u64;
    for &(value, count) in &ps.probes {
        blame.require(value <= k as u64, format!("{field}.probes"), || {
            format!("{value} probes in a slot, with {k} channels")
        })?;
        slots = slots.saturating_add(count);
    }
    blame.require(
        slots == runs.saturating_mul(horizon),
        format!("{field}.probes"),
        || {
            format!(
                "counts {slots} slots, the shard's runs hold {}",
                runs.saturating_mul(horizon)
            )
        },
    )?;
    blame.require(
        ps.finals.len() as u64 == runs,
        format!("{field}.finals"),
        || format!("holds {} runs, the shard {runs}", ps.finals.len()),
    )?;
    for (i, ((run, row), expected)) in ps
        .finals
        .iter()
        .zip(shard_runs(blame.shard, runs))
        .enumerate()
    {
        blame.require(*run == expected, format!("{field}.finals[{i}]"), || {
            format!(
                "is run {run}, but shard {} holds run {expected} there (another shard's data?)",
                blame.shard
            )
        })?;
        blame.require(
            row.iter().all(|x| x.is_finite()),
            format!("{field}.finals[{i}]"),
            || "holds a value that is not finite".into(),
        )?;
    }
    // The last checkpoint is the horizon: its moments summarise exactly the per-run rows.
    if let Some(last) = ps.curves.last() {
        for (m, moments) in last.iter().enumerate() {
            let mut from_rows = Moments::default();
            for (_, row) in &ps.finals {
                from_rows.add(row[m]);
            }
            blame.require(
                moments.totals() == from_rows.totals(),
                format!("{field}.curves[{}][{m}]", checkpoints - 1),
                || "disagrees with the per-run rows at the horizon (edited?)".into(),
            )?;
        }
    }
    let probes: f64 = ps
        .finals
        .iter()
        .map(|(_, r)| r[crate::recorder::Metric::Probes as usize])
        .sum();
    let counted: u64 = ps.channel_probes.iter().sum();
    blame.require(
        probes == counted as f64,
        format!("{field}.channel_probes"),
        || format!("add up to {counted} probes, the per-run rows to {probes}"),
    )?;
    Ok(())
}

/// Checks a regret body (one scenario or sweep cell) against the scenario.
fn check_regret_body(
    blame: &Blame,
    field: &str,
    s: &RegretScenario,
    body: &PartialBody,
    runs: u64,
) -> Result<(), MergeError> {
    let PartialBody::Regret { checkpoints, stats } = body else {
        return Err(blame.at(field, "is not a regret scenario's statistics"));
    };
    blame.require(
        *checkpoints == s.checkpoints.slots(s.horizon),
        format!("{field}.checkpoints"),
        || "differ from the scenario's".into(),
    )?;
    blame.require(
        stats.len() == s.experiments.len(),
        format!("{field}.stats"),
        || {
            format!(
                "holds {} experiments, the scenario {}",
                stats.len(),
                s.experiments.len()
            )
        },
    )?;
    for (e, (exp, experiment)) in stats.iter().zip(&s.experiments).enumerate() {
        blame.require(
            exp.len() == s.policies.len(),
            format!("{field}.stats[{e}]"),
            || {
                format!(
                    "holds {} policies, the scenario {}",
                    exp.len(),
                    s.policies.len()
                )
            },
        )?;
        for (p, ps) in exp.iter().enumerate() {
            check_policy_stats(
                blame,
                &format!("{field}.stats[{e}][{p}]"),
                ps,
                runs,
                checkpoints.len(),
                experiment.env.len(),
                s.horizon,
            )?;
        }
    }
    Ok(())
}

/// Checks an identification body against the scenario.
fn check_identification_body(
    blame: &Blame,
    s: &IdentificationScenario,
    body: &PartialBody,
    runs: u64,
) -> Result<(), MergeError> {
    let PartialBody::Identification { cells } = body else {
        return Err(blame.at("body", "is not an identification scenario's statistics"));
    };
    let mut expected = Vec::new();
    for (i, inst) in s.instances.iter().enumerate() {
        for p in 0..inst.points.len() {
            for &setting in &s.settings {
                for (a, algorithm) in s.algorithms.iter().enumerate() {
                    if algorithm.runs_in(setting) {
                        expected.push((i, p, setting, a, algorithm.name().to_string()));
                    }
                }
            }
        }
    }
    blame.require(cells.len() == expected.len(), "body.cells", || {
        format!(
            "holds {} cells, the scenario {}",
            cells.len(),
            expected.len()
        )
    })?;
    for (j, (c, want)) in cells.iter().zip(&expected).enumerate() {
        let field = format!("body.cells[{j}]");
        blame.require(
            (c.instance, c.point, c.setting, c.algorithm, c.name.clone()) == *want,
            &field,
            || {
                format!(
                    "is {} (instance {}, point {}), the scenario has {} there",
                    c.name, c.instance, c.point, want.4
                )
            },
        )?;
        blame.require(
            c.runs == runs && c.outcomes.len() as u64 == runs,
            format!("{field}.runs"),
            || {
                format!(
                    "says {} runs with {} outcomes, the shard holds {runs}",
                    c.runs,
                    c.outcomes.len()
                )
            },
        )?;
        for (i, ((run, outcome), expected)) in c
            .outcomes
            .iter()
            .zip(shard_runs(blame.shard, runs))
            .enumerate()
        {
            blame.require(*run == expected, format!("{field}.outcomes[{i}]"), || {
                format!(
                    "is run {run}, but shard {} holds run {expected} there (another shard's data?)",
                    blame.shard
                )
            })?;
            blame.require(
                outcome.samples <= s.sample_cap,
                format!("{field}.outcomes[{i}].samples"),
                || {
                    format!(
                        "{} samples, above the cap of {}",
                        outcome.samples, s.sample_cap
                    )
                },
            )?;
        }
        let errors = c.outcomes.iter().filter(|(_, o)| !o.correct).count() as u64;
        let capped = c.outcomes.iter().filter(|(_, o)| o.capped).count() as u64;
        blame.require(c.errors == errors, format!("{field}.errors"), || {
            format!("says {}, the outcomes {errors}", c.errors)
        })?;
        blame.require(c.capped == capped, format!("{field}.capped"), || {
            format!("says {}, the outcomes {capped}", c.capped)
        })?;
        let mut from_runs = Moments::default();
        for (_, o) in &c.outcomes {
            from_runs.add(o.samples as f64);
        }
        blame.require(
            c.samples.is_sound() && c.samples.totals() == from_runs.totals(),
            format!("{field}.samples"),
            || "disagrees with the per-run outcomes (edited?)".into(),
        )?;
    }
    Ok(())
}

/// Checks every partial's body against the scenario they were re-checked into.
fn check_bodies(scenario: &Scenario, parts: &[(PathBuf, Partial)]) -> Result<(), MergeError> {
    for (path, p) in parts {
        let blame = Blame {
            path,
            shard: p.shard,
        };
        blame.require(scenario.runs() == p.total_runs, "total_runs", || {
            format!("says {}, the scenario {}", p.total_runs, scenario.runs())
        })?;
        match scenario {
            Scenario::Regret(s) => check_regret_body(&blame, "body", s, &p.body, p.runs)?,
            Scenario::Sweep(s) => {
                let PartialBody::Sweep { cells } = &p.body else {
                    return Err(blame.at("body", "is not a sweep's statistics"));
                };
                blame.require(cells.len() == s.cells.len(), "body.cells", || {
                    format!(
                        "holds {} sweep cells, the scenario {}",
                        cells.len(),
                        s.cells.len()
                    )
                })?;
                for (i, (cell, body)) in s.cells.iter().zip(cells).enumerate() {
                    check_regret_body(&blame, &format!("body.cells[{i}]"), cell, body, p.runs)?;
                }
            }
            Scenario::Identification(s) => check_identification_body(&blame, s, &p.body, p.runs)?,
        }
    }
    Ok(())
}

/// Merges the regret bodies of every shard of one regret scenario (or sweep cell).
fn fold_regret(
    s: &RegretScenario,
    bodies: &[(&Path, &PartialBody)],
) -> Result<RegretStats, MergeError> {
    let bad = |path: &Path, message: String| MergeError::Unreadable {
        path: path.to_path_buf(),
        message,
    };
    let checkpoints = s.checkpoints.slots(s.horizon);
    let mut merged: Option<Vec<Vec<PolicyStats>>> = None;
    for &(path, body) in bodies {
        let PartialBody::Regret {
            checkpoints: cp,
            stats,
        } = body
        else {
            return Err(bad(path, "not a regret partial result".into()));
        };
        if *cp != checkpoints {
            return Err(bad(
                path,
                "its checkpoints differ from the scenario's".into(),
            ));
        }
        let mut these = Vec::new();
        for (e, exp) in stats.iter().enumerate() {
            let k = s
                .experiments
                .get(e)
                .map(|x| x.env.len())
                .ok_or_else(|| bad(path, format!("experiment {e} is not in the scenario")))?;
            let row = exp
                .iter()
                .map(|ps| PolicyStats::from_parts(ps.clone(), k))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|m| bad(path, m))?;
            these.push(row);
        }
        merged = Some(match merged {
            None => these,
            Some(mut acc) => {
                for (a, b) in acc.iter_mut().zip(&these) {
                    for (x, y) in a.iter_mut().zip(b) {
                        x.merge(y);
                    }
                }
                acc
            }
        });
    }
    Ok(RegretStats {
        checkpoints,
        stats: merged.unwrap_or_default(),
    })
}

/// Reads every shard's `partial.json`, checks that they belong together and merges their
/// statistics exactly into the results of the unsharded run.
pub fn merge(inputs: &[PathBuf]) -> Result<Results, MergeError> {
    let mut parts = inputs
        .iter()
        .map(|d| read(d))
        .collect::<Result<Vec<_>, _>>()?;
    check_together(&parts)?;
    parts.sort_by_key(|(_, p)| p.shard.index);
    let (first_path, first) = &parts[0];
    let bad = |path: &Path, message: String| MergeError::Unreadable {
        path: path.to_path_buf(),
        message,
    };
    let overrides = first.overrides;
    let scenario = first.scenario(first_path)?;
    check_bodies(&scenario, &parts)?;
    match scenario {
        Scenario::Regret(s) => {
            let bodies: Vec<(&Path, &PartialBody)> =
                parts.iter().map(|(p, x)| (p.as_path(), &x.body)).collect();
            let stats = fold_regret(&s, &bodies)?;
            Ok(Results::Regret(RegretResults {
                scenario: s,
                stats,
                overrides,
                shard: None,
            }))
        }
        Scenario::Sweep(s) => {
            let mut stats = Vec::new();
            for (i, cell) in s.cells.iter().enumerate() {
                let mut bodies = Vec::new();
                for (path, p) in &parts {
                    let PartialBody::Sweep { cells } = &p.body else {
                        return Err(bad(path, "not a sweep's partial result".into()));
                    };
                    let body = cells.get(i).ok_or_else(|| {
                        bad(
                            path,
                            format!(
                                "holds {} sweep cells, the scenario {}",
                                cells.len(),
                                s.cells.len()
                            ),
                        )
                    })?;
                    bodies.push((path.as_path(), body));
                }
                stats.push(fold_regret(cell, &bodies)?);
            }
            Ok(Results::Sweep(SweepResults {
                scenario: s,
                stats,
                overrides,
                shard: None,
            }))
        }
        Scenario::Identification(s) => {
            let mut merged: Option<Vec<IdentifyCell>> = None;
            for (path, p) in &parts {
                let PartialBody::Identification { cells } = &p.body else {
                    return Err(bad(path, "not an identification partial result".into()));
                };
                let these = cells
                    .iter()
                    .map(|c| c.to_cell())
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|m| bad(path, m))?;
                merged = Some(match merged {
                    None => these,
                    Some(mut acc) => {
                        for (a, b) in acc.iter_mut().zip(&these) {
                            a.stats.merge(&b.stats);
                        }
                        acc
                    }
                });
            }
            Ok(Results::Identification(IdentificationResults {
                scenario: s,
                cells: merged.unwrap_or_default(),
                overrides,
                shard: None,
            }))
        }
    }
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
                shard: Shard { index, count },
                total_runs: 10,
                runs: Shard { index, count }.runs_of(10),
                version: "0".into(),
                body: PartialBody::Identification { cells: Vec::new() },
                checksum: String::new(),
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
