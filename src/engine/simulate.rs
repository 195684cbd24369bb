//! A checked scenario of any kind simulated into its results: the one place that sends each
//! kind to its engine runner, and a sweep's cells, of any kind, one after the other.

use crate::engine::pipeline::{RunError, RunOptions};
use crate::engine::results::{
    IdentificationResults, MultiUserResults, RegretResults, Results, SweepResults,
};
use crate::engine::shard::Shard;
use crate::engine::{identification, multi_user, regret};
use crate::scenario::{Overrides, Scenario, Sweep};

/// Runs every policy (or algorithm, or team) of `scenario` over the shard's runs (`shard`:
/// `None` for every run), recording the `overrides` that were applied.
pub(crate) fn simulate(
    scenario: &Scenario,
    options: &RunOptions,
    overrides: Overrides,
    shard: Option<Shard>,
) -> Result<Results, RunError> {
    Ok(match scenario {
        Scenario::Regret(s) => {
            let stats = regret::runner::run_regret(s, options)?;
            Results::Regret(RegretResults {
                scenario: s.clone(),
                stats,
                overrides,
                shard,
            })
        }
        Scenario::Identification(s) => {
            let stats = run_each(
                s,
                s.sweep.as_deref(),
                &s.name,
                options,
                identification::runner::run_identification,
            )?;
            Results::Identification(IdentificationResults {
                scenario: s.clone(),
                stats,
                overrides,
                shard,
            })
        }
        Scenario::MultiUser(s) => {
            let stats = run_each(
                s,
                s.sweep.as_deref(),
                &s.header.name,
                options,
                multi_user::runner::run_multi_user,
            )?;
            Results::MultiUser(MultiUserResults {
                scenario: s.clone(),
                stats,
                overrides,
                shard,
            })
        }
        Scenario::Sweep(s) => {
            let stats = run_cells(&s.sweep, &s.name, options, regret::runner::run_regret)?;
            Results::Sweep(SweepResults {
                scenario: s.clone(),
                stats,
                overrides,
                shard,
            })
        }
    })
}

/// Runs every cell of a sweep (of any kind) by `run`, one after the other: each cell is split
/// among the threads, so memory stays one cell's at a time while it runs.
/// Runs `base` by `run`, or every cell of its `sweep` when it has one (a many-users or
/// identification scenario holds its sweep as an option): one statistics each.
fn run_each<S, T, E>(
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
