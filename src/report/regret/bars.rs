//! The bar charts of a regret report: probes per slot, probes per channel, a grid's final
//! regrets and the paired differences to the reference policy.

use crate::report::Rendered;
use crate::report::plots::bars::{BarSeries, GroupedBars, PointSeries};
use crate::report::plots::{Band, ChartError, ChartOptions, Marker, render_chart};
use crate::report::regret::charts::experiment_label;
use crate::report::regret::summary::{ExperimentSummary, RegretSummary};
use plotters::style::RGBColor;

/// Probes per slot and per channel for one experiment.
pub(crate) fn probe_charts(
    s: &RegretSummary,
    e: &ExperimentSummary,
    prefix: &str,
    opts: &ChartOptions,
    rendered: &mut Vec<Rendered>,
) -> Result<(), ChartError> {
    probes_per_slot_chart(&s.scenario, e, prefix, opts, rendered)?;
    channel_rate_chart(&s.scenario, e, s.horizon, prefix, opts, rendered)
}

/// Distribution of probes per slot; counts above `LAST_SINGLE` share one bar.
fn probes_per_slot_chart(
    scenario: &str,
    e: &ExperimentSummary,
    prefix: &str,
    opts: &ChartOptions,
    rendered: &mut Vec<Rendered>,
) -> Result<(), ChartError> {
    const LAST_SINGLE: u64 = 20;
    let max = e
        .policies
        .iter()
        .flat_map(|p| p.probe_distribution.iter().map(|d| d[0]))
        .max()
        .unwrap_or(0);
    let bucket = |n: u64| n.min(LAST_SINGLE + 1) as usize;
    let mut groups: Vec<String> = (0..=max.min(LAST_SINGLE)).map(|n| n.to_string()).collect();
    if max > LAST_SINGLE {
        groups.push(format!("{}–{max}", LAST_SINGLE + 1));
    }
    let series = e
        .policies
        .iter()
        .map(|p| {
            let total: u64 = p.probe_distribution.iter().map(|d| d[1]).sum();
            let mut slots = vec![0u64; groups.len()];
            for d in &p.probe_distribution {
                slots[bucket(d[0])] += d[1];
            }
            BarSeries {
                label: p.name.clone(),
                values: slots
                    .iter()
                    .map(|&s| (s > 0).then(|| (s as f64 / total.max(1) as f64, 0.0)))
                    .collect(),
            }
        })
        .collect();
    let chart = GroupedBars {
        title: format!("Probes per slot — {scenario}"),
        x_label: "channels probed in a slot".into(),
        y_label: "fraction of slots".into(),
        groups,
        series,
        points: Vec::new(),
        log_y: false,
        notes: Vec::new(),
    };
    let stem = format!("{prefix}probes");
    let files = render_chart(&chart, &stem, opts)?;
    rendered.push(Rendered {
        caption: "Distribution of the number of channels probed per slot".into(),
        stem,
        files,
    });
    Ok(())
}

/// Per-channel probe rate beside UCR-T1's. With many channels, identical consecutive channels
/// (a `count` in the scenario) share a bar: the mean rate of their channels.
#[allow(clippy::too_many_arguments)]
fn channel_rate_chart(
    scenario: &str,
    e: &ExperimentSummary,
    horizon: u64,
    prefix: &str,
    opts: &ChartOptions,
    rendered: &mut Vec<Rendered>,
) -> Result<(), ChartError> {
    let k = e.channels.len();
    let mut expected = vec![0.0; k];
    let mut position = vec![None; k];
    let mut reach = 1.0;
    for (p, &i) in e.optimum.list.iter().enumerate() {
        expected[i] = reach;
        position[i] = Some(p + 1);
        reach *= 1.0 - e.channels[i].theta;
    }
    let spans: Vec<(usize, usize)> = if k > 32 {
        crate::report::format::runs(&e.channels)
    } else {
        (0..k).map(|i| (i, i)).collect()
    };
    let mean_over = |v: &dyn Fn(usize) -> f64, (a, b): (usize, usize)| {
        (a..=b).map(v).sum::<f64>() / (b - a + 1) as f64
    };
    let groups: Vec<String> = spans
        .iter()
        .map(|&(a, b)| {
            let name = format!("ch {}", crate::report::format::span(a, b));
            match (position[a], position[b]) {
                (Some(x), Some(y)) if x == y => format!("{name} (#{x})"),
                (Some(x), Some(y)) => format!("{name} (#{}–{})", x.min(y), x.max(y)),
                _ => name,
            }
        })
        .collect();
    let expected: Vec<Option<f64>> = spans
        .iter()
        .map(|&s| Some(mean_over(&|i| expected[i], s)))
        .collect();
    let series = e
        .policies
        .iter()
        .map(|p| BarSeries {
            label: p.name.clone(),
            values: spans
                .iter()
                .map(|&s| Some((mean_over(&|i| p.channel_probes[i], s) / horizon as f64, 0.0)))
                .collect(),
        })
        .collect();
    let chart = GroupedBars {
        title: format!("How often each channel is probed — {scenario}"),
        x_label: "channel (#n: position in the UCR-T1 list)".into(),
        y_label: "probes per slot (per channel)".into(),
        groups,
        series,
        points: vec![PointSeries {
            label: "UCR-T1 expected rate".into(),
            values: expected,
            over_bar: None,
            marker: Marker::Cross,
            color: RGBColor(0, 0, 0),
        }],
        log_y: false,
        notes: Vec::new(),
    };
    let stem = format!("{prefix}channels");
    let files = render_chart(&chart, &stem, opts)?;
    rendered.push(Rendered {
        caption: "Per-channel probe rate of each policy beside the UCR-T1 list's expected rate"
            .into(),
        stem,
        files,
    });
    Ok(())
}

