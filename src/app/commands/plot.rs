//! `specprobe plot`: re-render the charts and report of saved results.

use super::{CommandError, RunOutcome};
use crate::app::export::{finish, stage};
use crate::report::plots::ChartOptions;
use crate::report::{self, Artifact};
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

/// Saved results of any kind, read back for `plot`.
enum Saved {
    Regret(
        report::regret::summary::RegretSummary,
        Vec<report::regret::curves::CurveRow>,
    ),
    Identification(report::identification::summary::IdentificationSummary),
    Sweep(report::sweep::summary::SweepSummary),
    MultiUser(
        Box<report::multi_user::MultiUserSummary>,
        report::multi_user::CurveTable,
    ),
    MultiUserSweep(report::multi_user::SavedSweep),
}

impl Saved {
    /// Reads and checks a folder's results before anything is touched.
    fn load(dir: &Path, kind: Option<ResultKind>) -> Result<Saved, CommandError> {
        Ok(match kind {
            Some(ResultKind::Identification) => {
                Saved::Identification(report::load_identification(dir)?)
            }
            Some(ResultKind::Sweep) => Saved::Sweep(report::load_sweep(dir)?),
            Some(ResultKind::MultiUser) => {
                let (summary, table) = report::multi_user::load_multi_user(dir)?;
                Saved::MultiUser(Box::new(summary), table)
            }
            Some(ResultKind::MultiUserSweep) => {
                Saved::MultiUserSweep(report::multi_user::load_multi_user_sweep(dir)?)
            }
            _ => {
                let (summary, rows) = report::load_saved(dir)?;
                Saved::Regret(summary, rows)
            }
        })
    }

    fn scenario(&self) -> &str {
        match self {
            Saved::Identification(s) => &s.scenario,
            Saved::Sweep(s) => &s.scenario,
            Saved::Regret(s, _) => &s.scenario,
            Saved::MultiUser(s, _) => &s.scenario,
            Saved::MultiUserSweep(s) => s.scenario(),
        }
    }

    /// The charts and report.
    fn render(&self, charts: &ChartOptions) -> Result<Vec<Artifact>, report::ReportError> {
        match self {
            Saved::Identification(s) => report::identification::render_report(s, charts),
            Saved::Sweep(s) => report::sweep::render_report(s, charts),
            Saved::Regret(s, rows) => report::render_report(s, rows, charts),
            Saved::MultiUser(s, table) => report::multi_user::render_report(s, table, charts),
            Saved::MultiUserSweep(s) => s.render(charts),
        }
    }
}

/// `specprobe plot`: re-renders the charts and `report.md` of saved results, without simulating.
/// The folder is replaced whole: its data files and the new charts and report.
pub fn plot(
    dir: &Path,
    charts: &ChartOptions,
    cancel: &Cancel,
) -> Result<RunOutcome, CommandError> {
    let found = ResultKind::parse(&report::saved_kind(dir)?);
    let saved = Saved::load(dir, found)?;
    // What loaded is what is rewritten: anything but an identification or sweep summary was
    // read (and checked) as regret results.
    let kind = match saved {
        Saved::Identification(_) => ResultKind::Identification,
        Saved::Sweep(_) => ResultKind::Sweep,
        // A comparison is redrawn as the regret results it holds, and stays a comparison.
        Saved::Regret(..) => match found {
            Some(ResultKind::Comparison) => ResultKind::Comparison,
            _ => ResultKind::Regret,
        },
        Saved::MultiUser(..) => ResultKind::MultiUser,
        Saved::MultiUserSweep(_) => ResultKind::MultiUserSweep,
    };
    let dest = Destination::open(dir, saved.scenario(), kind, Replace::SameScenario).map_err(
        |source| CommandError::Rewrite {
            path: dir.to_path_buf(),
            source,
        },
    )?;
    let is_data = |name: &str| kept(name, charts);
    dest.staging().copy_data_from(dir, is_data)?;
    // A many-users sweep's cells are folders of their own: their data files go along too.
    if let Saved::MultiUserSweep(s) = &saved {
        for (folder, _, _) in &s.cells {
            dest.staging()
                .subfolder(folder)?
                .copy_data_from(&dir.join(folder), is_data)?;
        }
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
