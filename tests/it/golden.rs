//! Golden files: exact bytes of `summary.json` and `curves.csv` for a small regret scenario that
//! uses every policy and every cost law, of an identification scenario's outputs, and of a
//! many-users sweep's (the sweep's own files and every file of one cell). They pin the output formats and every number: any change to
//! the simulation, the random streams or the formatting shows up here. After a deliberate change,
//! regenerate with `SPECPROBE_BLESS=1 cargo test golden` and review the diff.

use crate::common::run;
use std::path::Path;

fn check(produced: &Path, golden: &Path) {
    let got = std::fs::read(produced).unwrap();
    if std::env::var_os("SPECPROBE_BLESS").is_some() {
        std::fs::write(golden, &got).unwrap();
        return;
    }
    let want = std::fs::read(golden)
        .unwrap_or_else(|_| panic!("{} is missing: bless it", golden.display()));
    if got != want {
        let (g, w) = (
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want),
        );
        let line = g
            .lines()
            .zip(w.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        panic!(
            "{} differs from {} at line {}:\n got: {}\nwant: {}",
            produced.display(),
            golden.display(),
            line + 1,
            g.lines().nth(line).unwrap_or(""),
            w.lines().nth(line).unwrap_or("")
        );
    }
}

#[test]
fn identification_outputs_match_golden_files() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    specprobe::commands::run(&specprobe::commands::RunArgs {
        scenario: Path::new("tests/data/golden-identification.ron").to_path_buf(),
        out: Some(out.clone()),
        threads: Some(2),
        charts: specprobe::ChartOptions {
            formats: Vec::new(),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    check(
        &out.join("summary.json"),
        Path::new("tests/data/golden/identification-summary.json"),
    );
    check(
        &out.join("identification.csv"),
        Path::new("tests/data/golden/identification.csv"),
    );
    check(
        &out.join("runs.csv"),
        Path::new("tests/data/golden/identification-runs.csv"),
    );
}

#[test]
fn outputs_match_golden_files() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    run(Path::new("tests/data/golden.ron"), &out, 2);
    check(
        &out.join("summary.json"),
        Path::new("tests/data/golden/summary.json"),
    );
    check(
        &out.join("curves.csv"),
        Path::new("tests/data/golden/curves.csv"),
    );
    check(
        &out.join("runs.csv"),
        Path::new("tests/data/golden/runs.csv"),
    );
}

#[test]
fn many_users_outputs_match_golden_files() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    specprobe::commands::run(&specprobe::commands::RunArgs {
        scenario: Path::new("tests/data/golden-multi.ron").to_path_buf(),
        out: Some(out.clone()),
        threads: Some(2),
        charts: crate::common::no_charts(),
        ..Default::default()
    })
    .unwrap();
    let golden = Path::new("tests/data/golden");
    check(
        &out.join("summary.json"),
        &golden.join("multi-sweep-summary.json"),
    );
    check(&out.join("sweep.csv"), &golden.join("multi-sweep.csv"));
    for name in [
        "summary.json",
        "curves.csv",
        "runs.csv",
        "users.csv",
        "channels.csv",
    ] {
        check(
            &out.join("users=3").join(name),
            &golden.join(format!("multi-{name}")),
        );
    }
}
