//! The multi-player policies after 2018 under their reference codes' conventions against
//! those codes' own runs (`tests/data/frontier-reference.json`, written from the outputs of
//! `scripts/reference/*_reference.py`): DPE, its repository's SynchComm and MCTopM, BEACON
//! and CUCB, Game of Thrones, each on its shipped scenario at a reduced horizon or number of
//! runs. The full cross-checks are the scripts (`scripts/reference/crosscheck.py`), commands
//! rather than tests.
//!
//! A cell fails at |z| > 4 (z: the difference of the means over the combined standard
//! error): with seven cells of two sides that agree that happens by chance with probability
//! under 10⁻³, and the seeds are fixed, so a failure is a change of definition.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// The shipped scenario `file` with only `policies` (label, spec), at `horizon` and `runs`:
/// the realised regret's (mean, standard error) at `t` of each label.
fn run(
    file: &str,
    policies: &[(String, String)],
    horizon: u64,
    runs: u64,
    t: u64,
) -> BTreeMap<String, (f64, f64)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text.find("    policies: [").expect("a policies block");
    let end = start + text[start..].find("\n    ],").expect("its end") + "\n    ],".len();
    let entries: Vec<String> = policies
        .iter()
        .map(|(label, spec)| format!("(label: \"{label}\", policy: {spec})"))
        .collect();
    let text = format!(
        "{}    policies: [{}],{}",
        &text[..start],
        entries.join(", "),
        &text[end..]
    );
    let scenario = specprobe::parse(&text, &path).unwrap();
    let results = specprobe::Simulation::new(scenario)
        .overrides(specprobe::Overrides {
            runs: Some(runs),
            horizon: Some(horizon),
            ..Default::default()
        })
        .run()
        .unwrap();
    let files = results
        .files(&specprobe::ChartOptions {
            formats: Vec::new(),
            ..specprobe::ChartOptions::default()
        })
        .unwrap();
    let curves = files.iter().find(|f| f.name == "curves.csv").unwrap();
    let mut reader = csv::Reader::from_reader(&curves.bytes[..]);
    let header = reader.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (p, at, mean, se) = (
        col("policy"),
        col("t"),
        col("realized_regret_mean"),
        col("realized_regret_se"),
    );
    reader
        .records()
        .map(Result::unwrap)
        .filter(|r| r[at].parse::<u64>().unwrap() == t)
        .map(|r| {
            (
                r[p].to_string(),
                (r[mean].parse().unwrap(), r[se].parse().unwrap()),
            )
        })
        .collect()
}

#[test]
fn the_frontier_policies_agree_with_their_reference_codes() {
    let fixture: Value =
        serde_json::from_str(include_str!("../data/frontier-reference.json")).unwrap();
    let cells = fixture["cells"].as_array().unwrap();
    // One run per scenario, horizon and runs, with every policy of its cells.
    let mut groups: BTreeMap<(String, u64, u64, u64), Vec<&Value>> = BTreeMap::new();
    for c in cells {
        let key = (
            c["scenario"].as_str().unwrap().to_string(),
            c["horizon"].as_u64().unwrap(),
            c["runs"].as_u64().unwrap(),
            c["t"].as_u64().unwrap(),
        );
        groups.entry(key).or_default().push(c);
    }
    let mut report = Vec::new();
    let mut worst = 0.0f64;
    for ((file, horizon, runs, t), cells) in groups {
        let policies: Vec<(String, String)> = cells
            .iter()
            .map(|c| {
                (
                    c["policy"].as_str().unwrap().to_string(),
                    c["spec"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let ours = run(&file, &policies, horizon, runs, t);
        for c in cells {
            let label = c["policy"].as_str().unwrap();
            let (mean, se) = ours[label];
            let n = c["n"].as_f64().unwrap();
            let se_ref = c["sd"].as_f64().unwrap() / n.sqrt();
            let z = (mean - c["mean"].as_f64().unwrap()) / (se * se + se_ref * se_ref).sqrt();
            worst = worst.max(z.abs());
            report.push(format!(
                "{label} ({}) t = {t}: {mean:.1} ± {se:.1} against {:.1} ± {se_ref:.1}, z = {z:+.2}",
                c["reference"].as_str().unwrap(),
                c["mean"].as_f64().unwrap()
            ));
        }
    }
    assert!(worst <= 4.0, "{}", report.join("\n"));
    assert_eq!(report.len(), cells.len());
}
