//! Sharded runs merged back equal the unsharded run, byte for byte; mismatched shards are refused.

use crate::common::{fig1a, no_charts, scenario_file};
use specprobe::Shard;
use specprobe::commands::{self, MergeArgs, RunArgs};
use std::path::{Path, PathBuf};

fn run(scenario: &Path, out: &Path, shard: Option<Shard>, seed: Option<u64>) {
    commands::run(&RunArgs {
        scenario: scenario.to_path_buf(),
        out: Some(out.to_path_buf()),
        threads: Some(2),
        shard,
        overrides: specprobe::Overrides {
            seed,
            ..Default::default()
        },
        charts: no_charts(),
        ..Default::default()
    })
    .unwrap();
}

fn merge(inputs: Vec<PathBuf>, out: &Path) -> Result<(), specprobe::commands::CommandError> {
    commands::merge(&MergeArgs {
        inputs,
        out: Some(out.to_path_buf()),
        charts: no_charts(),
        ..Default::default()
    })
    .map(|_| ())
}

fn assert_same(a: &Path, b: &Path, files: &[&str]) {
    for f in files {
        let (x, y) = (
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
        );
        assert!(
            x == y,
            "{f} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

fn shard_and_merge(scenario: &Path, tmp: &Path, n: u64) -> PathBuf {
    let stem = scenario.file_stem().unwrap().to_string_lossy().into_owned();
    let dirs: Vec<PathBuf> = (0..n)
        .map(|i| {
            let d = tmp.join(format!("{stem}-n{n}-shard{i}"));
            run(scenario, &d, Some(Shard { index: i, count: n }), None);
            assert!(d.join("partial.json").exists());
            assert!(
                !d.join("summary.json").exists(),
                "a shard writes only its partial result"
            );
            d
        })
        .collect();
    let out = tmp.join(format!("{stem}-merged-{n}"));
    // Shards in any order.
    merge(dirs.into_iter().rev().collect(), &out).unwrap();
    out
}

#[test]
fn sharded_regret_runs_merge_to_the_unsharded_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let policies = r#"(policy: CcUcb()), (policy: ThompsonSampling()), (policy: Oracle)"#;
    let path = scenario_file(tmp.path(), "s.ron", &fig1a(2000, 5, policies));
    let whole = tmp.path().join("whole");
    run(&path, &whole, None, None);
    // N = 5 = runs: every shard holds exactly one run.
    for n in [1, 2, 3, 5] {
        let merged = shard_and_merge(&path, tmp.path(), n);
        assert_same(
            &whole,
            &merged,
            &["summary.json", "curves.csv", "runs.csv", "report.md"],
        );
    }
    // More shards than runs would leave shards empty: refused before anything runs, as is a
    // count no run could ever fill.
    for count in [6, u64::MAX] {
        let err = commands::run(&RunArgs {
            scenario: path.clone(),
            out: Some(tmp.path().join("too-many")),
            shard: Some(Shard { index: 0, count }),
            charts: no_charts(),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("at most one shard per run"), "{err}");
    }
    assert!(!tmp.path().join("too-many").exists());
}

#[test]
fn sharded_grids_and_identification_merge_to_the_unsharded_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let grid = r#"Regret(
        name: "grid", seed: 3, horizon: 1500, runs: 4,
        grid: [
            (label: "a", channels: [(count: 2, theta: 0.5, cost: Bernoulli(0.4)), (count: 2, theta: 0.3, cost: Bernoulli(0.4))]),
            (label: "b", channels: [(count: 3, theta: 0.6, cost: Uniform(lo: 0.2, hi: 0.6))]),
        ],
        policies: [(policy: CcUcb()), (policy: CascadeKlUcb(list_len: 2))],
    )"#;
    let path = scenario_file(tmp.path(), "g.ron", grid);
    let whole = tmp.path().join("whole-grid");
    run(&path, &whole, None, None);
    let merged = shard_and_merge(&path, tmp.path(), 3);
    assert_same(&whole, &merged, &["summary.json", "curves.csv"]);

    let id = r#"Identification(
        name: "id", seed: 5, runs: 3,
        instances: [(label: "a", family: OneSparse, k: Fixed(2), arms: [6, 12])],
        algorithms: [Lucb1, LilRandLucb, LilClucb],
    )"#;
    let path = scenario_file(tmp.path(), "id.ron", id);
    let whole = tmp.path().join("whole-id");
    run(&path, &whole, None, None);
    for n in [2, 3] {
        let merged = shard_and_merge(&path, tmp.path(), n);
        assert_same(&whole, &merged, &["summary.json", "identification.csv"]);
    }
}

#[test]
fn mismatched_or_missing_shards_are_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let path = scenario_file(tmp.path(), "s.ron", &fig1a(500, 4, "(policy: CcUcb())"));
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    run(&path, &a, Some(Shard { index: 0, count: 2 }), None);
    run(&path, &b, Some(Shard { index: 1, count: 2 }), Some(99));
    let err = merge(vec![a.clone(), b.clone()], &tmp.path().join("m")).unwrap_err();
    assert!(format!("{err:#}").contains("fingerprint"), "{err:#}");
    let err = merge(vec![a.clone()], &tmp.path().join("m")).unwrap_err();
    assert!(format!("{err:#}").contains("missing shard 1/2"), "{err:#}");
    let err = merge(vec![a.clone(), a.clone()], &tmp.path().join("m")).unwrap_err();
    assert!(format!("{err:#}").contains("twice"), "{err:#}");
    let err = merge(vec![tmp.path().join("nothing")], &tmp.path().join("m")).unwrap_err();
    assert!(format!("{err:#}").contains("nothing"), "{err:#}");
}

