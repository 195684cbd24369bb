//! An identification scenario's partial results: one cell per (instance, point, setting,
//! algorithm), with every run's outcome.

use super::blame::Blame;
use super::kind::PartialKind;
use super::kind::{Sharded, SweepOf, sharded_with_optional_sweep};
use super::{MergeError, PartialBody};
use crate::engine::identification::runner::IdentifyCell;
use crate::identify::Algorithm;
use crate::identify::confidence::{Params, Setting};
use crate::identify::{IdentifyOutcome, IdentifyStats};
use crate::scenario::IdentificationScenario;
use crate::store::names::{ResultKind, Swept, Writes};
use crate::util::stats::Moments;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// An identification shard's statistics, in `partial.json`: one entry per cell, in the
/// scenario's order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct IdentificationBody {
    /// The cells.
    pub(crate) cells: Vec<PartialCell>,
}

/// One identification cell's statistics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct PartialCell {
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
    pub(crate) fn from_cell(c: &IdentifyCell) -> PartialCell {
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
    pub(crate) fn to_cell(&self) -> Result<IdentifyCell, String> {
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

/// The identification kind's partial results.
pub(crate) struct IdentificationPartial;

impl PartialKind for IdentificationPartial {
    type Scenario = IdentificationScenario;
    type Stats = Vec<IdentifyCell>;

    fn body(cells: &Vec<IdentifyCell>) -> PartialBody {
        PartialBody::Identification(IdentificationBody {
            cells: cells.iter().map(PartialCell::from_cell).collect(),
        })
    }

    fn check(
        blame: &Blame,
        field: &str,
        s: &IdentificationScenario,
        body: &PartialBody,
        runs: u64,
    ) -> Result<(), MergeError> {
        let PartialBody::Identification(IdentificationBody { cells }) = body else {
            return Err(blame.at(field, "is not an identification scenario's statistics"));
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
        blame.require(
            cells.len() == expected.len(),
            format!("{field}.cells"),
            || {
                format!(
                    "holds {} cells, the scenario {}",
                    cells.len(),
                    expected.len()
                )
            },
        )?;
        for (j, (c, want)) in cells.iter().zip(&expected).enumerate() {
            let field = format!("{field}.cells[{j}]");
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
            for (i, (run, outcome)) in c.outcomes.iter().enumerate() {
                blame.holds_run(&format!("{field}.outcomes[{i}]"), i, *run)?;
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

    fn fold(
        _s: &IdentificationScenario,
        bodies: &[(&Path, &PartialBody)],
    ) -> Result<Vec<IdentifyCell>, MergeError> {
        let bad = |path: &Path, message: String| MergeError::Unreadable {
            path: path.to_path_buf(),
            message,
        };
        let mut merged: Option<Vec<IdentifyCell>> = None;
        for &(path, body) in bodies {
            let PartialBody::Identification(IdentificationBody { cells }) = body else {
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
        Ok(merged.unwrap_or_default())
    }
}

impl Sharded for IdentificationScenario {
    type Stats = Vec<Vec<IdentifyCell>>;
    fn custom(&self) -> Vec<(String, String)> {
        self.algorithms
            .iter()
            .filter(|a| matches!(a, Algorithm::Custom(_)))
            .map(|a| (a.name().to_string(), String::new()))
            .collect()
    }
    sharded_with_optional_sweep!(IdentificationPartial);
}

impl Writes for IdentificationScenario {
    fn writes(&self) -> ResultKind {
        if self.sweep.is_some() {
            ResultKind::Sweep(Swept::Identification)
        } else {
            ResultKind::Identification
        }
    }
}
