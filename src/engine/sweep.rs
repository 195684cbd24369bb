//! A sweep of any kind run: its cells one after the other, each named on the progress bar.
//! The regret sweep's [`Simulate`] is here; a many-users or identification scenario runs its
//! own sweep by [`run_each`].

use crate::engine::pipeline::{RunError, RunOptions};
use crate::engine::regret::runner::{RegretStats, run_regret};
use crate::engine::results::Results;
use crate::engine::shard::Shard;
use crate::engine::simulate::Simulate;
use crate::scenario::{Overrides, RegretScenario};
use crate::scenario::{Sweep, SweepScenario};

/// A sweep's results: each cell's statistics, in the order of the values.
#[derive(Clone, Debug)]
pub struct SweepResults {
    /// The sweep as simulated.
    pub(crate) scenario: SweepScenario,
    /// `stats[i]`: the cell of `scenario.sweep.values()[i]`.
    pub(crate) stats: Vec<RegretStats>,
    /// The overrides that were applied.
    pub(crate) overrides: Overrides,
    /// The shard simulated (`None`: every run, unsharded).
    pub(crate) shard: Option<Shard>,
}

impl SweepResults {
    /// The sweep as simulated.
    pub fn scenario(&self) -> &SweepScenario {
        &self.scenario
    }

    /// Each cell with its statistics.
    pub(crate) fn cells(&self) -> Vec<(&RegretScenario, &RegretStats)> {
        self.scenario
            .sweep
            .cells()
            .iter()
            .zip(&self.stats)
            .collect()
    }
}

impl Simulate for SweepScenario {
    type Stats = Vec<RegretStats>;
    fn run(&self, options: &RunOptions) -> Result<Self::Stats, RunError> {
        run_cells(&self.sweep, &self.name, options, run_regret)
    }
}

impl Results {
    /// The sweep results, if that is the kind.
    pub fn sweep(&self) -> Option<&SweepResults> {
        match self {
            Results::Sweep(r) => Some(r),
            _ => None,
        }
    }
}

/// Runs `base` by `run`, or every cell of its `sweep` when it has one (a many-users or
/// identification scenario holds its sweep as an option): one statistics each.
pub(crate) fn run_each<S, T, E>(
    base: &S,
    sweep: Option<&Sweep<S>>,
    name: &str,
    options: &RunOptions,
    run: impl Fn(&S, &RunOptions) -> Result<T, E>,
) -> Result<Vec<T>, E> {
    match sweep {
        None => Ok(vec![run(base, options)?]),
        Some(sw) => run_cells(sw, name, options, run),
    }
}

/// Runs every cell of a sweep (of any kind) by `run`, one after the other: each cell is split
/// among the threads, so memory stays one cell's at a time while it runs.
fn run_cells<S, T, E>(
    sweep: &Sweep<S>,
    name: &str,
    options: &RunOptions,
    run: impl Fn(&S, &RunOptions) -> Result<T, E>,
) -> Result<Vec<T>, E> {
    (0..sweep.cells().len())
        .map(|i| run(&sweep.cells()[i], &cell_options(options, name, i, sweep)))
        .collect()
}

/// The run options of cell `i` of a sweep: its progress bar says which cell of how many it is
/// (`multi-sweep-users: cell 2/4, users = 4`), not the sweep's name again from zero.
fn cell_options<S>(options: &RunOptions, name: &str, i: usize, sweep: &Sweep<S>) -> RunOptions {
    RunOptions {
        label: Some(format!(
            "{name}: cell {}/{}, {}",
            i + 1,
            sweep.values().len(),
            sweep.cell_label(sweep.values()[i])
        )),
        ..options.clone()
    }
}

#[cfg(test)]
mod cell_tests {
    use super::*;

    /// A sweep's cells each name themselves on the progress bar, in order, with their value.
    #[test]
    fn sweep_cells_say_which_cell_they_are() {
        let sweep = Sweep {
            field: "users".into(),
            values: vec![2.0, 4.0, 6.0],
            axis: Default::default(),
            cells: vec![(); 3],
        };
        let o = cell_options(&RunOptions::default(), "s", 1, &sweep);
        assert_eq!(o.label.as_deref(), Some("s: cell 2/3, users = 4"));
    }
}
