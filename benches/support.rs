//! What the benches share: the instances they time, written as scenarios and run through the
//! library's public API (`Simulation`), exactly as a user runs them.

#![allow(dead_code)]

use specprobe::summary::RegretSummary;
use specprobe::{Scenario, Simulation};
use std::path::Path;

/// K = 6: the paper's Figure 1(a) instance. Larger K: θ spread over [0.1, 0.9] in a scrambled
/// order, Bernoulli(0.4) costs, so that about 5/8 of the channels are worth probing and the
/// lists are long (the hard case for ordering).
pub(crate) fn instance(k: usize) -> (Vec<f64>, Vec<f64>) {
    if k == 6 {
        return (vec![0.8, 0.7, 0.6, 0.5, 0.4, 0.3], vec![0.55; 6]);
    }
    let theta = (0..k)
        .map(|i| 0.1 + 0.8 * ((i * 7919) % k) as f64 / k as f64)
        .collect();
    (theta, vec![0.4; k])
}

/// A regret scenario of i.i.d. channels with Bernoulli costs, one run of `horizon` slots,
/// `policies` as (label, policy in scenario syntax).
pub(crate) fn scenario(
    theta: &[f64],
    cost: &[f64],
    policies: &[(&str, &str)],
    horizon: u64,
    seed: u64,
) -> Scenario {
    let channels: Vec<String> = theta
        .iter()
        .zip(cost)
        .map(|(t, c)| format!("(theta: {t:?}, cost: Bernoulli({c:?}))"))
        .collect();
    let policies: Vec<String> = policies
        .iter()
        .map(|(label, p)| format!("(label: {label:?}, policy: {p})"))
        .collect();
    let text = format!(
        "Regret(name: \"bench\", seed: {seed}, horizon: {horizon}, runs: 1, channels: [{}], policies: [{}])",
        channels.join(", "),
        policies.join(", ")
    );
    specprobe::parse(&text, Path::new("bench.ron")).expect("a valid bench scenario")
}

/// Classic UCB1 (`Ucb1(reward: Idle)`) on channels `theta`, every probe costing 0.75 (so that
/// UCR-T1 is the best channel alone and the regret is the classic bandit's), seed 2002.
pub(crate) fn ucb1_scenario(theta: &[f64], horizon: u64, runs: u64) -> Scenario {
    let channels: Vec<String> = theta
        .iter()
        .map(|t| format!("(theta: {t:?}, cost: Constant(0.75))"))
        .collect();
    let text = format!(
        "Regret(name: \"ucb1\", seed: 2002, horizon: {horizon}, runs: {runs}, channels: [{}], policies: [(policy: Ucb1(reward: Idle))])",
        channels.join(", ")
    );
    specprobe::parse(&text, Path::new("ucb1.ron")).expect("a valid bench scenario")
}

/// Runs a simulation on one thread and returns its summary.
pub(crate) fn run(sim: Simulation) -> RegretSummary {
    sim.threads(1)
        .run()
        .expect("the bench scenario runs")
        .regret()
        .expect("a regret scenario")
        .summary()
}

/// The final mean pseudo-regret of the policy labelled `label` (exact for one run).
pub(crate) fn pseudo_regret(summary: &RegretSummary, label: &str) -> f64 {
    summary.experiments()[0]
        .policies
        .iter()
        .find(|p| p.name == label)
        .expect("the policy is in the summary")
        .pseudo_regret
        .mean
}
