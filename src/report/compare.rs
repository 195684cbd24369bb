//! The report of `specprobe compare`: every source's policies on shared axes, with one combined
//! table. Sources are saved regret results or scenarios run for the comparison.

use crate::report::Rendered;
use crate::report::format::{charts_section, count, sig};
use crate::report::plots::{ChartError, ChartOptions};
use crate::report::regret::charts::{Source, time_charts};
use crate::report::regret::curves::CurveRow;
use crate::report::regret::markdown::{RESULT_HEAD, RESULT_RULE, policy_row};
use crate::report::regret::summary::RegretSummary;
use crate::report::{Artifact, ReportError};
use crate::store::names::ResultKind;
use std::fmt::Write;

/// Which regret curves a comparison draws: single-user regret, or many-users system regret
/// (one family per comparison).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Family {
    /// Single-user regret.
    Single,
    /// Many-users (system) regret.
    Multi,
}

/// How a scenario kind takes part in `specprobe compare` (each kind's own is beside its
/// report): the family of curves it draws, or why it is refused.
pub(crate) trait Comparable {
    /// The family of this scenario's curves, or why compare refuses it (the sentence after
    /// the input's path).
    fn family(&self) -> Result<Family, String>;
    /// The family of a saved folder of kind `found`, when this kind wrote it and compare draws
    /// it.
    fn saved_family(found: ResultKind) -> Option<Family> {
        let _ = found;
        None
    }
}

/// The comparison's charts and `report.md`; `labels[i]` names `loaded[i]` in legends and the
/// table.
pub(crate) fn render(
    labels: &[String],
    loaded: &[(RegretSummary, Vec<CurveRow>)],
    opts: &ChartOptions,
) -> Result<Vec<Artifact>, ReportError> {
    warn_on_units(labels, loaded);
    let sources: Vec<Source> = loaded
        .iter()
        .zip(labels)
        .map(|((summary, rows), label)| Source {
            label: label.clone(),
            summary,
            rows,
        })
        .collect();
    let rendered = charts(&sources, opts)?;
    let table: Vec<(String, &RegretSummary)> = labels
        .iter()
        .cloned()
        .zip(loaded.iter().map(|(s, _)| s))
        .collect();
    let files =
        crate::report::charts_and_report(rendered, opts, |embedded| markdown(&table, embedded));
    Ok(files)
}

/// Sources measuring energy or delay in different units are drawn together with each unit
/// named; the user is told.
fn warn_on_units(labels: &[String], loaded: &[(RegretSummary, Vec<CurveRow>)]) {
    for (what, unit_of) in [
        (
            "energy",
            (|s: &RegretSummary| s.units.energy.clone()) as fn(&RegretSummary) -> String,
        ),
        ("delay", |s: &RegretSummary| s.units.delay.clone()),
    ] {
        let units: Vec<String> = loaded.iter().map(|(s, _)| unit_of(s)).collect();
        if units.iter().any(|u| *u != units[0]) {
            tracing::warn!(
                "the inputs measure {what} in different units ({}): the {what} chart names each source's unit",
                labels
                    .iter()
                    .zip(&units)
                    .map(|(l, u)| format!("{l}: {}", if u.is_empty() { "unnamed" } else { u }))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
}

/// The charts of a comparison: every source's policies on shared axes.
fn charts(sources: &[Source], opts: &ChartOptions) -> Result<Vec<Rendered>, ChartError> {
    let mut rendered = Vec::new();
    if !opts.formats.is_empty() && !sources.is_empty() {
        time_charts(sources, None, "", opts, false, &mut rendered)?;
    }
    Ok(rendered)
}

/// The report of `specprobe compare`: one combined table and the shared-axis charts.
fn markdown(sources: &[(String, &RegretSummary)], charts: &[(String, String)]) -> String {
    let mut out = String::from("# Comparison\n\n");
    for (label, s) in sources {
        let _ = writeln!(
            out,
            "- **{label}**: scenario `{}`, T = {}, {}, seed {}{}",
            s.scenario,
            s.horizon,
            count(s.runs, "run"),
            s.seed,
            if s.description.is_empty() {
                String::new()
            } else {
                format!(" — {}", s.description.trim())
            }
        );
    }
    let _ = writeln!(
        out,
        "\n## Results at the horizon\n\n| source | configuration | E[r*] | policy | {} |\n|---|---|---:|---|{}|",
        RESULT_HEAD.replace("{energy}", "").replace("{delay}", ""),
        RESULT_RULE
    );
    for (label, s) in sources {
        for e in s.body.experiments() {
            for p in &e.policies {
                let _ = write!(
                    out,
                    "| {label} | {} | {} ",
                    e.label.as_deref().unwrap_or("–"),
                    sig(e.optimum.expected_reward, 4)
                );
                policy_row(&mut out, p);
            }
        }
    }
    out.push('\n');
    charts_section(&mut out, charts);
    out
}
