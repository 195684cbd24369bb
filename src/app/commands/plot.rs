//! `specprobe plot`: re-render the charts and report of saved results.

use super::{CommandError, RunOutcome};
use crate::app::export::{finish, stage};
use crate::report;
use crate::report::plots::ChartOptions;
use crate::store::folder::{Destination, Replace};
use crate::store::names::{self, ResultKind};
use crate::util::cancel::Cancel;
use std::path::Path;

/// Whether `plot` keeps a file of a results folder: everything but the report and the charts
/// of the formats it draws (`--format png` keeps the SVGs it does not redraw).
fn kept(name: &str, charts: &ChartOptions) -> bool {
    let redrawn = charts
        .formats
        .iter()
        .any(|f| name.ends_with(&format!(".{}", f.ext())));
    !(redrawn || name == names::REPORT || name == names::MARKER)
}

/// `specprobe plot`: re-renders the charts and `report.md` of saved results, without simulating.
/// The folder is replaced whole: its data files and the new charts and report.
pub fn plot(
    dir: &Path,
    charts: &ChartOptions,
    cancel: &Cancel,
) -> Result<RunOutcome, CommandError> {
    let found = ResultKind::parse(&report::saved_kind(dir)?);
    // What loaded is what is rewritten (see `report::load_any`).
    let saved = report::load_any(dir, found)?;
    let dest = Destination::open(dir, saved.scenario(), saved.kind(), Replace::SameScenario)
        .map_err(|source| CommandError::Rewrite {
            path: dir.to_path_buf(),
            source,
        })?;
    let is_data = |name: &str| kept(name, charts);
    dest.staging().copy_data_from(dir, is_data)?;
    // Cells that are folders of their own (a many-users or identification sweep's): their data
    // files go along.
    for folder in saved.subfolders() {
        dest.staging()
            .subfolder(folder)?
            .copy_data_from(&dir.join(folder), is_data)?;
    }
    let files = saved
        .render(charts)
        .map_err(crate::app::export::ExportError::from)
        .and_then(|files| Ok(stage(&files, &dest)?))
        .map_err(|source| CommandError::Write {
            doing: "rendering into",
            path: dir.to_path_buf(),
            source,
        })?;
    Ok(finish(files, dest, cancel)?)
}
