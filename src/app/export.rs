//! The one writer of result sets: the report renders every file into memory
//! ([`crate::report::Artifact`]), and this module stages them in the destination's private
//! folder and swaps the set in whole ([`crate::store::folder::Destination`]). `run`, `merge`,
//! `plot`, `compare`, sweeps, the library's [`Results::write`] and the Python package all write
//! through [`commit_files`].

use crate::app::runs_file::RunsFile;
use crate::app::simulation::{Prepared, SimulationError};
use crate::engine::pipeline::RunOptions;
use crate::engine::results::Results;
use crate::report::plots::ChartOptions;
use crate::report::streamed::StreamedRuns;
use crate::report::{Artifact, ReportError};
use crate::store::folder::{Destination, OutputDir, OutputError, Previous, Replace};
use crate::store::names::{self, ResultKind};
use crate::store::partial::Partial;
use crate::util::cancel::Cancel;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why results could not be produced or written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The simulation itself failed (before anything was written).
    #[error(transparent)]
    Simulation(#[from] SimulationError),
    /// The output folder.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// A result file could not be rendered.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// `partial.json`.
    #[error("cannot serialise partial.json: {0}")]
    Partial(serde_json::Error),
}

/// What a command wrote.
#[derive(Clone, Debug)]
pub struct Written {
    /// The output folder.
    pub out: PathBuf,
    /// Files written, as they are named in the output folder.
    pub files: Vec<PathBuf>,
    /// What the output folder held before.
    pub previous: Previous,
}

impl Written {
    /// The report at the top of the output folder, if one was written (a sweep's, not one of
    /// its cells'; none for a shard).
    pub fn report(&self) -> Option<&PathBuf> {
        let top = self.out.join(crate::store::names::REPORT);
        self.files
            .iter()
            .find(|f| **f == top || f.as_os_str() == crate::store::names::REPORT)
    }

    /// What to tell the user about the folder's earlier content, if anything.
    pub fn note(&self) -> Option<String> {
        match &self.previous {
            Previous::Nothing => None,
            Previous::SameScenario => Some(format!(
                "replaced the earlier results of this scenario in {}",
                self.out.display()
            )),
            Previous::Forced(what) => Some(format!(
                "--force: replaced {what} in {}",
                self.out.display()
            )),
        }
    }
}

impl Results {
    /// What the results folder will hold: regret, identification or sweep results, or one
    /// shard's partial results.
    pub fn kind(&self) -> ResultKind {
        ResultKind::of_results(self)
    }

    /// Every file of the result set, rendered in memory: summary, curves, runs, charts and
    /// report, or a shard's `partial.json`.
    pub fn files(&self, charts: &ChartOptions) -> Result<Vec<Artifact>, ExportError> {
        if self.shard().is_some() {
            let json = serde_json::to_vec(&Partial::of(self)).map_err(ExportError::Partial)?;
            return Ok(vec![Artifact::new(names::PARTIAL, json)]);
        }
        Ok(crate::report::render_results(self, charts)?)
    }

    /// Writes the usual outputs into `dir` (created if needed): summary, curves, runs, charts
    /// and report, or a shard's `partial.json`. Returns the files written.
    ///
    /// The set is written whole or not at all: into a staging folder beside `dir`, then
    /// swapped in (see the guide's guarantees page). `dir` may hold nothing, or earlier results of
    /// this scenario; anything else is refused ([`Results::write_replacing`] with
    /// [`Replace::Any`] replaces it).
    pub fn write(
        &self,
        dir: impl AsRef<Path>,
        charts: &ChartOptions,
    ) -> Result<Vec<PathBuf>, ExportError> {
        self.write_replacing(dir, charts, Replace::SameScenario)
    }

    /// [`Results::write`], saying what `dir` may hold and be replaced.
    pub fn write_replacing(
        &self,
        dir: impl AsRef<Path>,
        charts: &ChartOptions,
        replace: Replace,
    ) -> Result<Vec<PathBuf>, ExportError> {
        let dest = Destination::open(dir.as_ref(), self.name(), self.kind(), replace)?;
        Ok(commit(self, dest, charts, &Cancel::new())?.files)
    }
}

impl Prepared {
    /// Runs, then writes every output into the destination opened with [`Prepared::open`] and
    /// swaps it in whole.
    pub fn run_into(
        &self,
        dest: Destination,
        charts: &ChartOptions,
    ) -> Result<Written, ExportError> {
        let results = self.run_for(&dest)?;
        commit(&results, dest, charts, self.cancel())
    }
}

impl Prepared {
    /// Runs for `dest`: a kind that streams its `runs.csv` (see [`StreamedRuns`]) writes it
    /// into the staging folder as the runs finish (memory flat in the number of runs), the rest
    /// stays in memory until rendered.
    pub(crate) fn run_for(&self, dest: &Destination) -> Result<Results, ExportError> {
        let parts = crate::scenario::each_kind!(self.scenario(), s => s.runs_parts());
        Ok(match (parts, self.shard()) {
            (Some(parts), None) => {
                let file = Arc::new(RunsFile::new(dest.staging(), parts));
                let options = RunOptions {
                    sink: Some(file.clone()),
                    ..self.options().clone()
                };
                let results = self.run_with(&options)?;
                file.finish()?;
                results
            }
            _ => self.run()?,
        })
    }
}

/// Renders `results` and swaps them into `dest`.
pub(crate) fn commit(
    results: &Results,
    dest: Destination,
    charts: &ChartOptions,
    cancel: &Cancel,
) -> Result<Written, ExportError> {
    let files = results.files(charts)?;
    Ok(commit_files(&files, dest, cancel)?)
}

/// Stages `files` in `dest`'s private folder and swaps the set in whole: the one writer of
/// result sets, for files rendered by [`Results::files`] into a destination opened with
/// [`crate::Prepared::open`] before the run.
pub fn commit_files(
    files: &[Artifact],
    dest: Destination,
    cancel: &Cancel,
) -> Result<Written, OutputError> {
    let written = stage(files, &dest)?;
    finish(written, dest, cancel)
}

/// Stages `files` in `dest`'s private folder, in order; returns their paths as they will be
/// named in the destination. A name `sub/file` goes into a subfolder `sub` (a comparison keeps
/// each scenario's own results in one). Nothing in the destination changes.
pub(crate) fn stage(files: &[Artifact], dest: &Destination) -> Result<Vec<PathBuf>, OutputError> {
    let staging = dest.staging();
    let mut written = Vec::with_capacity(files.len());
    let mut subfolders: Vec<(&str, OutputDir)> = Vec::new();
    for file in files {
        let path = match file.name.split_once('/') {
            None if file.is_staged() => staging.adopt(&file.name)?,
            None => staging.write(&file.name, &file.bytes)?,
            Some((sub, name)) => {
                let i = match subfolders.iter().position(|(s, _)| *s == sub) {
                    Some(i) => i,
                    None => {
                        subfolders.push((sub, staging.subfolder(sub)?));
                        subfolders.len() - 1
                    }
                };
                subfolders[i].1.write(name, &file.bytes)?
            }
        };
        written.push(path);
    }
    Ok(written)
}

/// Swaps the staged set in (refused when `cancel` is set).
pub(crate) fn finish(
    files: Vec<PathBuf>,
    dest: Destination,
    cancel: &Cancel,
) -> Result<Written, OutputError> {
    let out = dest.path().to_path_buf();
    let previous = dest.commit(cancel)?;
    Ok(Written {
        out,
        files,
        previous,
    })
}
