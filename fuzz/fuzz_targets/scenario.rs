//! The scenario loader on arbitrary text, RON or JSON (text opening with `{` is read as JSON):
//! it must never panic, and a scenario it accepts must have finite derived quantities and a
//! resource estimate (outputs are JSON, which has no NaN).
#![no_main]

use libfuzzer_sys::fuzz_target;
use specprobe::Simulation;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // References (traces, Channels(scenario: ...)) resolve against the shipped scenarios.
    let Ok(loaded) = specprobe::parse(text, Path::new("scenarios/fuzz.ron")) else {
        return;
    };
    for (name, value) in loaded.derived_numbers() {
        assert!(value.is_finite(), "{name} = {value}");
    }
    let _ = Simulation::new(loaded).estimate();
});
