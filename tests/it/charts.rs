//! Charts: every chart in both formats, of the requested size, not blank, with its text; drawn
//! without system fonts; `plot` redraws exactly what `run` drew.

use crate::common::scenario_file;
use specprobe::commands::{self, RunArgs};
use specprobe::{AxisMode, ChartOptions, Format};
use std::path::Path;
use std::process::Command;

const SCENARIO: &str = r#"Regret(
    name: "charts",
    seed: 3,
    horizon: 4000,
    runs: 3,
    units: (energy: "mJ", delay: "ms"),
    weights: (energy: 0.2, delay: 0.1),
    channels: [
        (theta: 0.7, energy: Uniform(lo: 1.0, hi: 2.0), delay: Constant(1.0)),
        (theta: 0.5, energy: Constant(0.5), delay: Uniform(lo: 0.0, hi: 2.0)),
        (theta: 0.2, energy: Constant(2.0), delay: Constant(3.0)),
    ],
    policies: [
        (label: "cc-ucb", policy: CcUcb()),
        (label: "known", policy: CcUcbKnownCost()),
        (label: "oracle", policy: Oracle),
    ],
)"#;

const CHARTS: [&str; 8] = [
    "regret",
    "regret-log",
    "reward",
    "energy",
    "delay",
    "probes",
    "channels",
    "report",
];

fn options(size: (u32, u32)) -> ChartOptions {
    ChartOptions {
        formats: vec![Format::Png, Format::Svg],
        size,
        axis: AxisMode::Auto,
        ..ChartOptions::default()
    }
}

fn run_with_charts(dir: &Path, size: (u32, u32)) -> std::path::PathBuf {
    let path = scenario_file(dir, "charts.ron", SCENARIO);
    let out = dir.join("out");
    commands::run(&RunArgs {
        scenario: path,
        out: Some(out.clone()),
        threads: Some(2),
        charts: options(size),
        ..RunArgs::default()
    })
    .unwrap();
    out
}

/// Share of pixels that are not white.
fn ink(png: &[u8]) -> (u32, u32, f64) {
    let decoder = png::Decoder::new(png);
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let pixels = buf[..info.buffer_size()].chunks(channels);
    let total = (info.width * info.height) as f64;
    let inked = pixels
        .filter(|p| p.iter().take(3).any(|&c| c < 245))
        .count() as f64;
    (info.width, info.height, inked / total)
}

#[test]
fn every_chart_exists_in_both_formats_with_size_ink_and_text() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run_with_charts(tmp.path(), (900, 500));
    for stem in &CHARTS[..7] {
        let png = std::fs::read(out.join(format!("{stem}.png"))).unwrap();
        let (w, h, share) = ink(&png);
        assert_eq!((w, h), (900, 500), "{stem}.png size");
        assert!(
            share > 0.03,
            "{stem}.png is nearly blank ({share:.4} inked)"
        );
        let svg = std::fs::read_to_string(out.join(format!("{stem}.svg"))).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{stem}.svg: {e}"));
        let text: String = doc
            .descendants()
            .filter(|n| n.is_text())
            .map(|n| n.text().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        for policy in ["cc-ucb", "known", "oracle"] {
            assert!(text.contains(policy), "{stem}.svg lacks policy {policy}");
        }
        let (title, x_axis) = match *stem {
            "regret" => ("Cumulative pseudo-regret", "slot t"),
            "regret-log" => ("Cumulative pseudo-regret", "slot t (log scale)"),
            "reward" => ("Average net reward per slot", "slot t"),
            "energy" => ("Cumulative energy", "slot t"),
            "delay" => ("Cumulative delay", "slot t"),
            "probes" => ("Probes per slot", "channels probed in a slot"),
            _ => ("How often each channel is probed", "channel"),
        };
        assert!(text.contains(title), "{stem}.svg lacks its title");
        assert!(text.contains(x_axis), "{stem}.svg lacks its x-axis label");
    }
    // Units from the scenario label the axes.
    let energy = std::fs::read_to_string(out.join("energy.svg")).unwrap();
    assert!(energy.contains("cumulative energy [mJ]"));
    let delay = std::fs::read_to_string(out.join("delay.svg")).unwrap();
    assert!(delay.contains("cumulative delay [ms]"));
    // The lower bound is drawn where the assumptions hold.
    let regret = std::fs::read_to_string(out.join("regret.svg")).unwrap();
    assert!(regret.contains("Thm 3 lower bound"));
    // The report embeds every chart.
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    for stem in &CHARTS[..7] {
        assert!(
            report.contains(&format!("]({stem}.png)")),
            "report lacks {stem}"
        );
    }
}

