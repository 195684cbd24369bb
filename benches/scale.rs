//! Cost per slot of every policy as the number of channels grows.
//!
//! `cargo bench --bench scale` prints, for K = 6, 64, 1024 and 4096, the nanoseconds per slot and
//! per slot per channel of each policy, measured on whole episodes (initialisation included) long
//! enough that the steady state dominates. Each figure is the best of three repetitions (the
//! machines are shared; the minimum is the least disturbed measurement). Set `SCALE_KS=6,64` to
//! restrict the channel counts.

use specprobe::channel::{Channel, Environment};
use specprobe::cost::CostModel;
use specprobe::law::{Law, LawSpec};
use specprobe::policy::{AnyPolicy, Policy, PolicySpec, PolicyVisitor};
use specprobe::recorder::RunRecord;
use specprobe::stats::CheckpointSpec;
use std::hint::black_box;
use std::time::Instant;

/// θ spread over [0.1, 0.9] in a scrambled order, Bernoulli(0.4) costs: about 5/8 of the
/// channels are worth probing, so the lists are long (the hard case for ordering).
fn environment(k: usize) -> Environment {
    let theta: Vec<f64> = if k == 6 {
        vec![0.8, 0.7, 0.6, 0.5, 0.4, 0.3]
    } else {
        (0..k)
            .map(|i| 0.1 + 0.8 * ((i * 7919) % k) as f64 / k as f64)
            .collect()
    };
    let cost = if k == 6 { 0.55 } else { 0.4 };
    Environment::new(
        theta
            .iter()
            .map(|&t| {
                Channel::new(
                    t,
                    CostModel::Plain(Law::new(&LawSpec::Bernoulli(cost)).unwrap()),
                )
            })
            .collect(),
    )
}

struct Episode<'a> {
    env: &'a Environment,
    horizon: u64,
}

impl PolicyVisitor for Episode<'_> {
    type Output = f64;
    fn visit<P: Policy>(self, mut policy: P) -> f64 {
        let checkpoints = CheckpointSpec::default().slots(self.horizon);
        let mut record = RunRecord::new(self.env.len(), checkpoints.len());
        let mut list = Vec::with_capacity(self.env.len());
        let mut rng = specprobe::rng::stream(1, 0, 0);
        let mut paths =
            specprobe::channel::Paths::new(self.env, specprobe::crn::RunKey::new(1, 0, 0));
        specprobe::sim::episode(
            self.env,
            &mut policy,
            self.horizon,
            &checkpoints,
            &mut rng,
            &mut paths,
            &mut record,
            &mut list,
            &specprobe::Cancel::new(),
        );
        record.rows.last().unwrap()[0]
    }
}

fn main() {
    // `cargo bench` passes `--bench`; anything else (e.g. `cargo test --benches`) runs one tiny
    // case as a smoke test.
    let smoke = !std::env::args().any(|a| a == "--bench");
    let ks: Vec<usize> = std::env::var("SCALE_KS")
        .ok()
        .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| {
            if smoke {
                vec![6]
            } else {
                vec![6, 64, 1024, 4096]
            }
        });
    let policies: Vec<PolicySpec> = [
        "Oracle",
        "CcUcb(alpha: 1.5, epsilon: 1e-5)",
        "CcUcbKnownCost(alpha: 1.5)",
        "CascadeUcb1(list_len: 3)",
        "CascadeKlUcb(list_len: 3)",
        "ThompsonSampling(known_cost: false)",
        "Ucb1",
        "RandomList(list_len: 3)",
    ]
    .iter()
    .map(|s| s.parse().expect("a valid policy"))
    .collect();
    println!(
        "{:<26} {:>6} {:>9} {:>12} {:>14}",
        "policy", "K", "slots", "ns/slot", "ns/slot/chan"
    );
    for &k in &ks {
        let env = environment(k);
        // About 0.2 s of simulation per measurement, at least 5 slots per channel.
        let horizon: u64 = if smoke {
            2_000
        } else {
            (2_000_000 / k as u64).max(5 * k as u64).max(20_000)
        };
        for spec in &policies {
            let mut best = f64::INFINITY;
            for _ in 0..if smoke { 1 } else { 3 } {
                let policy: AnyPolicy = spec.build(&env);
                let start = Instant::now();
                black_box(policy.visit(Episode { env: &env, horizon }));
                best = best.min(start.elapsed().as_nanos() as f64 / horizon as f64);
            }
            println!(
                "{:<26} {:>6} {:>9} {:>12.1} {:>14.2}",
                spec.to_ron(),
                k,
                horizon,
                best,
                best / k as f64
            );
        }
    }
}
