//! Moving channels end to end: common random numbers, the Markov chain's i.i.d. limit, exact
//! trace replay, probe timing inside a slot, collisions with the primary user.

use crate::common::scenario_file;
use specprobe::Simulation;
use specprobe::math;
use specprobe::summary::RegretSummary;
use std::collections::BTreeMap;

/// A finished run's summary and its `runs.csv`: (policy, run, values at the horizon by column).
struct Finished {
    summary: RegretSummary,
    runs: Vec<(String, u64, BTreeMap<String, f64>)>,
}

fn results(dir: &std::path::Path, text: &str) -> Finished {
    let path = scenario_file(dir, "s.ron", text);
    let out = dir.join("out");
    let results = Simulation::from_file(&path)
        .unwrap()
        .threads(2)
        .run()
        .unwrap();
    results
        .write_replacing(&out, &crate::common::no_charts(), specprobe::Replace::Any)
        .unwrap();
    let mut csv = csv::Reader::from_path(out.join("runs.csv")).unwrap();
    let header: Vec<String> = csv.headers().unwrap().iter().map(String::from).collect();
    let runs = csv
        .records()
        .map(|r| {
            let r = r.unwrap();
            let values = header
                .iter()
                .zip(r.iter())
                .skip(3)
                .map(|(h, v)| (h.clone(), v.parse::<f64>().unwrap()))
                .collect();
            (r[1].to_string(), r[2].parse().unwrap(), values)
        })
        .collect();
    Finished {
        summary: results.regret().unwrap().summary(),
        runs,
    }
}

/// Each run's values at the horizon for the policy labelled `label`, in run order.
fn finals(r: &Finished, label: &str) -> Vec<(u64, BTreeMap<String, f64>)> {
    r.runs
        .iter()
        .filter(|(p, _, _)| p == label)
        .map(|(_, run, v)| (*run, v.clone()))
        .collect()
}

const CHANNELS: &str = r#"
        (occupancy: Markov(idle_to_busy: 0.02, busy_to_idle: 0.08), cost: Bernoulli(0.5)),
        (occupancy: OnOff(idle: Exponential(mean: 6.0), busy: GeneralizedPareto(shape: 0.3, scale: 3.0)), energy: Uniform(lo: 0.2, hi: 0.6), delay: Uniform(lo: 1.0, hi: 3.0)),
        (occupancy: Piecewise([(until: 700, theta: 0.9), (theta: 0.2)]), cost: Bernoulli(0.4), sensing: (false_alarm: 0.1, missed_detection: 0.2)),
        (theta: 0.5, cost: Beta(alpha: 2.0, beta: 3.0), sensing: (false_alarm: 0.05, missed_detection: 0.3)),
"#;

/// Every policy of a run sees the same spectrum: the oracle, the benchmark itself, has realised
/// regret exactly 0 in every run, whatever the process; two policies that make the same
/// decisions (two copies of CC-UCB under different labels) see identical rewards, run by run.
#[test]
fn common_random_numbers_pair_the_policies() {
    let dir = tempfile::tempdir().unwrap();
    let r = results(
        dir.path(),
        &format!(
            r#"Regret(name: "crn", seed: 4, horizon: 1500, runs: 6, slot: (duration: 5.0),
               weights: (energy: 0.5, delay: 0.1),
               channels: [{CHANNELS}],
               policies: [(policy: Oracle), (label: "a", policy: CcUcb), (label: "b", policy: CcUcb),
                          (policy: ThompsonSampling)])"#
        ),
    );
    for (_, row) in finals(&r, "oracle") {
        assert_eq!(row["realized_regret"], 0.0);
        assert_eq!(row["pseudo_regret"], 0.0);
    }
    assert_eq!(finals(&r, "a"), finals(&r, "b"));
    assert_ne!(finals(&r, "a"), finals(&r, "cost-aware-ts"));
    // The realised regret is the benchmark's reward minus the policy's, run by run.
    let oracle = finals(&r, "oracle");
    for (run, row) in finals(&r, "cost-aware-ts") {
        let bench = &oracle.iter().find(|(r2, _)| *r2 == run).unwrap().1;
        assert_eq!(row["realized_regret"], bench["reward"] - row["reward"]);
    }
}

/// A Markov chain with idle_to_busy + busy_to_idle = 1 redraws its state every slot: the i.i.d.
/// law. CC-UCB's regret on Figure 1(a)'s instance written either way agrees within noise:
/// the two means differ by less than 4 standard errors of their difference (40 runs each).
#[test]
fn markov_with_rates_summing_to_one_is_iid() {
    let dir = tempfile::tempdir().unwrap();
    let thetas = [0.8, 0.7, 0.6, 0.5, 0.4, 0.3];
    let iid: Vec<String> = thetas
        .iter()
        .map(|t| format!("(theta: {t}, cost: Bernoulli(0.55))"))
        .collect();
    let markov: Vec<String> = thetas
        .iter()
        .map(|t| {
            format!(
                "(occupancy: Markov(idle_to_busy: {}, busy_to_idle: {t}), cost: Bernoulli(0.55))",
                1.0 - t
            )
        })
        .collect();
    let run = |channels: &[String], seed: u64| {
        let r = results(
            dir.path(),
            &format!(
                r#"Regret(name: "m", seed: {seed}, horizon: 20000, runs: 40,
                   channels: [{}], policies: [(policy: CcUcb)])"#,
                channels.join(", ")
            ),
        );
        let v = &r.summary.experiments()[0].policies[0].pseudo_regret;
        (v.mean, v.std / 40f64.sqrt())
    };
    let (a, sa) = run(&iid, 1);
    let (b, sb) = run(&markov, 2);
    assert!(
        (a - b).abs() < 4.0 * math::hypot(sa, sb),
        "i.i.d. {a} ± {sa} vs Markov(a + b = 1) {b} ± {sb}"
    );
    // And a bursty chain of the same θ does differ (the test can fail).
    let bursty: Vec<String> = thetas
        .iter()
        .map(|t| {
            format!(
                "(occupancy: Markov(idle_to_busy: {}, busy_to_idle: {}), cost: Bernoulli(0.55))",
                (1.0 - t) * 0.01,
                t * 0.01
            )
        })
        .collect();
    let (c, sc) = run(&bursty, 3);
    assert!(
        (a - c).abs() > 4.0 * math::hypot(sa, sc),
        "{a} vs bursty {c}"
    );
}

