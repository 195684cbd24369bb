//! The reward by the time left in the slot: Liang et al.'s throughput reproduced by simulation
//! (against the closed form), the dynamic-programme benchmark as the oracle, the rules named.

use crate::common::{run, scenario_file};
use specprobe::math;
use specprobe::parse;
use specprobe::sensing::SensingThroughput;
use std::path::Path;

/// Liang et al.'s one-channel setting at sensing time `tau` (seconds) and primary SNR `db`.
fn liang(db: f64, tau: f64, horizon: u64) -> String {
    let gamma = math::powf(10f64, db / 10.0);
    format!(
        r#"Regret(
    name: "liang",
    seed: 5,
    horizon: {horizon},
    runs: 2,
    weights: (energy: 1.0, delay: 0.0),
    slot: (duration: 0.1),
    reward: TimeLeft(rate: {c0:?}, busy_rate: {c1:?}),
    channels: [(theta: 0.8, energy: Constant(0.0),
                sensing: EnergyDetector(snr_db: {db:?}, sample_rate: 6e6, duration: {tau:?}, target_pd: 0.9))],
    policies: [(policy: Oracle)],
)"#,
        c0 = math::log2(101f64),
        c1 = math::log2(1.0 + 100.0 / (1.0 + gamma)),
    )
}

/// The simulated throughput of every sensing time equals Liang et al.'s R(τ) within 4
/// standard errors (2 × 10⁵ frames each), and the benchmark's expected reward is R(τ) itself.
#[test]
fn simulated_throughput_is_liangs_closed_form() {
    let dir = tempfile::tempdir().unwrap();
    for (db, tau) in [
        (-15.0, 0.0026),
        (-15.0, 0.0005),
        (-20.0, 0.014),
        (-20.0, 0.05),
    ] {
        let closed = SensingThroughput {
            frame: 0.1,
            sample_rate: 6e6,
            p_busy: 0.2,
            secondary_snr: 100.0,
            primary_snr: math::powf(10f64, db / 10.0),
            target_pd: 0.9,
        }
        .throughput(tau);
        let name = format!("l{}-{}", -db as i64, (tau * 1e4) as i64);
        let s = run(
            &scenario_file(dir.path(), &format!("{name}.ron"), &liang(db, tau, 100_000)),
            &dir.path().join(&name),
            2,
        );
        let e = &s.experiments()[0];
        assert!(
            (e.optimum.expected_reward - closed).abs() < 1e-9,
            "{db} dB, τ = {tau}: benchmark {} vs R(τ) {closed}",
            e.optimum.expected_reward
        );
        let tl = e.time_left.as_ref().expect("the rule in the summary");
        assert_eq!(tl.rates.len(), 1);
        // Realised reward per slot: 2 runs × 10⁵ frames; its per-frame sd is at most C₀.
        let reward = e.policies[0].reward_per_slot;
        let se = math::log2(101f64) / (2.0e5f64).sqrt();
        assert!(
            (reward - closed).abs() < 4.0 * se,
            "{db} dB, τ = {tau}: simulated {reward} vs R(τ) {closed} (4 s.e. = {})",
            4.0 * se
        );
    }
}

/// With adaptive modulation the benchmark is the programme's order, not decreasing
/// availability; the oracle's realised reward is its expected value, and a learner's
/// pseudo-regret is measured against it.
#[test]
fn the_benchmark_is_the_optimal_sensing_order() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"Regret(
    name: "order", seed: 3, horizon: 40000, runs: 4,
    weights: (energy: 1.0, delay: 0.0),
    slot: (duration: 1.0),
    reward: TimeLeft(rates: [0.5, 0.6, 2.0, 3.0]),
    channels: [
        (theta: 0.9, energy: Constant(0.01), delay: Constant(0.1)),
        (theta: 0.85, energy: Constant(0.01), delay: Constant(0.1)),
        (theta: 0.6, energy: Constant(0.01), delay: Constant(0.1)),
        (theta: 0.3, energy: Constant(0.01), delay: Constant(0.1)),
    ],
    policies: [(policy: Oracle), (policy: CcUcb(alpha: 1.5))],
)"#;
    let s = run(
        &scenario_file(dir.path(), "o.ron", text),
        &dir.path().join("o"),
        2,
    );
    let e = &s.experiments()[0];
    // Rates 3.0 and 2.0 first: 0.3·3·0.9 = 0.81 beats 0.9·0.5·0.9 = 0.405 at the same time.
    assert_eq!(e.optimum.list[..2], [3, 2], "{:?}", e.optimum.list);
    let oracle = &e.policies[0];
    // 1.6 × 10⁵ slots of a reward within [−0.04, 3]: a standard error below 0.008.
    assert!(
        (oracle.reward_per_slot - e.optimum.expected_reward).abs() < 0.03,
        "{} vs {}",
        oracle.reward_per_slot,
        e.optimum.expected_reward
    );
    assert_eq!(oracle.pseudo_regret.mean, 0.0);
    assert!(e.policies[1].pseudo_regret.mean > 0.0);
}

