//! Never delete what specprobe did not write: a user's files in or beside a results folder,
//! an input used as the output, the working directory. Each case is run through the binary
//! and fails if anything of the user's is lost.

use crate::common::{fig1a, scenario_file};
use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_specprobe");

fn specprobe(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn ok(dir: &Path, args: &[&str]) {
    let o = specprobe(dir, args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Runs `args`, expects exit 1 with every one of `needles` in the message.
fn refused(dir: &Path, args: &[&str], needles: &[&str]) {
    let o = specprobe(dir, args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: {n:?} not in {err}");
    }
}

fn setup() -> (tempfile::TempDir, String) {
    let tmp = tempfile::tempdir().unwrap();
    scenario_file(
        tmp.path(),
        "s.ron",
        &fig1a(300, 2, "(policy: CcUcb()), (policy: Oracle)"),
    );
    (tmp, "s.ron".into())
}

#[test]
fn a_users_files_in_a_results_folder_are_never_deleted_without_force() {
    let (tmp, s) = setup();
    let d = tmp.path();
    ok(d, &["run", &s, "--out", "r", "--no-charts"]);
    // Results of this scenario only: replaced without a word.
    ok(d, &["run", &s, "--out", "r", "--no-charts", "--seed", "5"]);
    std::fs::write(d.join("r/notes.txt"), "mine").unwrap();
    std::fs::create_dir(d.join("r/analysis")).unwrap();
    std::fs::write(d.join("r/analysis/fit.py"), "mine").unwrap();
    for cmd in [
        vec!["run", &s, "--out", "r", "--no-charts"],
        vec!["plot", "r"],
    ] {
        refused(d, &cmd, &["did not write", "analysis/", "--force"]);
        assert_eq!(std::fs::read(d.join("r/notes.txt")).unwrap(), b"mine");
        assert_eq!(std::fs::read(d.join("r/analysis/fit.py")).unwrap(), b"mine");
    }
    ok(d, &["run", &s, "--out", "r", "--no-charts", "--force"]);
    assert!(!d.join("r/notes.txt").exists());
    // What the marker lists is what was written: the next run replaces it silently again.
    ok(d, &["run", &s, "--out", "r", "--no-charts"]);
}

#[test]
fn a_change_of_kind_or_an_input_as_output_needs_force() {
    let (tmp, s) = setup();
    let d = tmp.path();
    ok(d, &["run", &s, "--out", "r", "--no-charts"]);
    // Complete results are not replaced by a lone shard.
    refused(
        d,
        &["run", &s, "--shard", "0/2", "--out", "r"],
        &["regret results", "partial", "--force"],
    );
    assert!(d.join("r/summary.json").exists());
    ok(d, &["run", &s, "--shard", "0/2", "--out", "sh0"]);
    ok(d, &["run", &s, "--shard", "1/2", "--out", "sh1"]);
    // merge into one of its own inputs.
    refused(
        d,
        &["merge", "sh0", "sh1", "--out", "sh0", "--no-charts"],
        &["an input of this command (sh0)", "--force"],
    );
    assert!(d.join("sh0/partial.json").exists());
    ok(d, &["merge", "sh0", "sh1", "--out", "m", "--no-charts"]);
}

#[test]
fn the_working_directory_and_folders_holding_an_input_are_refused() {
    let (tmp, s) = setup();
    let d = tmp.path();
    std::fs::create_dir(d.join("work")).unwrap();
    std::fs::write(d.join("work/keep.txt"), "mine").unwrap();
    let work = d.join("work");
    // `--out .` and a folder above the working directory: refused even with --force.
    for out in [".", ".."] {
        refused(
            &work,
            &["run", "../s.ron", "--out", out, "--force", "--no-charts"],
            &["working directory"],
        );
    }
    assert_eq!(std::fs::read(work.join("keep.txt")).unwrap(), b"mine");
    // A folder holding the scenario file.
    std::fs::create_dir(d.join("in")).unwrap();
    std::fs::copy(d.join(&s), d.join("in/s.ron")).unwrap();
    refused(
        d,
        &["run", "in/s.ron", "--out", "in", "--force", "--no-charts"],
        &["the input in/s.ron"],
    );
    assert!(d.join("in/s.ron").exists());
}

/// `plot --format png` redraws the PNGs and keeps the SVGs it does not redraw (it deleted
/// them).
#[test]
fn plot_keeps_the_charts_of_formats_it_does_not_draw() {
    let (tmp, s) = setup();
    let d = tmp.path();
    ok(d, &["run", &s, "--out", "r"]);
    let svg = std::fs::read(d.join("r/regret.svg")).unwrap();
    ok(d, &["plot", "r", "--format", "png"]);
    assert_eq!(std::fs::read(d.join("r/regret.svg")).unwrap(), svg);
    assert!(d.join("r/regret.png").exists());
    // And the folder is still this scenario's own: the next run replaces it without --force.
    ok(d, &["run", &s, "--out", "r", "--no-charts"]);
}

/// A folder whose files no marker lists (no marker at all, or an earlier version's marker
/// without a file list) is never emptied without `--force`, even when it holds a copied
/// `summary.json` or `partial.json` of this very scenario: judging by names used to delete a
/// user's CSVs, PNGs and notes beside it.
#[test]
fn folders_no_marker_lists_are_never_emptied_without_force() {
    let (tmp, s) = setup();
    let d = tmp.path();
    ok(d, &["run", &s, "--out", "r", "--no-charts"]);
    let summary = std::fs::read(d.join("r/summary.json")).unwrap();
    let user_files = ["analysis.csv", "fig.png", "notes.md", "data/x.json"];
    let fill = |dir: &str| {
        std::fs::create_dir_all(d.join(dir).join("data")).unwrap();
        std::fs::write(d.join(dir).join("summary.json"), &summary).unwrap();
        for f in user_files {
            std::fs::write(d.join(dir).join(f), "mine").unwrap();
        }
    };
    // No marker: a copied summary.json beside the user's files.
    fill("copied");
    refused(
        d,
        &["run", &s, "--out", "copied", "--no-charts"],
        &["no record (.specprobe.json)", "--force"],
    );
    // An earlier version's marker, without the list of its files.
    fill("old");
    let marker = std::fs::read_to_string(d.join("r/.specprobe.json")).unwrap();
    let mut m: serde_json::Value = serde_json::from_str(&marker).unwrap();
    m.as_object_mut().unwrap().remove("files");
    std::fs::write(d.join("old/.specprobe.json"), m.to_string()).unwrap();
    refused(
        d,
        &["run", &s, "--out", "old", "--no-charts"],
        &["does not list its files", "--force"],
    );
    for dir in ["copied", "old"] {
        for f in user_files {
            assert_eq!(
                std::fs::read(d.join(dir).join(f)).unwrap(),
                b"mine",
                "{dir}/{f}"
            );
        }
    }
    ok(d, &["run", &s, "--out", "old", "--no-charts", "--force"]);
    assert!(!d.join("old/analysis.csv").exists());
}

/// A sweep's bare data files (what the Python package's `Results.plot` writes before drawing:
/// the top data files and each cell's in its folder, no marker) are this scenario's to draw
/// over; a file of the user's among them, or a folder two levels down, is not.
#[test]
fn a_sweeps_bare_data_files_are_drawn_over_but_a_users_file_among_them_is_not() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let s = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios/identification-sweep-confidence.ron");
    let s = s.to_str().unwrap();
    ok(d, &["run", s, "--runs", "2", "--out", "r", "--no-charts"]);
    // Keep only the data files, as Results.plot writes them.
    let copy_data = |to: &Path| {
        for entry in std::fs::read_dir(d.join("r")).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            if entry.file_type().unwrap().is_dir() {
                std::fs::create_dir_all(to.join(&name)).unwrap();
                for f in ["summary.json", "identification.csv", "runs.csv"] {
                    std::fs::copy(entry.path().join(f), to.join(&name).join(f)).unwrap();
                }
            } else if ["summary.json", "sweep.csv"].contains(&name.as_str()) {
                std::fs::copy(entry.path(), to.join(&name)).unwrap();
            }
        }
    };
    let bare = d.join("bare");
    copy_data(&bare);
    ok(d, &["plot", "bare", "--format", "svg"]);
    assert!(bare.join("report.md").exists() && bare.join("confidence=0.01/report.md").exists());
    // The same bare copy with a user's notes in a cell's folder, or a folder two levels down,
    // is not replaced without --force.
    for extra in [
        "confidence=0.2/notes.txt",
        "confidence=0.2/deeper/summary.json",
    ] {
        let notes = d.join("notes");
        let _ = std::fs::remove_dir_all(&notes);
        copy_data(&notes);
        std::fs::create_dir_all(notes.join(extra).parent().unwrap()).unwrap();
        std::fs::write(notes.join(extra), "mine").unwrap();
        refused(d, &["plot", "notes"], &["--force"]);
        assert!(notes.join(extra).exists(), "{extra}");
    }
}
