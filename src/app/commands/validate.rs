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

/// [`validate`] with the duration estimated for `threads` worker threads (default: one per
/// core), as `specprobe validate --threads N` does: the machine that will run it may differ.
pub fn validate_on(path: &Path, threads: Option<usize>) -> Result<String, CommandError> {
    validate_scenario_on(scenario::load(path)?, threads)
}

/// [`validate`] for a scenario already loaded (from a file, or built in memory).
pub fn validate_scenario(loaded: Scenario) -> Result<String, CommandError> {
    validate_scenario_on(loaded, None)
}

fn validate_scenario_on(loaded: Scenario, threads: Option<usize>) -> Result<String, CommandError> {
    let mut text = describe::describe(&loaded);
    let source = loaded.source().path.clone();
    let mut simulation = Simulation::new(loaded);
    if let Some(t) = threads {
        simulation = simulation.threads(t);
    }
    let estimate = simulation.estimate()?;
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
    let catalogue = PolicySpec::catalogue();
    for entry in &catalogue {
        let spec = entry.example.to_ron();
        let label = format!("label {}", entry.example.default_label());
        if spec.chars().count() <= 38 {
            let _ = writeln!(out, "  {spec:<38} {label:<32} {}", entry.summary);
        } else {
            let _ = writeln!(out, "  {spec}\n  {:<38} {label:<32} {}", "", entry.summary);
        }
    }
    let _ = writeln!(
        out,
        "\nParameters left out take the defaults shown; every policy whose parameters all have \
         defaults may be written bare (`CcUcb`). {}",
        catalogue_note(&catalogue)
    );
    let _ = writeln!(
        out,
        "\nMany-users policies (in a `MultiUser(...)` scenario's `policies` list; index: KlUcb, Ucb or UcbH):\n"
    );
    for (spec, summary) in crate::multi::TeamSpec::catalogue() {
        let ron = spec.to_ron();
        let label = format!("label {}", spec.label());
        if ron.chars().count() <= 38 {
            let _ = writeln!(out, "  {ron:<38} {label:<32} {summary}");
        } else {
            let _ = writeln!(out, "  {ron}\n  {:<38} {label:<32} {summary}", "");
        }
    }
    let _ = writeln!(
        out,
        "\n`convention: SMPyBandits` gives SMPyBandits 0.9.7's definitions on the index policies \
         (Ucb1, KlUcb, CentralizedMultiplePlay, RhoRand, RandTopM, McTopM), Mega and \
         MusicalChairs: the index's t counted in samples, ties as its code breaks them, the \
         reference code's start and rules (guide/src/many-users.md); the index policies also take \
         `time: Slots | Samples | Horizon` and `ties: LowerChannel | HigherChannel | Random` \
         alone, and `reward: Net` (the net reward, for channels whose costs reorder them; \
         default `Idle`). `convention: Reference` gives the authors' code's definitions of Dpe, Beacon and \
         Cucb; Dpe, SicMmab, GameOfThrones and Beacon need the collision indicator in every \
         slot (`feedback: SensingAndCollision` or `CollisionOnly`); `feedback: NoSensing` shows \
         only the reward (a collision reads as a zero), for `Selfish(policy: KlUcb(reward: \
         Idle, c: …, noise: true))`, Trinh & Combes' randomized Selfish KL-UCB."
    );
    out
}

/// The note under the catalogue: which policies need which parameter (in catalogue order,
/// grouped by parameter), then each policy's remark on a default.
fn catalogue_note(catalogue: &[crate::policy::CatalogueEntry]) -> String {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for entry in catalogue {
        if let Some(param) = entry.example.required_parameter() {
            match groups.iter_mut().find(|(p, _)| *p == param) {
                Some((_, names)) => names.push(entry.example.name()),
                None => groups.push((param, vec![entry.example.name()])),
            }
        }
    }
    let parts: Vec<String> = groups
        .iter()
        .enumerate()
        .map(|(i, (param, names))| {
            let who = names.join(" and ");
            match (i, names.len()) {
                (0, 1) => format!("{who} needs {param}"),
                (0, _) => format!("{who} need {param}"),
                (_, 1) => format!("{who} its {param}"),
                _ => format!("{who} their {param}"),
            }
        })
        .collect();
    let mut note = match parts.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    };
    if !note.is_empty() {
        note.push_str(" (the values above are examples)");
    }
    let remarks: Vec<&str> = catalogue
        .iter()
        .map(|e| e.note)
        .filter(|n| !n.is_empty())
        .collect();
    if !remarks.is_empty() {
        let remarks = remarks.join(" ");
        note = if note.is_empty() {
            remarks
        } else {
            // The first remark continues the sentence.
            let mut chars = remarks.chars();
            let first: String = chars.next().map(|c| c.to_string()).unwrap_or_default();
            format!("{note}; {first}{}", chars.as_str())
        };
    }
    note
}
