//! Damaged results through `plot`: every class is a clear error naming the file, never a panic,
//! and the folder is left exactly as it was.

use crate::common::{fig1a, no_charts, run, scenario_file};
use serde_json::Value;
use specprobe::Cancel;
use specprobe::commands::{self, RunArgs};
use specprobe::{ChartOptions, Format};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn svg() -> ChartOptions {
    ChartOptions {
        formats: vec![Format::Svg],
        size: (480, 320),
        ..ChartOptions::default()
    }
}

fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| {
            (
                e.file_name().into_string().unwrap(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

fn copy(from: &Path, to: &Path) -> PathBuf {
    std::fs::create_dir_all(to).unwrap();
    for (name, bytes) in files(from) {
        std::fs::write(to.join(name), bytes).unwrap();
    }
    to.to_path_buf()
}

type Damage = Box<dyn Fn(&Path)>;

fn edit_json(edit: impl Fn(&mut Value) + 'static) -> Damage {
    Box::new(move |dir| {
        let path = dir.join("summary.json");
        let mut doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        edit(&mut doc);
        std::fs::write(path, serde_json::to_vec(&doc).unwrap()).unwrap();
    })
}

fn edit_text(file: &'static str, edit: impl Fn(String) -> String + 'static) -> Damage {
    Box::new(move |dir| {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let edited = edit(text.clone());
        assert_ne!(edited, text, "the damage must change {file}");
        std::fs::write(path, edited).unwrap();
    })
}

/// Replaces the cell `column` of curves.csv's data row `row` (1-based: after the header).
fn curves_cell(row: usize, column: usize, value: &'static str) -> Damage {
    edit_text("curves.csv", move |t| {
        let mut lines: Vec<String> = t.lines().map(String::from).collect();
        let mut cells: Vec<&str> = lines[row].split(',').collect();
        cells[column] = value;
        lines[row] = cells.join(",");
        lines.join("\n") + "\n"
    })
}

fn policy0(d: &mut Value) -> &mut Value {
    &mut d["policies"][0]
}

fn regret_classes() -> Vec<(&'static str, &'static str, Damage)> {
    vec![
        (
            "summary truncated",
            "summary.json",
            edit_text("summary.json", |t| t[..300].to_string()),
        ),
        (
            "summary empty",
            "summary.json",
            edit_text("summary.json", |_| String::new()),
        ),
        (
            "empty policies",
            "summary.json",
            edit_json(|d| d["policies"] = Value::Array(vec![])),
        ),
        (
            "empty channels",
            "summary.json",
            edit_json(|d| d["channels"] = Value::Array(vec![])),
        ),
        (
            "optimum channel out of range",
            "summary.json",
            edit_json(|d| d["optimum"]["list"] = serde_json::json!([0, 99])),
        ),
        (
            "short channel_probes",
            "summary.json",
            edit_json(|d| policy0(d)["channel_probes"] = serde_json::json!([1.0])),
        ),
        (
            "probe count out of range",
            "summary.json",
            edit_json(|d| policy0(d)["probe_distribution"] = serde_json::json!([[999, 5]])),
        ),
        (
            "short probe pair",
            "summary.json",
            edit_json(|d| policy0(d)["probe_distribution"] = serde_json::json!([[1]])),
        ),
        (
            "null mean",
            "summary.json",
            edit_text("summary.json", |t| {
                t.replacen("\"mean\":", "\"mean\":null,\"x\":", 1)
            }),
        ),
        (
            "infinite number",
            "summary.json",
            edit_text("summary.json", |t| {
                t.replacen(
                    "\"expected_reward\":",
                    "\"expected_reward\":1e999,\"y\":",
                    1,
                )
            }),
        ),
        (
            "negative paired standard error",
            "summary.json",
            edit_json(|d| {
                d["policies"][1]["paired"]["pseudo_regret"]["stderr"] = Value::from(-1.0)
            }),
        ),
        (
            "paired reference naming no policy",
            "summary.json",
            edit_json(|d| d["policies"][1]["paired"]["reference"] = Value::from("nobody")),
        ),
        (
            "expected reward of -1e300",
            "summary.json",
            edit_json(|d| d["optimum"]["expected_reward"] = Value::from(-1e300)),
        ),
        (
            "segments for a stationary benchmark",
            "summary.json",
            edit_json(|d| {
                d["segments"] =
                    serde_json::json!([{"first": 1, "last": 2000, "optimum": d["optimum"].clone()}])
            }),
        ),
        (
            "n disagreeing with runs",
            "curves.csv",
            curves_cell(5, 52, "1"),
        ),
        (
            "zero horizon",
            "summary.json",
            edit_json(|d| d["horizon"] = Value::from(0)),
        ),
        (
            "curves truncated",
            "curves.csv",
            edit_text("curves.csv", |t| t[..500].to_string()),
        ),
        (
            "curves empty",
            "curves.csv",
            edit_text("curves.csv", |_| String::new()),
        ),
        ("NaN in curves", "curves.csv", curves_cell(5, 2, "NaN")),
        ("inf in curves", "curves.csv", curves_cell(5, 2, "inf")),
        (
            "slot beyond the horizon",
            "curves.csv",
            curves_cell(5, 1, "99999999999"),
        ),
        (
            "unknown policy in curves",
            "curves.csv",
            curves_cell(3, 0, "nobody"),
        ),
        (
            "unsorted curves",
            "curves.csv",
            edit_text("curves.csv", |t| {
                let mut lines: Vec<&str> = t.lines().collect();
                lines.swap(3, 10);
                lines.join("\n") + "\n"
            }),
        ),
    ]
}

fn expect_refused(dir: &Path, file: &str, class: &str) {
    let before = files(dir);
    let err = match commands::plot(dir, &svg(), &Cancel::new()) {
        Ok(_) => panic!("{class}: plot accepted a damaged folder"),
        Err(e) => format!("{e:#}"),
    };
    assert!(
        err.contains(file),
        "{class}: the error does not name {file}: {err}"
    );
    assert!(
        files(dir) == before,
        "{class}: the folder was changed by a refused plot"
    );
}

#[test]
fn every_damaged_regret_folder_is_an_error_that_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let policies = "(policy: CcUcb()), (policy: Oracle)";
    let path = scenario_file(tmp.path(), "s.ron", &fig1a(2000, 3, policies));
    let base = tmp.path().join("base");
    run(&path, &base, 2);
    // The untouched folder plots, so each refusal below is the damage's doing.
    commands::plot(
        &copy(&base, &tmp.path().join("clean")),
        &svg(),
        &Cancel::new(),
    )
    .unwrap();
    for (i, (class, file, damage)) in regret_classes().into_iter().enumerate() {
        let dir = copy(&base, &tmp.path().join(format!("case{i}")));
        damage(&dir);
        expect_refused(&dir, file, class);
    }
}

#[test]
fn damaged_identification_and_sweep_folders_are_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut bases = Vec::new();
    for (name, horizon) in [
        ("spectrum-8ch-top3.ron", None),
        ("sweep-alpha.ron", Some(200)),
    ] {
        let out = tmp.path().join(name);
        commands::run(&RunArgs {
            scenario: root.join(name),
            out: Some(out.clone()),
            overrides: specprobe::Overrides {
                runs: Some(2),
                horizon,
                ..Default::default()
            },
            charts: no_charts(),
            ..Default::default()
        })
        .unwrap();
        commands::plot(
            &copy(&out, &tmp.path().join(format!("{name}-clean"))),
            &svg(),
            &Cancel::new(),
        )
        .unwrap();
        bases.push(out);
    }
    let identification: Vec<(&str, Damage)> = vec![
        (
            "empty results",
            edit_json(|d| d["results"] = Value::Array(vec![])),
        ),
        (
            "k above n",
            edit_json(|d| d["results"][0]["k"] = Value::from(1_000_000)),
        ),
        (
            "negative samples",
            edit_json(|d| d["results"][0]["samples"]["mean"] = Value::from(-5.0)),
        ),
        (
            "infinite samples",
            edit_text("summary.json", |t| {
                t.replacen("\"mean\":", "\"mean\":1e999,\"q\":", 1)
            }),
        ),
        (
            "truncated",
            edit_text("summary.json", |t| t[..200].to_string()),
        ),
    ];
    let sweep: Vec<(&str, Damage)> = vec![
        (
            "empty values",
            edit_json(|d| d["values"] = Value::Array(vec![])),
        ),
        (
            "empty cells",
            edit_json(|d| d["cells"] = Value::Array(vec![])),
        ),
        (
            "table row of no value",
            edit_json(|d| d["table"][0]["value"] = Value::from(123.0)),
        ),
        (
            "truncated",
            edit_text("summary.json", |t| t[..400].to_string()),
        ),
    ];
    for (base, classes) in bases.iter().zip([identification, sweep]) {
        for (i, (class, damage)) in classes.into_iter().enumerate() {
            let dir = copy(
                base,
                &tmp.path().join(format!(
                    "{}-{i}",
                    base.file_name().unwrap().to_string_lossy()
                )),
            );
            damage(&dir);
            expect_refused(&dir, "summary.json", class);
        }
    }
    // The sweep's curves.csv, which plot keeps: a row of a cell that is not a value, and a
    // row whose numeric value is not its cell's.
    for (class, from, to) in [
        (
            "sweep curves of no value",
            "policies[*].policy.alpha = 0.5,0.5\n",
            "policies[*].policy.alpha = 9,0.5\n",
        ),
        (
            "sweep curves whose value is not their cell's",
            "policies[*].policy.alpha = 0.5,0.5\n",
            "policies[*].policy.alpha = 0.5,0.75\n",
        ),
    ] {
        let dir = copy(&bases[1], &tmp.path().join("sweep-curves"));
        edit_text("curves.csv", move |t| t.replacen(from, to, 1))(&dir);
        expect_refused(&dir, "curves.csv", class);
    }
}

#[test]
fn what_run_writes_plot_reads_back_at_the_parameter_limits() {
    // The largest α, and a cost law as wide as the range allows: outputs stay finite, so plot
    // reads them back (α = 1e308 once wrote `null` bounds that plot then rejected).
    let tmp = tempfile::tempdir().unwrap();
    let text = fig1a(
        300,
        2,
        "(policy: CcUcb(alpha: 1000.0)), (policy: CcUcbKnownCost(alpha: 1000.0))",
    )
    .replace(
        "cost: Bernoulli(0.55)",
        "energy: Beta(alpha: 0.5, beta: 0.5, lo: 0.0, hi: 1e12), delay: Constant(0.0)",
    )
    .replace("runs: 2,", "runs: 2, weights: (energy: 1e-12, delay: 1.0),");
    let path = scenario_file(tmp.path(), "s.ron", &text);
    let out = tmp.path().join("out");
    run(&path, &out, 2);
    commands::plot(&out, &svg(), &Cancel::new()).unwrap();
}

/// Many-users summaries: the edits a user or an attacker made that `plot` used to draw.
fn many_users_classes() -> Vec<(&'static str, &'static str, Damage)> {
    let json = |f: fn(&mut Value)| edit_json(f);
    vec![
        (
            "a channel index out of place",
            "summary.json",
            json(|d| policy0(d)["channels"][1]["channel"] = 99.into()),
        ),
        (
            "a user index out of place",
            "summary.json",
            json(|d| policy0(d)["users"][0]["user"] = 7.into()),
        ),
        (
            "Jain's index above 1",
            "summary.json",
            json(|d| policy0(d)["jain_fairness"]["mean"] = 1.7.into()),
        ),
        (
            "Jain's index below 1/M",
            "summary.json",
            json(|d| policy0(d)["jain_fairness"]["mean"] = 0.1.into()),
        ),
        (
            "a negative standard deviation",
            "summary.json",
            json(|d| policy0(d)["at_horizon"]["pseudo_regret"]["std"] = (-1.0).into()),
        ),
        (
            "an interval that misses its mean",
            "summary.json",
            json(|d| policy0(d)["at_horizon"]["reward"]["ci95"] = serde_json::json!([0.0, 1.0])),
        ),
        (
            "a negative lower bound",
            "summary.json",
            json(|d| d["lower_bound"]["decentralized"] = (-3.0).into()),
        ),
        (
            "a benchmark channel out of range",
            "summary.json",
            json(|d| d["benchmark"]["lists"][0][0] = 40.into()),
        ),
        (
            "more collisions than user-slots",
            "summary.json",
            json(|d| policy0(d)["at_horizon"]["su_collisions"]["mean"] = 1e9.into()),
        ),
        (
            "a theta outside [0, 1]",
            "summary.json",
            json(|d| policy0(d)["channels"][0]["theta"] = 1.5.into()),
        ),
        (
            "a negative probe count",
            "summary.json",
            json(|d| policy0(d)["channels"][0]["probes_per_run"] = (-2.0).into()),
        ),
        (
            "an unknown metric",
            "summary.json",
            json(|d| {
                policy0(d)["at_horizon"]["bogus"] =
                    serde_json::json!({"mean": 1.0, "std": 0.0, "ci95": null})
            }),
        ),
        (
            "more runs than the scenario's",
            "summary.json",
            json(|d| policy0(d)["runs"] = 1000.into()),
        ),
        (
            "more exact runs than runs",
            "summary.json",
            json(|d| policy0(d)["decomposition"]["runs_summing_exactly"] = 1000.into()),
        ),
    ]
}

#[test]
fn every_damaged_many_users_folder_is_an_error_that_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let path = scenario_file(
        tmp.path(),
        "mu.ron",
        r#"MultiUser(name: "mu", seed: 3, horizon: 600, runs: 3, users: 2,
            channels: [(theta: 0.9, cost: Constant(0.0)), (theta: 0.6, cost: Constant(0.0)), (theta: 0.2, cost: Constant(0.0))],
            policies: [(policy: RhoRand(index: Ucb)), (policy: McTopM(index: KlUcb))])"#,
    );
    let base = tmp.path().join("base");
    commands::run(&RunArgs {
        scenario: path,
        out: Some(base.clone()),
        threads: Some(2),
        charts: no_charts(),
        ..RunArgs::default()
    })
    .unwrap();
    commands::plot(
        &copy(&base, &tmp.path().join("clean")),
        &svg(),
        &Cancel::new(),
    )
    .unwrap();
    for (i, (class, file, damage)) in many_users_classes().into_iter().enumerate() {
        let dir = copy(&base, &tmp.path().join(format!("case{i}")));
        damage(&dir);
        expect_refused(&dir, file, class);
    }
}

