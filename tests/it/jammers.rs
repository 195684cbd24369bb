//! Jammers among the users of a many-users scenario (issue 48): a budget of 0 is the
//! jammer-free run bit for bit, the reduced benchmark is the top-M of the channels left, the
//! regret against it is accounted exactly, and bad jammers are refused naming the field.

use specprobe::{ChartOptions, Simulation};
use std::path::Path;

/// The data files of running `text` with the library (no charts), by name.
fn files(text: &str) -> std::collections::BTreeMap<String, Vec<u8>> {
    let s = specprobe::parse(text, Path::new("jam.ron")).unwrap();
    Simulation::new(s)
        .threads(2)
        .run()
        .unwrap()
        .files(&ChartOptions {
            formats: Vec::new(),
            ..ChartOptions::default()
        })
        .unwrap()
        .into_iter()
        .map(|f| (f.name.clone(), f.bytes))
        .collect()
}

fn summary(text: &str) -> serde_json::Value {
    serde_json::from_slice(&files(text)["summary.json"]).unwrap()
}

const MEANS: [f64; 5] = [0.2, 0.4, 0.6, 0.8, 0.9];

/// A scenario of `users` users on five channels (means [`MEANS`]) with `extra` fields.
fn scenario(users: usize, extra: &str, policies: &str) -> String {
    let channels: Vec<String> = MEANS
        .iter()
        .map(|t| format!("(theta: {t}, cost: Constant(0.0))"))
        .collect();
    format!(
        "MultiUser(name: \"jam\", seed: 11, horizon: 400, runs: 12, users: {users}, {extra} channels: [{}], policies: [{policies}])",
        channels.join(", ")
    )
}

/// With a budget of 0 (or a rate of 0) a jammer never jams and draws nothing: every data file
/// but the summary and the report (which list the jammers) is the jammer-free run's, byte for byte, for every
/// behaviour, one user or several, one channel per user or cascades, with and without sensing.
#[test]
fn a_jammer_without_budget_is_the_jammer_free_run_bit_for_bit() {
    let behaviours = [
        "Constant(channel: 4)",
        "Sweep(start: 2, step: 2)",
        "Random",
        "Coordinated(count: 2)",
        "Coordinated(channels: [0, 3])",
        "Coordinated(count: 3, moving: true)",
        "Reactive",
    ];
    let setups = [
        (1, "", "(policy: Selfish(policy: CcUcb()))"),
        (
            3,
            "feedback: SensingAndCollision,",
            "(policy: McTopM(index: KlUcb)), (policy: RandTopM(index: Ucb))",
        ),
        (
            2,
            "feedback: CollisionOnly,",
            "(policy: Selfish(policy: KlUcb(reward: Idle, noise: true)))",
        ),
        (2, "", "(policy: McTopMCascade(policy: CcUcb(alpha: 1.5)))"),
    ];
    for (users, extra, policies) in setups {
        let free = files(&scenario(users, extra, policies));
        for b in behaviours {
            for budget in ["budget: 0", "rate: 0.0"] {
                let jam = format!("{extra} jammers: [(behaviour: {b}, {budget})],");
                let jammed = files(&scenario(users, &jam, policies));
                assert!(free.keys().filter(|n| n.ends_with(".csv")).count() >= 4);
                for (name, bytes) in &free {
                    if name.ends_with(".csv") {
                        assert!(
                            &jammed[name] == bytes,
                            "{name} differs with {b}, {budget}, {users} users, {policies}"
                        );
                    }
                }
            }
        }
    }
}

/// A mutation check of the test above: a budget of one slot changes the runs (a reactive
/// jammer's one slot hits a channel a user was on the slot before, so nearly every run).
#[test]
fn one_jammed_slot_changes_the_runs() {
    let policies = "(policy: McTopM(index: KlUcb))";
    let free = files(&scenario(2, "", policies));
    let one = files(&scenario(
        2,
        "jammers: [(behaviour: Reactive, budget: 1)],",
        policies,
    ));
    assert_ne!(free["runs.csv"], one["runs.csv"]);
}

fn stat(v: &serde_json::Value) -> (f64, f64) {
    (v["mean"].as_f64().unwrap(), v["std"].as_f64().unwrap())
}

