//! `specprobe compare` of many-users results: every source's policies on shared axes (system
//! regret, collisions between users), with one combined table. The lower bounds belong to one
//! instance each, so they are listed in the table rather than drawn.

use super::charts::{metric_curves_labelled, time_charts};
use super::summary::MultiUserSummary;
use super::tables::CurveTable;
use super::{COLLISIONS, PSEUDO, REALIZED, cell};
use crate::report::format::{charts_section, count, sig};
use crate::report::plots::ChartOptions;
use crate::report::plots::lines::LineChart;
use crate::report::{Artifact, ReportError};
use crate::util::math;
use std::fmt::Write;

/// The comparison's charts and `report.md`; `labels[i]` names `loaded[i]`.
pub(crate) fn render_compare(
    labels: &[String],
    loaded: &[(MultiUserSummary, CurveTable)],
    opts: &ChartOptions,
) -> Result<Vec<Artifact>, ReportError> {
    let mut rendered = Vec::new();
    if !opts.formats.is_empty() && !loaded.is_empty() {
        // One regret axis: pseudo-regret when every source has it, else realised regret.
        let pseudo = loaded.iter().all(|(_, t)| {
            t.policies
                .iter()
                .all(|(_, rows)| rows.iter().all(|(_, p)| p[PSEUDO].is_some()))
        });
        let (metric, what) = if pseudo {
            (PSEUDO, "system pseudo-regret")
        } else {
            (REALIZED, "system realised regret")
        };
        for (stem, m, title, y, caption) in [
            (
                "regret",
                metric,
                what,
                what,
                format!("The {what} of every source's policies"),
            ),
            (
                "collisions",
                COLLISIONS,
                "collisions between users",
                "users in collisions (cumulative)",
                "Users involved in collisions with other users, cumulative".to_string(),
            ),
        ] {
            let curves = loaded
                .iter()
                .zip(labels)
                .flat_map(|((s, t), label)| {
                    metric_curves_labelled(s, t, m, opts.band, &format!("{label}: "))
                })
                .collect();
            let chart = LineChart {
                title: format!("Comparison — {title}"),
                x_label: "slot t".into(),
                y_label: y.into(),
                log_x: false,
                log_y: false,
                error_bars: false,
                curves,
                band: Some(opts.band.describe().into()),
                references: Vec::new(),
                notes: Vec::new(),
                y_range_from: 0.0,
                y_from_zero: true,
                verticals: None,
            };
            time_charts(chart, stem, &caption, m != COLLISIONS, opts, &mut rendered)?;
        }
    }
    let files = crate::report::charts_and_report(rendered, opts, |embedded| {
        markdown(labels, loaded, embedded)
    });
    Ok(files)
}

fn markdown(
    labels: &[String],
    loaded: &[(MultiUserSummary, CurveTable)],
    charts: &[(String, String)],
) -> String {
    let mut out = String::from("# Comparison (many users)\n\n");
    for (label, (s, _)) in labels.iter().zip(loaded) {
        let _ = writeln!(
            out,
            "- **{label}**: scenario `{}`, M = {} users, K = {} channels, T = {}, {}, seed {}; timing `{}`, collisions `{}`, feedback `{}`; benchmark: {} ({} per slot){}",
            s.scenario,
            s.users,
            s.channels,
            s.horizon,
            count(s.runs, "run"),
            s.seed,
            s.timing,
            s.collision,
            s.feedback,
            s.benchmark.name,
            sig(s.benchmark.expected_reward_per_slot, 6),
            s.lower_bound
                .as_ref()
                .map(|lb| format!(
                    "; decentralised lower bound {}·ln T = {} at T",
                    sig(lb.decentralized, 4),
                    sig(lb.decentralized * math::ln(s.horizon as f64), 4)
                ))
                .unwrap_or_default()
        );
    }
    let _ = writeln!(
        out,
        "\n## Results at the horizon\n\n| source | policy | pseudo-regret | realised regret | collisions (users) | Jain |\n|---|---|---:|---:|---:|---:|"
    );
    for (label, (s, _)) in labels.iter().zip(loaded) {
        for p in &s.policies {
            let _ = writeln!(
                out,
                "| {label} | {} | {} | {} | {} | {} |",
                p.name,
                cell(&p.at_horizon["pseudo_regret"]),
                cell(&p.at_horizon["realized_regret"]),
                cell(&p.at_horizon["su_collisions"]),
                cell(&p.jain_fairness)
            );
        }
    }
    out.push('\n');
    charts_section(&mut out, charts);
    out
}

impl crate::report::compare::Comparable for crate::scenario::MultiUserScenario {
    fn family(&self) -> Result<crate::report::compare::Family, String> {
        Ok(crate::report::compare::Family::Multi)
    }
    fn saved_family(
        found: crate::store::names::ResultKind,
    ) -> Option<crate::report::compare::Family> {
        let multi = found == crate::store::names::ResultKind::MultiUser;
        multi.then_some(crate::report::compare::Family::Multi)
    }
}
