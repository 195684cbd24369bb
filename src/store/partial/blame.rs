//! Naming a shard's failures: the file, the shard and the field ([`Blame`]), and the runs a
//! shard holds, which its bodies' per-run rows must list in order ([`Blame::holds_run`]).

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

    /// `Ok` when `run` is the run the shard holds at position `i` of its per-run rows, else
    /// the error at `at` (a relabelled row, or another shard's).
    pub(crate) fn holds_run(&self, at: &str, i: usize, run: u64) -> Result<(), MergeError> {
        let expected = self.shard.run(i as u64);
        self.require(run == expected, at, || {
            format!(
                "is run {run}, but shard {} holds run {expected} there (another shard's data?)",
                self.shard
            )
        })
    }
}
