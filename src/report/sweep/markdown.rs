//! The text of a sweep's report.

use crate::report::format::{charts_section, count, interval, sig};
use crate::report::sweep::charts::{configurations, policies};
use crate::report::sweep::summary::SweepSummary;
use std::fmt::Write;

/// `report.md` of a sweep: the table of every policy's final regret against the swept value.
pub(crate) fn markdown(s: &SweepSummary, charts: &[(String, String)]) -> String {
    let mut out = format!("# {}\n\n", s.scenario);
    if !s.description.is_empty() {
        let _ = writeln!(out, "{}\n", s.description.trim());
    }
    let runs = s.cells.first().map_or(0, |c| c.runs);
    let _ = writeln!(
        out,
        "Sweep of `{}` over {}, {} per cell; each cell runs exactly as a separate scenario with that value would (same seed and random streams).\n",
        s.field,
        count(s.values.len() as u64, "value"),
        count(runs, "run")
    );
    let policies = policies(s);
    for configuration in configurations(s) {
        if let Some(l) = &configuration {
            let _ = writeln!(out, "## {l}\n");
        }
        let _ = writeln!(
            out,
            "Final pseudo-regret, mean [95 % interval]; realised regret below each.\n"
        );
        let mut head = format!("| {} |", s.axis_title());
        let mut rule = "|---:|".to_string();
        for p in &policies {
            let _ = write!(head, " {p} |");
            rule.push_str("---:|");
        }
        let _ = writeln!(out, "{head}\n{rule}");
        for &v in &s.values {
            let mut row = format!("| {v} |");
            for p in &policies {
                match s
                    .table
                    .iter()
                    .find(|r| r.value == v && r.policy == *p && r.configuration == configuration)
                {
                    Some(r) => {
                        let _ = write!(
                            row,
                            " {} {}<br>{} {} |",
                            sig(r.pseudo_regret.mean, 4),
                            interval(r.pseudo_regret.ci95),
                            sig(r.realized_regret.mean, 4),
                            interval(r.realized_regret.ci95)
                        );
                    }
                    None => row.push_str(" – |"),
                }
            }
            let _ = writeln!(out, "{row}");
        }
        out.push('\n');
    }
    charts_section(&mut out, charts);
    out
}