/// Coordinated jammers on the J best channels leave the top-M of the K − J others (one user:
/// the optimal cascade of the others): the reduced benchmark per slot is exactly their sum, and every run's regret against it is its
/// pseudo-regret less T times the difference of the benchmarks (the means agree to rounding).
#[test]
fn coordinated_jammers_leave_the_top_m_of_the_rest() {
    for (users, j) in [(2, 1), (2, 2), (3, 2), (1, 1)] {
        let policies = if users == 1 {
            "(policy: Selfish(policy: KlUcb(reward: Idle)))"
        } else {
            "(policy: CentralizedMultiplePlay(index: KlUcb))"
        };
        let text = scenario(
            users,
            &format!("jammers: [(behaviour: Coordinated(count: {j}))],"),
            policies,
        );
        let s = summary(&text);
        let jam = &s["jammers"];
        let left: Vec<usize> = (0..MEANS.len() - j).collect();
        assert_eq!(jam["channels_left"], serde_json::json!(left));
        let mut rest: Vec<f64> = MEANS[..MEANS.len() - j].to_vec();
        rest.sort_by(|a, b| b.total_cmp(a));
        // One user's benchmark is the single-user optimum, on free probes the cascade of
        // every channel left: 1 − Π(1 − θ).
        let reduced: f64 = if users == 1 {
            1.0 - rest.iter().map(|t| 1.0 - t).product::<f64>()
        } else {
            rest.iter().take(users).sum()
        };
        let got = jam["reduced_benchmark_per_slot"].as_f64().unwrap();
        assert!((got - reduced).abs() < 1e-12, "{got} vs {reduced}");
        let full = s["benchmark"]["expected_reward_per_slot"].as_f64().unwrap();
        let p = &s["policies"][0];
        let (pseudo, _) = stat(&p["at_horizon"]["pseudo_regret"]);
        let (vs_reduced, _) = stat(&p["jammed"]["regret_vs_reduced_benchmark"]);
        let want = pseudo - 400.0 * (full - reduced);
        assert!(
            (vs_reduced - want).abs() < 1e-9 * want.abs().max(1.0),
            "{vs_reduced} vs {want} ({users} users, J = {j})"
        );
        let (slots, sd) = stat(&p["jammed"]["channel_slots_jammed"]);
        assert_eq!((slots, sd), (400.0 * j as f64, 0.0));
    }
}

/// A centralized learner that learns from its acknowledgements (`CollisionOnly`) against a
/// coordinated jammer on the best channel: its regret against the reduced benchmark is its
/// regret on the K − 1 channels left (the same paths: the jammed channel is the last, so the
/// others keep their keys), plus what learning that the jammed channel pays nothing costs,
/// which grows like ln T: at most what its jammed transmissions lost, within 3 s.e.
#[test]
fn a_centralized_learner_pays_the_reduced_benchmark_plus_its_jammed_transmissions() {
    let policies = "(policy: CentralizedMultiplePlay(index: KlUcb))";
    let jammed = scenario(
        2,
        "feedback: CollisionOnly, jammers: [(behaviour: Coordinated(channels: [4]))],",
        policies,
    )
    .replace("horizon: 400, runs: 12", "horizon: 3000, runs: 200");
    let left = jammed
        .replace("jammers: [(behaviour: Coordinated(channels: [4]))],", "")
        .replace(", (theta: 0.9, cost: Constant(0.0))", "");
    let a = summary(&jammed);
    let b = summary(&left);
    let (r_a, sd_a) = stat(&a["policies"][0]["jammed"]["regret_vs_reduced_benchmark"]);
    let (r_b, sd_b) = stat(&b["policies"][0]["at_horizon"]["pseudo_regret"]);
    let (lost, _) = stat(&a["policies"][0]["jammed"]["transmissions_jammed"]);
    let se = (sd_a * sd_a / 200.0 + sd_b * sd_b / 200.0).sqrt();
    // Each jammed transmission loses at most the best free channel's mean, 0.8.
    assert!(r_a - r_b > -3.0 * se, "{r_a} vs {r_b} ± {se}");
    assert!(
        r_a - r_b < 0.8 * lost + 3.0 * se,
        "{r_a} vs {r_b} ± {se}, {lost} jammed"
    );
    assert!(lost > 0.0 && lost < 40.0, "{lost}");
}

/// Bad jammers: errors naming the file, the field and the rule.
#[test]
fn bad_jammers_are_refused_naming_the_field() {
    let policies = "(policy: McTopM(index: KlUcb))";
    let cases = [
        (
            "jammers: [(behaviour: Random, budget: -3)],",
            "jammers[0].budget",
            "0..=400",
        ),
        (
            "jammers: [(behaviour: Random, budget: 401)],",
            "jammers[0].budget",
            "at most the horizon",
        ),
        (
            "jammers: [(behaviour: Coordinated(count: 5))],",
            "jammers[0].behaviour.count",
            "J < K = 5",
        ),
        (
            "jammers: [(behaviour: Coordinated(channels: [0, 1, 2, 3, 4]))],",
            "jammers[0].behaviour.channels",
            "J < K = 5",
        ),
        (
            "jammers: [(behaviour: Constant(channel: 7))],",
            "jammers[0].behaviour.channel",
            "0..=4",
        ),
        (
            "jammers: [(behaviour: Random, rate: -0.5)],",
            "jammers[0].rate",
            "[0, 1]",
        ),
        (
            "jammers: [(behaviour: Coordinated(count: 2)), (behaviour: Coordinated(channels: [0, 1, 2]))],",
            "jammers",
            "leave at least one channel free",
        ),
    ];
    for (extra, field, rule) in cases {
        let err = specprobe::parse(&scenario(2, extra, policies), Path::new("jam.ron"))
            .expect_err(extra)
            .to_string();
        for needle in ["jam.ron", field, rule] {
            assert!(err.contains(needle), "{extra}: lacks {needle:?}:\n{err}");
        }
    }
}

