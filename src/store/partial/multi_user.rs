//! A many-users scenario's (or many-users sweep cell's) partial results: one team's
//! statistics after another, in the scenario's order.

use super::blame::Blame;
use super::kind::PartialKind;
use super::kind::{Sharded, SweepOf, sharded_with_optional_sweep};
use super::{MergeError, PartialBody};
use crate::engine::multi_user::runner::{self as multi_runner, MultiStats, TeamStats};
use crate::scenario::MultiUserScenario;
use crate::scenario::multi_user::TeamKind;
use crate::store::names::{ResultKind, Swept, Writes};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A many-users shard's statistics, in `partial.json`: one policy's after another, in the
/// scenario's order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct MultiUserBody {
    /// Slots of the curves.
    pub(crate) checkpoints: Vec<u64>,
    /// Per policy.
    pub(crate) stats: Vec<TeamStats>,
}

mod check;

/// The many-users kind's partial results.
pub(crate) struct MultiUserPartial;

impl PartialKind for MultiUserPartial {
    type Scenario = MultiUserScenario;
    type Stats = MultiStats;

    fn body(m: &MultiStats) -> PartialBody {
        PartialBody::MultiUser(MultiUserBody {
            checkpoints: m.checkpoints.clone(),
            stats: m.stats.clone(),
        })
    }

    fn check(
        blame: &Blame,
        field: &str,
        s: &MultiUserScenario,
        body: &PartialBody,
        runs: u64,
    ) -> Result<(), MergeError> {
        check::check_multi_body(blame, field, s, body, runs)
    }

    fn fold(
        s: &MultiUserScenario,
        bodies: &[(&Path, &PartialBody)],
    ) -> Result<MultiStats, MergeError> {
        let mut merged: Option<Vec<TeamStats>> = None;
        for &(path, body) in bodies {
            let PartialBody::MultiUser(MultiUserBody { stats, .. }) = body else {
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
}

impl Sharded for MultiUserScenario {
    type Stats = Vec<MultiStats>;
    fn custom(&self) -> Vec<(String, String)> {
        self.policies
            .iter()
            .filter(|p| !matches!(p.kind, TeamKind::Builtin(_)))
            .map(|p| (p.label.clone(), p.to_ron()))
            .collect()
    }
    fn one_channel(&self) -> Vec<String> {
        self.policies
            .iter()
            .filter(|p| p.declares_one_channel())
            .map(|p| p.label.clone())
            .collect()
    }
    sharded_with_optional_sweep!(MultiUserPartial);
}

impl Writes for MultiUserScenario {
    fn writes(&self) -> ResultKind {
        if self.sweep.is_some() {
            ResultKind::Sweep(Swept::MultiUser)
        } else {
            ResultKind::MultiUser
        }
    }
}
