//! The many-users charts, drawn from the summary and the curve table alone, so that `plot`
//! redraws from the saved files what `run` drew.

use super::summary::MultiUserSummary;
use super::tables::{CurveTable, Point};
use super::{COLLISIONS, PSEUDO, REALIZED};
use crate::report::format::sig;
use crate::report::plots::bars::{BarSeries, GroupedBars};
use crate::report::plots::lines::{Curve, LineChart, Reference};
use crate::report::plots::{Band, ChartOptions, axis_modes, log_values, render_chart, stem_for};
use crate::report::{Rendered, ReportError};
use crate::util::math;
use crate::util::stats::ci95;
use plotters::style::RGBColor;

/// The half-width of `band` around a point over `runs` runs (as `Moments` computes it: the
/// standard error is `std/√n`).
pub(super) fn spread(p: &Point, runs: u64, band: Band) -> f64 {
    match band {
        Band::Sd => p.std,
        Band::Se => p.std / (runs.max(1) as f64).sqrt(),
        Band::Ci95 => ci95(runs, p.mean, p.std).map_or(0.0, |[lo, hi]| (hi - lo) / 2.0),
    }
}

/// Every policy's curve of metric `m` (a position in `METRICS`), labelled `prefix` + policy.
pub(crate) fn metric_curves_labelled(
    summary: &MultiUserSummary,
    table: &CurveTable,
    m: usize,
    band: Band,
    prefix: &str,
) -> Vec<Curve> {
    table
        .policies
        .iter()
        .zip(&summary.policies)
        .map(|((label, rows), p)| Curve {
            // A comparison's sources share the policy's style (see `Curve::key`).
            key: (!prefix.is_empty()).then(|| label.clone()),
            label: format!("{prefix}{label}"),
            points: rows
                .iter()
                .filter_map(|(t, points)| {
                    points[m].map(|pt| (*t as f64, pt.mean, spread(&pt, p.runs, band)))
                })
                .collect(),
        })
        .collect()
}

fn metric_curves(
    summary: &MultiUserSummary,
    table: &CurveTable,
    m: usize,
    band: Band,
) -> Vec<Curve> {
    metric_curves_labelled(summary, table, m, band, "")
}

/// Renders `chart` (a time chart on a linear slot axis) once per slot axis the options ask
/// for (for many users `auto` is linear; `log` and `both` add `<stem>-log`). A regret chart
/// (`regret`) takes a logarithmic value axis as `--value-axis` says (`auto`: when the final
/// values span more than 20×), as a single user's does.
pub(super) fn time_charts(
    mut chart: LineChart,
    stem: &str,
    caption: &str,
    regret: bool,
    opts: &ChartOptions,
    out: &mut Vec<Rendered>,
) -> Result<(), ReportError> {
    if regret && log_values(&chart.curves, opts.value_axis) {
        chart.log_y = true;
        chart.y_label.push_str(" (log scale)");
        // The first slots' regrets (fractions of one) would stretch a log axis over decades
        // nobody reads: the value axis is fitted from slot 10.
        chart.y_range_from = 10.0;
        for c in &chart.curves {
            if c.points.last().is_some_and(|p| p.1 <= 0.0) {
                chart
                    .notes
                    .push(format!("{}: 0, not drawn on a log axis", c.label));
            }
        }
    }
    for log in axis_modes(opts.axis, false) {
        chart.log_x = log;
        let stem = stem_for(stem, log);
        out.push(Rendered {
            caption: if log {
                format!("{caption} (logarithmic slot axis)")
            } else {
                caption.to_string()
            },
            files: render_chart(&chart, &stem, opts)?,
            stem,
        });
    }
    Ok(())
}