#[test]
fn plot_redraws_exactly_what_run_drew() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run_with_charts(tmp.path(), (800, 450));
    let read = |name: &str| std::fs::read(out.join(name)).unwrap();
    let before: Vec<(String, Vec<u8>)> = CHARTS
        .iter()
        .flat_map(|s| {
            if *s == "report" {
                vec!["report.md".to_string()]
            } else {
                vec![format!("{s}.png"), format!("{s}.svg")]
            }
        })
        .map(|n| (n.clone(), read(&n)))
        .collect();
    for (name, _) in &before {
        std::fs::remove_file(out.join(name)).unwrap();
    }
    commands::plot(&out, &options((800, 450)), &Default::default()).unwrap();
    for (name, bytes) in &before {
        assert!(read(name) == *bytes, "{name} differs after plot");
    }
}

#[test]
fn binary_renders_without_fontconfig_or_system_fonts() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run_with_charts(tmp.path(), (700, 400));
    std::fs::remove_file(out.join("regret.png")).unwrap();
    let empty = tmp.path().join("no-fonts");
    std::fs::create_dir(&empty).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_specprobe"))
        .args([
            "plot",
            out.to_str().unwrap(),
            "--format",
            "png",
            "--size",
            "700x400",
        ])
        .env("FONTCONFIG_FILE", empty.join("fonts.conf"))
        .env("FONTCONFIG_PATH", &empty)
        .env("XDG_DATA_DIRS", &empty)
        .env("XDG_DATA_HOME", &empty)
        .env("HOME", &empty)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The title band (top 40 rows, middle of the plot) holds dark text pixels.
    let png = std::fs::read(out.join("regret.png")).unwrap();
    let decoder = png::Decoder::new(png.as_slice());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let c = info.color_type.samples();
    let dark = (0..40)
        .flat_map(|y| (100..450).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let i = (y * info.width as usize + x) * c;
            buf[i] < 100 && buf[i + 1] < 100 && buf[i + 2] < 100
        })
        .count();
    assert!(dark > 100, "no title text drawn ({dark} dark pixels)");
}

/// The library never maps fontconfig or FreeType into the process: text comes from the bundled
/// font alone.
#[cfg(target_os = "linux")]
#[test]
fn no_font_library_is_loaded() {
    let tmp = tempfile::tempdir().unwrap();
    run_with_charts(tmp.path(), (600, 400));
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    for lib in ["fontconfig", "freetype"] {
        assert!(!maps.contains(lib), "{lib} is mapped into the process");
    }
}

