//! What a regret scenario, or a regret sweep, needs before it runs (see [`crate::engine::budget`]).

use crate::engine::budget::{
    CUSTOM_NS_PER_SLOT, FINAL_ROW, MOMENTS, Need, Needs, PER_CHANNEL, PER_EPOCH_ENTRY,
    REPORT_PER_CHANNEL, REPORT_PER_POLICY_CHANNEL, SPLITS_PER_THREAD, Work, channels, histogram,
    product,
};
use crate::engine::recorder::N_METRICS;
use crate::model::channel::EPOCH_OVERHEAD;
use crate::scenario::{PolicyKind, RegretScenario, SweepScenario};

/// Seconds of the set-up spent on the time-left benchmark's programmes (one per epoch, about
/// 4 ns per state and channel, measured at K = 20).
fn programme_seconds(s: &RegretScenario) -> f64 {
    s.experiments
        .iter()
        .filter(|e| e.env.time_left().is_some())
        .map(|e| {
            crate::model::time_left::programme_work(e.env.len(), e.env.epochs().len() as u64) as f64
                * 4e-9
        })
        .sum()
}

/// Memory held by the worker threads of a regret scenario (buffers, policy state, windows).
fn regret_workers(s: &RegretScenario, threads: u64) -> u64 {
    let checkpoints = s.header.checkpoints.slots(s.header.horizon).len() as u64;
    let k_max = s
        .experiments
        .iter()
        .map(|e| e.env.len() as u64)
        .max()
        .unwrap_or(0);
    let policies = s.policies.len() as u64;
    let stats = stats_bytes(checkpoints, k_max, 0);
    let window = s
        .policies
        .iter()
        .map(|p| match &p.policy {
            PolicyKind::Builtin(spec) => spec.extra_memory(k_max, s.header.horizon),
            PolicyKind::Custom(_) => 0,
        })
        .max()
        .unwrap_or(0);
    let per_worker = product(&[policies, stats])
        .saturating_add(product(&[k_max, PER_CHANNEL]))
        .saturating_add(window)
        .saturating_add(product(&[2, checkpoints, 8 * N_METRICS as u64]));
    product(&[threads, SPLITS_PER_THREAD, per_worker])
}

/// One (experiment, policy)'s statistics without the final rows.
fn stats_bytes(checkpoints: u64, k: u64, runs: u64) -> u64 {
    product(&[checkpoints, N_METRICS as u64, MOMENTS])
        .saturating_add(histogram(k))
        .saturating_add(product(&[k, 8]))
        .saturating_add(product(&[runs, FINAL_ROW]))
}

/// A regret scenario's memory, slot-steps and CPU seconds (each policy's measured cost per
/// slot at each configuration's K).
fn regret(s: &RegretScenario, runs: u64, threads: u64, with_workers: bool) -> (u64, f64, f64) {
    let checkpoints = s.header.checkpoints.slots(s.header.horizon).len() as u64;
    let policies = s.policies.len() as u64;
    let mut memory = 0u64;
    let mut steps = 0.0f64;
    let mut cpu = 0.0f64;
    for e in &s.experiments {
        let k = e.env.len() as u64;
        let epochs = product(&[e.env.epochs().len() as u64, k + EPOCH_OVERHEAD]);
        memory = memory
            .saturating_add(product(&[policies, stats_bytes(checkpoints, k, runs)]))
            .saturating_add(channels(&e.env))
            .saturating_add(product(&[epochs, PER_EPOCH_ENTRY]))
            .saturating_add(product(&[
                k,
                REPORT_PER_CHANNEL + REPORT_PER_POLICY_CHANNEL * policies,
            ]));
        let slots = runs as f64 * s.header.horizon as f64;
        steps += slots * policies as f64;
        cpu += slots
            * s.policies
                .iter()
                .map(|p| match &p.policy {
                    PolicyKind::Builtin(spec) => spec.seconds_per_slot(k),
                    PolicyKind::Custom(_) => {
                        (CUSTOM_NS_PER_SLOT.0 + CUSTOM_NS_PER_SLOT.1 * k as f64) * 1e-9
                    }
                })
                .sum::<f64>();
    }
    if with_workers {
        memory = memory.saturating_add(regret_workers(s, threads));
    }
    (memory, steps, cpu)
}

impl Needs for RegretScenario {
    fn needs(&self, runs: &dyn Fn(u64) -> u64, threads: u64) -> Need {
        let (memory, steps, cpu) = regret(self, runs(self.header.runs), threads, true);
        Need {
            memory,
            work: Work::SlotSteps(steps),
            cpu_seconds: cpu,
            setup_seconds: programme_seconds(self),
        }
    }
}

impl Needs for SweepScenario {
    fn needs(&self, runs: &dyn Fn(u64) -> u64, threads: u64) -> Need {
        // Cells run one after another; every cell's statistics are kept to the end.
        let (mut memory, mut steps, mut cpu, mut setup) = (0u64, 0.0, 0.0, 0.0);
        let mut workers = 0u64;
        for c in self.sweep.cells() {
            setup += programme_seconds(c);
            let (m, w, seconds) = regret(c, runs(c.header.runs), threads, false);
            memory = memory.saturating_add(m);
            steps += w;
            cpu += seconds;
            workers = workers.max(regret_workers(c, threads));
        }
        Need {
            memory: memory.saturating_add(workers),
            work: Work::SlotSteps(steps),
            cpu_seconds: cpu,
            setup_seconds: setup,
        }
    }
}