/// Every rule of `reward: TimeLeft` is named at its field.
#[test]
fn time_left_rules_are_named() {
    let base = r#"Regret(
    name: "r", seed: 1, horizon: 10, runs: 1,
    weights: (energy: 1.0, delay: DELAY),
    SLOT
    reward: TimeLeft(REWARD),
    channels: [(theta: 0.5, energy: Constant(0.1), delay: Constant(0.1)),
               (theta: 0.5, energy: Constant(0.1), delay: Constant(0.1))],
    policies: [(policy: Oracle)],
)"#;
    for (delay, slot, reward, field, rule) in [
        ("0.0", "", "", "reward.TimeLeft", "slot: (duration"),
        (
            "1.0",
            "slot: (duration: 1.0),",
            "",
            "reward.TimeLeft",
            "weights.delay",
        ),
        (
            "0.0",
            "slot: (duration: 1.0),",
            "rates: [1.0]",
            "reward.TimeLeft.rates",
            "one per channel",
        ),
        (
            "0.0",
            "slot: (duration: 1.0),",
            "rates: [1.0, -2.0]",
            "reward.TimeLeft.rates[1]",
            "≥ 0",
        ),
        (
            "0.0",
            "slot: (duration: 1.0),",
            "rate: 0.0",
            "reward.TimeLeft.rate",
            "positive",
        ),
        (
            "0.0",
            "slot: (duration: 1.0),",
            "busy_rate: -1.0",
            "reward.TimeLeft.busy_rate",
            "≥ 0",
        ),
        // Finite, but a run's rewards overflowed and the report failed at the end on a
        // `ci95` message that never named the field (issue 50, item 5).
        (
            "0.0",
            "slot: (duration: 1.0),",
            "rate: 1e308",
            "reward.TimeLeft.rate",
            "must be at most 1e100",
        ),
        (
            "0.0",
            "slot: (duration: 1.0),",
            "rates: [1.0, 1e200]",
            "reward.TimeLeft.rates[1]",
            "must be at most 1e100",
        ),
        (
            "0.0",
            "slot: (duration: 1.0),",
            "busy_rate: 1e101",
            "reward.TimeLeft.busy_rate",
            "squares summed over runs must stay finite",
        ),
    ] {
        let text = base
            .replace("DELAY", delay)
            .replace("SLOT", slot)
            .replace("REWARD", reward);
        let err = parse(&text, Path::new("r.ron")).unwrap_err().to_string();
        assert!(
            err.contains(field) && err.contains(rule),
            "{reward}:\n{err}"
        );
    }
    let big = base
        .replace("DELAY", "0.0")
        .replace("SLOT", "slot: (duration: 1.0),")
        .replace("REWARD", "")
        .replace(
            "channels: [",
            "channels: [(theta: 0.5, energy: Constant(0.1), delay: Constant(0.1), count: 20),",
        );
    let err = parse(&big, Path::new("r.ron")).unwrap_err().to_string();
    assert!(err.contains("at most 20 channels"), "{err}");
}

