//! Helpers of the crate's own tests (scenario files, chart options, the paper's instance).

use std::path::{Path, PathBuf};

/// Writes `text` as a scenario file in `dir` and returns its path.
pub(crate) fn scenario_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Chart options that draw nothing (`--no-charts`).
pub(crate) fn no_charts() -> crate::report::plots::ChartOptions {
    crate::report::plots::ChartOptions {
        formats: Vec::new(),
        ..Default::default()
    }
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
