//! Bad scenarios: one test per class of error, each asserting that the message names the file,
//! the position, the field and the rule. None may panic.

use specprobe::ScenarioError;
use std::path::Path;

const GOOD: &str = r#"Regret(
    name: "ok",
    seed: 1,
    horizon: 100,
    runs: 2,
    channels: [
        (theta: 0.8, cost: Bernoulli(0.5)),
        (theta: 0.4, cost: Bernoulli(0.5)),
    ],
    policies: [
        (label: "a", policy: CcUcb(alpha: 1.5)),
        (label: "b", policy: CascadeUcb1(list_len: 2)),
    ],
)"#;

fn parse(text: &str) -> Result<specprobe::Scenario, ScenarioError> {
    specprobe::parse(text, Path::new("bad.ron"))
}

/// Asserts the error message contains each needle, and returns it.
fn fails_with(text: &str, needles: &[&str]) -> String {
    let err = parse(text).expect_err("scenario should be rejected");
    let msg = err.to_string();
    for n in needles {
        assert!(msg.contains(n), "message lacks {n:?}:\n{msg}");
    }
    assert!(msg.contains("bad.ron"), "{msg}");
    msg
}

#[test]
fn the_good_scenario_is_accepted() {
    parse(GOOD).unwrap();
}

#[test]
fn theta_outside_unit_interval() {
    fails_with(
        &GOOD.replace("theta: 0.4", "theta: 1.4"),
        &["bad.ron:8:17", "channels[1].theta", "[0, 1]", "1.4"],
    );
}

#[test]
fn cost_law_support_leaves_unit_interval() {
    fails_with(
        &GOOD.replace(
            "cost: Bernoulli(0.5)),\n        (theta: 0.4",
            "cost: Uniform(lo: 0.5, hi: 1.5)),\n        (theta: 0.4",
        ),
        &[
            "bad.ron:7:28",
            "channels[0].cost",
            "[0.5, 1.5]",
            "must lie in [0, 1]",
        ],
    );
}

#[test]
fn weighted_energy_and_delay_leave_unit_interval() {
    let text = GOOD
        .replace(
            "cost: Bernoulli(0.5)),\n        (theta: 0.4",
            "energy: Constant(2.0), delay: Constant(1.0)),\n        (theta: 0.4",
        )
        .replace(
            "runs: 2,",
            "runs: 2,\n    weights: (energy: 0.4, delay: 0.3),",
        );
    fails_with(
        &text,
        &["channels[0].energy", "0.4·energy + 0.3·delay", "1.1"],
    );
}

#[test]
fn invalid_law_parameter() {
    fails_with(
        &GOOD.replace(
            "Bernoulli(0.5)),\n        (theta: 0.4",
            "Bernoulli(1.5)),\n        (theta: 0.4",
        ),
        &["bad.ron:7:28", "channels[0].cost.p", "Bernoulli", "[0, 1]"],
    );
    fails_with(
        &GOOD.replace(
            "cost: Bernoulli(0.5)),\n        (theta: 0.4",
            "cost: Uniform(lo: 0.3, hi: 0.2)),\n        (theta: 0.4",
        ),
        &["bad.ron:7:", "channels[0].cost.hi", "greater than `lo`"],
    );
}

#[test]
fn zero_horizon_and_zero_runs() {
    fails_with(
        &GOOD.replace("horizon: 100", "horizon: 0"),
        &["bad.ron:4:14", "horizon", "at least 1"],
    );
    fails_with(
        &GOOD.replace("runs: 2", "runs: 0"),
        &["bad.ron:5:11", "runs", "at least 1"],
    );
}

