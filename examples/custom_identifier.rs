//! Your own best-K identification algorithm beside the built-in ones: uniform sampling (round
//! robin) with a confidence-interval stopping rule, on the spectrum-8ch top-3 problem.
//!
//! ```sh
//! cargo run --release --example custom_identifier                # results/custom-identifier/
//! cargo run --release --example custom_identifier -- OUT RUNS
//! ```

use specprobe::Problem;
use specprobe::math;
use specprobe::{Identifier, SimRng, Simulation};

/// Samples the arms in turn; after each full round, stops once the K best empirical means'
/// lower confidence bounds all exceed the others' upper bounds. The radius is Hoeffding's with a
/// union bound over arms and rounds: σ·sqrt(2 ln(4 N n²/δ)/n) after n samples per arm.
struct RoundRobin {
    k: usize,
    sigma: f64,
    delta: f64,
    n: u64,
    sum: Vec<f64>,
    next: usize,
}

impl RoundRobin {
    fn means_and_radius(&self) -> (Vec<f64>, f64) {
        let n = self.n as f64;
        let arms = self.sum.len() as f64;
        let radius = self.sigma * (2.0 * math::ln(4.0 * arms * n * n / self.delta) / n).sqrt();
        (self.sum.iter().map(|s| s / n).collect(), radius)
    }
}

impl Identifier for RoundRobin {
    fn next(&mut self, _rng: &mut SimRng) -> Option<usize> {
        if self.next == 0 && self.n > 0 {
            let (means, r) = self.means_and_radius();
            let mut sorted = means.clone();
            sorted.sort_by(|a, b| b.total_cmp(a));
            if sorted[self.k - 1] - r > sorted[self.k] + r {
                return None;
            }
        }
        Some(self.next)
    }

    fn observe(&mut self, arm: usize, reward: f64) {
        self.sum[arm] += reward;
        self.next = (arm + 1) % self.sum.len();
        if self.next == 0 {
            self.n += 1;
        }
    }

    fn answer(&self, out: &mut Vec<usize>) {
        let (means, _) = self.means_and_radius();
        out.extend(0..means.len());
        out.sort_by(|&a, &b| means[b].total_cmp(&means[a]).then(a.cmp(&b)));
        out.truncate(self.k);
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = args
        .first()
        .map_or("results/custom-identifier", String::as_str);
    let mut sim = Simulation::from_file("scenarios/spectrum-8ch-top3.ron")?.identifier(
        "round-robin",
        |p: &Problem| RoundRobin {
            k: p.k,
            sigma: p.sigma,
            delta: p.params.delta,
            n: 0,
            sum: vec![0.0; p.arms],
            next: 0,
        },
    );
    if let Some(runs) = args.get(1) {
        sim = sim.runs(runs.parse()?);
    }
    let results = sim.run()?;
    for file in results.write(out, &Default::default())? {
        println!("wrote {}", file.display());
    }
    for c in &results
        .identification()
        .expect("an identification scenario")
        .summary()
        .results
    {
        println!(
            "{:<10} {:<13} samples {:>9.0} ± {:>6.0}, errors {}",
            c.setting, c.algorithm, c.samples.mean, c.samples.stderr, c.errors
        );
    }
    Ok(())
}