#[test]
fn grids_get_a_final_regret_chart_with_reference_markers() {
    let tmp = tempfile::tempdir().unwrap();
    let text = r#"Regret(
        name: "grid", seed: 1, horizon: 1500, runs: 2,
        grid: [
            (label: "K=4 L=1", channels: [(count: 1, theta: 0.5, cost: Bernoulli(0.4)), (count: 3, theta: 0.3, cost: Bernoulli(0.4))], reference: {"cc-ucb": 120.0}),
            (label: "K=4 L=2", channels: [(count: 2, theta: 0.5, cost: Bernoulli(0.4)), (count: 2, theta: 0.3, cost: Bernoulli(0.4))]),
        ],
        policies: [(policy: CcUcb()), (policy: CcUcbKnownCost())],
    )"#;
    let path = scenario_file(tmp.path(), "g.ron", text);
    let out = tmp.path().join("out");
    commands::run(&RunArgs {
        scenario: path,
        out: Some(out.clone()),
        charts: options((900, 500)),
        ..RunArgs::default()
    })
    .unwrap();
    let svg = std::fs::read_to_string(out.join("grid-regret.svg")).unwrap();
    roxmltree::Document::parse(&svg).unwrap();
    for needle in [
        "Final pseudo-regret",
        "K=4",
        "cc-ucb: paper",
        "cc-ucb-known-cost",
    ] {
        assert!(svg.contains(needle), "grid chart lacks {needle}");
    }
    assert!(out.join("config1-k-4-l-1-regret-log.png").exists());
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("cc-ucb (paper)") && report.contains("](grid-regret.png)"));
}

/// An oracle's zero regret does not turn a grid chart linear: the log axis stays, zeros are left
/// out with a note, and the means are dots with whiskers, not bars from an arbitrary floor.
#[test]
fn a_grid_with_an_oracle_keeps_its_log_axis_and_leaves_the_zeros_out() {
    let tmp = tempfile::tempdir().unwrap();
    let text = r#"Regret(
        name: "grid", seed: 1, horizon: 3000, runs: 2,
        grid: [
            (label: "easy", channels: [(count: 1, theta: 0.95, cost: Bernoulli(0.05)), (count: 1, theta: 0.01, cost: Bernoulli(0.9))]),
            (label: "hard", channels: [(count: 2, theta: 0.5, cost: Bernoulli(0.4)), (count: 14, theta: 0.35, cost: Bernoulli(0.4))]),
        ],
        policies: [(policy: CcUcb()), (policy: CascadeUcb1(list_len: 2)), (policy: Oracle)],
    )"#;
    let path = scenario_file(tmp.path(), "g.ron", text);
    let out = tmp.path().join("out");
    let opts = ChartOptions {
        formats: vec![Format::Svg],
        ..options((900, 500))
    };
    commands::run(&RunArgs {
        scenario: path,
        out: Some(out.clone()),
        charts: opts,
        ..RunArgs::default()
    })
    .unwrap();
    let svg = std::fs::read_to_string(out.join("grid-regret.svg")).unwrap();
    for needle in ["(log scale)", "zeros are not drawn", "dots at the"] {
        assert!(svg.contains(needle), "grid chart lacks {needle}");
    }
    assert!(svg.contains("<circle"), "means drawn as dots");
}

