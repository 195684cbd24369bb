//! Cost per slot of every policy as the number of channels grows.
//!
//! `cargo bench --bench scale` prints, for K = 6, 64, 1024 and 4096, the nanoseconds per slot and
//! per slot per channel of each policy, measured on whole episodes (initialisation included) long
//! enough that the steady state dominates. Each figure is the best of three repetitions (the
//! machines are shared; the minimum is the least disturbed measurement). Set `SCALE_KS=6,64` to
//! restrict the channel counts. Each episode runs through the public API (`Simulation`, one
//! thread, no files), the benchmark's reward on the same paths included.

use specprobe::Simulation;
use std::hint::black_box;
use std::time::Instant;

mod support;

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
    let policies: Vec<&str> = [
        "Oracle",
        "CcUcb(alpha: 1.5, epsilon: 1e-5)",
        "CcUcbKnownCost(alpha: 1.5)",
        "CascadeUcb1(list_len: 3)",
        "CascadeKlUcb(list_len: 3)",
        "ThompsonSampling(known_cost: false)",
        "Ucb1",
        "RandomList(list_len: 3)",
    ]
    .to_vec();
    println!(
        "{:<26} {:>6} {:>9} {:>12} {:>14}",
        "policy", "K", "slots", "ns/slot", "ns/slot/chan"
    );
    for &k in &ks {
        let (theta, cost) = support::instance(k);
        // About 0.2 s of simulation per measurement, at least 5 slots per channel.
        let horizon: u64 = if smoke {
            2_000
        } else {
            (2_000_000 / k as u64).max(5 * k as u64).max(20_000)
        };
        for spec in &policies {
            let mut best = f64::INFINITY;
            for _ in 0..if smoke { 1 } else { 3 } {
                let scenario = support::scenario(&theta, &cost, &[("p", spec)], horizon, 1);
                let start = Instant::now();
                black_box(support::run(Simulation::new(scenario)));
                best = best.min(start.elapsed().as_nanos() as f64 / horizon as f64);
            }
            println!(
                "{:<26} {:>6} {:>9} {:>12.1} {:>14.2}",
                spec,
                k,
                horizon,
                best,
                best / k as f64
            );
        }
    }
}
