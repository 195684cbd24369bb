//! Tampered and damaged shards through `merge`: every class is refused with the shard's file and
//! the field named, both as damage (the checksum catches it) and as a forger's edit with the
//! checksum recomputed (the consistency checks behind the checksum catch it).

use crate::app::commands::{self, RunArgs};
use crate::engine::shard::Shard;
use crate::scenario::Overrides;
use crate::store::partial::{self, Partial};
use crate::testing::{fig1a, no_charts, scenario_file};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Writes both shards of a two-shard run of `scenario` and returns their folders.
fn two_shards(scenario: &Path, tmp: &Path, runs: u64) -> [PathBuf; 2] {
    two_shards_seeded(scenario, tmp, runs, None)
}

/// [`two_shards`] with another seed than the scenario's (folders named after it).
fn two_shards_seeded(scenario: &Path, tmp: &Path, runs: u64, seed: Option<u64>) -> [PathBuf; 2] {
    [0, 1].map(|index| {
        let out = match seed {
            None => tmp.join(format!("shard{index}")),
            Some(seed) => tmp.join(format!("seed{seed}-shard{index}")),
        };
        commands::run(&RunArgs {
            scenario: scenario.to_path_buf(),
            out: Some(out.clone()),
            threads: Some(2),
            shard: Some(Shard { index, count: 2 }),
            overrides: Overrides {
                runs: Some(runs),
                seed,
                ..Default::default()
            },
            charts: no_charts(),
            ..Default::default()
        })
        .unwrap();
        out
    })
}

/// A copy of `shard`'s partial edited by `edit`, resealed with a fresh checksum or not.
fn tampered(shard: &Path, to: &Path, edit: &dyn Fn(&mut Value), reseal: bool) -> PathBuf {
    let text = std::fs::read(shard.join("partial.json")).unwrap();
    let mut doc: Value = serde_json::from_slice(&text).unwrap();
    edit(&mut doc);
    let bytes = if reseal {
        let p: Partial = serde_json::from_value(doc).expect("the edit keeps the partial's shape");
        serde_json::to_vec(&p.resealed()).unwrap()
    } else {
        serde_json::to_vec(&doc).unwrap()
    };
    std::fs::create_dir_all(to).unwrap();
    std::fs::write(to.join("partial.json"), bytes).unwrap();
    to.to_path_buf()
}

/// Merges and expects a refusal naming `file` and every one of `words`.
fn refused(inputs: &[PathBuf], file: &Path, words: &[&str], case: &str) {
    let err = match partial::merge(inputs) {
        Ok(_) => panic!("{case}: merged a tampered shard"),
        Err(e) => e.to_string(),
    };
    assert!(
        err.contains(&file.display().to_string()),
        "{case}: the error does not name {}: {err}",
        file.display()
    );
    for w in words {
        assert!(
            err.contains(w),
            "{case}: the error does not say {w:?}: {err}"
        );
    }
}

type Edit = Box<dyn Fn(&mut Value)>;

fn cells(d: &mut Value) -> &mut Vec<Value> {
    d["body"]["Identification"]["cells"].as_array_mut().unwrap()
}

fn stats(d: &mut Value) -> &mut Value {
    &mut d["body"]["Regret"]["stats"]
}

fn first(d: &mut Value) -> &mut Value {
    &mut stats(d)[0][0]
}