/// A hand-made trace replays exactly: with a free probe of the one channel every slot, the idle
/// slots found are the trace's ones over the horizon (wrapped), in every run.
#[test]
fn trace_replay_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("t.txt"),
        "# slot occupancy\n1 0\n0 0\n1 1\n1 0\n0 1\n",
    )
    .unwrap();
    let r = results(
        dir.path(),
        r#"Regret(name: "tr", seed: 1, horizon: 12, runs: 3,
           channels: [(occupancy: Trace(file: "t.txt", column: 1, wrap: true), cost: Constant(0.0))],
           policies: [(policy: Oracle)])"#,
    );
    // Column 1 is 1,0,1,1,0 repeated: 12 slots hold 3 + 3 + 1 (slots 11, 12: 1, 0) = 7.
    for (_, row) in finals(&r, "oracle") {
        assert_eq!(row["idle_found"], 7.0);
        assert_eq!(row["probes"], 12.0);
    }
}

/// Probe timing: with delays of 4 ms and a 10 ms slot, probes start at 0, 4 and 8 ms and the
/// fourth would start at 12 ms, after the slot: never more than 3 probes, however long the list.
#[test]
fn a_probe_that_would_start_after_the_slot_is_not_made() {
    let dir = tempfile::tempdir().unwrap();
    let r = results(
        dir.path(),
        r#"Regret(name: "timing", seed: 1, horizon: 500, runs: 2, slot: (duration: 10.0),
           weights: (energy: 0.1, delay: 0.01),
           channels: [(count: 6, theta: 0.0, energy: Constant(1.0), delay: Constant(4.0))],
           policies: [(policy: RandomList)])"#,
    );
    let p = &r.summary.experiments()[0].policies[0];
    assert_eq!(p.probes_per_slot.max, 3.0);
    assert_eq!(p.probes_per_slot.mean, 3.0);
}

/// Sensing: a busy channel always sensed idle makes the user transmit into the primary user
/// every slot: a collision per slot, no reward; an idle channel always sensed busy is a missed
/// opportunity per probe.
#[test]
fn collisions_and_missed_opportunities_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let r = results(
        dir.path(),
        r#"Regret(name: "sensing", seed: 1, horizon: 300, runs: 2,
           channels: [
               (theta: 1.0, cost: Constant(0.1), sensing: (false_alarm: 1.0)),
               (theta: 0.0, cost: Constant(0.1), sensing: (missed_detection: 1.0)),
           ],
           policies: [(label: "both", policy: RandomList)])"#,
    );
    for (_, row) in finals(&r, "both") {
        assert_eq!(row["pu_collisions"], 300.0);
        assert_eq!(row["idle_found"], 0.0);
        // Channel 0 comes first in about half the slots: each such probe is a missed
        // opportunity; no slot earns anything.
        let missed = row["missed_opportunities"];
        assert!(missed > 100.0 && missed < 200.0, "{missed}");
        assert!(row["reward"] < 0.0);
    }
}

/// Moving channels keep the determinism contract: any thread count and any shard split give
/// the same bytes.
#[test]
fn moving_channels_are_deterministic_across_threads_and_shards() {
    use specprobe::ChartOptions;
    use specprobe::Shard;
    let dir = tempfile::tempdir().unwrap();
    let path = scenario_file(
        dir.path(),
        "m.ron",
        &format!(
            r#"Regret(name: "moving", seed: 9, horizon: 900, runs: 5, slot: (duration: 5.0),
               weights: (energy: 0.5, delay: 0.1),
               channels: [{CHANNELS}],
               policies: [(policy: CcUcb), (policy: SwCcUcb(window: 200)), (policy: DCcUcb(discount: 0.99))])"#
        ),
    );
    let none = ChartOptions {
        formats: Vec::new(),
        ..ChartOptions::default()
    };
    let read = |d: &std::path::Path| {
        (
            std::fs::read(d.join("summary.json")).unwrap(),
            std::fs::read(d.join("curves.csv")).unwrap(),
        )
    };
    let mut outputs = Vec::new();
    for threads in [1, 3] {
        let out = dir.path().join(format!("t{threads}"));
        Simulation::from_file(&path)
            .unwrap()
            .threads(threads)
            .run()
            .unwrap()
            .write(&out, &none)
            .unwrap();
        outputs.push(read(&out));
    }
    assert_eq!(outputs[0], outputs[1]);
    let shards: Vec<std::path::PathBuf> = (0..2)
        .map(|i| {
            let d = dir.path().join(format!("shard{i}"));
            Simulation::from_file(&path)
                .unwrap()
                .shard(Shard { index: i, count: 2 })
                .run()
                .unwrap()
                .write(&d, &none)
                .unwrap();
            d
        })
        .collect();
    let merged = dir.path().join("merged");
    specprobe::merge_shards(&shards)
        .unwrap()
        .write(&merged, &none)
        .unwrap();
    assert_eq!(read(&merged), outputs[0]);
}