/// The learner the programme suggests learns the optimal sensing order: its pseudo-regret is
/// far below the simple orders' with the true statistics and CC-UCB's, which ignores rates;
/// the order of decreasing availability × rate beats that of availability alone.
#[test]
fn the_programme_learner_beats_the_simple_orders() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"Regret(
    name: "learn", seed: 11, horizon: 20000, runs: 4,
    weights: (energy: 1.0, delay: 0.0),
    slot: (duration: 1.0),
    reward: TimeLeft(rates: [1.0, 1.8, 1.2, 0.6, 1.5]),
    channels: [
        (theta: 0.9, energy: Constant(0.05), delay: Constant(0.15)),
        (theta: 0.3, energy: Constant(0.05), delay: Constant(0.15)),
        (theta: 0.6, energy: Bernoulli(0.1), delay: Constant(0.15)),
        (theta: 0.5, energy: Constant(0.05), delay: Constant(0.15)),
        (theta: 0.4, energy: Constant(0.05), delay: Constant(0.15)),
    ],
    policies: [(policy: TimeLeftUcb), (policy: CcUcb), (policy: AvailabilityOrder),
               (policy: RateOrder), (policy: Oracle)],
)"#;
    let s = run(
        &scenario_file(dir.path(), "l.ron", text),
        &dir.path().join("l"),
        2,
    );
    let e = &s.experiments()[0];
    let regret: Vec<f64> = e.policies.iter().map(|p| p.pseudo_regret.mean).collect();
    let (learner, cc, availability, rate, oracle) =
        (regret[0], regret[1], regret[2], regret[3], regret[4]);
    assert_eq!(oracle, 0.0);
    assert!(availability > 0.0 && rate > 0.0, "{regret:?}");
    assert!(rate < availability, "{regret:?}");
    assert!(learner < 0.2 * availability.min(cc), "{regret:?}");
}

