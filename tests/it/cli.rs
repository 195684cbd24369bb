//! The `specprobe` binary end to end: commands, output files, exit codes and error messages.

use crate::common::{fig1a, scenario_file};
use std::process::{Command, Output};

fn specprobe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_specprobe"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn run_writes_the_output_contract() {
    let tmp = tempfile::tempdir().unwrap();
    let path = scenario_file(
        tmp.path(),
        "s.ron",
        &fig1a(
            3000,
            3,
            r#"(label: "cc-ucb", policy: CcUcb()), (label: "oracle", policy: Oracle)"#,
        ),
    );
    let out = tmp.path().join("out");
    let o = specprobe(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--threads",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("cc-ucb ") && stdout.contains("report.md"),
        "{stdout}"
    );

    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["kind"], "regret");
    assert_eq!(summary["scenario"], "fig1a-small");
    assert_eq!(summary["horizon"], 3000);
    assert_eq!(summary["runs"], 3);
    assert_eq!(summary["seed"], 11);
    assert_eq!(summary["optimum"]["list"], serde_json::json!([0, 1, 2]));
    assert!((summary["optimum"]["expected_reward"].as_f64().unwrap() - 0.283).abs() < 1e-12);
    let policies = summary["policies"].as_array().unwrap();
    assert_eq!(policies.len(), 2);
    for p in policies {
        for key in ["pseudo_regret", "realized_regret"] {
            assert!(p[key]["mean"].is_f64() && p[key]["std"].is_f64(), "{key}");
        }
        for key in ["reward_per_slot", "energy_per_slot", "delay_per_slot"] {
            assert!(p[key].is_f64(), "{key}");
        }
        for key in ["mean", "p50", "p99", "max"] {
            assert!(p["probes_per_slot"][key].is_f64(), "{key}");
        }
    }
    assert_eq!(policies[0]["name"], "cc-ucb");
    assert!(
        summary["bounds"]["theorem3"]["coefficient"]
            .as_f64()
            .unwrap()
            > 15.0
    );

    let csv = std::fs::read_to_string(out.join("curves.csv")).unwrap();
    let mut lines = csv.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("policy,t,pseudo_regret_mean,pseudo_regret_std")
    );
    let rows: Vec<&str> = lines.collect();
    assert!(
        rows.iter()
            .any(|r| r.starts_with("oracle,3000,0.0,0.0,0.0,0.0,0.0,")),
        "oracle row at the horizon"
    );
    assert_eq!(
        rows.iter().filter(|r| r.starts_with("cc-ucb,")).count(),
        rows.len() / 2
    );

    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("# fig1a-small") && report.contains("| cc-ucb |"));
}

#[test]
fn overrides_apply() {
    let tmp = tempfile::tempdir().unwrap();
    let path = scenario_file(tmp.path(), "s.ron", &fig1a(3000, 3, "(policy: Oracle)"));
    let out = tmp.path().join("out");
    let o = specprobe(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--runs",
        "2",
        // As the papers write T: scientific notation naming a whole number.
        "--horizon",
        "5e2",
        "--seed",
        "9",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        (
            summary["runs"].as_u64(),
            summary["horizon"].as_u64(),
            summary["seed"].as_u64()
        ),
        (Some(2), Some(500), Some(9))
    );
}

