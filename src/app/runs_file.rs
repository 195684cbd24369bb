//! `runs.csv` of a command-line run, written as the runs finish: memory does not grow with the
//! number of runs.
//!
//! The runner hands over each batch of consecutive runs of one (experiment, policy) in run
//! order ([`RunSink`]); the rows are appended to that pair's own file in the staging folder.
//! When the runs are over, [`RunsFile::finish`] writes `runs.csv` there as the header followed
//! by every pair's file in scenario order, which is byte for byte the file rendered from rows
//! kept in memory (the library's [`crate::Simulation::run`] and merged shards keep them). A
//! run that fails or is cancelled leaves only the staging folder, which is removed.

use crate::engine::multi_loop::N_MULTI;

use crate::engine::pipeline::{MultiRunSink, RunSink};
use crate::engine::recorder::Row;
use crate::report::multi_user;
use crate::report::regret::{curves::cell_experiment, runs};
use crate::scenario::{MultiUserScenario, RegretScenario};
use crate::store::folder::{OutputDir, OutputError};
use crate::store::names;
use std::io::{Seek, Write};

/// The per-pair files of one regret run, and how its rows are labelled.
#[derive(Debug)]
pub(crate) struct RunsFile {
    staging: OutputDir,
    /// Per experiment, its label in the experiment column; the policy labels.
    experiments: Vec<String>,
    policies: Vec<String>,
}

impl RunsFile {
    /// The files for the runs of `s`, in `staging`.
    pub(crate) fn new(s: &RegretScenario, staging: OutputDir) -> RunsFile {
        RunsFile {
            staging,
            experiments: s
                .experiments
                .iter()
                .map(|e| cell_experiment(None, s, &e.label))
                .collect(),
            policies: s.policies.iter().map(|p| p.label.clone()).collect(),
        }
    }

    /// The staging name of experiment `e`, policy `p`'s rows (hidden; never swapped in).
    fn part(e: usize, p: usize) -> String {
        format!(".runs-{e}-{p}.csv")
    }

    /// Writes `runs.csv` from the per-pair files and removes them.
    pub(crate) fn finish(&self) -> Result<(), OutputError> {
        let header = runs::header().map_err(std::io::Error::other);
        let pairs = self.experiments.len() * self.policies.len();
        let p = self.policies.len();
        assemble(
            &self.staging,
            header,
            (0..pairs).map(|i| Self::part(i / p, i % p)),
        )
    }
}

/// Writes `runs.csv` in `staging`: `header`, then each of the hidden `parts` in order (a part
/// with no runs, every run of a cancelled batch, has no file), each removed once copied.
fn assemble(
    staging: &OutputDir,
    header: std::io::Result<Vec<u8>>,
    parts: impl Iterator<Item = String>,
) -> Result<(), OutputError> {
    let mut out = staging.create(names::RUNS)?;
    let error = |e| staging.write_error(names::RUNS, e);
    out.write_all(&header.map_err(error)?).map_err(error)?;
    for part in parts {
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

impl RunSink for RunsFile {
    fn rows(&self, e: usize, p: usize, rows: &[(u64, Row)]) -> std::io::Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let file = self
            .staging
            .append(&Self::part(e, p))
            .map_err(std::io::Error::other)?;
        let mut w = csv::Writer::from_writer(std::io::BufWriter::new(file));
        runs::write_rows(&mut w, &self.experiments[e], &self.policies[p], rows)
            .map_err(std::io::Error::other)
            .and_then(|()| w.flush())
            // Named as the file it becomes: "cannot write results/x/runs.csv: No space left".
            .map_err(|error| std::io::Error::other(self.staging.write_error(names::RUNS, error)))
    }
}

/// `runs.csv` of a many-users run, written as the runs finish (one hidden file per policy,
/// assembled in scenario order by [`MultiRunsFile::finish`]: the bytes of the file rendered
/// from rows kept in memory).
#[derive(Debug)]
pub(crate) struct MultiRunsFile {
    staging: OutputDir,
    policies: Vec<String>,
}

impl MultiRunsFile {
    /// The files for the runs of `s`, in `staging`.
    pub(crate) fn new(s: &MultiUserScenario, staging: OutputDir) -> MultiRunsFile {
        MultiRunsFile {
            staging,
            policies: s.policies.iter().map(|p| p.label.clone()).collect(),
        }
    }

    fn part(p: usize) -> String {
        format!(".runs-{p}.csv")
    }

    /// Writes `runs.csv` from the per-policy files and removes them.
    pub(crate) fn finish(&self) -> Result<(), OutputError> {
        let header = multi_user::runs_header().map_err(|e| std::io::Error::other(e.to_string()));
        assemble(
            &self.staging,
            header,
            (0..self.policies.len()).map(Self::part),
        )
    }
}

impl MultiRunSink for MultiRunsFile {
    fn rows(&self, p: usize, rows: &[(u64, [f64; N_MULTI])]) -> std::io::Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let file = self
            .staging
            .append(&Self::part(p))
            .map_err(std::io::Error::other)?;
        let mut w = csv::Writer::from_writer(std::io::BufWriter::new(file));
        multi_user::write_runs(&mut w, &self.policies[p], rows)
            .map_err(std::io::Error::other)
            .and_then(|()| w.flush())
            .map_err(|error| std::io::Error::other(self.staging.write_error(names::RUNS, error)))
    }
}