/// With `SPECPROBE_SHARD_KEY` set, shards carry an HMAC of their checksum and `merge` requires
/// it: shards signed with the key merge; unsigned ones, another key, or a forged edit with a
/// recomputed checksum are refused naming the `mac` field.
#[test]
fn a_shard_key_turns_damage_detection_into_forgery_detection() {
    use std::process::Command;
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let scenario = crate::common::scenario_file(
        d,
        "s.ron",
        &crate::common::fig1a(200, 4, "(policy: CcUcb())"),
    );
    let bin = env!("CARGO_BIN_EXE_specprobe");
    let shard = |i: u32, key: Option<&str>, out: &str| {
        let mut c = Command::new(bin);
        c.args([
            "run",
            scenario.to_str().unwrap(),
            "--shard",
            &format!("{i}/2"),
        ])
        .args(["--out", d.join(out).to_str().unwrap()])
        .env_remove("SPECPROBE_SHARD_KEY");
        if let Some(k) = key {
            c.env("SPECPROBE_SHARD_KEY", k);
        }
        assert!(c.output().unwrap().status.success());
    };
    let merge = |a: &str, b: &str, key: &str| {
        Command::new(bin)
            .args([
                "merge",
                d.join(a).to_str().unwrap(),
                d.join(b).to_str().unwrap(),
            ])
            .args([
                "--no-charts",
                "--force",
                "--out",
                d.join("m").to_str().unwrap(),
            ])
            .env("SPECPROBE_SHARD_KEY", key)
            .output()
            .unwrap()
    };
    shard(0, Some("k1"), "a0");
    shard(1, Some("k1"), "a1");
    shard(1, None, "u1");
    let text = std::fs::read_to_string(d.join("a1/partial.json")).unwrap();
    assert!(text.contains("\"mac\":\""), "signed");
    let o = merge("a0", "a1", "k1");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for (b, key, says) in [("a1", "k2", "does not verify"), ("u1", "k1", "missing")] {
        let o = merge("a0", b, key);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains("mac") && err.contains(says), "{err}");
    }
    // A forger without the key who edits the file and recomputes the SHA-256 changes the
    // checksum the MAC covers: `mac::tests` checks that such a MAC does not verify.
}

/// One overflowing exact sum in a partial of any kind (`"sum": [1e308, 1e308]`) is an error
/// naming the file and the position, at once: its checksum used to be computed by
/// serialising the sum's canonical form, a loop that never ends on an infinite value.
#[test]
fn an_overflowing_sum_in_any_partial_is_an_error_not_a_hang() {
    let tmp = tempfile::tempdir().unwrap();
    let kinds = [
        ("regret", fig1a(300, 4, "(policy: CcUcb())")),
        (
            "multi",
            r#"MultiUser(name: "mu", horizon: 300, runs: 4, users: 2,
                channels: [(theta: 0.9, cost: Constant(0.0)), (theta: 0.5, cost: Constant(0.0)), (theta: 0.2, cost: Constant(0.0))],
                policies: [(policy: RhoRand(index: Ucb))])"#
                .to_string(),
        ),
        (
            "identification",
            r#"Identification(name: "id", seed: 5, runs: 4,
                instances: [(label: "a", family: OneSparse, k: Fixed(2), arms: [6])],
                algorithms: [Lucb1])"#
                .to_string(),
        ),
        (
            "sweep",
            r#"Regret(name: "sw", horizon: 300, runs: 4,
                channels: [(theta: 0.5, cost: Constant(0.1)), (theta: 0.3, cost: Constant(0.1))],
                policies: [(policy: CcUcb())],
                sweep: (field: "horizon", values: [100, 200]))"#
                .to_string(),
        ),
    ];
    for (kind, text) in kinds {
        let path = scenario_file(tmp.path(), &format!("{kind}.ron"), &text);
        let dirs: Vec<PathBuf> = (0..2)
            .map(|index| {
                let d = tmp.path().join(format!("{kind}-{index}"));
                run(&path, &d, Some(Shard { index, count: 2 }), None);
                d
            })
            .collect();
        let partial = dirs[0].join("partial.json");
        let text = std::fs::read_to_string(&partial).unwrap();
        let at = text
            .find("\"sum\":[")
            .unwrap_or_else(|| panic!("{kind}: no sum in {text:.300}"));
        let end = at + text[at..].find(']').unwrap() + 1;
        let damaged = format!("{}\"sum\":[1e308,1e308]{}", &text[..at], &text[end..]);
        std::fs::write(&partial, damaged).unwrap();
        let start = std::time::Instant::now();
        let err = merge(dirs, &tmp.path().join(format!("{kind}-merged")))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("partial.json")
                && err.contains("must be finite")
                && err.contains("column"),
            "{kind}: {err}"
        );
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "{kind}"
        );
    }
}
