//! Merging checked shards exactly into the results of the unsharded run.

use crate::engine::identification::runner::IdentifyCell;
use crate::engine::multi_user::runner::{self as multi_runner, MultiStats, TeamStats};
use crate::engine::recorder::PolicyStats;
use crate::engine::regret::runner::RegretStats;
use crate::engine::results::{
    IdentificationResults, MultiUserResults, RegretResults, Results, SweepResults,
};
use crate::scenario::{MultiUserScenario, RegretScenario, Scenario, Sweep};
use crate::store::partial::*;
use std::path::{Path, PathBuf};

use crate::store::partial::check::{MergeError, check_bodies, check_together, read};

/// Merges the regret bodies of every shard of one regret scenario (or sweep cell).
fn fold_regret(
    s: &RegretScenario,
    bodies: &[(&Path, &PartialBody)],
) -> Result<RegretStats, MergeError> {
    let bad = |path: &Path, message: String| MergeError::Unreadable {
        path: path.to_path_buf(),
        message,
    };
    let checkpoints = s.header.checkpoints.slots(s.header.horizon);
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
    let mut stats = RegretStats {
        checkpoints,
        stats: merged.unwrap_or_default(),
        streamed: false,
    };
    stats.pair_finals(s.reference_index());
    Ok(stats)
}

/// Every shard's body of sweep cell `i` (of `cells`).
/// Every cell of a sweep (of any kind) folded by `fold` from its bodies in every part.
fn fold_cells<S, T>(
    sweep: &Sweep<S>,
    parts: &[(PathBuf, Partial)],
    fold: impl Fn(&S, &[(&Path, &PartialBody)]) -> Result<T, MergeError>,
) -> Result<Vec<T>, MergeError> {
    let n = sweep.cells().len();
    (0..n)
        .map(|i| fold(&sweep.cells()[i], &cell_bodies(parts, i, n)?))
        .collect()
}

fn cell_bodies(
    parts: &[(PathBuf, Partial)],
    i: usize,
    cells: usize,
) -> Result<Vec<(&Path, &PartialBody)>, MergeError> {
    parts
        .iter()
        .map(|(path, p)| {
            let bad = |message: String| MergeError::Unreadable {
                path: path.clone(),
                message,
            };
            let PartialBody::Sweep { cells: bodies } = &p.body else {
                return Err(bad("not a sweep's partial result".into()));
            };
            let body = bodies.get(i).ok_or_else(|| {
                bad(format!(
                    "holds {} sweep cells, the scenario {cells}",
                    bodies.len()
                ))
            })?;
            Ok((path.as_path(), body))
        })
        .collect()
}

/// Merges the many-users bodies of every shard of one scenario (or sweep cell).
fn fold_multi(
    s: &MultiUserScenario,
    bodies: &[(&Path, &PartialBody)],
) -> Result<MultiStats, MergeError> {
    let mut merged: Option<Vec<TeamStats>> = None;
    for &(path, body) in bodies {
        let PartialBody::MultiUser { stats, .. } = body else {
            return Err(MergeError::Unreadable {
                path: path.to_path_buf(),
                message: "not a many-users partial result".into(),
            });
        };
        merged = Some(match merged {
            None => stats.clone(),
            Some(mut acc) => {
                for (a, b) in acc.iter_mut().zip(stats) {
                    a.merge(b);
                }
                acc
            }
        });
    }
    let mut stats = merged.unwrap_or_default();
    // The shards interleave the runs (`r % N == I`): the unsharded run's order.
    for st in &mut stats {
        st.finals.sort_by_key(|(run, _)| *run);
    }
    let expected = multi_runner::expected_kind(s);
    Ok(MultiStats {
        checkpoints: s.header.checkpoints.slots(s.header.horizon),
        stats,
        benchmarks: multi_runner::benchmarks(s, expected),
        expected,
        streamed: false,
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
            let stats = fold_cells(&s.sweep, &parts, fold_regret)?;
            Ok(Results::Sweep(SweepResults {
                scenario: s,
                stats,
                overrides,
                shard: None,
            }))
        }
        Scenario::MultiUser(s) => {
            let stats = match &s.sweep {
                None => {
                    let bodies: Vec<(&Path, &PartialBody)> =
                        parts.iter().map(|(p, x)| (p.as_path(), &x.body)).collect();
                    vec![fold_multi(&s, &bodies)?]
                }
                Some(sw) => fold_cells(sw, &parts, fold_multi)?,
            };
            Ok(Results::MultiUser(MultiUserResults {
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
