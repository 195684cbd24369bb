//! The charts of a sweep: final values against the swept value.

use crate::report::Rendered;
use crate::report::plots::lines::{Curve, LineChart};
use crate::report::plots::{ChartError, ChartOptions, render_chart};
use crate::report::sweep::summary::SweepSummary;

/// The configurations of the sweep (`None` for a single channel list).
pub(crate) fn configurations(s: &SweepSummary) -> Vec<Option<String>> {
    let mut out: Vec<Option<String>> = Vec::new();
    for r in &s.table {
        if !out.contains(&r.configuration) {
            out.push(r.configuration.clone());
        }
    }
    out
}

pub(crate) fn policies(s: &SweepSummary) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in &s.table {
        if !out.contains(&r.policy) {
            out.push(r.policy.clone());
        }
    }
    out
}

/// Final pseudo- and realised regret against the swept value, one line per policy, with 95 %
/// intervals as error bars; under `reward: TimeLeft` also the reward per slot (a throughput:
/// Liang et al.'s sensing–throughput curve when the sensing time is swept), each policy's best
/// value marked.
pub(crate) fn charts(s: &SweepSummary, opts: &ChartOptions) -> Result<Vec<Rendered>, ChartError> {
    let mut rendered = Vec::new();
    if opts.formats.is_empty() {
        return Ok(rendered);
    }
    let swept = s.axis();
    let axis = swept.title;
    let time_left = s
        .cells
        .iter()
        .any(|c| c.experiments().iter().any(|e| e.time_left.is_some()));
    let mut metrics = vec![
        ("pseudo-regret", "final pseudo-regret", 0),
        ("realized-regret", "final realised regret", 1),
    ];
    if time_left {
        metrics.push(("reward-per-slot", "reward per slot", 2));
    }
    for (c, configuration) in configurations(s).iter().enumerate() {
        for &(metric, name, pick) in &metrics {
            let curves: Vec<Curve> = policies(s)
                .into_iter()
                .map(|policy| Curve {
                    key: None,
                    points: s
                        .table
                        .iter()
                        .filter(|r| &r.configuration == configuration && r.policy == policy)
                        .map(|r| {
                            let st = match pick {
                                0 => r.pseudo_regret,
                                1 => r.realized_regret,
                                _ => r.reward_per_slot,
                            };
                            let half = st.ci95.map_or(0.0, |[lo, hi]| (hi - lo) / 2.0);
                            (r.value, st.mean, half)
                        })
                        .collect(),
                    label: policy,
                })
                .collect();
            let what = configuration
                .as_ref()
                .map_or(String::new(), |l| format!(" — {l}"));
            let stem = match configuration {
                None => format!("sweep-{metric}"),
                Some(l) => format!(
                    "sweep-config{}-{}-{metric}",
                    c + 1,
                    crate::report::format::slug(l)
                ),
            };
            // Each policy's best swept value (the highest reward per slot: τ* of a sensing-time
            // sweep).
            let mut best: Vec<f64> = curves
                .iter()
                .filter_map(|c| {
                    c.points
                        .iter()
                        .max_by(|a, b| a.1.total_cmp(&b.1))
                        .map(|p| p.0)
                })
                .collect();
            best.sort_by(f64::total_cmp);
            best.dedup();
            let title = format!("{}: {name} against {axis}{what}", s.scenario);
            let chart = LineChart {
                y_from_zero: pick == 0,
                verticals: (pick == 2)
                    .then(|| ("each policy's highest reward per slot".into(), best)),
                ..swept.chart(title, name.to_string(), curves)
            };
            let files = render_chart(&chart, &stem, opts)?;
            rendered.push(Rendered {
                caption: format!(
                    "{}{} against {axis}{what} (mean over runs, 95 % interval)",
                    name[..1].to_uppercase(),
                    &name[1..]
                ),
                stem,
                files,
            });
        }
    }
    Ok(rendered)
}
