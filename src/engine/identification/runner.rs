//! Monte Carlo runs of an identification scenario: every (instance, N, setting, algorithm) cell
//! over the shard's runs, in parallel, folded into exact statistics (see [`crate::engine::regret::runner`] for
//! the seeding and determinism contract).

use crate::engine::pipeline::{self, Kind, RunError, RunOptions, RunStats};
use crate::identify::Algorithm;
use crate::identify::confidence::{Params, Setting};
use crate::identify::instance::Arms;
use crate::identify::{Identifier, IdentifierVisitor, IdentifyOutcome, IdentifyStats, Problem};
use crate::scenario::IdentificationScenario;
use crate::util::cancel::Cancel;
use crate::util::rng::{SimRng, label_hash, stream};
use std::time::Instant;
use tracing::info;

/// One cell of an identification scenario and its statistics.
#[derive(Clone, Debug)]
pub(crate) struct IdentifyCell {
    /// Index of the instance in the scenario.
    pub instance: usize,
    /// Index of the point (number of arms) in the instance.
    pub point: usize,
    /// Parameter setting.
    pub setting: Setting,
    /// Index of the algorithm in the scenario's list.
    pub algorithm: usize,
    /// Its name in outputs.
    pub name: String,
    /// ε and δ used.
    pub params: Params,
    /// Results over the runs.
    pub stats: IdentifyStats,
}

/// Runs every (instance, N, setting, algorithm) cell of an identification scenario. Run `r` of an
/// (instance, N) draws from `stream(seed, hash(instance label, N), r)` whatever the algorithm,
/// so that algorithms face the same random start.
pub(crate) fn run_identification(
    s: &IdentificationScenario,
    opts: &RunOptions,
) -> Result<Vec<IdentifyCell>, RunError> {
    let mut cells = cells_of(s);
    if let Some(cell) = cells
        .iter()
        .find(|c| s.algorithms[c.algorithm].build(&problem_of(s, c)).is_none())
    {
        return Err(RunError::NotRunnable(cell.name.clone()));
    }
    let shard_runs = opts.shard.runs_of(s.runs);
    let total = (cells.len() as u64).saturating_mul(shard_runs);
    info!(scenario = %s.name, cells = cells.len(), runs = shard_runs, "identifying: {total} runs");
    let started = Instant::now();
    let problems = cells.iter().map(|c| problem_of(s, c)).collect();
    let jobs = Cells {
        s,
        cells: &cells,
        problems,
    };
    let span = tracing::info_span!("identify", indicatif.pb_show = tracing::field::Empty);
    // Identification runs no user code that can break a contract: no faults to report.
    let stats = pipeline::run(&jobs, opts, span, &Default::default())?;
    for (cell, stats) in cells.iter_mut().zip(stats) {
        cell.stats = stats;
    }
    info!(
        seconds = started.elapsed().as_secs_f64(),
        "identification finished"
    );
    Ok(cells)
}

/// Every (instance, N, setting, algorithm) cell, in scenario order, with no runs yet.
fn cells_of(s: &IdentificationScenario) -> Vec<IdentifyCell> {
    let mut cells = Vec::new();
    for (i, inst) in s.instances.iter().enumerate() {
        for (p, arms) in inst.points.iter().enumerate() {
            for &setting in &s.settings {
                for (a, algorithm) in s.algorithms.iter().enumerate() {
                    if algorithm.runs_in(setting) {
                        cells.push(IdentifyCell {
                            instance: i,
                            point: p,
                            setting,
                            algorithm: a,
                            name: algorithm.name().to_string(),
                            params: s.params(algorithm, setting, arms.len()),
                            stats: IdentifyStats::new(),
                        });
                    }
                }
            }
        }
    }
    cells
}

/// What the cell's algorithm is told about its runs.
fn problem_of(s: &IdentificationScenario, cell: &IdentifyCell) -> Problem {
    let arms = &s.instances[cell.instance].points[cell.point];
    Problem {
        arms: arms.len(),
        k: arms.k(),
        sigma: arms.rewards().sigma(),
        confidence: s.confidence,
        setting: cell.setting,
        params: cell.params,
    }
}

/// An identification scenario as the pipeline runs it: a job per cell (the per-run rows stay
/// in the statistics: identification writes no runs stream).
struct Cells<'a> {
    s: &'a IdentificationScenario,
    cells: &'a [IdentifyCell],
    /// Per cell, what its algorithm is told.
    problems: Vec<Problem>,
}

impl Kind for Cells<'_> {
    type Stats = IdentifyStats;
    type Worker<'w>
        = CellWorker<'w>
    where
        Self: 'w;

    fn name(&self) -> &str {
        &self.s.name
    }
    fn runs(&self) -> u64 {
        self.s.runs
    }
    fn jobs(&self) -> usize {
        self.cells.len()
    }
    // Cells are many and small (a few arms each): run them at once, as before.
    fn parallel_jobs(&self) -> bool {
        true
    }
    fn worker(&self, c: usize) -> CellWorker<'_> {
        let cell = &self.cells[c];
        let inst = &self.s.instances[cell.instance];
        let arms = &inst.points[cell.point];
        CellWorker {
            s: self.s,
            problem: &self.problems[c],
            arms,
            algorithm: &self.s.algorithms[cell.algorithm],
            domain: label_hash(&[&inst.label, &arms.len().to_string()]),
            stats: IdentifyStats::new(),
            answer: Vec::with_capacity(arms.k()),
        }
    }
    fn empty(&self, _: usize) -> IdentifyStats {
        IdentifyStats::new()
    }
}

impl RunStats for IdentifyStats {
    fn merge(&mut self, other: &IdentifyStats) {
        IdentifyStats::merge(self, other);
    }
}

/// One thread's runs of a cell: the statistics and the answer buffer, reused from run to run.
struct CellWorker<'a> {
    s: &'a IdentificationScenario,
    problem: &'a Problem,
    arms: &'a Arms,
    algorithm: &'a Algorithm,
    domain: u64,
    stats: IdentifyStats,
    answer: Vec<usize>,
}

impl pipeline::Worker for CellWorker<'_> {
    type Stats = IdentifyStats;

    fn run(&mut self, run: u64, cancel: &Cancel) {
        let mut rng = stream(self.s.seed, self.domain, run);
        let outcome = self
            .algorithm
            .build(self.problem)
            .expect("every algorithm was checked runnable before the runs")
            .visit(Identify {
                arms: self.arms,
                cap: self.s.sample_cap,
                rng: &mut rng,
                answer: &mut self.answer,
                cancel,
            });
        self.stats.absorb(run, &outcome);
    }

    fn into_stats(self) -> IdentifyStats {
        self.stats
    }
}

/// Runs one identification with the concrete algorithm type.
struct Identify<'a> {
    arms: &'a Arms,
    cap: u64,
    rng: &'a mut SimRng,
    answer: &'a mut Vec<usize>,
    cancel: &'a Cancel,
}

impl IdentifierVisitor for Identify<'_> {
    type Output = IdentifyOutcome;

    fn visit<I: Identifier>(self, mut algorithm: I) -> Self::Output {
        crate::identify::identify(
            self.arms,
            &mut algorithm,
            self.cap,
            self.rng,
            self.answer,
            self.cancel,
        )
    }
}
