//! Merging checked shards exactly into the results of the unsharded run.

use crate::engine::results::{KindResults, Results};
use crate::scenario::Scenario;
use crate::store::partial::blame::Blame;
use crate::store::partial::check::{MergeError, check_together, read};
use crate::store::partial::kind::Sharded;
use crate::store::partial::{Partial, PartialBody};
use std::path::{Path, PathBuf};

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
    let overrides = first.overrides;
    let scenario = first.scenario(first_path)?;
    check_bodies(&scenario, &parts)?;
    let bodies: Vec<(&Path, &PartialBody)> =
        parts.iter().map(|(p, x)| (p.as_path(), &x.body)).collect();
    Ok(
        crate::scenario::map_kind!(in Scenario => Results, scenario, s => {
            let stats = s.fold(&bodies)?;
            KindResults::new(s, stats, overrides, None)
        }),
    )
}

/// Checks every partial's body against the scenario they were re-checked into.
pub(crate) fn check_bodies(
    scenario: &Scenario,
    parts: &[(PathBuf, Partial)],
) -> Result<(), MergeError> {
    for (path, p) in parts {
        let blame = Blame {
            path,
            shard: p.shard,
        };
        blame.require(scenario.runs() == p.total_runs, "total_runs", || {
            format!("says {}, the scenario {}", p.total_runs, scenario.runs())
        })?;
        let (field, body, runs) = ("body", &p.body, p.runs);
        crate::scenario::each_kind!(scenario, s => s.check(&blame, field, body, runs))?;
    }
    Ok(())
}
