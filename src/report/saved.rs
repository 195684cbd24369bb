//! Saved results read back, of any kind: what `plot` redraws. Each kind's saved results
//! ([`SavedResults`], implemented beside the kind's report) are checked when loaded, name
//! their scenario and the kind they are rewritten as, and render their charts and report;
//! `report::load_any` is the one place that picks a kind's loader from the kind a folder
//! declares, so `plot` itself names no kind.

use crate::report::plots::ChartOptions;
use crate::report::{Artifact, ReportError};
use crate::store::names::ResultKind;

/// One kind's saved results, loaded and checked.
pub(crate) trait SavedResults {
    /// The scenario's name.
    fn scenario(&self) -> &str;
    /// The kind the folder is rewritten as.
    fn kind(&self) -> ResultKind;
    /// Every chart and `report.md` (a kind whose cells are folders renders theirs too).
    fn render(&self, charts: &ChartOptions) -> Result<Vec<Artifact>, ReportError>;
    /// Subfolders holding data files of their own (a many-users or identification sweep's cells).
    fn subfolders(&self) -> Vec<&str> {
        Vec::new()
    }
}
