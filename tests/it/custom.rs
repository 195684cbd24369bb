//! Policies and identification algorithms written against the public API run through the same
//! pipeline as the built-in ones: same statistics, same outputs, same shards.

use crate::common::{fig1a, no_charts, scenario_file};
use specprobe::ChartOptions;
use specprobe::Problem;
use specprobe::Shard;
use specprobe::{Policy, SimRng, Simulation};
use std::path::{Path, PathBuf};
use std::process::Command;

/// UCR-T1 with the true θ and c, written as a user would: a copy of the built-in oracle.
struct MyOracle(Vec<usize>);

impl Policy for MyOracle {
    fn plan(&mut self, _t: u64, list: &mut Vec<usize>, _rng: &mut SimRng) {
        list.extend_from_slice(&self.0);
    }
    fn observe(&mut self, _channel: usize, _idle: bool, _cost: f64) {}
}

fn my_oracle(env: &specprobe::Environment) -> MyOracle {
    MyOracle(env.optimum().list.clone())
}

/// Everything the outputs say of the policy labelled `label` (its summary entry without the
/// names and paired difference, and its curves), to compare two policies' statistics exactly.
fn stats_of(results: &specprobe::Results, label: &str) -> (serde_json::Value, Vec<String>) {
    let r = results.regret().unwrap();
    let summary = r.summary();
    let p = summary.experiments()[0]
        .policies
        .iter()
        .find(|p| p.name == label)
        .unwrap();
    let mut value = serde_json::to_value(p).unwrap();
    // The policy's own names, and its paired difference to the reference (the first policy,
    // which has none against itself), are not statistics of its runs.
    for key in ["name", "policy", "paired"] {
        value.as_object_mut().unwrap().remove(key);
    }
    let curves = r
        .curves()
        .iter()
        .filter(|c| c.policy == label)
        .map(|c| format!("{} {:?}", c.t, c.values))
        .collect();
    (value, curves)
}

#[test]
fn a_user_copy_of_the_oracle_has_the_built_in_oracles_statistics_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let path = scenario_file(
        tmp.path(),
        "s.ron",
        &fig1a(3000, 4, "(policy: Oracle), (policy: CcUcb)"),
    );
    let results = Simulation::from_file(&path)
        .unwrap()
        .policy("my-oracle", my_oracle)
        .threads(2)
        .run()
        .unwrap();
    assert_eq!(
        stats_of(&results, "oracle"),
        stats_of(&results, "my-oracle")
    );
    assert_ne!(stats_of(&results, "oracle"), stats_of(&results, "cc-ucb"));
    // The user's policy is in every output, under its label.
    let out = tmp.path().join("out");
    results.write(&out, &ChartOptions::default()).unwrap();
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(summary.contains("\"name\": \"my-oracle\""), "{summary}");
    let curves = std::fs::read_to_string(out.join("curves.csv")).unwrap();
    assert!(curves.lines().any(|l| l.starts_with("my-oracle,")));
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("my-oracle"));
    let svg = std::fs::read_to_string(out.join("regret.svg")).unwrap();
    assert!(svg.contains("my-oracle"));
}

#[test]
fn labels_of_added_policies_must_be_new_and_kinds_must_match() {
    let tmp = tempfile::tempdir().unwrap();
    let path = scenario_file(tmp.path(), "s.ron", &fig1a(100, 1, "(policy: Oracle)"));
    let err = Simulation::from_file(&path)
        .unwrap()
        .policy("oracle", my_oracle)
        .run()
        .unwrap_err();
    assert!(err.to_string().contains("unique"), "{err}");
    let err = Simulation::from_file(&path)
        .unwrap()
        .identifier("x", |p: &Problem| {
            specprobe::builtin_identifier("Lucb1", p).unwrap()
        })
        .run()
        .unwrap_err();
    assert!(err.to_string().contains("regret scenario"), "{err}");
}

#[test]
fn sharded_runs_with_a_user_policy_merge_to_the_unsharded_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let path = scenario_file(tmp.path(), "s.ron", &fig1a(2000, 5, "(policy: CcUcb)"));
    let sim = || {
        Simulation::from_file(&path)
            .unwrap()
            .policy("my-oracle", my_oracle)
            .threads(2)
    };
    let whole = tmp.path().join("whole");
    sim().run().unwrap().write(&whole, &no_charts()).unwrap();
    let shards: Vec<PathBuf> = (0..3)
        .map(|i| {
            let dir = tmp.path().join(format!("shard{i}"));
            sim()
                .shard(Shard { index: i, count: 3 })
                .run()
                .unwrap()
                .write(&dir, &no_charts())
                .unwrap();
            dir
        })
        .collect();
    let merged = tmp.path().join("merged");
    specprobe::merge_shards(&shards)
        .unwrap()
        .write(&merged, &no_charts())
        .unwrap();
    for f in ["summary.json", "curves.csv", "report.md"] {
        assert_eq!(
            std::fs::read(whole.join(f)).unwrap(),
            std::fs::read(merged.join(f)).unwrap(),
            "{f}"
        );
    }
    // The command-line merge needs no user code either.
    let out = tmp.path().join("cli-merged");
    specprobe::commands::merge(&specprobe::commands::MergeArgs {
        inputs: shards,
        out: Some(out.clone()),
        charts: no_charts(),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(
        std::fs::read(whole.join("summary.json")).unwrap(),
        std::fs::read(out.join("summary.json")).unwrap()
    );
}

#[test]
fn a_user_identifier_wrapping_a_built_in_one_has_its_statistics() {
    let tmp = tempfile::tempdir().unwrap();
    let path = scenario_file(
        tmp.path(),
        "id.ron",
        r#"Identification(
            name: "id", seed: 5, runs: 6,
            instances: [(label: "a", family: OneSparse, k: Fixed(2), arms: [6, 12])],
            algorithms: [LilRandLucb],
        )"#,
    );
    let results = Simulation::from_file(&path)
        .unwrap()
        .identifier("mine", |p: &Problem| {
            specprobe::builtin_identifier("LilRandLucb", p).unwrap()
        })
        .run()
        .unwrap();
    let summary = results.identification().unwrap().summary();
    let mut compared = 0;
    for builtin in summary
        .results
        .iter()
        .filter(|c| c.algorithm == "lil'RandLUCB")
    {
        let mine = summary
            .results
            .iter()
            .find(|c| c.algorithm == "mine" && c.n == builtin.n && c.setting == builtin.setting)
            .unwrap();
        // The user's copy gets δ = ν (a guarantee of δ), the built-in its faithful δ: equal
        // only in the heuristic setting, where both use δ = ν and ε = 0.
        if builtin.setting == "heuristic" {
            assert_eq!(mine.samples, builtin.samples);
            assert_eq!(mine.errors, builtin.errors);
            compared += 1;
        }
    }
    assert_eq!(compared, 2, "one heuristic cell per N");
}

