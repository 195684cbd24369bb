//! Energy-detector sensing: a probe's error rates and duration from Liang et al.'s formulas,
//! exactly equivalent to writing those rates and that delay by hand; broken detectors named.

use crate::common::{run, scenario_file};
use specprobe::math;
use specprobe::parse;
use statrs::distribution::{ContinuousCDF, Normal};
use std::path::Path;

/// Q(x), the standard normal tail.
fn q(x: f64) -> f64 {
    Normal::standard().sf(x)
}

fn scenario(sensing: &str, delay: &str) -> String {
    format!(
        r#"Regret(
    name: "detector",
    seed: 9,
    horizon: 3000,
    runs: 6,
    weights: (energy: 1.0, delay: 20.0),
    channels: [
        (theta: 0.7, energy: Constant(0.05){delay}, sensing: {sensing}),
        (theta: 0.5, energy: Constant(0.05), delay: Constant(0.001)),
        (theta: 0.3, cost: Bernoulli(0.2)),
    ],
    policies: [(policy: CcUcb(alpha: 1.5)), (policy: Oracle)],
)"#
    )
}

/// A detector at γ = −15 dB, τ = 2.6 ms, fs = 6 MHz, P̄d = 0.9 gives P_fa of Liang et al.'s
/// eq. 13 and a delay of τ; the run equals, byte for byte in its summary's results, the same
/// scenario written with those rates and that delay.
#[test]
fn a_detector_is_its_rates_and_its_sensing_time() {
    let dir = tempfile::tempdir().unwrap();
    let (gamma, n, tau) = (math::powf(10f64, -1.5), 15_600.0f64, 0.0026);
    let pfa =
        q((2.0 * gamma + 1.0).sqrt() * -Normal::standard().inverse_cdf(0.9) + n.sqrt() * gamma);
    let detector = scenario(
        "EnergyDetector(snr_db: -15.0, sample_rate: 6e6, duration: 0.0026, target_pd: 0.9)",
        "",
    );
    let a = run(
        &scenario_file(dir.path(), "a.ron", &detector),
        &dir.path().join("a"),
        2,
    );
    let ch = &a.experiments()[0].channels[0];
    let s = ch.sensing.expect("imperfect sensing");
    assert!(
        (s.false_alarm - pfa).abs() < 1e-12,
        "{} vs {pfa}",
        s.false_alarm
    );
    // Within a few ulps (it was 4.6e-12 off when Q came from statrs, issue 50).
    assert!(
        (s.missed_detection - 0.1).abs() < 1e-15,
        "{:e}",
        s.missed_detection - 0.1
    );
    assert!((ch.mean_delay - tau).abs() < 1e-15, "{}", ch.mean_delay);
    let by_hand = scenario(
        &format!(
            "(false_alarm: {:?}, missed_detection: {:?})",
            s.false_alarm, s.missed_detection
        ),
        &format!(", delay: Constant({tau:?})"),
    );
    let b = run(
        &scenario_file(dir.path(), "b.ron", &by_hand),
        &dir.path().join("b"),
        1,
    );
    assert_eq!(a.experiments()[0].policies, b.experiments()[0].policies);
    assert_eq!(a.experiments()[0].optimum, b.experiments()[0].optimum);
    // `samples` is the same detector as the duration it takes at that rate; JSON reads it too.
    let samples = detector.replace("duration: 0.0026", "samples: 15600");
    let c = run(
        &scenario_file(dir.path(), "c.ron", &samples),
        &dir.path().join("c"),
        2,
    );
    assert_eq!(a.experiments()[0].policies, c.experiments()[0].policies);
    let json = r#"{"Regret": {"name": "j", "seed": 1, "horizon": 10, "runs": 1,
        "channels": [{"theta": 0.5, "energy": {"Constant": 0.1},
                      "sensing": {"EnergyDetector": {"snr_db": -15, "sample_rate": 6e6,
                                                     "duration": 0.0026, "target_pd": 0.9}}}],
        "policies": [{"policy": "Oracle"}]}}"#;
    parse(json, Path::new("j.json")).expect("the JSON form");
    // A channel that gives its own delay keeps it (the detector sets only the errors).
    let own = scenario(
        "EnergyDetector(snr_db: -15.0, sample_rate: 6e6, duration: 0.0026, target_pd: 0.9)",
        ", delay: Constant(0.01)",
    );
    let d = run(
        &scenario_file(dir.path(), "d.ron", &own),
        &dir.path().join("d"),
        2,
    );
    assert_eq!(d.experiments()[0].channels[0].mean_delay, 0.01);
}

/// Every broken rule of a detector is named at its field; a misspelt field names what the
/// sensing may be.
#[test]
fn broken_detectors_are_named_at_their_fields() {
    let path = Path::new("s.ron");
    for (sensing, field, rule) in [
        (
            "EnergyDetector(snr_db: -15.0, sample_rate: 6e6, duration: 0.0026, samples: 10, target_pd: 0.9)",
            "channels[0].sensing.EnergyDetector.duration",
            "not both",
        ),
        (
            "EnergyDetector(snr_db: -15.0, sample_rate: 6e6, duration: 0.0026, target_pd: 1.0)",
            "channels[0].sensing.EnergyDetector.target_pd",
            "(0, 1)",
        ),
        (
            "EnergyDetector(snr_db: -15.0, sample_rate: 0.0, duration: 0.0026, threshold: 1.1)",
            "channels[0].sensing.EnergyDetector.sample_rate",
            "positive",
        ),
        (
            "EnergyDetector(snr_db: -15.0, sample_rate: 6e6, duration: 1e-9, threshold: 1.1)",
            "channels[0].sensing.EnergyDetector.duration",
            "N = τ·fs",
        ),
        (
            "EnergyDetector(snr_db: -15.0, sample_rate: 6e6, duration: 0.0026)",
            "channels[0].sensing.EnergyDetector.target_pd",
            "threshold",
        ),
        (
            "EnergyDetector(snr_db: -15.0, sample_rate: 6e6, duraton: 0.0026, target_pd: 0.9)",
            "channels[0].sensing",
            "only its fields",
        ),
    ] {
        let err = parse(&scenario(sensing, ""), path).unwrap_err().to_string();
        assert!(
            err.contains(field) && err.contains(rule),
            "{sensing}:\n{err}"
        );
    }
    // A delay weight that makes τ cost more than 1 is refused at the duration it comes from.
    let long = scenario(
        "EnergyDetector(snr_db: -15.0, sample_rate: 6e6, duration: 0.5, target_pd: 0.9)",
        "",
    );
    let err = parse(&long, path).unwrap_err().to_string();
    assert!(
        err.contains("channels[0].sensing.EnergyDetector.duration") && err.contains("[0, 1]"),
        "{err}"
    );
}

/// Every `sensing: EnergyDetector(..)` line of the guide's page on sensing time is a detector
/// a channel takes.
#[test]
fn the_guides_detectors_are_valid() {
    let readme = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("guide/src/sensing-time.md"),
    )
    .unwrap();
    let lines: Vec<&str> = readme
        .lines()
        .filter_map(|l| l.trim().strip_prefix("sensing: "))
        .filter(|l| l.starts_with("EnergyDetector("))
        .collect();
    assert!(lines.len() >= 3, "{lines:?}");
    for sensing in lines {
        parse(&scenario(sensing, ""), Path::new("readme.ron"))
            .unwrap_or_else(|e| panic!("{sensing}: {e}"));
    }
}
