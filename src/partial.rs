//! Partial results of a sharded run, and merging them.
//!
//! `specprobe run --shard I/N` simulates only the runs `r` with `r % N == I` and writes
//! `partial.json`: the exact statistics of those runs (sums kept as exact expansions, counts,
//! histograms), the scenario's source text and overrides, and a fingerprint of the checked
//! scenario. `specprobe merge` checks that the partials belong together (same fingerprint, same
//! shard count, every shard exactly once), merges the statistics exactly and writes the same
//! `summary.json` and `curves.csv` as the unsharded run, byte for byte: all results are written
//! by the same code from statistics whose merge does not depend on grouping.

use crate::identify::confidence::{Params, Setting};
use crate::identify::{Algorithm, CustomIdentifier, IdentifyOutcome, IdentifyStats};
use crate::policy::CustomPolicy;
use crate::recorder::{PartialStats, PolicyStats};
use crate::runner::{IdentifyCell, RegretStats, Shard};
use crate::scenario::{self, Overrides, PolicyEntry, PolicyKind, RegretScenario, Scenario};
use crate::simulation::{IdentificationResults, RegretResults, Results, SweepResults};
use crate::stats::Moments;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Format tag of `partial.json`.
pub const FORMAT: &str = "specprobe-partial/1";

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
    /// The statistics.
    pub body: PartialBody,
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
        Partial {
            format: FORMAT.into(),
            scenario: scenario.name().to_string(),
            fingerprint: scenario.fingerprint(),
            source_path: source.path.clone(),
            source_text: source.text.to_string(),
            overrides: results.overrides(),
            custom,
            shard: results.shard().unwrap_or_default(),
            body,
        }
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
}

/// Reads `partial.json` from `dir` (or `dir` itself when it is the file).
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
    let bytes = std::fs::read(&path).map_err(|e| unreadable(format!("cannot read: {e}")))?;
    let p: Partial = serde_json::from_slice(&bytes)
        .map_err(|e| unreadable(format!("not a specprobe partial result: {e}")))?;
    if p.format != FORMAT {
        return Err(unreadable(format!(
            "format {:?}, expected {FORMAT:?} (written by another specprobe version?)",
            p.format
        )));
    }
    Ok((path, p))
}

/// Checks that the partials belong together and cover every shard exactly once.
pub fn check_together(parts: &[(PathBuf, Partial)]) -> Result<(), MergeError> {
    let (first_path, first) = parts.first().ok_or(MergeError::Empty)?;
    let count = first.shard.count;
    let mut seen = vec![None::<&Path>; count as usize];
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
        if p.shard.count != count {
            return Err(mismatch(format!(
                "shard {} vs shard count {count}",
                p.shard
            )));
        }
        let slot = &mut seen[p.shard.index as usize];
        if let Some(other) = slot {
            return Err(MergeError::Coverage(format!(
                "shard {} appears twice: {} and {}",
                p.shard,
                other.display(),
                path.display()
            )));
        }
        *slot = Some(path);
    }
    let missing: Vec<String> = seen
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_none())
        .map(|(i, _)| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(MergeError::Coverage(format!(
            "missing shard{} {} of {} (merge needs every shard exactly once)",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", "),
            first.scenario
        )));
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
    match first.scenario(first_path)? {
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
                body: PartialBody::Identification { cells: Vec::new() },
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
