//! Your own policy beside the built-in ones: a decaying ε-greedy cascade policy raced against
//! CC-UCB on Figure 1(a)'s instance, with every output specprobe writes.
//!
//! ```sh
//! cargo run --release --example custom_policy                  # results/custom-policy/
//! cargo run --release --example custom_policy -- OUT RUNS HORIZON
//! ```

use specprobe::rand::RngExt;
use specprobe::rand::seq::SliceRandom;
use specprobe::{Policy, SimRng, Simulation};

/// ε-greedy for the cost-aware cascade: with probability ε_t = min(1, 5K/t) probe every channel
/// in a random order (the cascade stops at the first idle one), otherwise every channel whose
/// empirical idle rate beats its empirical cost, best ratio first.
#[derive(Debug)]
pub(crate) struct EpsGreedy {
    idle: Vec<f64>,
    cost: Vec<f64>,
    order: Vec<usize>,
}

impl EpsGreedy {
    /// No observations of `k` channels.
    pub(crate) fn new(k: usize) -> EpsGreedy {
        EpsGreedy {
            idle: vec![0.0; k],
            cost: vec![0.0; k],
            order: (0..k).collect(),
        }
    }
}

impl Policy for EpsGreedy {
    fn plan(&mut self, t: u64, list: &mut Vec<usize>, rng: &mut SimRng) {
        let k = self.order.len();
        if rng.random::<f64>() < (5.0 * k as f64 / t as f64).min(1.0) {
            self.order.shuffle(rng);
            return list.extend_from_slice(&self.order);
        }
        // θ̂/ĉ: the sample counts cancel.
        let ratio = |i: usize| self.idle[i] / self.cost[i].max(1e-9);
        list.extend((0..k).filter(|&i| ratio(i) > 1.0));
        list.sort_by(|&a, &b| ratio(b).total_cmp(&ratio(a)).then(a.cmp(&b)));
    }

    fn observe(&mut self, channel: usize, idle: bool, cost: f64) {
        self.idle[channel] += f64::from(u8::from(idle));
        self.cost[channel] += cost;
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = args.first().map_or("results/custom-policy", String::as_str);
    let mut sim = Simulation::from_file("scenarios/paper-fig1a.ron")?
        .policy("eps-greedy", |env| EpsGreedy::new(env.len()));
    if let Some(runs) = args.get(1) {
        sim = sim.runs(runs.parse()?);
    }
    if let Some(horizon) = args.get(2) {
        sim = sim.horizon(horizon.parse()?);
    }
    let results = sim.run()?;
    for file in results.write(out, &Default::default())? {
        println!("wrote {}", file.display());
    }
    let summary = results.regret().expect("a regret scenario").summary();
    for p in &summary.experiments()[0].policies {
        println!(
            "{:<20} pseudo-regret {:>9.1} ± {:.1}",
            p.name, p.pseudo_regret.mean, p.pseudo_regret.stderr
        );
    }
    Ok(())
}