#[test]
fn validate_prints_the_optimum() {
    let o = specprobe(&["validate", "scenarios/paper-fig1a.ron"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("UCR-T1 optimum: probe [0, 1, 2]"), "{text}");
    assert!(text.contains("0.283"), "{text}");
    assert!(text.contains("Theorem 3"), "{text}");
}

#[test]
fn counts_that_are_not_whole_numbers_are_refused_in_words() {
    for (value, says) in [
        ("1.5", "expected a whole number such as 100000 or 1e5"),
        ("1e-1", "expected a whole number"),
        ("0", "must be at least 1"),
        ("lots", "expected a whole number"),
    ] {
        let o = specprobe(&["run", "scenarios/paper-fig1a.ron", "--horizon", value]);
        assert_eq!(o.status.code(), Some(2), "{value}");
        assert!(stderr(&o).contains(says), "{value}: {}", stderr(&o));
    }
}

/// Typos in a scenario get the nearest valid name, in the words of scenario files.
#[test]
fn scenario_typos_suggest_the_nearest_name() {
    let tmp = tempfile::tempdir().unwrap();
    let base = fig1a(100, 2, "(label: \"a\", policy: CcUcb())");
    for (from, to, says) in [
        (
            "CcUcb()",
            "CcUCB()",
            "unknown policy `CcUCB`: did you mean `CcUcb`?",
        ),
        (
            "runs:",
            "rusn:",
            "unknown field `rusn` of `Regret`: did you mean `runs`?",
        ),
        ("policy: CcUcb()", "policy: cc-ucb", "is a label"),
        ("horizon: 100", "horizon: 1e2", "expected a whole number"),
    ] {
        assert!(base.contains(from), "{from}");
        let path = scenario_file(tmp.path(), "s.ron", &base.replacen(from, to, 1));
        let o = specprobe(&["validate", path.to_str().unwrap()]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains(says), "{to}: {err}");
        assert!(!err.contains("PolicySpec") && !err.contains("u64"), "{err}");
    }
}

/// The duration shown follows each policy's measured cost per slot at the scenario's K: the
/// 1024-channel wideband scenario is minutes on one thread (it was shown as 0.2 s), and
/// Thompson sampling over 4096 channels is hours.
#[test]
fn the_duration_estimate_follows_the_policy_and_k() {
    let o = specprobe(&[
        "validate",
        "scenarios/spectrum-wideband-1024.ron",
        "--threads",
        "1",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    let seconds: f64 = text
        .split("(roughly ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    // Measured: 98 s of CPU (scripts/calibrate-costs.py fits the table the estimate uses).
    assert!(
        text.contains(" seconds on 1 thread") && (40.0..250.0).contains(&seconds),
        "{text}"
    );
    let tmp = tempfile::tempdir().unwrap();
    let path = scenario_file(
        tmp.path(),
        "ts.ron",
        r#"Regret(name: "ts", horizon: 1000000, runs: 20,
            channels: [(count: 4096, theta: 0.5, cost: Bernoulli(0.3))],
            policies: [(policy: ThompsonSampling)])"#,
    );
    let o = specprobe(&["validate", path.to_str().unwrap(), "--threads", "2"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains(" hours on 2 threads"), "{text}");
}

/// An identification scenario's work is estimated from its instances' complexity: a duration
/// from `validate`, and the over-an-hour notice from `run` for a long one.
#[test]
fn identification_runs_get_a_duration_estimate() {
    let o = specprobe(&["validate", "scenarios/paper-best1.ron", "--threads", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    // About two minutes: seconds or minutes, depending on the constant's calibration.
    assert!(
        text.contains("samples, expected from each instance's complexity (roughly")
            && (text.contains(" seconds on 2 threads") || text.contains(" minutes on 2 threads")),
        "{text}"
    );
    let tmp = tempfile::tempdir().unwrap();
    let long = std::fs::read_to_string("scenarios/paper-best1.ron")
        .unwrap()
        .replace("runs: 100,", "runs: 1000000,");
    let path = scenario_file(tmp.path(), "long.ron", &long);
    let o = specprobe(&["validate", path.to_str().unwrap(), "--threads", "2"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains(" days on 2 threads"), "{text}");
}

#[test]
fn policies_lists_every_policy_with_defaults() {
    let o = specprobe(&["policies"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    for needle in [
        "CcUcb(alpha: 1.5, epsilon: 1e-5)",
        "CcUcbKnownCost",
        "CascadeUcb1",
        "CascadeKlUcb",
        "ThompsonSampling",
        "Ucb1",
        "RandomList",
        "Oracle",
    ] {
        assert!(text.contains(needle), "{needle}");
    }
}

#[test]
fn every_shipped_scenario_validates() {
    for entry in std::fs::read_dir("scenarios").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "ron" || e == "json") {
            let o = specprobe(&["validate", path.to_str().unwrap()]);
            assert!(o.status.success(), "{}: {}", path.display(), stderr(&o));
        }
    }
}

#[test]
fn bad_scenario_exits_non_zero_with_the_field() {
    let tmp = tempfile::tempdir().unwrap();
    let path = scenario_file(
        tmp.path(),
        "bad.ron",
        &fig1a(100, 1, "(policy: Oracle)").replace("theta: 0.7", "theta: 7.0"),
    );
    let o = specprobe(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        tmp.path().join("o").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("bad.ron:") && err.contains("channels[1].theta") && err.contains("[0, 1]"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        !tmp.path().join("o").exists(),
        "no output folder for a rejected scenario"
    );
}

#[test]
fn zero_horizon_on_the_command_line_names_the_flag() {
    let o = specprobe(&["run", "scenarios/paper-fig1a.ron", "--horizon", "0"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--horizon"), "{}", stderr(&o));
    let o = specprobe(&["run", "scenarios/paper-fig1a.ron", "--runs", "0"]);
    assert!(stderr(&o).contains("--runs"), "{}", stderr(&o));
}

#[test]
fn unwritable_output_fails_before_simulating_and_keeps_earlier_results() {
    let tmp = tempfile::tempdir().unwrap();
    let path = scenario_file(tmp.path(), "s.ron", &fig1a(200, 1, "(policy: Oracle)"));
    // A file where the folder should be.
    let blocker = tmp.path().join("blocker");
    std::fs::write(&blocker, "keep me").unwrap();
    let o = specprobe(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        blocker.join("sub").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("--out") && err.contains("blocker"), "{err}");
    assert_eq!(std::fs::read_to_string(&blocker).unwrap(), "keep me");

    // Earlier results in a folder survive a later failing run (rejected scenario).
    let out = tmp.path().join("out");
    assert!(
        specprobe(&[
            "run",
            path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap()
        ])
        .status
        .success()
    );
    let before = std::fs::read(out.join("summary.json")).unwrap();
    let bad = scenario_file(tmp.path(), "bad.ron", "Regret(");
    assert!(
        !specprobe(&["run", bad.to_str().unwrap(), "--out", out.to_str().unwrap()])
            .status
            .success()
    );
    assert_eq!(std::fs::read(out.join("summary.json")).unwrap(), before);
}

#[test]
fn missing_scenario_file_is_a_clear_error() {
    let o = specprobe(&["run", "does/not/exist.ron"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("does/not/exist.ron"), "{}", stderr(&o));
}

#[test]
fn logs_go_to_stderr_and_stdout_stays_clean() {
    let tmp = tempfile::tempdir().unwrap();
    let path = scenario_file(tmp.path(), "s.ron", &fig1a(200, 1, "(policy: Oracle)"));
    let o = specprobe(&[
        "-v",
        "run",
        path.to_str().unwrap(),
        "--out",
        tmp.path().join("o").to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert!(stderr(&o).contains("simulation finished"), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    // The results table and where the report is; the files written are logged at -v.
    assert!(stdout.starts_with("policy "), "{stdout}");
    assert!(stdout.contains("\noracle "), "{stdout}");
    assert!(stdout.trim_end().ends_with("report.md"), "{stdout}");
    assert!(
        stdout.lines().last().unwrap().starts_with("report: "),
        "{stdout}"
    );
    assert!(stderr(&o).contains("wrote ") && stderr(&o).contains("summary.json"));
}

/// An identification run prints its samples table, not the table of the instances' true
/// top-K sets that comes first in its report.
#[test]
fn identification_run_prints_the_samples_table() {
    let tmp = tempfile::tempdir().unwrap();
    let path = scenario_file(
        tmp.path(),
        "i.ron",
        r#"Identification(name: "i", seed: 1, runs: 4, confidence: 0.05,
            instances: [(label: "a", family: Means([0.9, 0.1, 0.7]), k: Fixed(1))],
            algorithms: [Lucb1])"#,
    );
    let o = specprobe(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        tmp.path().join("o").to_str().unwrap(),
        "--no-charts",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.starts_with("algorithm "), "{stdout}");
    assert!(stdout.contains("\nLUCB1 "), "{stdout}");
}

/// The README's sharding script runs as documented and reproduces the unsharded outputs.
#[cfg(unix)]
#[test]
fn parallel_shards_script_reproduces_the_unsharded_run() {
    let tmp = tempfile::tempdir().unwrap();
    let path = scenario_file(
        tmp.path(),
        "s.ron",
        &fig1a(1000, 5, "(policy: CcUcb()), (policy: Oracle)"),
    );
    let whole = tmp.path().join("whole");
    let o = specprobe(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        whole.to_str().unwrap(),
        "--no-charts",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let merged = tmp.path().join("merged");
    let o = Command::new("bash")
        .args([
            "scripts/parallel-shards.sh",
            path.to_str().unwrap(),
            "3",
            merged.to_str().unwrap(),
            "--threads",
            "1",
        ])
        .env("SPECPROBE", env!("CARGO_BIN_EXE_specprobe"))
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    for f in ["summary.json", "curves.csv"] {
        assert_eq!(
            std::fs::read(whole.join(f)).unwrap(),
            std::fs::read(merged.join(f)).unwrap(),
            "{f}"
        );
    }
}

#[test]
fn json_scenarios_run_like_their_ron_twins_and_errors_name_the_position() {
    let tmp = tempfile::tempdir().unwrap();
    let mut summaries = Vec::new();
    for ext in ["ron", "json"] {
        let out = tmp.path().join(ext);
        let scenario = format!("scenarios/paper-fig1a.{ext}");
        let o = specprobe(
            &[
                "run",
                &scenario,
                "--runs",
                "2",
                "--horizon",
                "500",
                "--no-charts",
            ]
            .into_iter()
            .chain(["--out", out.to_str().unwrap()])
            .collect::<Vec<_>>(),
        );
        assert!(o.status.success(), "{}", stderr(&o));
        summaries.push(std::fs::read(out.join("curves.csv")).unwrap());
    }
    assert_eq!(summaries[0], summaries[1]);
    let text = std::fs::read_to_string("scenarios/paper-fig1a.json").unwrap();
    let bad = tmp.path().join("bad.json");
    std::fs::write(&bad, text.replacen("0.7", "\"high\"", 1)).unwrap();
    let o = specprobe(&["validate", bad.to_str().unwrap()]);
    let err = stderr(&o);
    assert!(!o.status.success());
    assert!(
        err.contains("bad.json:10:") && err.contains("channels[1].theta") && err.contains("string"),
        "{err}"
    );
    // A rule broken in JSON is located like one in RON: the value's line and column.
    std::fs::write(&bad, text.replacen("0.7", "7.0", 1)).unwrap();
    let err = stderr(&specprobe(&["validate", bad.to_str().unwrap()]));
    assert!(
        err.contains("bad.json:10:17: channels[1].theta") && err.contains("[0, 1]"),
        "{err}"
    );
}

/// The exit statuses the README documents: 2 for a usage error, 1 for any other error.
#[test]
fn usage_errors_exit_2_and_other_errors_exit_1() {
    let bin = env!("CARGO_BIN_EXE_specprobe");
    let run = |args: &[&str]| {
        std::process::Command::new(bin)
            .args(args)
            .output()
            .unwrap()
            .status
            .code()
    };
    assert_eq!(run(&["run", "--no-such-flag"]), Some(2));
    assert_eq!(run(&["no-such-command"]), Some(2));
    assert_eq!(run(&["run", "x.ron", "--runs", "many"]), Some(2));
    assert_eq!(run(&["validate", "/nonexistent/scenario.ron"]), Some(1));
}

#[test]
fn validate_shows_a_many_users_scenarios_channels_benchmark_and_bounds() {
    let o = specprobe(&["validate", "scenarios/multi-bk2018-k9.ron"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    for says in [
        "is valid: many users",
        "θ/c",
        "0.9000",
        "benchmark: the min(M, K) = 6 best channels, one per user",
        "expected net reward 3.90000 per slot",
        "lists by user: [8] [7] [6] [5] [4] [3]",
        "lower bounds on the regret at T",
    ] {
        assert!(text.contains(says), "{says}: {text}");
    }
    // A sweep over an integer field: its values as written, each cell's benchmark.
    let o = specprobe(&["validate", "scenarios/multi-sweep-users.ron"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("sweep of `users` over 2, 4, 6, 8"), "{text}");
    assert!(
        text.contains("users = 8: benchmark: the min(M, K) = 8"),
        "{text}"
    );
    // Cascades: no lower bound, and why.
    let o = specprobe(&["validate", "scenarios/multi-cascade-sensing.ron"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("no lower bound: they need one channel per user"),
        "{text}"
    );
}

/// A valid scenario whose work is huge (an identification instance at the largest N, runs by
/// the thousand) is refused from its estimate before anything runs, naming `--max-time` and the
/// value that would admit it; the limit is an hour unless given, `none` lifts it, a shard is
/// estimated alone, and a bad value is refused naming the flag.
#[test]
fn runs_estimated_to_take_too_long_are_refused_before_they_start() {
    let tmp = tempfile::tempdir().unwrap();
    let huge = scenario_file(
        tmp.path(),
        "huge.ron",
        r#"Identification(name: "huge", seed: 5, runs: 1000,
            instances: [(label: "a", family: OneSparse, k: Fixed(2), arms: [1048576])],
            algorithms: [Lucb1])"#,
    );
    let out = tmp.path().join("out");
    let o = specprobe(&[
        "run",
        huge.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("--max-time") && err.contains("hours") && err.contains("--shard"),
        "{err}"
    );
    assert!(!out.exists(), "nothing written");
    // A small run under an explicit limit runs; the same run under a tiny one does not.
    let small = scenario_file(tmp.path(), "s.ron", &fig1a(2000, 2, "(policy: CcUcb())"));
    let run = |limit: &str| {
        specprobe(&[
            "run",
            small.to_str().unwrap(),
            "--no-charts",
            "--force",
            "--max-time",
            limit,
            "--out",
            out.to_str().unwrap(),
        ])
    };
    assert!(run("1h").status.success());
    assert!(run("none").status.success());
    let o = run("0.000001s");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--max-time"), "{}", stderr(&o));
    let o = run("soon");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--max-time"), "{}", stderr(&o));
}

/// `compare` draws single-user or many-users regret over time: each kind says so of itself
/// (`report::compare::Comparable`), so an identification scenario, a sweep and saved results of
/// another kind are refused before anything runs, each with its reason and the input named.
#[test]
fn compare_refuses_the_kinds_it_does_not_draw_and_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let refused = |input: &str| {
        let o = specprobe(&["compare", input, "--out", out.to_str().unwrap()]);
        assert!(!o.status.success(), "{input} was compared");
        assert!(!out.exists(), "{input}: an output folder was opened");
        stderr(&o)
    };
    let msg = refused("scenarios/paper-topk.ron");
    assert!(
        msg.contains("scenarios/paper-topk.ron: compare draws regret curves;")
            && msg.contains("is an identification scenario"),
        "{msg}"
    );
    let msg = refused("scenarios/sweep-alpha.ron");
    assert!(
        msg.contains("scenarios/sweep-alpha.ron: compare draws regret curves over time;")
            && msg.contains("is a sweep (its report already draws every policy against `"),
        "{msg}"
    );
    for kind in [
        "identification",
        "sweep",
        "multi-user-sweep",
        "identification-sweep",
    ] {
        let saved = tmp.path().join(kind);
        std::fs::create_dir_all(&saved).unwrap();
        std::fs::write(
            saved.join("summary.json"),
            format!("{{\"kind\": \"{kind}\"}}"),
        )
        .unwrap();
        let msg = refused(saved.to_str().unwrap());
        assert!(
            msg.contains(&format!("this folder holds {kind} results")),
            "{kind}: {msg}"
        );
    }
}