/// Every text of every chart lies inside the canvas, at the smallest accepted size and a large
/// one, with many series (a comparison of 22): titles are wrapped, legends move below the plot
/// and wrap into columns, nothing is cut. Text anchors are checked against the canvas, and each
/// legend label appears.
#[test]
fn no_text_leaves_the_canvas_and_no_legend_entry_is_cut() {
    let tmp = tempfile::tempdir().unwrap();
    let policies = (0..11)
        .map(|i| {
            format!(
                "(label: \"policy-with-a-long-label-{i}\", policy: RandomList(list_len: {}))",
                1 + i % 3
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    let a = scenario_file(
        tmp.path(),
        "a.ron",
        &SCENARIO
            .replace(
                "name: \"charts\"",
                "name: \"first-scenario-with-a-long-name\"",
            )
            .replace(
                r#"(label: "cc-ucb", policy: CcUcb()),
        (label: "known", policy: CcUcbKnownCost()),
        (label: "oracle", policy: Oracle),"#,
                &policies,
            ),
    );
    let b = scenario_file(
        tmp.path(),
        "b.ron",
        &std::fs::read_to_string(&a)
            .unwrap()
            .replace("first-scenario", "second-scenario"),
    );
    for size in [(640, 400), (1600, 1000)] {
        let out = tmp.path().join(format!("cmp-{}", size.0));
        commands::compare(&commands::CompareArgs {
            inputs: vec![a.clone(), b.clone()],
            out: Some(out.clone()),
            run: RunArgs {
                threads: Some(2),
                charts: ChartOptions {
                    formats: vec![Format::Svg],
                    size,
                    ..ChartOptions::default()
                },
                ..RunArgs::default()
            },
        })
        .unwrap();
        let mut checked = 0;
        for entry in std::fs::read_dir(&out).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "svg") {
                continue;
            }
            let svg = std::fs::read_to_string(&path).unwrap();
            let doc = roxmltree::Document::parse(&svg).unwrap();
            for t in doc.descendants().filter(|n| n.has_tag_name("text")) {
                let x: f64 = t.attribute("x").unwrap().parse().unwrap();
                let y: f64 = t.attribute("y").unwrap().parse().unwrap();
                assert!(
                    (0.0..=size.0 as f64).contains(&x) && (0.0..=size.1 as f64).contains(&y),
                    "{}: text {:?} at ({x}, {y}) outside {size:?}",
                    path.display(),
                    t.text()
                );
            }
            if path.file_name().unwrap() == "regret.svg" {
                // Every legend entry is drawn whole: the texts in drawing order, spaces removed
                // (wrapped labels are split into lines), hold each label.
                let all: String = doc
                    .descendants()
                    .filter(|n| n.has_tag_name("text"))
                    .filter_map(|n| n.text())
                    .collect::<String>()
                    .split_whitespace()
                    .collect();
                for i in 0..11 {
                    for s in ["first", "second"] {
                        let label =
                            format!("{s}-scenario-with-a-long-name:policy-with-a-long-label-{i}");
                        assert!(
                            all.contains(&label),
                            "{}: legend lacks {label}",
                            path.display()
                        );
                    }
                }
                assert!(
                    all.contains("95%confidence"),
                    "the band's legend says which band"
                );
            }
            checked += 1;
        }
        assert!(checked >= 4, "{checked} charts");
    }
}

/// The paired chart's whiskers follow `--band` (they were ± s.e. whatever it said), and the
/// chart and the report say which band is drawn.
#[test]
fn paired_whiskers_follow_the_band() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run_with_charts(tmp.path(), (800, 450));
    let mut drawn = Vec::new();
    for (band, named) in [
        (specprobe::Band::Se, "standard error"),
        (specprobe::Band::Sd, "sd across runs"),
        (specprobe::Band::Ci95, "confidence"),
    ] {
        let opts = ChartOptions {
            formats: vec![Format::Svg],
            band,
            ..options((800, 450))
        };
        commands::plot(&out, &opts, &Default::default()).unwrap();
        let svg = std::fs::read_to_string(out.join("paired.svg")).unwrap();
        let report = std::fs::read_to_string(out.join("report.md")).unwrap();
        assert!(
            report.contains(&format!("mean with {}", band.describe())),
            "{band:?}"
        );
        // The chart's note names the band (wrapped over lines).
        assert!(svg.contains(named), "{band:?}: the chart names its band");
        drawn.push(svg);
    }
    assert!(drawn[0] != drawn[1] && drawn[1] != drawn[2] && drawn[0] != drawn[2]);
}

/// On a log slot axis the reward chart starts at T/100 instead of clipping the first 1 % of
/// slots (most of a log axis's width) into flat lines that look like data; the caption says so.
#[test]
fn the_log_reward_chart_starts_where_its_values_are_fitted() {
    let tmp = tempfile::tempdir().unwrap();
    let path = scenario_file(tmp.path(), "charts.ron", SCENARIO);
    let out = tmp.path().join("out");
    commands::run(&RunArgs {
        scenario: path,
        out: Some(out.clone()),
        charts: ChartOptions {
            formats: vec![Format::Svg],
            axis: AxisMode::Both,
            ..options((800, 450))
        },
        ..RunArgs::default()
    })
    .unwrap();
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("the slot axis starts at slot 40, 1 % of the horizon"),
        "{report}"
    );
    assert!(report.contains("the first 1 % of slots is clipped to the axis"));
    assert!(out.join("reward-log.svg").exists() && out.join("reward.svg").exists());
}

