//! Merging checked shards exactly into the results of the unsharded run.

use crate::engine::results::{
    IdentificationResults, MultiUserResults, RegretResults, Results, SweepResults,
};
use crate::scenario::Scenario;
use crate::store::partial::blame::Blame;
use crate::store::partial::check::{MergeError, check_together, read};
use crate::store::partial::*;
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
    Ok(match scenario {
        Scenario::Regret(s) => Results::Regret(RegretResults {
            stats: RegretPartial::fold(&s, &bodies)?,
            scenario: s,
            overrides,
            shard: None,
        }),
        Scenario::Sweep(s) => Results::Sweep(SweepResults {
            stats: SweepOf::<RegretPartial>::fold(&s.sweep, &bodies)?,
            scenario: s,
            overrides,
            shard: None,
        }),
        Scenario::MultiUser(s) => Results::MultiUser(MultiUserResults {
            stats: match &s.sweep {
                None => vec![MultiUserPartial::fold(&s, &bodies)?],
                Some(sw) => SweepOf::<MultiUserPartial>::fold(sw, &bodies)?,
            },
            scenario: s,
            overrides,
            shard: None,
        }),
        Scenario::Identification(s) => Results::Identification(IdentificationResults {
            stats: match &s.sweep {
                None => vec![IdentificationPartial::fold(&s, &bodies)?],
                Some(sw) => SweepOf::<IdentificationPartial>::fold(sw, &bodies)?,
            },
            scenario: s,
            overrides,
            shard: None,
        }),
    })
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
        match scenario {
            Scenario::Regret(s) => RegretPartial::check(&blame, field, s, body, runs)?,
            Scenario::Sweep(s) => {
                SweepOf::<RegretPartial>::check(&blame, field, &s.sweep, body, runs)?
            }
            Scenario::Identification(s) => match &s.sweep {
                None => IdentificationPartial::check(&blame, field, s, body, runs)?,
                Some(sw) => SweepOf::<IdentificationPartial>::check(&blame, field, sw, body, runs)?,
            },
            Scenario::MultiUser(s) => match &s.sweep {
                None => MultiUserPartial::check(&blame, field, s, body, runs)?,
                Some(sw) => SweepOf::<MultiUserPartial>::check(&blame, field, sw, body, runs)?,
            },
        }
    }
    Ok(())
}
