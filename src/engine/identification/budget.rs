//! What an identification scenario, or its sweep, needs before it runs (see
//! [`crate::engine::budget`]).

use crate::engine::budget::{MOMENTS, Need, Needs, SPLITS_PER_THREAD, Work, product};
use crate::identify::confidence::Setting;
use crate::scenario::{IdentificationScenario, Sweep};
use crate::util::math;

/// Bytes of one identification outcome kept per run.
const OUTCOME: u64 = 3 * 32;

/// Rough cost of one identification sample: about 0.18 µs measured on `paper-topk.ron` (10 runs,
/// 6.75 s of CPU for 3.8·10⁷ samples) and 0.08 µs on `paper-best1.ron` (10.8 s for 1.3·10⁸),
/// set-up and bookkeeping included; 0.7 µs before the ordered sets became sorted runs and
/// trees, LUCB1 searched by epochs and lil'UCB decided from bounds. Rounded up, as a cautious
/// middle over the algorithms and machines.
const SECONDS_PER_SAMPLE: f64 = 0.2e-6;

/// Samples an identification run takes, in units of `H·(ln(1/ν) + ln N)` (`H = Σ Δ⁻²`, the
/// instance's complexity): on the paper's instances the faithful settings took 2 to 11 of
/// them, the heuristic one 0.6 to 2.7 (`paper-topk.ron`), so these are cautious middles.
fn samples_per_hardness(setting: Setting) -> f64 {
    match setting {
        Setting::Faithful => 8.0,
        Setting::Heuristic => 2.5,
    }
}

/// An identification scenario's memory, and the samples its runs are expected to take.
fn identification(s: &IdentificationScenario, runs: u64, threads: u64) -> (u64, f64) {
    let mut cells = 0u64;
    let mut n_max = 0u64;
    let mut means = 0u64;
    let mut samples = 0.0f64;
    let ln_confidence = math::ln(1.0 / s.confidence);
    for inst in &s.instances {
        for arms in &inst.points {
            let n = arms.len() as u64;
            n_max = n_max.max(n);
            means = means.saturating_add(product(&[n, 8]));
            let hardness = arms.complexity() * (ln_confidence + math::ln(n as f64));
            for &setting in &s.settings {
                let algorithms = s.algorithms.iter().filter(|a| a.runs_in(setting)).count();
                cells = cells.saturating_add(algorithms as u64);
                let per_run =
                    (samples_per_hardness(setting) * hardness).clamp(n as f64, s.sample_cap as f64);
                samples += per_run * (runs as f64) * algorithms as f64;
            }
        }
    }
    let per_cell = product(&[runs, OUTCOME]).saturating_add(MOMENTS);
    let workers = product(&[threads, SPLITS_PER_THREAD, n_max, 8 * 8]);
    let memory = product(&[cells, per_cell])
        .saturating_add(means)
        .saturating_add(workers);
    (memory, samples)
}

impl Needs for IdentificationScenario {
    fn needs(&self, runs: &dyn Fn(u64) -> u64, threads: u64) -> Need {
        // A sweep's cells run one after another; every cell's statistics are kept.
        let cells = Sweep::cells_or(self.sweep.as_deref(), self);
        let (memory, samples) = cells.iter().fold((0u64, 0.0), |(m, n), c| {
            let (cm, cn) = identification(c, runs(c.runs), threads);
            (m.saturating_add(cm), n + cn)
        });
        Need {
            memory,
            work: Work::Samples(samples),
            cpu_seconds: samples * SECONDS_PER_SAMPLE,
            setup_seconds: 0.0,
        }
    }
}
