//! Which kinds write `runs.csv` as the runs finish (memory flat in the number of runs), and
//! its header and parts: a regret scenario's, and an unswept many-users scenario's. The
//! others keep their rows in memory until rendered (a sweep's cells each write their own).

use crate::engine::pipeline::PartLabels;
use crate::scenario::{IdentificationScenario, MultiUserScenario, RegretScenario, SweepScenario};

/// The header of `runs.csv` (or why it cannot be written) and the labels of each part.
pub(crate) type RunsParts = (Result<Vec<u8>, String>, Vec<PartLabels>);

/// A scenario kind whose `runs.csv` may be streamed while it runs.
pub(crate) trait StreamedRuns {
    /// The header and parts of its `runs.csv`, when it is streamed; `None` when the rows stay
    /// in memory.
    fn runs_parts(&self) -> Option<RunsParts> {
        None
    }
}

impl StreamedRuns for RegretScenario {
    fn runs_parts(&self) -> Option<RunsParts> {
        Some(super::regret::runs::parts(self))
    }
}

impl StreamedRuns for MultiUserScenario {
    fn runs_parts(&self) -> Option<RunsParts> {
        self.sweep
            .is_none()
            .then(|| super::multi_user::runs_parts(self))
    }
}

impl StreamedRuns for SweepScenario {}

impl StreamedRuns for IdentificationScenario {}