/// The compiled example binaries (cargo test builds examples beside the test binaries).
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(Path::parent).unwrap();
    let path = dir.join("examples").join(name);
    assert!(
        path.exists(),
        "{} is missing: run the tests with `cargo test`, which builds the examples",
        path.display()
    );
    path
}

#[test]
fn the_examples_run_and_their_outputs_hold_the_users_algorithms() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, args, label, file) in [
        (
            "custom_policy",
            vec!["3", "4000"],
            "eps-greedy",
            "curves.csv",
        ),
        (
            "custom_identifier",
            vec!["10"],
            "round-robin",
            "identification.csv",
        ),
    ] {
        let out = tmp.path().join(name);
        let o = Command::new(example(name))
            .arg(&out)
            .args(args)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        for f in ["summary.json", file, "report.md"] {
            let text = std::fs::read_to_string(out.join(f)).unwrap();
            assert!(text.contains(label), "{name}: {f} lacks {label}");
        }
    }
}

/// Lists channel 0, then at slot `bad_at` the given list.
struct Breaks {
    bad_at: u64,
    bad: Vec<usize>,
}

impl Policy for Breaks {
    fn plan(&mut self, t: u64, list: &mut Vec<usize>, _rng: &mut SimRng) {
        if t == self.bad_at {
            list.extend_from_slice(&self.bad);
        } else {
            list.push(0);
        }
    }
    fn observe(&mut self, _channel: usize, _idle: bool, _cost: f64) {}
}

/// A user's policy that lists a channel ≥ K, or one twice, stops the run with an error naming
/// the policy, the slot and the list (no panic in a worker thread), on any thread count, and
/// nothing is written.
#[test]
fn a_user_policys_broken_list_is_an_error_naming_policy_slot_and_list() {
    let tmp = tempfile::tempdir().unwrap();
    let path = scenario_file(tmp.path(), "s.ron", &fig1a(500, 4, "(policy: CcUcb)"));
    for (bad, shown) in [(vec![1, 6], "[1, 6]"), (vec![2, 3, 2, 4], "[2, 3, 2]")] {
        for threads in [1, 2] {
            let bad = bad.clone();
            let err = Simulation::from_file(&path)
                .unwrap()
                .policy("mine", move |_: &specprobe::Environment| Breaks {
                    bad_at: 37,
                    bad: bad.clone(),
                })
                .threads(threads)
                .run()
                .unwrap_err()
                .to_string();
            assert_eq!(
                err,
                format!(
                    "policy \"mine\" at slot 37 listed {shown}: channels must be distinct indices below 6"
                ),
                "{threads} threads"
            );
        }
    }
    // Through the destination opened before the run: the folder stays as it was.
    let out = tmp.path().join("out");
    let prepared = Simulation::from_file(&path)
        .unwrap()
        .policy("mine", |_: &specprobe::Environment| Breaks {
            bad_at: 3,
            bad: vec![9],
        })
        .prepare()
        .unwrap();
    let dest = prepared
        .open(&out, specprobe::Replace::SameScenario)
        .unwrap();
    let err = prepared.run_into(dest, &no_charts()).unwrap_err();
    assert!(err.to_string().contains("at slot 3 listed [9]"), "{err}");
    assert!(!out.join("summary.json").exists());
}

#[test]
fn an_added_policy_of_the_wrong_kind_or_label_is_refused_before_anything_runs() {
    // The additions' one rule (scenario::additions), as the library reports it.
    let ident = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/paper-best1.ron");
    let err = Simulation::from_file(&ident)
        .unwrap()
        .policy("mine", my_oracle)
        .prepare()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#""mine": a policy cannot run in an identification scenario"#
    );
    for label in ["", "a\nb", "cc-ucb"] {
        let fig1a = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/paper-fig1a.ron");
        let err = Simulation::from_file(fig1a)
            .unwrap()
            .policy(label, my_oracle)
            .prepare()
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with(&format!("{label:?}: labels must be")),
            "{label:?}: {err}"
        );
    }
}
