//! One experiment kind's report: every file of its finished results, and the saved results
//! `plot` reads back for it. Each kind implements [`ReportKind`] in its own folder
//! (`report/<kind>.rs`, and `report/sweep.rs` for the regret sweep); `report::render_results`
//! and `report::load_any` are the dispatch, which names no kind.

use crate::report::plots::ChartOptions;
use crate::report::saved::SavedResults;
use crate::report::{Artifact, ReportError};
use crate::store::names::ResultKind;
use std::path::Path;

/// A saved result set read back and checked, as `plot` redraws it.
pub(crate) type Loaded = Result<Box<dyn SavedResults>, ReportError>;

/// One experiment kind's report (implemented on its checked scenario).
pub(crate) trait ReportKind {
    /// The engine's statistics of the scenario's runs.
    type Stats;
    /// Every file of the finished (unsharded) results.
    fn render(
        &self,
        stats: &Self::Stats,
        charts: &ChartOptions,
    ) -> Result<Vec<Artifact>, ReportError>;
    /// The saved results in `dir`, when `found` (the kind its `summary.json` declares) is one
    /// this kind writes; `None` leaves it to the others. A folder no kind claims (a regret
    /// one, a comparison, an unknown kind) is read as slot-stepped regret results.
    fn load(found: ResultKind, dir: &Path) -> Option<Loaded> {
        let _ = (found, dir);
        None
    }
}
