//! Sweeps: every cell is exactly a separate run of the scenario with that value; bad paths and
//! values are named; sweeps shard and merge.

use crate::common::{fig1a, scenario_file};
use specprobe::ChartOptions;
use specprobe::Shard;
use specprobe::Simulation;

fn none() -> ChartOptions {
    ChartOptions {
        formats: Vec::new(),
        ..ChartOptions::default()
    }
}

/// The scenario at `path` run as three shards under `dir`, merged into `dir/merged`.
fn three_shards_merged(path: &std::path::Path, dir: &std::path::Path) -> std::path::PathBuf {
    let shards: Vec<std::path::PathBuf> = (0..3)
        .map(|i| {
            let d = dir.join(format!("shard{i}"));
            Simulation::from_file(path)
                .unwrap()
                .shard(Shard { index: i, count: 3 })
                .run()
                .unwrap()
                .write(&d, &none())
                .unwrap();
            d
        })
        .collect();
    let merged = dir.join("merged");
    specprobe::merge_shards(&shards)
        .unwrap()
        .write(&merged, &none())
        .unwrap();
    merged
}

/// A sweep's cells equal separate runs of the same scenario with those values: the same
/// statistics, byte for byte (compared as each cell's summary and rows against the separate
/// run's summary.json and curves.csv).
#[test]
fn cells_equal_separate_runs() {
    let dir = tempfile::tempdir().unwrap();
    let base = fig1a(
        3000,
        4,
        "(label: \"cc\", policy: CcUcb(alpha: 1.5)), (policy: CascadeUcb1(list_len: 3))",
    );
    for (field, values, edit) in [
        (
            "policies[0].policy.alpha",
            vec![0.5, 2.0],
            Box::new(|v: f64| format!("CcUcb(alpha: {v:?})")) as Box<dyn Fn(f64) -> String>,
        ),
        (
            "horizon",
            vec![1000.0, 2500.0],
            Box::new(|v: f64| format!("{v}")),
        ),
        (
            "channels[*].cost",
            vec![0.45],
            Box::new(|v: f64| format!("Bernoulli({v})")),
        ),
    ] {
        let sweep_text = base.replace(
            "    policies: [",
            &format!("    sweep: (field: {field:?}, values: {values:?}),\n    policies: ["),
        );
        let path = scenario_file(dir.path(), "sweep.ron", &sweep_text);
        let results = Simulation::from_file(&path)
            .unwrap()
            .threads(2)
            .run()
            .unwrap();
        let sweep = results.sweep().expect("a sweep").summary();
        assert_eq!(sweep.cells.len(), values.len());
        for (cell, &v) in sweep.cells.iter().zip(&values) {
            let single = match field {
                "policies[0].policy.alpha" => base.replace("CcUcb(alpha: 1.5)", &edit(v)),
                "horizon" => base.replace("horizon: 3000", &format!("horizon: {}", edit(v))),
                _ => base.replace("Bernoulli(0.55)", &edit(v)),
            };
            let path = scenario_file(dir.path(), "single.ron", &single);
            let out = dir.path().join("single");
            Simulation::from_file(&path)
                .unwrap()
                .threads(3)
                .run()
                .unwrap()
                .write(&out, &none())
                .unwrap();
            let separate: serde_json::Value =
                serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
            let cell = serde_json::to_value(cell).unwrap();
            assert_eq!(cell["policies"], separate["policies"], "{field} = {v}");
            assert_eq!(cell["horizon"], separate["horizon"]);
        }
    }
}