/// On/off channels can come back busy inside a slot: a transmission the primary user's return
/// interrupts is counted (`pu_returns_per_slot`) and earns nothing (`Lost`) or the part sent
/// before the return (`Prorated`); i.i.d. channels never return inside a slot. Checked against
/// the exponential holding times' closed form, and sharded runs merge to the same summary.
#[test]
fn the_primary_users_return_interrupts_the_transmission() {
    let dir = tempfile::tempdir().unwrap();
    // Idle periods exponential with mean 2 slots, busy 1 (θ = 2/3), probes of 0.1 slot: the
    // oracle probes channel 0 at the slot's start and, when busy, channel 1 at 0.1. A return
    // before the slot's end after the probe instant interrupts: with probability 1 − e^(−1/2)
    // on channel 0 and 1 − e^(−0.9/2) on channel 1 (memoryless idle periods).
    let scenario = |rule: &str, occupancy: &str| {
        format!(
            r#"Regret(
    name: "ret", seed: 4, horizon: 50000, runs: 4,
    weights: (energy: 1.0, delay: 0.0),
    slot: (duration: 1.0),
    reward: TimeLeft(rate: 1.0{rule}),
    channels: [
        ({occupancy}, energy: Constant(0.0), delay: Constant(0.1)),
        ({occupancy}, energy: Constant(0.0), delay: Constant(0.1)),
    ],
    policies: [(policy: Oracle), (policy: CcUcb)],
)"#
        )
    };
    let on_off = "occupancy: OnOff(idle: Exponential(mean: 2.0), busy: Exponential(mean: 1.0))";
    let lost = run(
        &scenario_file(dir.path(), "lost.ron", &scenario("", on_off)),
        &dir.path().join("lost"),
        2,
    );
    let prorated = run(
        &scenario_file(
            dir.path(),
            "pro.ron",
            &scenario(", on_return: Prorated", on_off),
        ),
        &dir.path().join("pro"),
        2,
    );
    let iid = run(
        &scenario_file(dir.path(), "iid.ron", &scenario("", "theta: 0.6667")),
        &dir.path().join("iid"),
        2,
    );
    let (l, p) = (
        &lost.experiments()[0].policies[0],
        &prorated.experiments()[0].policies[0],
    );
    let stat = l.pu_returns_per_slot.expect("counted under TimeLeft");
    // A statistic over the runs like every other (issue 50, item 11): its n is the runs, and
    // its spread is the runs' (each run's own count over T).
    assert_eq!(stat.n, l.pseudo_regret.n);
    assert!(stat.stderr > 0.0 && stat.stderr < 0.01, "{stat:?}");
    assert!(stat.ci95.is_some(), "{stat:?}");
    let returns = stat.mean;
    // runs.csv has each run's count (issue 50, item 11): whole numbers whose mean over T is
    // the summary's, and none where nothing counts them.
    let runs = std::fs::read_to_string(dir.path().join("lost/runs.csv")).unwrap();
    let head: Vec<&str> = runs.lines().next().unwrap().split(',').collect();
    assert_eq!(head.last(), Some(&"pu_returns"), "{head:?}");
    let counts: Vec<f64> = runs
        .lines()
        .skip(1)
        .filter(|line| line.split(',').nth(1) == Some(l.name.as_str()))
        .map(|l| l.rsplit(',').next().unwrap().parse::<u64>().unwrap() as f64)
        .collect();
    assert_eq!(counts.len() as u64, stat.n);
    let mean = counts.iter().sum::<f64>() / counts.len() as f64 / 50_000.0;
    assert!((mean - returns).abs() < 1e-15, "{mean} vs {returns}");
    let (first, second) = (2.0 / 3.0, 2.0 / 9.0);
    let expected = first * (1.0 - math::exp(-0.5f64)) + second * (1.0 - math::exp(-0.45f64));
    // 2 × 10⁵ slots: a binomial standard error below 0.0012 (idle periods span slots, so a
    // little more).
    assert!(
        (returns - expected).abs() < 0.006,
        "{returns} vs {expected}"
    );
    assert_eq!(
        p.pu_returns_per_slot,
        Some(stat),
        "the same paths either way"
    );
    // Lost: only uninterrupted transmissions earn (0.9 of a slot on channel 0, 0.8 on 1).
    let clean = first * math::exp(-0.5f64) * 0.9 + second * math::exp(-0.45f64) * 0.8;
    assert!(
        (l.reward_per_slot - clean).abs() < 0.006,
        "{} vs {clean}",
        l.reward_per_slot
    );
    assert!(
        p.reward_per_slot > l.reward_per_slot + 0.05,
        "{} {}",
        p.reward_per_slot,
        l.reward_per_slot
    );
    let none = iid.experiments()[0].policies[0]
        .pu_returns_per_slot
        .unwrap();
    assert_eq!((none.mean, none.std), (0.0, 0.0));
    // Shards merge to the same summary, interruptions included.
    let path = dir.path().join("lost.ron");
    let parts: Vec<std::path::PathBuf> = (0..2)
        .map(|i| {
            let out = dir.path().join(format!("part{i}"));
            specprobe::commands::run(&specprobe::commands::RunArgs {
                scenario: path.clone(),
                out: Some(out.clone()),
                threads: Some(1),
                shard: Some(specprobe::Shard { index: i, count: 2 }),
                charts: crate::common::no_charts(),
                ..Default::default()
            })
            .unwrap();
            out
        })
        .collect();
    let merged = dir.path().join("merged");
    specprobe::commands::merge(&specprobe::commands::MergeArgs {
        inputs: parts,
        out: Some(merged.clone()),
        charts: crate::common::no_charts(),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(
        std::fs::read(merged.join("summary.json")).unwrap(),
        std::fs::read(dir.path().join("lost").join("summary.json")).unwrap()
    );
}

/// A many-users scenario takes `reward: TimeLeft` under the same rules, named at the same
/// fields, and refuses it beside per-user means (whose benchmark is the unit reward's); the
/// shipped many-users scenario runs, its benchmark the disjoint time-left lists, its
/// interrupted transmissions counted.
#[test]
fn many_users_take_the_time_left_reward() {
    let base = r#"MultiUser(
    name: "m", seed: 1, horizon: 10, runs: 1, users: 2,
    weights: (energy: 1.0, delay: 0.0),
    SLOT
    reward: TimeLeft(REWARD),
    EXTRA
    channels: [(theta: 0.5, energy: Constant(0.1), delay: Constant(0.1)),
               (theta: 0.5, energy: Constant(0.1), delay: Constant(0.1))],
    policies: [(policy: Selfish(policy: CcUcb))],
)"#;
    for (slot, reward, extra, field, rule) in [
        ("", "", "", "reward.TimeLeft", "slot: (duration"),
        (
            "slot: (duration: 1.0),",
            "rates: [1.0]",
            "",
            "reward.TimeLeft.rates",
            "one per channel",
        ),
        (
            "slot: (duration: 1.0),",
            "",
            "user_theta: [[0.5, 0.4], [0.5, 0.6]],",
            "user_theta",
            "does not combine with `reward: TimeLeft`",
        ),
    ] {
        let text = base
            .replace("SLOT", slot)
            .replace("REWARD", reward)
            .replace("EXTRA", extra);
        let err = parse(&text, Path::new("m.ron")).unwrap_err().to_string();
        assert!(
            err.contains(field) && err.contains(rule),
            "{reward} {extra}:\n{err}"
        );
    }
    let ok = base
        .replace("SLOT", "slot: (duration: 1.0),")
        .replace("REWARD", "")
        .replace("EXTRA", "");
    assert!(parse(&ok, Path::new("m.ron")).is_ok());

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mtl");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_specprobe"))
        .args([
            "run",
            "scenarios/multi-time-left.ron",
            "--runs",
            "4",
            "--horizon",
            "3000",
        ])
        .args(["--no-charts", "--threads", "2", "--out"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    let benchmark = summary.to_string();
    assert!(
        benchmark.contains("disjoint time-left optimal lists"),
        "{benchmark}"
    );
    // runs.csv (streamed as the runs finish) ends with each run's count, whose mean over the
    // user-slots is the summary's.
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert!(runs.lines().next().unwrap().ends_with(",pu_returns"));
    for p in summary["policies"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        let counts: Vec<f64> = runs
            .lines()
            .filter(|l| l.split(',').next() == Some(name))
            .map(|l| l.rsplit(',').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(counts.len(), 4);
        let per_slot = counts.iter().sum::<f64>() / 4.0 / 3000.0;
        let mean = p["pu_returns_per_slot"]["mean"].as_f64().unwrap();
        assert!(
            (per_slot - mean).abs() < 1e-12,
            "{name}: {per_slot} vs {mean}"
        );
    }
    for p in summary["policies"].as_array().unwrap() {
        let returns = p["pu_returns_per_slot"]["mean"].as_f64().expect("counted");
        assert!(p["pu_returns_per_slot"]["stderr"].as_f64().is_some());
        // Idle periods of 10 to 30 slots: a return inside a given slot is a few per cent.
        assert!(returns > 0.0 && returns < 0.5, "{returns}");
        assert!(p["at_horizon"]["pseudo_regret"].is_null(), "no closed form");
    }
}

/// A sweep under `reward: TimeLeft` draws the reward per slot against the swept value (the
/// sensing–throughput curve of a sensing-time sweep) with each policy's best value marked, on an
/// axis that ends at the last value (sensing times in seconds were stretched to 1); a sweep
/// under the unit reward draws no such chart.
#[test]
fn a_time_left_sweep_draws_its_throughput_curve() {
    let dir = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_specprobe");
    let run = |scenario: &str, out: &str| {
        let o = std::process::Command::new(bin)
            .args([
                "run",
                scenario,
                "--horizon",
                "2000",
                "--runs",
                "2",
                "--format",
                "svg",
            ])
            .args(["--threads", "2", "--out"])
            .arg(dir.path().join(out))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    run("scenarios/liang-2008-snr-15.ron", "liang");
    let svg = std::fs::read_to_string(dir.path().join("liang/sweep-reward-per-slot.svg")).unwrap();
    assert!(
        svg.contains("each policy") && svg.contains("reward per slot"),
        "{svg:.300}"
    );
    assert!(
        svg.contains("0.005") && !svg.contains(">1<"),
        "the axis ends at 5 ms"
    );
    run("scenarios/sweep-alpha.ron", "alpha");
    assert!(!dir.path().join("alpha/sweep-reward-per-slot.svg").exists());
}