/// Many-users charts follow the chart options as a single user's do: `--axis both` adds the
/// logarithmic slot axis, `--value-axis` sets the regret's value axis (and `auto` turns
/// logarithmic when the final regrets span more than 20×, as they do here: the coordinator
/// against Selfish UCB).
#[test]
fn many_users_charts_follow_the_axis_options() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/multi-bk2018-k9.ron");
    let draw = |name: &str, axis: AxisMode, value_axis: specprobe::ValueAxis| {
        let out = tmp.path().join(name);
        commands::run(&RunArgs {
            scenario: scenario.clone(),
            out: Some(out.clone()),
            overrides: specprobe::Overrides {
                runs: Some(4),
                horizon: Some(2000),
                ..Default::default()
            },
            threads: Some(2),
            charts: ChartOptions {
                formats: vec![Format::Svg],
                axis,
                value_axis,
                ..ChartOptions::default()
            },
            ..RunArgs::default()
        })
        .unwrap();
        out
    };
    let both = draw("both", AxisMode::Both, specprobe::ValueAxis::Auto);
    for stem in ["regret", "regret-log", "collisions", "collisions-log"] {
        assert!(both.join(format!("{stem}.svg")).exists(), "{stem}");
    }
    let svg = |dir: &Path| std::fs::read_to_string(dir.join("regret.svg")).unwrap();
    let auto = svg(&both);
    assert!(
        auto.contains("(log scale)"),
        "auto: a 20× spread gets a log axis"
    );
    let linear = svg(&draw(
        "linear",
        AxisMode::Auto,
        specprobe::ValueAxis::Linear,
    ));
    assert!(!linear.contains("(log scale)"));
    assert!(
        !draw("linear", AxisMode::Auto, specprobe::ValueAxis::Linear)
            .join("regret-log.svg")
            .exists()
    );
}

/// A 2 000-character policy label burned over 12 s of CPU drawing a many-users SVG (its
/// words were split by measuring every prefix): the drawing shows it cut with an ellipsis,
/// at most 400 characters, within a second or two, and the data keep it whole.
#[test]
fn a_very_long_label_is_cut_in_the_drawing_and_kept_in_the_data() {
    let label: String = "x".repeat(2000);
    let text = format!(
        "MultiUser(name: \"long\", seed: 1, horizon: 300, runs: 2, users: 2,
         channels: [(theta: 0.9, cost: Constant(0.0)), (theta: 0.4, cost: Constant(0.0))],
         policies: [(label: \"{label}\", policy: Selfish(policy: Ucb1(reward: Idle)))])"
    );
    let scenario = specprobe::parse(&text, Path::new("long.ron")).unwrap();
    let results = specprobe::Simulation::new(scenario).run().unwrap();
    let started = std::time::Instant::now();
    let files = results
        .files(&ChartOptions {
            formats: vec![Format::Svg],
            ..ChartOptions::default()
        })
        .unwrap();
    let took = started.elapsed();
    assert!(took.as_secs_f64() < 10.0, "{took:?}");
    let svg = String::from_utf8(
        files
            .iter()
            .find(|f| f.name == "regret.svg")
            .unwrap()
            .bytes
            .clone(),
    )
    .unwrap();
    assert!(svg.contains('…'), "cut with an ellipsis");
    let summary = &files
        .iter()
        .find(|f| f.name == "summary.json")
        .unwrap()
        .bytes;
    assert!(
        String::from_utf8_lossy(summary).contains(&label),
        "the data keep it whole"
    );
}
