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

use crate::engine::pipeline::{Rows, RunSink};
use crate::report::multi_user;
use crate::report::regret::{curves::cell_experiment, runs};
use crate::scenario::{MultiUserScenario, RegretScenario};
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
    /// Per part, in scenario order: its experiment's label (regret) and its policy's.
    labels: Vec<(String, String)>,
    /// Whether the rows end with the primary user's returns (`reward: TimeLeft`).
    returns: bool,
}

impl RunsFile {
    /// The files for the runs of regret scenario `s`, in `staging`.
    pub(crate) fn regret(s: &RegretScenario, staging: OutputDir) -> RunsFile {
        let labels = s
            .experiments
            .iter()
            .flat_map(|e| {
                let experiment = cell_experiment(None, s, &e.label);
                s.policies
                    .iter()
                    .map(move |p| (experiment.clone(), p.label.clone()))
            })
            .collect();
        let returns = runs::counts_returns(s);
        RunsFile {
            staging,
            header: runs::header(returns).map_err(|e| e.to_string()),
            labels,
            returns,
        }
    }

    /// The files for the runs of many-users scenario `s`, in `staging`.
    pub(crate) fn multi_user(s: &MultiUserScenario, staging: OutputDir) -> RunsFile {
        let returns = s.env.time_left().is_some();
        RunsFile {
            staging,
            returns,
            header: multi_user::runs_header(returns).map_err(|e| e.to_string()),
            labels: s
                .policies
                .iter()
                .map(|p| (String::new(), p.label.clone()))
                .collect(),
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
        for part in (0..self.labels.len()).map(Self::part) {
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
    fn rows(&self, part: usize, rows: Rows<'_>) -> std::io::Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let file = self
            .staging
            .append(&Self::part(part))
            .map_err(std::io::Error::other)?;
        let mut w = csv::Writer::from_writer(std::io::BufWriter::new(file));
        let (experiment, policy) = &self.labels[part];
        match rows {
            Rows::Regret(rows) => runs::write_rows(&mut w, experiment, policy, rows, self.returns),
            Rows::MultiUser(rows) => multi_user::write_runs(&mut w, policy, rows, self.returns),
        }
        .map_err(std::io::Error::other)
        .and_then(|()| w.flush())
        // Named as the file it becomes: "cannot write results/x/runs.csv: No space left".
        .map_err(|error| std::io::Error::other(self.staging.write_error(names::RUNS, error)))
    }
}