/// Final regret per configuration and policy, with the paper's values where given.
pub(crate) fn grid_chart(
    s: &RegretSummary,
    opts: &ChartOptions,
    rendered: &mut Vec<Rendered>,
) -> Result<(), ChartError> {
    let exps = s.body.experiments();
    let policies: Vec<String> = exps[0].policies.iter().map(|p| p.name.clone()).collect();
    let groups: Vec<String> = exps.iter().map(|e| experiment_label(s, e)).collect();
    let series: Vec<BarSeries> = policies
        .iter()
        .map(|name| BarSeries {
            label: name.clone(),
            values: exps
                .iter()
                .map(|e| {
                    e.policies
                        .iter()
                        .find(|p| &p.name == name)
                        .map(|p| (p.pseudo_regret.mean, spread(&p.pseudo_regret, opts.band)))
                })
                .collect(),
        })
        .collect();
    let markers = [
        Marker::Cross,
        Marker::Ring,
        Marker::Triangle,
        Marker::Square,
        Marker::Circle,
    ];
    let points: Vec<PointSeries> = policies
        .iter()
        .enumerate()
        .filter(|(_, name)| exps.iter().any(|e| e.reference.contains_key(*name)))
        .map(|(j, name)| PointSeries {
            label: format!("{name}: paper"),
            values: exps
                .iter()
                .map(|e| e.reference.get(name).copied())
                .collect(),
            over_bar: Some(j),
            marker: markers[j % markers.len()],
            color: RGBColor(0, 0, 0),
        })
        .collect();
    let chart = GroupedBars {
        title: format!(
            "Final pseudo-regret at T = {} — {}",
            crate::report::plots::si(s.horizon as f64),
            s.scenario
        ),
        x_label: "configuration".into(),
        y_label: "cumulative pseudo-regret at T".into(),
        groups,
        series,
        points,
        log_y: true,
        notes: vec![format!("whiskers: {}", opts.band.describe())],
    };
    let files = render_chart(&chart, "grid-regret", opts)?;
    rendered.push(Rendered {
        caption: format!(
            "Final pseudo-regret per configuration and policy (mean, whiskers: {}), with the paper's values as markers",
            opts.band.describe()
        ),
        stem: "grid-regret".into(),
        files,
    });
    Ok(())
}

/// The half-width of a statistic's band: a standard deviation, a standard error or half its
/// 95 % interval.
fn spread(s: &crate::report::regret::summary::Stat, band: Band) -> f64 {
    match band {
        Band::Sd => s.std,
        Band::Se => s.stderr,
        Band::Ci95 => s.ci95.map_or(0.0, |[lo, hi]| (hi - lo) / 2.0),
    }
}

/// The whisker of a paired difference under `--band`: its standard error, its 95 % interval's
/// half-width, or the standard deviation of the per-run differences (`se·√n`, n runs).
fn paired_spread(d: &crate::report::regret::summary::Difference, runs: u64, band: Band) -> f64 {
    match band {
        Band::Sd => d.stderr * (runs as f64).sqrt(),
        Band::Se => d.stderr,
        Band::Ci95 => d.ci95.map_or(0.0, |[lo, hi]| (hi - lo) / 2.0),
    }
}

/// Each policy's final regret minus the reference policy's, run by run on the same sample
/// paths, with the whiskers `--band` asks for.
pub(crate) fn paired_chart(
    scenario: &str,
    e: &ExperimentSummary,
    opts: &ChartOptions,
    rendered: &mut Vec<Rendered>,
) -> Result<(), ChartError> {
    let paired: Vec<(&str, &crate::report::regret::summary::Paired, u64)> = e
        .policies
        .iter()
        .filter_map(|p| {
            p.paired
                .as_ref()
                .map(|d| (p.name.as_str(), d, p.pseudo_regret.n))
        })
        .collect();
    let band = opts.band;
    let Some((_, first, _)) = paired.first() else {
        return Ok(());
    };
    let reference = first.reference.clone();
    let chart = GroupedBars {
        title: format!("Paired differences to {reference} — {scenario}"),
        x_label: "policy".into(),
        y_label: format!("final regret − {reference}'s"),
        groups: paired.iter().map(|(n, _, _)| n.to_string()).collect(),
        series: vec![
            BarSeries {
                label: "pseudo-regret".into(),
                values: paired
                    .iter()
                    .map(|(_, d, n)| {
                        let spread = paired_spread(&d.pseudo_regret, *n, band);
                        Some((d.pseudo_regret.mean, spread))
                    })
                    .collect(),
            },
            BarSeries {
                label: "realised regret".into(),
                values: paired
                    .iter()
                    .map(|(_, d, n)| {
                        let spread = paired_spread(&d.realized_regret, *n, band);
                        Some((d.realized_regret.mean, spread))
                    })
                    .collect(),
            },
        ],
        points: Vec::new(),
        log_y: false,
        notes: vec![
            "bars: mean over runs of the".into(),
            "per-run difference; whiskers:".into(),
            band.describe().into(),
            "(same sample paths per run)".into(),
        ],
    };
    let stem = "paired";
    let files = render_chart(&chart, stem, opts)?;
    rendered.push(Rendered {
        caption: format!(
            "Paired differences to {reference}: final regret minus {reference}'s in the same run, mean with {}",
            band.describe()
        ),
        stem: stem.into(),
        files,
    });
    Ok(())
}