/// Values that the scenario makes impossible, each refused by `plot` naming the file and the
/// field (issue 50, item 6); `run` and `merge` make the same checks of what they are about to
/// write, so merged shards cannot produce any of them either.
fn impossible_many_users_values() -> Vec<(&'static str, &'static str, &'static str, Damage)> {
    let json = |f: fn(&mut Value)| edit_json(f);
    // The last row of policy 0 (600 slots) with its pseudo-regret's mean changed.
    let final_row = edit_text("curves.csv", |t| {
        let lines: Vec<String> = t
            .lines()
            .map(|l| {
                let mut cells: Vec<String> = l.split(',').map(String::from).collect();
                if cells[1] == "600" && l.starts_with("rhorand") {
                    cells[2] = "123.5".into();
                }
                cells.join(",")
            })
            .collect();
        lines.join("\n") + "\n"
    });
    let past_horizon = edit_text("curves.csv", |t| {
        let lines: Vec<String> = t
            .lines()
            .map(|l| {
                if l.starts_with("rhorand") && l.split(',').nth(1) == Some("600") {
                    l.replacen(",600,", ",900,", 1)
                } else {
                    l.to_string()
                }
            })
            .collect();
        lines.join("\n") + "\n"
    });
    vec![
        (
            "runs 999",
            "summary.json",
            "policies[0].runs",
            json(|d| d["runs"] = 999.into()),
        ),
        (
            "no benchmark list",
            "summary.json",
            "benchmark.lists",
            json(|d| d["benchmark"]["lists"] = serde_json::json!([])),
        ),
        (
            "a lower bound of 1e308",
            "summary.json",
            "lower_bound",
            json(|d| d["lower_bound"]["decentralized"] = 1e308.into()),
        ),
        (
            "a lower bound that is not M times the centralised one",
            "summary.json",
            "lower_bound.decentralized",
            json(|d| {
                let c = d["lower_bound"]["centralized"].as_f64().unwrap();
                d["lower_bound"]["decentralized"] = (3.0 * c + 1.0).into();
            }),
        ),
        (
            "timing Warp",
            "summary.json",
            "timing",
            json(|d| d["timing"] = "Warp".into()),
        ),
        (
            "a feedback level that is none",
            "summary.json",
            "feedback",
            json(|d| d["feedback"] = "Telepathy".into()),
        ),
        (
            "per-user rewards that do not sum to the system's",
            "summary.json",
            "policies[0].users",
            json(|d| {
                let r = &mut policy0(d)["users"][0]["reward"]["mean"];
                *r = (r.as_f64().unwrap() + 50.0).into();
            }),
        ),
        (
            "per-channel collisions that do not sum to the users'",
            "summary.json",
            "policies[0].channels",
            json(|d| {
                let c = &mut policy0(d)["channels"][0]["collisions"]["mean"];
                *c = (c.as_f64().unwrap() + 1.0).into();
            }),
        ),
        (
            "more collisions on a channel than selections",
            "summary.json",
            "policies[0].channels[2].collisions",
            json(|d| {
                let ch = &mut policy0(d)["channels"][2];
                let sel = ch["selections"]["mean"].as_f64().unwrap();
                ch["collisions"]["mean"] = (sel + 1.0).into();
            }),
        ),
        (
            "a decomposition that does not sum",
            "summary.json",
            "policies[0].decomposition.regret",
            json(|d| {
                let r = &mut policy0(d)["decomposition"]["regret"]["mean"];
                *r = (r.as_f64().unwrap() + 5.0).into();
            }),
        ),
        (
            "a statistic over more runs than the policy's",
            "summary.json",
            "policies[0].at_horizon.reward.n",
            json(|d| policy0(d)["at_horizon"]["reward"]["n"] = 4.into()),
        ),
        (
            "a negative collision count",
            "summary.json",
            "policies[0].channels[0].collisions",
            json(|d| policy0(d)["channels"][0]["collisions"]["mean"] = (-1.0).into()),
        ),
        (
            "a final curve that disagrees with the summary",
            "curves.csv",
            "pseudo_regret_mean",
            final_row,
        ),
        (
            "a curve past the horizon",
            "curves.csv",
            "t = 900",
            past_horizon,
        ),
    ]
}

