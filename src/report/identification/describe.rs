//! What `specprobe validate` prints for an identification scenario (and its sweep).

use crate::report::describe::{Describe, sweep_line};
use crate::report::format::sig;
use crate::scenario::IdentificationScenario;
use crate::util::ron_text::to_ron_line;
use std::fmt::Write;

fn describe_identification(s: &IdentificationScenario) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} is valid: identification scenario {:?}, {} per cell, seed {}, confidence ν = {}, sample cap {}",
        s.source.display(),
        s.name,
        crate::report::format::count(s.runs, "run"),
        s.seed,
        s.confidence,
        s.sample_cap
    );
    if !s.description.is_empty() {
        let _ = writeln!(out, "  {}", s.description.trim());
    }
    let settings: Vec<&str> = s.settings.iter().map(|x| x.name()).collect();
    let algorithms: Vec<&str> = s.algorithms.iter().map(|a| a.name()).collect();
    let _ = writeln!(
        out,
        "settings: {}; algorithms: {}",
        settings.join(", "),
        algorithms.join(", ")
    );
    for inst in &s.instances {
        let _ = writeln!(out, "\ninstance {:?} ({}):", inst.label, inst.family);
        for arms in &inst.points {
            let _ = writeln!(
                out,
                "  N = {:>6}, K = {:>5}, H = Σ Δ⁻² = {:>10}, rewards {}",
                arms.len(),
                arms.k(),
                sig(arms.complexity(), 4),
                to_ron_line(&arms.rewards())
            );
        }
    }
    if let Some(arms) = s.instances.first().and_then(|i| i.points.last()) {
        let _ = writeln!(
            out,
            "\nparameters at N = {} (first instance, largest N):",
            arms.len()
        );
        for &setting in &s.settings {
            for a in &s.algorithms {
                if a.runs_in(setting) {
                    let p = s.params(a, setting, arms.len());
                    let _ = writeln!(
                        out,
                        "  {:<9} {:<13} ε = {:<5} δ = {:.4e}",
                        setting.name(),
                        a.name(),
                        p.epsilon,
                        p.delta
                    );
                }
            }
        }
    }
    if let Some(sw) = &s.sweep {
        sweep_line(&mut out, sw);
        for (value, cell) in sw.points() {
            let sizes: Vec<String> = cell
                .instances
                .iter()
                .flat_map(|i| {
                    i.points.iter().map(move |a| {
                        format!(
                            "{} N = {}, K = {}, H = {}",
                            i.label,
                            a.len(),
                            a.k(),
                            sig(a.complexity(), 4)
                        )
                    })
                })
                .collect();
            let _ = writeln!(
                out,
                "  {}: ν = {}, {}; {}",
                sw.cell_label(value),
                cell.confidence,
                crate::report::format::count(cell.runs, "run"),
                sizes.join("; ")
            );
        }
    }
    out
}

impl Describe for IdentificationScenario {
    fn describe(&self) -> String {
        describe_identification(self)
    }
}
