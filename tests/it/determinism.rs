//! Same scenario, same seed, any thread count: byte-identical outputs.

use crate::common::{fig1a, run, scenario_file};

fn outputs(dir: &std::path::Path) -> (Vec<u8>, Vec<u8>) {
    (
        std::fs::read(dir.join("summary.json")).unwrap(),
        std::fs::read(dir.join("curves.csv")).unwrap(),
    )
}

#[test]
fn thread_count_does_not_change_a_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let policies = r#"(policy: CcUcb()), (policy: ThompsonSampling()), (policy: RandomList(list_len: 2)), (policy: CascadeKlUcb(list_len: 3))"#;
    let path = scenario_file(tmp.path(), "d.ron", &fig1a(3000, 7, policies));
    let mut seen = Vec::new();
    for threads in [1, 2, 3] {
        let out = tmp.path().join(format!("t{threads}"));
        run(&path, &out, threads);
        seen.push(outputs(&out));
    }
    assert_eq!(seen[0], seen[1], "--threads 1 vs 2");
    assert_eq!(seen[0], seen[2], "--threads 1 vs 3");
}

#[test]
fn grids_are_deterministic_and_seeds_matter() {
    let tmp = tempfile::tempdir().unwrap();
    let text = r#"Regret(
        name: "grid", seed: 3, horizon: 2000, runs: 5,
        grid: [
            (label: "a", channels: [(count: 2, theta: 0.5, cost: Bernoulli(0.4)), (count: 3, theta: 0.3, cost: Bernoulli(0.4))]),
            (label: "b", channels: [(count: 4, theta: 0.6, cost: Uniform(lo: 0.2, hi: 0.6))]),
        ],
        policies: [(policy: CcUcb()), (policy: CcUcbKnownCost())],
    )"#;
    let path = scenario_file(tmp.path(), "g.ron", text);
    run(&path, &tmp.path().join("one"), 1);
    run(&path, &tmp.path().join("two"), 2);
    assert_eq!(
        outputs(&tmp.path().join("one")),
        outputs(&tmp.path().join("two"))
    );
    let other = scenario_file(tmp.path(), "g2.ron", &text.replace("seed: 3", "seed: 4"));
    run(&other, &tmp.path().join("three"), 2);
    assert_ne!(
        outputs(&tmp.path().join("one")).0,
        outputs(&tmp.path().join("three")).0
    );
}
