//! Helpers shared by the integration tests.

use specprobe::ChartOptions;
use specprobe::commands::{self, RunArgs};
use specprobe::summary::RegretSummary;
use std::path::{Path, PathBuf};

/// Writes `text` as a scenario file in `dir` and returns its path.
pub(crate) fn scenario_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Chart options that draw nothing (`--no-charts`).
pub(crate) fn no_charts() -> ChartOptions {
    ChartOptions {
        formats: Vec::new(),
        ..ChartOptions::default()
    }
}

/// Runs a scenario through the library into `out` (no charts) and returns the parsed summary.
pub(crate) fn run(scenario: &Path, out: &Path, threads: usize) -> RegretSummary {
    commands::run(&RunArgs {
        scenario: scenario.to_path_buf(),
        out: Some(out.to_path_buf()),
        threads: Some(threads),
        charts: no_charts(),
        ..RunArgs::default()
    })
    .unwrap();
    serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap()
}

/// The paper's Figure 1(a) instance with the given horizon, runs and policies.
pub(crate) fn fig1a(horizon: u64, runs: u64, policies: &str) -> String {
    format!(
        r#"Regret(
    name: "fig1a-small",
    seed: 11,
    horizon: {horizon},
    runs: {runs},
    channels: [
        (theta: 0.8, cost: Bernoulli(0.55)),
        (theta: 0.7, cost: Bernoulli(0.55)),
        (theta: 0.6, cost: Bernoulli(0.55)),
        (theta: 0.5, cost: Bernoulli(0.55)),
        (theta: 0.4, cost: Bernoulli(0.55)),
        (theta: 0.3, cost: Bernoulli(0.55)),
    ],
    policies: [{policies}],
)"#
    )
}
