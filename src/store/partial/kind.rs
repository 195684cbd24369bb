//! A kind's statistics as a shard's `partial.json` holds them: the body it writes, the checks
//! of a body against the re-checked scenario, and the exact fold of every shard's bodies into
//! the unsharded run's statistics. Each kind implements [`PartialKind`] in its own file
//! (`regret.rs`, `identification.rs`, `multi_user.rs`); a sweep of any kind is [`SweepOf`] that
//! kind, one body per cell, so sweeps are checked and merged by one piece of code.

use super::blame::Blame;
use super::{MergeError, PartialBody};
use crate::scenario::Sweep;
use serde::{Deserialize, Serialize};
use std::marker::PhantomData;
use std::path::Path;

/// A sweep shard's statistics, in `partial.json`: one body per value, in the sweep's order
/// (every kind's sweep has this form).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct SweepBody {
    /// The cells' bodies.
    pub(crate) cells: Vec<PartialBody>,
}

/// One experiment kind's partial results.
pub(crate) trait PartialKind {
    /// The checked scenario (or sweep cell) the runs simulated.
    type Scenario;
    /// The engine's statistics of those runs.
    type Stats;
    /// The body a shard writes for `stats`.
    fn body(stats: &Self::Stats) -> PartialBody;
    /// Checks one shard's body (at `field`, holding `runs` runs) against the scenario.
    fn check(
        blame: &Blame,
        field: &str,
        s: &Self::Scenario,
        body: &PartialBody,
        runs: u64,
    ) -> Result<(), MergeError>;
    /// Folds every shard's (checked) body exactly into the unsharded run's statistics.
    fn fold(
        s: &Self::Scenario,
        bodies: &[(&Path, &PartialBody)],
    ) -> Result<Self::Stats, MergeError>;
}

/// A scenario kind as its shards hold it: what a shard's `partial.json` lists besides the
/// statistics, and the statistics as one [`PartialKind`] (the kind's own, or a sweep of it).
/// Each kind's is in its own file, beside its [`PartialKind`].
pub(crate) trait Sharded {
    /// The engine's statistics of the scenario's runs.
    type Stats;
    /// The policies (or algorithms, or teams) a library user added, as (label, description).
    fn custom(&self) -> Vec<(String, String)>;
    /// The labels of the policies that declare they probe one channel a slot.
    fn one_channel(&self) -> Vec<String> {
        Vec::new()
    }
    /// The body a shard writes for `stats`.
    fn body(&self, stats: &Self::Stats) -> PartialBody;
    /// Checks one shard's body (at `field`, holding `runs` runs) against the scenario.
    fn check(
        &self,
        blame: &Blame,
        field: &str,
        body: &PartialBody,
        runs: u64,
    ) -> Result<(), MergeError>;
    /// Folds every shard's (checked) body exactly into the unsharded run's statistics.
    fn fold(&self, bodies: &[(&Path, &PartialBody)]) -> Result<Self::Stats, MergeError>;
}

/// [`Sharded`]'s statistics as one [`PartialKind`] `$k`, over the part of the scenario that
/// `|$s| $part` picks (the scenario itself, or its sweep).
macro_rules! sharded_by {
    ($k:ty, |$s:ident| $part:expr) => {
        fn body(&self, stats: &<$k as PartialKind>::Stats) -> PartialBody {
            <$k>::body(stats)
        }
        fn check(
            &self,
            blame: &Blame,
            field: &str,
            body: &PartialBody,
            runs: u64,
        ) -> Result<(), MergeError> {
            let $s = self;
            <$k>::check(blame, field, $part, body, runs)
        }
        fn fold(
            &self,
            bodies: &[(&Path, &PartialBody)],
        ) -> Result<<$k as PartialKind>::Stats, MergeError> {
            let $s = self;
            <$k>::fold($part, bodies)
        }
    };
}
pub(crate) use sharded_by;

/// [`Sharded`] for a kind whose scenario holds an optional sweep of itself: its own
/// [`PartialKind`] `K` in a one-element list, or [`SweepOf`] `K`.
macro_rules! sharded_with_optional_sweep {
    ($k:ty) => {
        fn body(&self, stats: &Vec<<$k as PartialKind>::Stats>) -> PartialBody {
            match &self.sweep {
                None => <$k>::body(&stats[0]),
                Some(_) => SweepOf::<$k>::body(stats),
            }
        }
        fn check(
            &self,
            blame: &Blame,
            field: &str,
            body: &PartialBody,
            runs: u64,
        ) -> Result<(), MergeError> {
            match &self.sweep {
                None => <$k>::check(blame, field, self, body, runs),
                Some(sw) => SweepOf::<$k>::check(blame, field, sw, body, runs),
            }
        }
        fn fold(
            &self,
            bodies: &[(&Path, &PartialBody)],
        ) -> Result<Vec<<$k as PartialKind>::Stats>, MergeError> {
            match &self.sweep {
                None => Ok(vec![<$k>::fold(self, bodies)?]),
                Some(sw) => SweepOf::<$k>::fold(sw, bodies),
            }
        }
    };
}
pub(crate) use sharded_with_optional_sweep;

/// A sweep of kind `K`: one `K` body per cell, in the sweep's order.
pub(crate) struct SweepOf<K>(PhantomData<K>);

impl<K: PartialKind> PartialKind for SweepOf<K> {
    type Scenario = Sweep<K::Scenario>;
    type Stats = Vec<K::Stats>;

    fn body(stats: &Vec<K::Stats>) -> PartialBody {
        PartialBody::Sweep(SweepBody {
            cells: stats.iter().map(K::body).collect(),
        })
    }

    fn check(
        blame: &Blame,
        field: &str,
        s: &Sweep<K::Scenario>,
        body: &PartialBody,
        runs: u64,
    ) -> Result<(), MergeError> {
        let PartialBody::Sweep(SweepBody { cells }) = body else {
            return Err(blame.at(field, "is not a sweep's statistics"));
        };
        let n = s.cells().len();
        blame.require(cells.len() == n, format!("{field}.cells"), || {
            format!("holds {} sweep cells, the scenario {n}", cells.len())
        })?;
        for (i, (cell, body)) in s.cells().iter().zip(cells).enumerate() {
            K::check(blame, &format!("{field}.cells[{i}]"), cell, body, runs)?;
        }
        Ok(())
    }

    fn fold(
        s: &Sweep<K::Scenario>,
        bodies: &[(&Path, &PartialBody)],
    ) -> Result<Vec<K::Stats>, MergeError> {
        let n = s.cells().len();
        (0..n)
            .map(|i| {
                let cell = bodies
                    .iter()
                    .map(|&(path, body)| {
                        let bad = |message: String| MergeError::Unreadable {
                            path: path.to_path_buf(),
                            message,
                        };
                        let PartialBody::Sweep(SweepBody { cells }) = body else {
                            return Err(bad("not a sweep's partial result".into()));
                        };
                        let body = cells.get(i).ok_or_else(|| {
                            bad(format!(
                                "holds {} sweep cells, the scenario {n}",
                                cells.len()
                            ))
                        })?;
                        Ok((path, body))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                K::fold(&s.cells()[i], &cell)
            })
            .collect()
    }
}