#[test]
fn impossible_many_users_values_are_refused_by_field() {
    let tmp = tempfile::tempdir().unwrap();
    let path = scenario_file(
        tmp.path(),
        "mu.ron",
        r#"MultiUser(name: "mu", seed: 3, horizon: 600, runs: 3, users: 2,
            channels: [(theta: 0.9, cost: Constant(0.0)), (theta: 0.6, cost: Constant(0.0)), (theta: 0.2, cost: Constant(0.0))],
            policies: [(policy: RhoRand(index: Ucb)), (policy: McTopM(index: KlUcb))])"#,
    );
    let base = tmp.path().join("base");
    commands::run(&RunArgs {
        scenario: path,
        out: Some(base.clone()),
        threads: Some(2),
        charts: no_charts(),
        ..RunArgs::default()
    })
    .unwrap();
    for (i, (class, file, field, damage)) in impossible_many_users_values().into_iter().enumerate()
    {
        let dir = copy(&base, &tmp.path().join(format!("case{i}")));
        damage(&dir);
        let err = match commands::plot(&dir, &svg(), &Cancel::new()) {
            Ok(_) => panic!("{class}: plot accepted it"),
            Err(e) => format!("{e:#}"),
        };
        assert!(
            err.contains(file) && err.contains(field),
            "{class}: the error names not {file} and {field}: {err}"
        );
    }
}