/// (class, edit, what the resealed refusal names).
fn regret_classes() -> Vec<(&'static str, Edit, &'static [&'static str])> {
    vec![
        (
            "empty stats",
            Box::new(|d| stats(d).as_array_mut().unwrap().clear()),
            &["body.stats", "experiments"],
        ),
        (
            "missing policy",
            Box::new(|d| {
                stats(d)[0].as_array_mut().unwrap().pop();
            }),
            &["body.stats[0]", "policies"],
        ),
        (
            "truncated curves",
            Box::new(|d| {
                first(d)["curves"].as_array_mut().unwrap().pop();
            }),
            &["curves", "checkpoints"],
        ),
        (
            "edited final value",
            Box::new(|d| {
                let v = &mut first(d)["finals"][0][1][0];
                *v = Value::from(v.as_f64().unwrap() + 1.0);
            }),
            &["body.stats[0][0]"],
        ),
        (
            "edited curve sum",
            Box::new(|d| {
                let last = first(d)["curves"]
                    .as_array_mut()
                    .unwrap()
                    .last_mut()
                    .unwrap();
                let sums = last[0]["sum"].as_array_mut().unwrap();
                let v = sums.last_mut().unwrap();
                *v = Value::from(v.as_f64().unwrap() + 1.0);
            }),
            &["body.stats[0][0].curves"],
        ),
        (
            "inflated n",
            Box::new(|d| {
                let n = &mut first(d)["curves"][0][0]["n"];
                *n = Value::from(n.as_u64().unwrap() + 5);
            }),
            &["body.stats[0][0].curves[0][0]"],
        ),
        (
            "inflated runs",
            Box::new(|d| {
                let n = &mut first(d)["runs"];
                *n = Value::from(n.as_u64().unwrap() + 1);
            }),
            &["body.stats[0][0].runs"],
        ),
        (
            "dropped final row",
            Box::new(|d| {
                first(d)["finals"].as_array_mut().unwrap().pop();
            }),
            &["finals"],
        ),
        (
            "short channel_probes",
            Box::new(|d| {
                first(d)["channel_probes"].as_array_mut().unwrap().pop();
            }),
            &["channel_probes"],
        ),
        (
            "probe count out of range",
            Box::new(|d| {
                first(d)["probes"]
                    .as_array_mut()
                    .unwrap()
                    .push(serde_json::json!([1_000_000, 1]))
            }),
            &["probes"],
        ),
        (
            "shard index >= count",
            Box::new(|d| d["shard"]["index"] = Value::from(5)),
            &["shard", "not below the count"],
        ),
        (
            "shard count 2^64-1",
            Box::new(|d| d["shard"]["count"] = Value::from(u64::MAX)),
            &["shard.count", "at most one shard per run"],
        ),
        (
            "shard count 2^40",
            Box::new(|d| d["shard"]["count"] = Value::from(1u64 << 40)),
            &["shard.count"],
        ),
        (
            "shard count 10^7",
            Box::new(|d| d["shard"]["count"] = Value::from(10_000_000)),
            &["shard.count"],
        ),
        (
            "shard runs edited",
            Box::new(|d| {
                let n = &mut d["runs"];
                *n = Value::from(n.as_u64().unwrap() + 1);
            }),
            &["runs"],
        ),
    ]
}

#[test]
fn every_tampered_regret_shard_is_refused_with_the_shard_and_field_named() {
    let tmp = tempfile::tempdir().unwrap();
    let policies = "(policy: CcUcb()), (policy: ThompsonSampling())";
    let path = scenario_file(tmp.path(), "s.ron", &fig1a(300, 6, policies));
    let [a, b] = two_shards(&path, tmp.path(), 6);
    // The untouched shards merge, so each refusal below is the edit's doing.
    partial::merge(&[a.clone(), b.clone()]).unwrap();
    for (i, (class, edit, words)) in regret_classes().into_iter().enumerate() {
        let damaged = tampered(&b, &tmp.path().join(format!("d{i}")), &*edit, false);
        let file = damaged.join("partial.json");
        refused(&[a.clone(), damaged], &file, &["checksum"], class);
        let forged = tampered(&b, &tmp.path().join(format!("f{i}")), &*edit, true);
        let file = forged.join("partial.json");
        refused(
            &[a.clone(), forged],
            &file,
            words,
            &format!("{class} (resealed)"),
        );
    }
    // Shard 1's data relabelled as shard 0: the runs of shard 1 would be missing.
    let relabel = |d: &mut Value| d["shard"]["index"] = Value::from(0);
    let forged = tampered(&b, &tmp.path().join("relabelled"), &relabel, true);
    let file = forged.join("partial.json");
    refused(
        &[a.clone(), forged],
        &file,
        &["appears twice"],
        "relabelled shard",
    );
    // A key added beside the checksummed content: the checksum of what was parsed still
    // matches, the file is not what was checksummed.
    let added = |d: &mut Value| d["unknown"] = Value::from(1);
    let dir = tampered(&b, &tmp.path().join("added-key"), &added, false);
    let file = dir.join("partial.json");
    refused(
        &[a.clone(), dir],
        &file,
        &["(file)", "as specprobe writes it"],
        "added key",
    );
    // Every shard claiming another version (resealed): compared with merge's own version, not
    // only between shards.
    let version = |d: &mut Value| d["version"] = Value::from("9.9.9");
    let (va, vb) = (
        tampered(&a, &tmp.path().join("va"), &version, true),
        tampered(&b, &tmp.path().join("vb"), &version, true),
    );
    let file = va.join("partial.json");
    refused(&[va, vb], &file, &["version", "9.9.9"], "another version");
    // A shard alone is not the whole run.
    let err = partial::merge(std::slice::from_ref(&a))
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing") && err.contains("1/2"), "{err}");
    // Damage to the text itself.
    let text = std::fs::read(b.join("partial.json")).unwrap();
    for (class, damaged) in [
        ("truncated file", text[..text.len() / 2].to_vec()),
        ("empty file", Vec::new()),
        ("not JSON", b"this is not json".to_vec()),
    ] {
        let dir = tmp.path().join(class.replace(' ', "-"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("partial.json"), damaged).unwrap();
        refused(
            &[a.clone(), dir.clone()],
            &dir.join("partial.json"),
            &["not a specprobe partial"],
            class,
        );
    }
}

#[test]
fn tampered_identification_shards_are_refused_behind_a_recomputed_checksum() {
    let tmp = tempfile::tempdir().unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/spectrum-8ch-top3.ron");
    let [a, b] = two_shards(&path, tmp.path(), 4);
    partial::merge(&[a.clone(), b.clone()]).unwrap();
    let classes: Vec<(&str, Edit, &[&str])> = vec![
        (
            "errors edited",
            Box::new(|d| {
                let e = &mut cells(d)[0]["errors"];
                *e = Value::from(e.as_u64().unwrap() + 1);
            }),
            &["body"],
        ),
        (
            "samples edited",
            Box::new(|d| {
                let s = &mut cells(d)[0]["outcomes"][0][1]["samples"];
                *s = Value::from(s.as_u64().unwrap() + 7);
            }),
            &["body"],
        ),
        (
            "run index relabelled",
            Box::new(|d| {
                let r = &mut cells(d)[0]["outcomes"][0][0];
                *r = Value::from(r.as_u64().unwrap() + 1);
            }),
            &["body"],
        ),
        (
            "missing cell",
            Box::new(|d| {
                cells(d).pop();
            }),
            &["body"],
        ),
        (
            "cells reordered",
            Box::new(|d| cells(d).reverse()),
            &["body"],
        ),
    ];
    for (i, (class, edit, words)) in classes.into_iter().enumerate() {
        let forged = tampered(&b, &tmp.path().join(format!("f{i}")), &*edit, true);
        let file = forged.join("partial.json");
        refused(&[a.clone(), forged], &file, words, class);
    }
}

fn team(d: &mut Value) -> &mut Value {
    &mut d["body"]["MultiUser"]["stats"][0]
}

#[test]
fn tampered_many_users_shards_are_refused_behind_a_recomputed_checksum() {
    let tmp = tempfile::tempdir().unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/multi-bk2018-k9.ron");
    let [a, b] = two_shards(&path, tmp.path(), 4);
    partial::merge(&[a.clone(), b.clone()]).unwrap();
    let [_, b_other] = two_shards_seeded(&path, tmp.path(), 4, Some(99));
    let other: Value =
        serde_json::from_slice(&std::fs::read(b_other.join("partial.json")).unwrap()).unwrap();
    let bump = |v: &mut Value, by: f64| *v = Value::from(v.as_f64().unwrap() + by);
    // Moments (as `partial.json` writes them) of `values`.
    fn moments(values: &[f64]) -> Value {
        let sum: f64 = values.iter().sum();
        let sq: f64 = values.iter().map(|x| x * x).sum();
        serde_json::json!({"n": values.len(), "sum": [sum], "sum_sq": [sq]})
    }
    // Each run's value moved by `by`, as a forger keeping the moments plausible would.
    fn shift(m: &mut Value, by: f64) {
        let n = m["n"].as_u64().unwrap() as usize;
        let sum: f64 = m["sum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .sum();
        *m = moments(&vec![sum / n as f64 + by; n]);
    }
    let classes: Vec<(&str, Edit, &[&str])> = vec![
        (
            "missing policy",
            Box::new(|d| {
                d["body"]["MultiUser"]["stats"]
                    .as_array_mut()
                    .unwrap()
                    .pop();
            }),
            &["body.stats", "policies"],
        ),
        (
            "a user dropped",
            Box::new(|d| {
                team(d)["user_reward"].as_array_mut().unwrap().pop();
            }),
            &["body.stats[0].user_reward", "entries"],
        ),
        (
            "edited final value",
            Box::new(move |d| bump(&mut team(d)["finals"][0][1][2], 1.0)),
            &["body.stats[0].curves", "per-run rows"],
        ),
        (
            "a run's pseudo-regret erased",
            Box::new(|d| team(d)["finals"][0][1][0] = Value::Null),
            &["body.stats[0].finals[0]", "not finite"],
        ),
        (
            "run index relabelled",
            Box::new(|d| {
                let r = &mut team(d)["finals"][0][0];
                *r = Value::from(r.as_u64().unwrap() + 2);
            }),
            &["body.stats[0].finals[0]", "another shard"],
        ),
        (
            "inflated runs",
            Box::new(|d| {
                let n = &mut team(d)["runs"];
                *n = Value::from(n.as_u64().unwrap() + 1);
            }),
            &["body.stats[0].runs"],
        ),
        (
            "decomposition counts beyond the runs",
            Box::new(|d| team(d)["decomposition_exact"] = Value::from(99)),
            &["body.stats[0].decomposition_exact"],
        ),
        (
            "probes edited",
            Box::new(|d| {
                let p = &mut team(d)["channel_probes"][0];
                *p = Value::from(p.as_u64().unwrap() + 1);
            }),
            &["body.stats[0].channel_probes"],
        ),
        (
            "a user's successes inflated",
            Box::new(move |d| shift(&mut team(d)["user_success"][0], 5.0)),
            &["body.stats[0].user_success", "idle slots found"],
        ),
        (
            "a user's reward shifted",
            Box::new(move |d| shift(&mut team(d)["user_reward"][1], 1.5)),
            &["body.stats[0].user_reward", "reward"],
        ),
        (
            "switches beyond one a slot",
            Box::new(|d| team(d)["switches"][2] = moments(&[1e9, 1e9])),
            &["body.stats[0].switches[2]", "one switch a slot"],
        ),
        (
            "choices beyond the channel's probes",
            Box::new(|d| {
                let probes = team(d)["channel_probes"][0].as_f64().unwrap();
                team(d)["selections"][0] = moments(&[probes, probes]);
            }),
            &["body.stats[0].selections[0]", "probes"],
        ),
        (
            "collisions inflated on one channel",
            Box::new(move |d| shift(&mut team(d)["collisions"][3], 1.0)),
            &["body.stats[0].collisions", "colliding"],
        ),
        (
            "Jain indices no run can have",
            Box::new(|d| team(d)["jain"] = moments(&[1.5, 0.3])),
            &["body.stats[0].jain", "[1/M, 1]"],
        ),
        (
            "a decomposition term edited",
            Box::new(move |d| shift(&mut team(d)["decomposition"][0], 4.0)),
            &["body.stats[0].decomposition", "pseudo-regret"],
        ),
        (
            "a mid-curve count beyond its slots",
            Box::new(|d| team(d)["curves"][0][6] = moments(&[1e12, 1e12])),
            &["body.stats[0].curves[0][6]", "count"],
        ),
        (
            "a mid-curve count above the next checkpoint's",
            Box::new(|d| {
                let next = team(d)["curves"][1][7]["sum"][0].as_f64().unwrap();
                let v = next / 2.0 + 1.0;
                team(d)["curves"][0][7] = moments(&[v, v]);
            }),
            &["body.stats[0].curves[0][7]", "smaller"],
        ),
        (
            "another seed's run of one policy",
            Box::new(move |d| {
                d["body"]["MultiUser"]["stats"][1] = other["body"]["MultiUser"]["stats"][1].clone();
            }),
            &["body.stats[1].finals[0]", "benchmark", "another seed"],
        ),
    ];
    for (i, (class, edit, words)) in classes.into_iter().enumerate() {
        let damaged = tampered(&b, &tmp.path().join(format!("d{i}")), &*edit, false);
        let file = damaged.join("partial.json");
        refused(&[a.clone(), damaged], &file, &["checksum"], class);
        let forged = tampered(&b, &tmp.path().join(format!("f{i}")), &*edit, true);
        let file = forged.join("partial.json");
        refused(
            &[a.clone(), forged],
            &file,
            words,
            &format!("{class} (resealed)"),
        );
    }
}

#[test]
fn a_tampered_sweep_cell_is_named_by_its_cell_and_team() {
    // Every kind's sweep is checked by one combinator (`SweepOf`): a forged team of a
    // many-users sweep's second cell is named there, not as the first cell's or the body's.
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("sweep.ron");
    std::fs::write(
        &path,
        r#"MultiUser(name: "sweep", seed: 4, horizon: 300, runs: 4, users: 2,
            channels: [(theta: 0.2, cost: Constant(0.0)), (theta: 0.5, cost: Constant(0.0)),
                       (theta: 0.9, cost: Constant(0.0))],
            policies: [(policy: McTopM(index: KlUcb)), (policy: RhoRand(index: Ucb))],
            sweep: (field: "users", values: [1, 2]))"#,
    )
    .unwrap();
    let [a, b] = two_shards(&path, tmp.path(), 4);
    partial::merge(&[a.clone(), b.clone()]).unwrap();
    let cases: [(&str, Edit, &[&str]); 3] = [
        (
            "a team's run count in the second cell",
            Box::new(|d| {
                d["body"]["Sweep"]["cells"][1]["MultiUser"]["stats"][1]["runs"] = 9.into()
            }),
            &["body.cells[1].stats[1].runs", "9 runs"],
        ),
        (
            "a cell dropped",
            Box::new(|d| {
                d["body"]["Sweep"]["cells"].as_array_mut().unwrap().pop();
            }),
            &["body.cells", "holds 1 sweep cells, the scenario 2"],
        ),
        (
            "a cell of another kind",
            Box::new(|d| {
                d["body"]["Sweep"]["cells"][0] =
                    serde_json::json!({"Identification": {"cells": []}});
            }),
            &["body.cells[0]", "not a many-users scenario's statistics"],
        ),
    ];
    for (i, (class, edit, words)) in cases.into_iter().enumerate() {
        let forged = tampered(&b, &tmp.path().join(format!("f{i}")), &*edit, true);
        let file = forged.join("partial.json");
        refused(&[a.clone(), forged], &file, words, class);
    }
}