/// Jammed runs split into shards merge to the unsharded run's bytes (the jammers' statistics
/// travel in `partial.json` and are checked there).
#[test]
fn sharded_jammed_runs_merge_to_the_unsharded_bytes() {
    use specprobe::Shard;
    use specprobe::commands::{self, MergeArgs, RunArgs};
    let tmp = tempfile::tempdir().unwrap();
    let text = scenario(
        3,
        "feedback: SensingAndCollision, jammers: [(behaviour: Reactive, budget: 200), (behaviour: Coordinated(count: 1))],",
        "(policy: McTopM(index: KlUcb)), (policy: RhoRand(index: Ucb))",
    );
    let path = tmp.path().join("jam.ron");
    std::fs::write(&path, text).unwrap();
    let charts = crate::common::no_charts();
    let run = |out: &Path, shard: Option<Shard>| {
        commands::run(&RunArgs {
            scenario: path.clone(),
            out: Some(out.to_path_buf()),
            threads: Some(2),
            shard,
            charts: charts.clone(),
            ..Default::default()
        })
        .unwrap();
    };
    let whole = tmp.path().join("whole");
    run(&whole, None);
    let parts: Vec<_> = (0..3)
        .map(|i| {
            let d = tmp.path().join(format!("shard{i}"));
            run(&d, Some(Shard { index: i, count: 3 }));
            d
        })
        .collect();
    let merged = tmp.path().join("merged");
    commands::merge(&MergeArgs {
        inputs: parts,
        out: Some(merged.clone()),
        charts: charts.clone(),
        ..Default::default()
    })
    .unwrap();
    for f in ["summary.json", "curves.csv", "runs.csv", "report.md"] {
        assert!(
            std::fs::read(whole.join(f)).unwrap() == std::fs::read(merged.join(f)).unwrap(),
            "{f} differs"
        );
    }
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(whole.join("summary.json")).unwrap()).unwrap();
    assert!(
        summary["policies"][0]["jammed"]["transmissions_jammed"]["mean"]
            .as_f64()
            .unwrap()
            > 0.0
    );
}

/// A sweep over a jammer's budget C: each policy's regret against C, with the line fitted
/// through the cells (recomputed here from the cells' means and standard errors). A learner
/// that learns from its sensing never sees a constant jammer on the best channel, so every
/// jammed slot costs it about that channel's mean, 0.9: the slope says so.
#[test]
fn a_sweep_over_the_budget_fits_the_regret_per_jammed_slot() {
    let text = scenario(
        2,
        "jammers: [(behaviour: Constant(channel: 4), budget: 0)],",
        "(policy: CentralizedMultiplePlay(index: KlUcb))",
    )
    .replace("runs: 12", "runs: 40")
    .replace(
        "policies: [",
        "sweep: (field: \"jammers[0].budget\", values: [0, 100, 200, 400]), policies: [",
    );
    let top = summary(&text);
    let p = &top["policies"][0];
    let points: Vec<(f64, f64, f64)> = p["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|pt| {
            let s = &pt["at_horizon"]["pseudo_regret"];
            (
                pt["value"].as_f64().unwrap(),
                s["mean"].as_f64().unwrap(),
                s["stderr"].as_f64().unwrap(),
            )
        })
        .collect();
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let slope = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>() / sxx;
    let se = (points
        .iter()
        .map(|p| (p.0 - mx) * (p.0 - mx) * p.2 * p.2)
        .sum::<f64>())
    .sqrt()
        / sxx;
    let fit = &p["fit"];
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
    assert!(
        close(fit["slope"].as_f64().unwrap(), slope),
        "{fit} vs {slope}"
    );
    assert!(
        close(fit["slope_stderr"].as_f64().unwrap(), se),
        "{fit} vs {se}"
    );
    assert_eq!(fit["metric"], "pseudo_regret");
    assert!((0.8..0.92).contains(&slope) && se < 0.02, "{slope} ± {se}");
}