/// The charts: system regret with the lower bounds, collisions between users over time, each
/// user's reward.
pub(super) fn charts(
    summary: &MultiUserSummary,
    table: &CurveTable,
    opts: &ChartOptions,
) -> Result<Vec<Rendered>, ReportError> {
    let mut out = Vec::new();
    if opts.formats.is_empty() {
        return Ok(out);
    }
    // The pseudo-regret where it has a closed form (then every checkpoint has it).
    let pseudo = table
        .policies
        .iter()
        .any(|(_, rows)| rows.iter().any(|(_, p)| p[PSEUDO].is_some()));
    let (metric, what) = if pseudo {
        (PSEUDO, "system pseudo-regret")
    } else {
        (REALIZED, "system realised regret")
    };
    let mut references = Vec::new();
    let mut notes = vec![format!(
        "M = {} users, K = {} channels; benchmark: {}",
        summary.users, summary.channels, summary.benchmark.name
    )];
    if let Some(lb) = &summary.lower_bound {
        let dense: Vec<f64> = (1..=200)
            .map(|i| summary.horizon as f64 * i as f64 / 200.0)
            .collect();
        for (label, c, color) in [
            (
                format!(
                    "decentralised lower bound {}·ln t (asymptotic)",
                    sig(lb.decentralized, 4)
                ),
                lb.decentralized,
                RGBColor(0, 0, 0),
            ),
            (
                format!(
                    "centralised lower bound {}·ln t (asymptotic)",
                    sig(lb.centralized, 4)
                ),
                lb.centralized,
                RGBColor(120, 120, 120),
            ),
        ] {
            references.push(Reference {
                label,
                points: dense.iter().map(|&t| (t, c * math::ln(t))).collect(),
                color,
                dash: (8, 5),
            });
        }
        notes.push(
            "lower bounds: asymptotic (T → ∞), for uniformly efficient policies only; at a finite T a learner may lie below them".into(),
        );
    }
    let line = |title: String, y: &str, curves: Vec<Curve>, references, notes| LineChart {
        title,
        x_label: "slot t".into(),
        y_label: y.into(),
        log_x: false,
        log_y: false,
        error_bars: false,
        curves,
        band: Some(opts.band.describe().into()),
        references,
        notes,
        y_range_from: 0.0,
        y_from_zero: true,
        verticals: None,
    };
    let curves = metric_curves(summary, table, metric, opts.band);
    let per_log = summary
        .lower_bound
        .as_ref()
        .map(|lb| regret_per_log(summary, &curves, lb, what, opts));
    let chart = line(
        format!("{} — {what}", summary.scenario),
        what,
        curves,
        references,
        notes,
    );
    time_charts(
        chart,
        "regret",
        &format!("The {what} of every policy, with the asymptotic lower bounds where they apply"),
        true,
        opts,
        &mut out,
    )?;
    if let Some(chart) = per_log {
        let stem = "regret-per-log";
        out.push(Rendered {
            caption: format!(
                "The {what} divided by ln t (logarithmic slot axis) against the two constants: a learner whose curve levels off at the centralised one pays nothing for being decentralised"
            ),
            files: render_chart(&chart, stem, opts)?,
            stem: stem.into(),
        });
    }
    let chart = line(
        format!("{} — collisions between users", summary.scenario),
        "users in collisions (cumulative)",
        metric_curves(summary, table, COLLISIONS, opts.band),
        Vec::new(),
        Vec::new(),
    );
    time_charts(
        chart,
        "collisions",
        "Users involved in collisions with other users, cumulative",
        false,
        opts,
        &mut out,
    )?;
    out.push(users_chart(summary, opts)?);
    Ok(out)
}

/// R(t)/ln t of every policy on a logarithmic slot axis (from t = 10, where ln t is no longer
/// small), with the decentralised and the centralised lower bounds' constants as levels: the
/// price of decentralisation is the gap between the two.
fn regret_per_log(
    summary: &MultiUserSummary,
    curves: &[Curve],
    lb: &super::summary::LowerBound,
    what: &str,
    opts: &ChartOptions,
) -> LineChart {
    let per_log: Vec<Curve> = curves
        .iter()
        .map(|c| Curve {
            key: c.key.clone(),
            label: c.label.clone(),
            points: c
                .points
                .iter()
                .filter(|p| p.0 >= 10.0)
                .map(|&(t, y, s)| (t, y / math::ln(t), s / math::ln(t)))
                .collect(),
        })
        .collect();
    let (from, to) = (10.0, (summary.horizon as f64).max(10.0));
    let level = |label: String, c: f64, color| Reference {
        label,
        points: vec![(from, c), (to, c)],
        color,
        dash: (8, 5),
    };
    LineChart {
        title: format!("{} — {what} / ln t", summary.scenario),
        x_label: "slot t".into(),
        y_label: format!("{what} / ln t"),
        log_x: true,
        log_y: false,
        error_bars: false,
        curves: per_log,
        band: Some(opts.band.describe().into()),
        references: vec![
            level(
                format!("decentralised constant {} (Besson & Kaufmann)", sig(lb.decentralized, 4)),
                lb.decentralized,
                RGBColor(0, 0, 0),
            ),
            level(
                format!("centralised constant {} (Anantharam et al.)", sig(lb.centralized, 4)),
                lb.centralized,
                RGBColor(120, 120, 120),
            ),
        ],
        notes: vec![
            "asymptotic constants (T → ∞) for uniformly efficient policies; a learner reaching the centralised one is as good as a coordinator".into(),
        ],
        y_range_from: 10.0,
        y_from_zero: true,
        verticals: None,
    }
}

/// Each user's acknowledged transmissions per policy, the policy's Jain index under its name.
fn users_chart(summary: &MultiUserSummary, opts: &ChartOptions) -> Result<Rendered, ReportError> {
    let chart = GroupedBars {
        // The bars count what Jain's index measures (acknowledged transmissions on idle
        // channels), so that the two agree when probes cost; without costs it is the reward.
        title: format!(
            "{} — acknowledged transmissions per user over the run",
            summary.scenario
        ),
        x_label: "policy".into(),
        y_label: "acknowledged transmissions per user".into(),
        // Fairness on the chart itself: each policy's mean Jain index under its name.
        groups: summary
            .policies
            .iter()
            .map(|p| match &p.jain_fairness {
                Some(j) => format!("{} (Jain {})", p.name, sig(j.mean, 3)),
                None => p.name.clone(),
            })
            .collect(),
        series: (0..summary.users.min(16))
            .map(|u| BarSeries {
                label: format!("user {u}"),
                values: summary
                    .policies
                    .iter()
                    .map(|p| p.users[u].successes.as_ref().map(|r| (r.mean, r.std)))
                    .collect(),
            })
            .collect(),
        points: Vec::new(),
        log_y: false,
        notes: vec![
            "whiskers: standard deviation over runs".into(),
            "Jain's index: (Σ x)² / (M Σ x²) of the users' acknowledged transmissions, mean over runs".into(),
        ],
    };
    Ok(Rendered {
        caption: "Each user's acknowledged transmissions over the run (fairness between users, as Jain's index measures it)".into(),
        stem: "users".into(),
        files: render_chart(&chart, "users", opts)?,
    })
}
