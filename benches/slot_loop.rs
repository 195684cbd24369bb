//! Slot-loop speed of CC-UCB in specprobe's engine against the hand-written floor, and the cost
//! of a user's policy (a `Box<dyn Policy>`: one dynamic call per plan and per observe).
//!
//! `cargo bench --bench slot_loop`. Each iteration simulates one whole run; throughput is in
//! slots, so criterion's `thrpt` is slots per second (ns per slot = 1e9 / thrpt).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use specprobe::Policy;
use specprobe::channel::{Channel, Environment, Paths};
use specprobe::cost::CostModel;
use specprobe::crn::RunKey;
use specprobe::law::{Law, LawSpec};
use specprobe::policy::CcUcb;
use specprobe::recorder::{Metric, RunRecord};
use specprobe::stats::CheckpointSpec;
use std::hint::black_box;

mod handwritten;

#[path = "../examples/custom_policy.rs"]
#[allow(dead_code)]
mod custom_policy;

/// K = 6: the paper's Figure 1(a) instance. Larger K: θ spread over [0.1, 0.9] in a scrambled
/// order, Bernoulli(0.4) costs, so that about 5/8 of the channels are worth probing.
pub fn instance(k: usize) -> (Vec<f64>, Vec<f64>) {
    if k == 6 {
        return (vec![0.8, 0.7, 0.6, 0.5, 0.4, 0.3], vec![0.55; 6]);
    }
    let theta = (0..k)
        .map(|i| 0.1 + 0.8 * ((i * 7919) % k) as f64 / k as f64)
        .collect();
    (theta, vec![0.4; k])
}

fn environment(theta: &[f64], cost: &[f64]) -> Environment {
    Environment::new(
        theta
            .iter()
            .zip(cost)
            .map(|(&t, &c)| {
                Channel::new(
                    t,
                    CostModel::Plain(Law::new(&LawSpec::Bernoulli(c)).unwrap()),
                )
            })
            .collect(),
    )
}

fn engine(env: &Environment, horizon: u64, seed: u64) -> f64 {
    run_policy(
        env,
        &mut CcUcb::unknown_cost(env.len(), 1.5, 1e-5),
        horizon,
        seed,
    )
}

fn run_policy<P: Policy>(env: &Environment, policy: &mut P, horizon: u64, seed: u64) -> f64 {
    let checkpoints = CheckpointSpec::default().slots(horizon);
    let mut record = RunRecord::new(env.len(), checkpoints.len());
    let mut list = Vec::with_capacity(env.len());
    let mut rng = specprobe::rng::stream(seed, 0, 0);
    let mut paths = Paths::new(env, RunKey::new(seed, 0, 0));
    specprobe::sim::episode(
        env,
        policy,
        horizon,
        &checkpoints,
        &mut rng,
        &mut paths,
        &mut record,
        &mut list,
        &specprobe::Cancel::new(),
    );
    record.rows.last().unwrap()[Metric::PseudoRegret as usize]
}

fn cc_ucb(c: &mut Criterion) {
    let mut group = c.benchmark_group("cc_ucb_slot");
    group.sample_size(10);
    for (k, horizon) in [(6usize, 200_000u64), (64, 50_000), (1024, 10_000)] {
        let (theta, cost) = instance(k);
        let env = environment(&theta, &cost);
        // Same random numbers, same arithmetic: the comparison is fair only if the results agree.
        assert_eq!(
            engine(&env, horizon, 1),
            handwritten::cc_ucb(&theta, &cost, 1.5, 1e-5, horizon, 1).0
        );
        group.throughput(Throughput::Elements(horizon));
        group.bench_function(BenchmarkId::new("specprobe", k), |b| {
            b.iter(|| engine(black_box(&env), horizon, 1))
        });
        group.bench_function(BenchmarkId::new("handwritten", k), |b| {
            b.iter(|| handwritten::cc_ucb(black_box(&theta), &cost, 1.5, 1e-5, horizon, 1))
        });
    }
    group.finish();
}

/// A user's policy runs as `Box<dyn Policy>`. K = 6, Figure 1(a): CC-UCB built in (static
/// dispatch), the same CC-UCB boxed as a user policy would be, and the ε-greedy policy of
/// `examples/custom_policy.rs`, boxed.
fn user_policy(c: &mut Criterion) {
    let mut group = c.benchmark_group("user_policy_slot");
    group.sample_size(10);
    let horizon = 200_000u64;
    let (theta, cost) = instance(6);
    let env = environment(&theta, &cost);
    group.throughput(Throughput::Elements(horizon));
    group.bench_function("cc-ucb built-in", |b| {
        b.iter(|| engine(black_box(&env), horizon, 1))
    });
    group.bench_function("cc-ucb boxed", |b| {
        b.iter(|| {
            let mut p: Box<dyn Policy> = Box::new(CcUcb::unknown_cost(6, 1.5, 1e-5));
            run_policy(black_box(&env), &mut p, horizon, 1)
        })
    });
    group.bench_function("eps-greedy boxed", |b| {
        b.iter(|| {
            let mut p: Box<dyn Policy> = Box::new(custom_policy::EpsGreedy::new(6));
            run_policy(black_box(&env), &mut p, horizon, 1)
        })
    });
    group.finish();
}

criterion_group!(benches, cc_ucb, user_policy);
criterion_main!(benches);
