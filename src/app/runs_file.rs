//! `runs.csv` of a command-line run, written as the runs finish: memory does not grow with the
//! number of runs.
//!
//! The pipeline hands over each batch of consecutive runs of one part (an (experiment, policy)
//! pair of a regret scenario, a team of a many-users one) in run order ([`RunSink`]); the rows
//! are appended to that part's own file in the staging folder. When the runs are over,
//! [`RunsFile::finish`] writes `runs.csv` there as the header followed by every part's file in
//! scenario order, which is byte for byte the file rendered from rows
//! kept in memory (the library's [`crate::Simulation::run`] and merged shards keep them). A
//! run that fails or is cancelled leaves only the staging folder, which is removed.

use crate::engine::pipeline::{PartLabels, RunRows, RunSink};
use crate::store::folder::{OutputDir, OutputError};
use crate::store::names;
use std::io::{Seek, Write};

/// The per-part files of one run (a part: an (experiment, policy) pair of a regret scenario, a
/// team of a many-users one), and how their rows are labelled.
#[derive(Debug)]
pub(crate) struct RunsFile {
    staging: OutputDir,
    /// The file's header, or why it could not be written.
    header: Result<Vec<u8>, String>,
    /// Per part, in scenario order: what labels its rows.
    parts: Vec<PartLabels>,
}

impl RunsFile {
    /// The files for the runs of a scenario whose kind gives `header` and `parts` (its report's
    /// `parts`), in `staging`.
    pub(crate) fn new(
        staging: OutputDir,
        (header, parts): (Result<Vec<u8>, String>, Vec<PartLabels>),
    ) -> RunsFile {
        RunsFile {
            staging,
            header,
            parts,
        }
    }

    /// The staging name of part `part`'s rows (hidden; never swapped in).
    fn part(part: usize) -> String {
        format!(".runs-{part}.csv")
    }

    /// Writes `runs.csv` from the per-part files and removes them: the header, then each
    /// part's file in order (a part with no runs, every run of a cancelled batch, has none).
    pub(crate) fn finish(&self) -> Result<(), OutputError> {
        let staging = &self.staging;
        let mut out = staging.create(names::RUNS)?;
        let error = |e| staging.write_error(names::RUNS, e);
        let header = self.header.clone().map_err(std::io::Error::other);
        out.write_all(&header.map_err(error)?).map_err(error)?;
        for part in (0..self.parts.len()).map(Self::part) {
            let Ok(mut file) = staging.open(&part) else {
                continue;
            };
            file.rewind()
                .and_then(|()| std::io::copy(&mut file, &mut out).map(drop))
                .map_err(error)?;
            drop(file);
            staging.remove(&part)?;
        }
        Ok(())
    }
}

impl RunSink for RunsFile {
    fn rows(&self, part: usize, rows: &dyn RunRows) -> std::io::Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let file = self
            .staging
            .append(&Self::part(part))
            .map_err(std::io::Error::other)?;
        let mut out = std::io::BufWriter::new(file);
        let written = {
            let mut w = csv::Writer::from_writer(&mut out as &mut dyn Write);
            rows.write(&mut w, &self.parts[part])
                .map_err(std::io::Error::other)
                .and_then(|()| w.flush())
        };
        written
            .and_then(|()| out.flush())
            // Named as the file it becomes: "cannot write results/x/runs.csv: No space left".
            .map_err(|error| std::io::Error::other(self.staging.write_error(names::RUNS, error)))
    }
}