#[test]
fn duplicate_policy_labels() {
    fails_with(
        &GOOD.replace(r#"label: "b""#, r#"label: "a""#),
        &["bad.ron:12:17", "policies[1].label", "duplicate", "\"a\""],
    );
    // Two unlabelled policies of the same kind collide on their default label.
    fails_with(
        &GOOD
            .replace(
                r#"(label: "b", policy: CascadeUcb1(list_len: 2))"#,
                "(policy: CcUcb())",
            )
            .replace(r#"label: "a", "#, ""),
        &["policies[1].policy", "duplicate", "cc-ucb"],
    );
}

#[test]
fn empty_channel_list() {
    let start = GOOD.find("    channels").unwrap();
    let end = GOOD.find("    policies").unwrap();
    let text = format!("{}{}", &GOOD[..start], &GOOD[end..]);
    fails_with(&text, &["channels", "channel list is empty"]);
    fails_with(
        &format!("{}    channels: [],\n{}", &GOOD[..start], &GOOD[end..]),
        &["bad.ron:6:15", "channels", "empty"],
    );
}

#[test]
fn missing_or_doubled_cost() {
    fails_with(
        &GOOD.replace("(theta: 0.4, cost: Bernoulli(0.5))", "(theta: 0.4)"),
        &["bad.ron:8:9", "channels[1]", "has no cost"],
    );
    fails_with(
        &GOOD.replace(
            "(theta: 0.4, cost: Bernoulli(0.5))",
            "(theta: 0.4, cost: Bernoulli(0.5), energy: Constant(0.1))",
        ),
        &["channels[1].cost", "not both"],
    );
}

#[test]
fn list_length_beyond_the_channel_count() {
    fails_with(
        &GOOD.replace("list_len: 2", "list_len: 3"),
        &[
            "bad.ron:12:52",
            "policies[1].policy.list_len",
            "1..=2",
            "got 3",
        ],
    );
}

#[test]
fn bad_policy_parameters() {
    fails_with(
        &GOOD.replace("alpha: 1.5", "alpha: -1.0"),
        &["policies[0].policy.alpha", "positive"],
    );
}

#[test]
fn unknown_field_is_named_with_its_position() {
    let msg = fails_with(
        &GOOD.replace("theta: 0.8", "thetaa: 0.8"),
        &["bad.ron:7:", "thetaa", "theta"],
    );
    assert!(msg.contains("channels[0]"), "{msg}");
}

#[test]
fn wrong_type_names_the_field() {
    fails_with(
        &GOOD.replace("horizon: 100", "horizon: \"long\""),
        &["bad.ron:4:", "horizon"],
    );
}

#[test]
fn unknown_policy_lists_the_known_ones() {
    fails_with(
        &GOOD.replace("CcUcb(alpha: 1.5)", "CCUCB(alpha: 1.5)"),
        &["policies[0].policy", "CCUCB", "CcUcb"],
    );
}

#[test]
fn syntax_error_has_a_position() {
    fails_with(&GOOD.replace("runs: 2,", "runs: 2"), &["bad.ron:6:"]);
}

#[test]
fn unsafe_scenario_name() {
    fails_with(
        &GOOD.replace(r#"name: "ok""#, r#"name: "../etc""#),
        &["bad.ron:2:11", "name", "output folder"],
    );
}

#[test]
fn grid_problems() {
    let grid = r#"Regret(
    name: "g", horizon: 10, runs: 1,
    grid: [
        (label: "x", channels: [(theta: 0.5, cost: Constant(0.1))], reference: {"nobody": 1.0}),
        (label: "x", channels: [(theta: 0.5, cost: Constant(0.1))]),
    ],
    channels: [(theta: 0.5, cost: Constant(0.1))],
    policies: [(policy: Oracle)],
)"#;
    let err = parse(grid).unwrap_err();
    let msg = err.to_string();
    assert_eq!(err.problems().len(), 3, "{msg}");
    for needle in ["not both", "\"nobody\"", "duplicate configuration label"] {
        assert!(msg.contains(needle), "{needle}: {msg}");
    }
}

#[test]
fn every_problem_is_reported_at_once() {
    let text = GOOD
        .replace("horizon: 100", "horizon: 0")
        .replace("theta: 0.4", "theta: -2.0")
        .replace("list_len: 2", "list_len: 0");
    let err = parse(&text).unwrap_err();
    assert_eq!(err.problems().len(), 3, "{err}");
    // In file order.
    let lines: Vec<usize> = err.problems().iter().map(|p| p.line).collect();
    assert!(lines.windows(2).all(|w| w[0] <= w[1]), "{lines:?}");
}

#[test]
fn missing_file_names_the_path() {
    let err = specprobe::load(Path::new("/no/such/scenario.ron")).unwrap_err();
    assert!(err.to_string().contains("/no/such/scenario.ron"), "{err}");
}

#[test]
fn garbage_never_panics() {
    for text in [
        "",
        "(",
        "Regret(",
        "Regret(name: 1)",
        "[1, 2",
        "Identification()",
        "\u{0}\u{1}",
        "Regret(name: \"x\", horizon: 1, runs: 1, channels: [(theta: NaN, cost: Constant(inf))], policies: [])",
    ] {
        assert!(parse(text).is_err(), "{text:?} accepted");
    }
}

/// A policy written bare before a broken one: the error still names the broken policy's field
/// and its column in the file (bare names are parsed as `Name()` internally).
#[test]
fn errors_after_a_bare_policy_name_the_right_field_and_column() {
    let text = GOOD.replace(
        r#"(label: "a", policy: CcUcb(alpha: 1.5)),"#,
        r#"(label: "a", policy: CcUcb), (label: "c", policy: Nope),"#,
    );
    let msg = fails_with(&text, &["bad.ron:11:59", "policies[1].policy", "Nope"]);
    assert!(!msg.contains("policies[0]"), "{msg}");
}

#[test]
fn moving_channels_name_the_field_and_rule() {
    for (from, to, needles) in [
        (
            "theta: 0.4,",
            "occupancy: Markov(idle_to_busy: 1.5, busy_to_idle: 0.2),",
            vec!["channels[1].occupancy.idle_to_busy", "[0, 1]", "1.5"],
        ),
        (
            "theta: 0.4,",
            "occupancy: Markov(idle_to_busy: 0.0, busy_to_idle: 0.0),",
            vec!["channels[1].occupancy", "never moves"],
        ),
        (
            "theta: 0.4,",
            "occupancy: Markov(idle_to_busy: 0.7, busy_to_idle: 5e-324),",
            vec![
                "channels[1].occupancy.busy_to_idle",
                "mean period",
                "finite",
            ],
        ),
        (
            "theta: 0.4,",
            "occupancy: OnOff(idle: Exponential(mean: 5.0), busy: GeneralizedPareto(shape: 1.2, scale: 1.0)),",
            vec!["channels[1].occupancy.busy.shape", "below 1"],
        ),
        (
            "theta: 0.4,",
            "occupancy: Piecewise([(theta: 0.5), (until: 10, theta: 0.2)]),",
            vec!["channels[1].occupancy[0].until", "needs `until`"],
        ),
        (
            "theta: 0.4,",
            "occupancy: Piecewise([(until: 50, theta: 0.5), (until: 20, theta: 0.2), (theta: 0.1)]),",
            vec!["channels[1].occupancy[1].until", "after the previous"],
        ),
        (
            "theta: 0.4,",
            "theta: 0.4, occupancy: Markov(idle_to_busy: 0.1, busy_to_idle: 0.1),",
            vec!["channels[1].theta", "not both"],
        ),
        (
            "theta: 0.4,",
            "sensing: (false_alarm: 1.2),",
            vec!["channels[1]", "has no occupancy"],
        ),
        (
            "theta: 0.4,",
            "theta: 0.4, sensing: (missed_detection: -0.1),",
            vec!["channels[1].sensing.missed_detection", "[0, 1]"],
        ),
        (
            "theta: 0.4,",
            r#"occupancy: Trace(file: "no-such-trace.csv", column: 1),"#,
            vec!["channels[1].occupancy.file", "cannot read trace"],
        ),
    ] {
        fails_with(&GOOD.replace(from, to), &needles);
    }
    fails_with(
        &GOOD.replace("runs: 2,", "runs: 2, slot: (duration: 0.0),"),
        &["slot.duration", "positive"],
    );
    fails_with(
        &GOOD.replace("runs: 2,", r#"runs: 2, reference: "zzz","#),
        &["reference", "zzz", "not a policy label"],
    );
}

/// Trace files: a bad value, a short row, a missing column and a trace shorter than the horizon
/// are reported with the trace's file, line and column, or the rule.
#[test]
fn bad_trace_files_name_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.csv");
    let scenario = |column: usize, wrap: bool| {
        GOOD.replace(
            "theta: 0.4,",
            &format!(r#"occupancy: Trace(file: "t.csv", column: {column}, wrap: {wrap}),"#),
        )
    };
    let load = |text: &str| {
        let path = dir.path().join("s.ron");
        std::fs::write(&path, text).unwrap();
        specprobe::load(&path).map(|_| ()).unwrap_err().to_string()
    };
    std::fs::write(&trace, "a,b\n1,0\n1,x\n").unwrap();
    let msg = load(&scenario(1, true));
    assert!(
        msg.contains("t.csv:3:2") && msg.contains("\"x\" is not 0"),
        "{msg}"
    );
    std::fs::write(&trace, "1,0\n1\n").unwrap();
    let msg = load(&scenario(1, true));
    assert!(
        msg.contains("t.csv:2:2") && msg.contains("row has 1 values"),
        "{msg}"
    );
    std::fs::write(&trace, "1,0\n0,1\n").unwrap();
    let msg = load(&scenario(3, true));
    assert!(
        msg.contains("occupancy.column") && msg.contains("has 2 columns"),
        "{msg}"
    );
    let msg = load(&scenario(2, false));
    assert!(
        msg.contains("holds 2 slots, fewer than the horizon of 100"),
        "{msg}"
    );
}

/// A NUL or a line break in a label would damage every CSV and chart it names (and `plot`
/// would refuse what `run` wrote): refused where it enters, from a file or from the API.
#[test]
fn labels_with_control_characters_are_refused() {
    for bad in ["a\\u{0}b", "a\\nb", "a\\tb"] {
        fails_with(
            &GOOD.replace(r#"label: "a""#, &format!(r#"label: "{bad}""#)),
            &["policies[0].label", "must not hold control characters"],
        );
    }
    struct First;
    impl specprobe::Policy for First {
        fn plan(&mut self, _t: u64, list: &mut Vec<usize>, _rng: &mut specprobe::SimRng) {
            list.push(0);
        }
        fn observe(&mut self, _channel: usize, _idle: bool, _cost: f64) {}
    }
    let err = specprobe::Simulation::new(parse(GOOD).unwrap())
        .policy("nul\0label", |_| First)
        .run()
        .unwrap_err()
        .to_string();
    assert!(err.contains("free of control characters"), "{err}");
}

/// A scenario whose channels carry the given detectors, one per channel.
fn with_detectors(detectors: impl Iterator<Item = String>) -> String {
    let channels: Vec<String> = detectors
        .map(|d| format!("(theta: 0.5, cost: Constant(0.1), sensing: EnergyDetector({d}))"))
        .collect();
    format!(
        "Regret(name: \"r\", seed: 1, horizon: 100, runs: 2, channels: [{}], \
         policies: [(label: \"a\", policy: CcUcb(alpha: 1.5))])",
        channels.join(",\n")
    )
}

fn faded(snr_db: f64) -> String {
    format!(
        "snr_db: {snr_db:.5}, sample_rate: 6e6, duration: 0.0002, target_pd: 0.9, fading: Rayleigh"
    )
}

#[test]
fn faded_threshold_searches_are_bounded_and_shared() {
    // Each distinct faded detector with a `target_pd` is a root search of milliseconds: 20 000
    // of them made `validate` take 82 s. Past 256 the scenario is refused at the field...
    let many = with_detectors((0..300).map(|i| faded(-15.0 - 1e-4 * i as f64)));
    let t = std::time::Instant::now();
    let msg = fails_with(&many, &["target_pd", "at most 256 distinct", "threshold:"]);
    assert!(t.elapsed().as_secs_f64() < 10.0, "{:?}", t.elapsed());
    assert!(msg.contains("channels[256]"), "{msg}");
    assert!(!msg.contains("channels[255]"), "{msg}");
    // ...while the same detector written on 1 000 channels is searched once.
    parse(&with_detectors((0..1000).map(|_| faded(-15.0)))).unwrap();
}

#[test]
fn a_file_of_many_problems_answers_fast_and_briefly() {
    // Locating a problem walks the text from its top; 20 000 of them took 90 s.
    let channels = vec!["(theta: 1.5, cost: Constant(0.1))"; 20_000].join(",\n");
    let text = format!(
        "Regret(name: \"r\", seed: 1, horizon: 100, runs: 2, channels: [{channels}], \
         policies: [(label: \"a\", policy: CcUcb(alpha: 1.5))])"
    );
    let t = std::time::Instant::now();
    let msg = fails_with(&text, &["20000 problems", "… and 19900 more problems"]);
    assert!(t.elapsed().as_secs_f64() < 10.0, "{:?}", t.elapsed());
    assert!(msg.contains("bad.ron:1:"), "{msg}");
    assert!(msg.lines().count() < 110, "{} lines", msg.lines().count());
}