#[test]
fn bad_sweeps_name_the_path_or_the_value() {
    let dir = tempfile::tempdir().unwrap();
    let load = |sweep: &str| {
        let text = fig1a(100, 2, "(policy: CcUcb)").replace(
            "    policies: [",
            &format!("    sweep: {sweep},\n    policies: ["),
        );
        let path = scenario_file(dir.path(), "bad.ron", &text);
        specprobe::load(&path).map(|_| ()).unwrap_err().to_string()
    };
    let err = load(r#"(field: "policies[3].policy.alpha", values: [1.0])"#);
    assert!(
        err.contains("sweep.field")
            && err.contains("`policies[3]` does not exist: `policies` has 1 entries"),
        "{err}"
    );
    let err = load(r#"(field: "policies[0].policy.beta", values: [1.0])"#);
    assert!(
        err.contains("sweep.field") && err.contains("does not exist"),
        "{err}"
    );
    let err = load(r#"(field: "channels[0].theta", values: [0.5, 1.5])"#);
    assert!(
        err.contains("sweep.values[1]")
            && err.contains("channels[0].theta")
            && err.contains("[0, 1]"),
        "{err}"
    );
    let err = load(r#"(field: "channels[0].count", values: [2.5])"#);
    assert!(
        err.contains("sweep.values[0]") && err.contains("2.5 cannot be"),
        "{err}"
    );
    let err = load(r#"(field: "horizon", values: [])"#);
    assert!(
        err.contains("sweep.values") && err.contains("at least one"),
        "{err}"
    );
    let err = load(r#"(field: "horizon", values: [10, 10])"#);
    assert!(err.contains("listed twice"), "{err}");
    let err = load(r#"(field: "channels[0].theta", values: [0.0, 0.5], log: true)"#);
    assert!(
        err.contains("sweep.log") && err.contains("every value > 0"),
        "{err}"
    );
    let err = load(r#"(field: "horizon", values: [10], label: "")"#);
    assert!(
        err.contains("sweep.label") && err.contains("one line"),
        "{err}"
    );
    let err = load(r#"(field: "horizon", values: [10], lable: "T")"#);
    assert!(err.contains("did you mean `label`"), "{err}");
}

/// A sweep's label titles the axis, the report's column and the captions, `log` sets the
/// axis's scale, and `curves.csv` and `runs.csv` carry the swept value as a number.
#[test]
fn sweep_axis_label_log_flag_and_numeric_value_column() {
    let dir = tempfile::tempdir().unwrap();
    let write = |sweep: &str, name: &str| {
        let text = fig1a(200, 2, "(policy: CcUcb)").replace(
            "    policies: [",
            &format!("    sweep: {sweep},\n    policies: ["),
        );
        let path = scenario_file(dir.path(), &format!("{name}.ron"), &text);
        let out = dir.path().join(name);
        Simulation::from_file(&path)
            .unwrap()
            .run()
            .unwrap()
            .write(
                &out,
                &ChartOptions {
                    formats: vec![specprobe::Format::Svg],
                    ..ChartOptions::default()
                },
            )
            .unwrap();
        out
    };
    let plain = write(
        r#"(field: "policies[0].policy.alpha", values: [0.5, 1.0, 2.0])"#,
        "plain",
    );
    let named = write(
        r#"(field: "policies[0].policy.alpha", values: [0.5, 1.0, 2.0], label: "exploration α", log: true)"#,
        "named",
    );
    let svg = |dir: &std::path::Path| {
        std::fs::read_to_string(dir.join("sweep-pseudo-regret.svg")).unwrap()
    };
    assert!(svg(&plain).contains("policies[0].policy.alpha"));
    assert!(!svg(&plain).contains("log scale"));
    assert!(
        svg(&named).contains("exploration α (log scale)"),
        "{}",
        svg(&named)
    );
    assert!(!svg(&named).contains("policies[0].policy.alpha"));
    let report = std::fs::read_to_string(named.join("report.md")).unwrap();
    assert!(report.contains("| exploration α |"), "{report}");
    assert!(report.contains("against exploration α"), "{report}");
    // The label and scale are kept in summary.json, so `plot` redraws the same chart.
    let before = svg(&named);
    specprobe::commands::plot(&named, &ChartOptions::default(), &Default::default()).unwrap();
    assert_eq!(svg(&named), before);
    // Numbers are the same whatever the axis.
    for f in ["curves.csv", "runs.csv"] {
        assert_eq!(
            std::fs::read(plain.join(f)).unwrap(),
            std::fs::read(named.join(f)).unwrap(),
            "{f}"
        );
    }
    let runs = std::fs::read_to_string(plain.join("runs.csv")).unwrap();
    assert!(
        runs.starts_with("experiment,sweep_value,policy,run,"),
        "{runs}"
    );
    assert!(
        runs.contains("\npolicies[0].policy.alpha = 2,2.0,cc-ucb,1,"),
        "{runs}"
    );
    let curves = std::fs::read_to_string(plain.join("curves.csv")).unwrap();
    let header = curves.lines().next().unwrap();
    assert!(header.ends_with(",experiment,sweep_value"), "{header}");
    assert!(curves.lines().nth(1).unwrap().ends_with("= 0.5,0.5"));
}

/// Sweeps shard and merge to the unsharded bytes, and re-render with `plot`.
#[test]
fn sweeps_shard_merge_and_plot() {
    let dir = tempfile::tempdir().unwrap();
    let text = fig1a(1500, 5, "(policy: CcUcb), (policy: Oracle)").replace(
        "    policies: [",
        "    sweep: (field: \"channels[1].count\", values: [1, 3]),\n    policies: [",
    );
    let path = scenario_file(dir.path(), "s.ron", &text);
    let whole = dir.path().join("whole");
    Simulation::from_file(&path)
        .unwrap()
        .run()
        .unwrap()
        .write(&whole, &ChartOptions::default())
        .unwrap();
    let merged = three_shards_merged(&path, dir.path());
    for f in ["summary.json", "curves.csv", "runs.csv"] {
        assert_eq!(
            std::fs::read(whole.join(f)).unwrap(),
            std::fs::read(merged.join(f)).unwrap(),
            "{f}"
        );
    }
    // K = 7 in the second cell: the channel list grew.
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(whole.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["kind"], "sweep");
    assert_eq!(summary["cells"][1]["channels"].as_array().unwrap().len(), 8);
    let before = std::fs::read(whole.join("report.md")).unwrap();
    specprobe::commands::plot(&whole, &ChartOptions::default(), &Default::default()).unwrap();
    assert_eq!(std::fs::read(whole.join("report.md")).unwrap(), before);
    assert!(whole.join("sweep-pseudo-regret.svg").exists());
}

/// The Figure 1(b) stand-in shows the two claims it ships for, on a reduced horizon: the
/// regret increases with the known cost c, and it grows sublinearly in T.
#[test]
fn the_figure_1b_substitute_shows_regret_rising_with_c_and_sublinear_in_t() {
    let tmp = tempfile::tempdir().unwrap();
    let regret_at = |horizon: u64| -> Vec<f64> {
        let out = tmp.path().join(format!("t{horizon}"));
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_specprobe"))
            .args(["run", "scenarios/paper-fig1b-substitute.ron", "--no-charts"])
            .args(["--runs", "4", "--horizon", &horizon.to_string(), "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let summary: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
        summary["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["policies"][0]["pseudo_regret"]["mean"].as_f64().unwrap())
            .collect()
    };
    let (short, long) = (regret_at(2_000), regret_at(20_000));
    assert_eq!(long.len(), 5);
    assert!(
        long.windows(2).all(|w| w[0] < w[1]),
        "not rising in c: {long:?}"
    );
    // Ten times the slots, far less than ten times the regret.
    for (s, l) in short.iter().zip(&long) {
        assert!(l > s && *l < 4.0 * s, "{short:?} -> {long:?}");
    }
}

/// Regret, many-users and identification sweeps follow one model: the same rules on their
/// values (at most
/// 1000, none twice, each checked as a separate file), the same cell labels, and the same
/// refusal of an override that sets the swept field.
#[test]
fn both_kinds_of_sweep_follow_one_model() {
    use specprobe::{OverrideError, Overrides, Scenario, parse};
    use std::path::Path;
    let regret = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/sweep-alpha.ron"),
    )
    .unwrap();
    let many = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/multi-sweep-users.ron"),
    )
    .unwrap();
    let identification = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/identification-sweep-confidence.ron"),
    )
    .unwrap();
    let set_sweep = |text: &str, sweep: &str| {
        let start = text.find("    sweep: (").unwrap();
        let end = start + text[start..].find("),\n").unwrap() + 3;
        format!("{}    sweep: {sweep},\n{}", &text[..start], &text[end..])
    };
    for (text, field, value) in [
        (&regret, "policies[*].policy.alpha", 0.5),
        (&many, "users", 3.0),
        (&regret, "horizon", 2000.0),
        (&many, "horizon", 2000.0),
        (&identification, "confidence", 0.05),
        (&identification, "instances[0].k", 3.0),
    ] {
        let path = Path::new("s.ron");
        // Too many values, a value twice, a value its field cannot hold: named at the value.
        let many_values: Vec<f64> = (1..=1001).map(f64::from).collect();
        let too_many = set_sweep(
            text,
            &format!("(field: {field:?}, values: {many_values:?})"),
        );
        let err = parse(&too_many, path).unwrap_err().to_string();
        assert!(
            err.contains("sweep.values") && err.contains("at most 1000 cells"),
            "{err}"
        );
        let twice = set_sweep(
            text,
            &format!("(field: {field:?}, values: [{value:?}, {value:?}])"),
        );
        let err = parse(&twice, path).unwrap_err().to_string();
        assert!(
            err.contains("sweep.values[1]") && err.contains("listed twice"),
            "{err}"
        );
        let negative = set_sweep(text, &format!("(field: {field:?}, values: [-1.5])"));
        let err = parse(&negative, path).unwrap_err().to_string();
        assert!(err.contains("sweep.values[0]"), "{err}");
        // A sound sweep: one cell per value, labelled `field = value`.
        let sound = set_sweep(text, &format!("(field: {field:?}, values: [{value:?}])"));
        let scenario = parse(&sound, path).unwrap();
        let (values, cells) = match &scenario {
            Scenario::Sweep(s) => (s.sweep().values().to_vec(), s.sweep().cells().len()),
            Scenario::MultiUser(s) => {
                let sw = s.sweep().expect("a many-users sweep");
                (sw.values().to_vec(), sw.cells().len())
            }
            Scenario::Identification(s) => {
                let sw = s.sweep().expect("an identification sweep");
                (sw.values().to_vec(), sw.cells().len())
            }
            Scenario::Regret(_) => panic!("not a sweep"),
        };
        assert_eq!((values, cells), (vec![value], 1));
        // An override of the swept field is refused, whatever the kind.
        let o = Overrides {
            horizon: Some(500),
            ..Overrides::default()
        };
        let refused = scenario.with_overrides(&o);
        assert_eq!(
            matches!(refused, Err(OverrideError::HorizonIsSwept)),
            field == "horizon",
            "{field}: {refused:?}"
        );
    }
    // --seed and --runs over a sweep of the seed or the runs: refused, whatever the kind (every
    // cell would silently get the one value).
    for (text, field) in [
        (&regret, "seed"),
        (&many, "runs"),
        (&identification, "seed"),
        (&identification, "runs"),
    ] {
        let swept = set_sweep(text, &format!("(field: {field:?}, values: [1, 2])"));
        let scenario = parse(&swept, Path::new("s.ron")).unwrap();
        let o = Overrides {
            seed: Some(7),
            runs: Some(3),
            ..Overrides::default()
        };
        let refused = scenario.clone().with_overrides(&o).unwrap_err();
        assert_eq!(refused, OverrideError::FieldIsSwept(field), "{field}");
        assert!(refused.to_string().starts_with(&format!("--{field}: ")));
        // The other flag alone is taken.
        let other = Overrides {
            seed: (field == "runs").then_some(7),
            runs: (field == "seed").then_some(3),
            ..Overrides::default()
        };
        scenario.with_overrides(&other).unwrap();
    }
}

/// An identification sweep (issue 49, item 2): each cell's folder holds exactly the files of a
/// separate run with that value; shards merge into the unsharded run's files, cells included;
/// `plot` redraws the same report and refuses a top summary its cells do not give.
#[test]
fn identification_sweeps_run_shard_merge_and_plot() {
    use std::path::Path;
    let dir = tempfile::tempdir().unwrap();
    let text = r#"Identification(name: "isw", seed: 3, runs: 12, settings: [Heuristic, Faithful],
        instances: [
            (label: "exp", family: LilExponential(alpha: 0.3), k: Fixed(2), arms: [8, 12]),
            (label: "sparse", family: OneSparse, k: Fixed(1), arms: [6]),
        ],
        algorithms: [LilLucb, LucbPlusPlus, Lucb1],
        sweep: (field: "confidence", values: [0.1, 0.01]))"#;
    let path = scenario_file(dir.path(), "isw.ron", text);
    let whole = dir.path().join("whole");
    Simulation::from_file(&path)
        .unwrap()
        .run()
        .unwrap()
        .write(&whole, &ChartOptions::default())
        .unwrap();
    let top: serde_json::Value =
        serde_json::from_slice(&std::fs::read(whole.join("summary.json")).unwrap()).unwrap();
    assert_eq!(top["kind"], "identification-sweep");
    assert_eq!(
        top["folders"],
        serde_json::json!(["confidence=0.1", "confidence=0.01"])
    );
    // Two sizes of `exp` and one of `sparse`, two settings, LUCB1 in the faithful one only.
    let entries = top["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 3 * (2 + 3));
    assert!(
        entries
            .iter()
            .all(|e| e["points"].as_array().unwrap().len() == 2)
    );
    // Each cell is the scenario with that value, run alone: the same data files.
    for (value, folder) in [("0.1", "confidence=0.1"), ("0.01", "confidence=0.01")] {
        let alone = text
            .replace("runs: 12,", &format!("runs: 12, confidence: {value},"))
            .replace(
                r#",
        sweep: (field: "confidence", values: [0.1, 0.01])"#,
                "",
            );
        let p = scenario_file(dir.path(), &format!("alone{value}.ron"), &alone);
        let out = dir.path().join(format!("alone{value}"));
        Simulation::from_file(&p)
            .unwrap()
            .run()
            .unwrap()
            .write(&out, &none())
            .unwrap();
        for f in ["identification.csv", "runs.csv"] {
            assert_eq!(
                std::fs::read(out.join(f)).unwrap(),
                std::fs::read(whole.join(folder).join(f)).unwrap(),
                "{folder}/{f}"
            );
        }
        // The summary differs only by the source file it names: none. Compare it whole.
        assert_eq!(
            std::fs::read(out.join("summary.json")).unwrap(),
            std::fs::read(whole.join(folder).join("summary.json")).unwrap(),
            "{folder}/summary.json"
        );
    }
    // Shards merge into the unsharded files, the cells' too.
    let merged = three_shards_merged(&path, dir.path());
    let data = |root: &Path| -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        for folder in ["", "confidence=0.1", "confidence=0.01"] {
            for f in [
                "summary.json",
                "sweep.csv",
                "identification.csv",
                "runs.csv",
            ] {
                if let Ok(bytes) = std::fs::read(root.join(folder).join(f)) {
                    out.push((format!("{folder}/{f}"), bytes));
                }
            }
        }
        out
    };
    let (w, m) = (data(&whole), data(&merged));
    assert_eq!(
        w.len(),
        2 + 3 * 2,
        "{:?}",
        w.iter().map(|x| &x.0).collect::<Vec<_>>()
    );
    assert_eq!(w, m);
    // plot redraws the same report; a top summary its cells do not give is refused.
    let before = std::fs::read(whole.join("report.md")).unwrap();
    specprobe::commands::plot(&whole, &ChartOptions::default(), &Default::default()).unwrap();
    assert_eq!(std::fs::read(whole.join("report.md")).unwrap(), before);
    assert!(whole.join("confidence=0.01/identification.csv").exists());
    let summary = whole.join("summary.json");
    let text = std::fs::read_to_string(&summary).unwrap();
    let forged = text.replacen("\"errors\": 0", "\"errors\": 1", 1);
    assert_ne!(forged, text);
    std::fs::write(&summary, forged).unwrap();
    let err = specprobe::commands::plot(&whole, &none(), &Default::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("summary.json") && err.contains("does not agree"),
        "{err}"
    );
}

/// An identification sweep over K or N names a value its cell cannot take, at that value.
#[test]
fn identification_sweeps_over_k_and_n_are_checked_per_cell() {
    use specprobe::{Scenario, parse};
    let base = r#"Identification(name: "k", seed: 1, runs: 2, settings: [Heuristic],
        instances: [(label: "exp", family: LilExponential(alpha: 0.3), k: Fixed(2), arms: [10])],
        algorithms: [LilLucb],
        sweep: SWEEP)"#;
    let with = |sweep: &str| base.replace("SWEEP", sweep);
    let path = std::path::Path::new("k.ron");
    let Scenario::Identification(s) = parse(
        &with(r#"(field: "instances[0].k", values: [1, 4, 9])"#),
        path,
    )
    .unwrap() else {
        panic!("an identification scenario")
    };
    let sizes: Vec<u64> = s
        .sweep()
        .unwrap()
        .cells()
        .iter()
        .map(|c| c.runs())
        .collect();
    assert_eq!(sizes, [2, 2, 2]);
    let err = parse(&with(r#"(field: "instances[0].k", values: [1, 10])"#), path)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("sweep.values[1]") && err.contains("1 ≤ K < N"),
        "{err}"
    );
    let err = parse(
        &with(r#"(field: "instances[0].arms[0]", values: [12, 2])"#),
        path,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("sweep.values[1]"), "{err}");
    // With two sizes, a swept N keeps its rank among them: each size is one line of the top
    // summary and chart across the cells.
    let two = base.replace("arms: [10]", "arms: [10, 20]");
    let with_two = |sweep: &str| two.replace("SWEEP", sweep);
    parse(
        &with_two(r#"(field: "instances[0].arms[0]", values: [5, 15])"#),
        path,
    )
    .unwrap();
    let err = parse(
        &with_two(r#"(field: "instances[0].arms[0]", values: [5, 30])"#),
        path,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("sweep.values[1]") && err.contains("keep its rank"),
        "{err}"
    );
    let err = parse(&with(r#"(field: "instances[0].size", values: [1])"#), path)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("sweep.field") && err.contains("does not exist"),
        "{err}"
    );
}
