//! Slot-loop speed of CC-UCB in specprobe's engine against the hand-written floor, and the cost
//! of a user's policy (a `Box<dyn Policy>`: one dynamic call per plan and per observe).
//!
//! `cargo bench --bench slot_loop`. Each iteration simulates one whole run through the public
//! API (`Simulation`, one thread, no files), realised regret included; throughput is in slots,
//! so criterion's `thrpt` is slots per second (ns per slot = 1e9 / thrpt).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use specprobe::{CustomPolicy, Policy, Scenario, Simulation};
use std::hint::black_box;
use std::sync::Arc;

mod handwritten;
mod support;

#[path = "../examples/custom_policy.rs"]
#[allow(dead_code)]
mod custom_policy;

const CC_UCB: &str = "CcUcb(alpha: 1.5, epsilon: 1e-5)";

fn engine(scenario: &Scenario) -> f64 {
    let summary = support::run(Simulation::new(scenario.clone()));
    support::pseudo_regret(&summary, "cc-ucb")
}

fn cc_ucb(c: &mut Criterion) {
    let mut group = c.benchmark_group("cc_ucb_slot");
    group.sample_size(10);
    for (k, horizon) in [(6usize, 200_000u64), (64, 50_000), (1024, 10_000)] {
        let (theta, cost) = support::instance(k);
        let scenario = support::scenario(&theta, &cost, &[("cc-ucb", CC_UCB)], horizon, 1);
        // Same random numbers, same arithmetic: the comparison is fair only if the results agree.
        assert_eq!(
            engine(&scenario),
            handwritten::cc_ucb(&theta, &cost, 1.5, 1e-5, horizon, 1).pseudo_regret
        );
        group.throughput(Throughput::Elements(horizon));
        group.bench_function(BenchmarkId::new("specprobe", k), |b| {
            b.iter(|| engine(black_box(&scenario)))
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
    let (theta, cost) = support::instance(6);
    let builtin = support::scenario(&theta, &cost, &[("cc-ucb", CC_UCB)], horizon, 1);
    // The scenario's own policy is a cheap stand-in; the user's policy is added to it.
    let host = support::scenario(&theta, &cost, &[("host", "Oracle")], horizon, 1);
    group.throughput(Throughput::Elements(horizon));
    group.bench_function("cc-ucb built-in", |b| {
        b.iter(|| engine(black_box(&builtin)))
    });
    group.bench_function("cc-ucb boxed", |b| {
        b.iter(|| {
            let boxed = CustomPolicy::from_factory(
                "boxed CC-UCB",
                Arc::new(|env| specprobe::builtin_policy(CC_UCB, env).unwrap()),
            );
            support::run(Simulation::new(host.clone()).custom_policy("boxed", boxed))
        })
    });
    group.bench_function("eps-greedy boxed", |b| {
        b.iter(|| {
            support::run(
                Simulation::new(host.clone())
                    .policy("eps", |env| custom_policy::EpsGreedy::new(env.len())),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, cc_ucb, user_policy);
criterion_main!(benches);

/// Keeps `Policy` in scope for the example module's impls.
#[allow(dead_code)]
fn _uses(_: &dyn Policy) {}
