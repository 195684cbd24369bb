//! Naming a shard's failures: the file, the shard and the field ([`Blame`]), and the runs a
//! shard holds, which its bodies' per-run rows must list in order.

use super::MergeError;
use crate::engine::shard::Shard;
use std::path::Path;

/// Builds [`MergeError::Invalid`] for one partial.
pub(crate) struct Blame<'a> {
    pub(crate) path: &'a Path,
    pub(crate) shard: Shard,
}

impl Blame<'_> {
    pub(crate) fn at(&self, field: impl Into<String>, message: impl Into<String>) -> MergeError {
        MergeError::Invalid {
            path: self.path.to_path_buf(),
            shard: self.shard,
            field: field.into(),
            message: message.into(),
        }
    }

    /// `Ok` when `ok`, else the error at `field`.
    pub(crate) fn require(
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

/// The run indices shard `shard` holds, in order.
pub(crate) fn shard_runs(shard: Shard, runs: u64) -> impl Iterator<Item = u64> {
    (0..runs).map(move |i| shard.run(i))
}
