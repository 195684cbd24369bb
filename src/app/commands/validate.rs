//! `specprobe validate` and `specprobe policies`: what a scenario means, and what policies exist.

use super::CommandError;
use crate::app::simulation::Simulation;
use crate::policy::PolicySpec;
use crate::report::describe;
use crate::scenario::{self, Scenario};
use std::fmt::Write;
use std::path::Path;

/// `specprobe validate`: the checked scenario, its UCR-T1 optimum and bounds, as text.
/// Also says what the scenario needs (memory, work) and refuses one that would not fit in this
/// machine's memory.
pub fn validate(path: &Path) -> Result<String, CommandError> {
    validate_scenario(scenario::load(path)?)
}

/// [`validate`] for a scenario already loaded (from a file, or built in memory).
pub fn validate_scenario(loaded: Scenario) -> Result<String, CommandError> {
    let mut text = describe::describe(&loaded);
    let source = loaded.source().path.clone();
    let estimate = Simulation::new(loaded).estimate()?;
    estimate
        .check(None)
        .map_err(|source_error| CommandError::CannotRunHere {
            path: source,
            source: source_error,
        })?;
    let _ = writeln!(text, "resources: the run {}", estimate.describe());
    Ok(text)
}
/// `specprobe policies`: every policy, its parameters with defaults, and what it does.
pub fn policies() -> String {
    let mut out = String::from(
        "Policies (write them in a scenario's `policies` list as `(label: \"...\", policy: <spec>)`):\n\n",
    );
    for entry in PolicySpec::catalogue() {
        let spec = entry.example.to_ron();
        let label = format!("label {}", entry.example.default_label());
        if spec.chars().count() <= 38 {
            let _ = writeln!(out, "  {spec:<38} {label:<32} {}", entry.summary);
        } else {
            let _ = writeln!(out, "  {spec}\n  {:<38} {label:<32} {}", "", entry.summary);
        }
    }
    out.push_str(
        "\nParameters left out take the defaults shown; every policy whose parameters all have \
         defaults may be written bare (`CcUcb`). CascadeUcb1 and CascadeKlUcb need list_len, \
         SwCcUcb its window and DCcUcb its discount (the values above are examples); RandomList's \
         list_len defaults to all channels.\n",
    );
    out
}
