//! The charts of a regret report, built from `summary.json` and `curves.csv` alone, so that
//! `run`, `plot` (re-rendering saved results) and `compare` draw exactly the same pictures.

use crate::engine::recorder::Metric;
use crate::report::Rendered;
use crate::report::format::unit_suffix;
use crate::report::plots::lines::{Curve, LineChart, Reference};
use crate::report::plots::{
    Band, ChartError, ChartOptions, axis_modes, log_values, render_chart, stem_for,
};
use crate::report::regret::curves::CurveRow;
use crate::report::regret::summary::{ExperimentSummary, RegretSummary};
use crate::util::math;
use crate::util::stats::MeanStd;
use plotters::style::RGBColor;

/// One set of results to draw: a label (empty for a plain report), its summary and curves.
#[derive(Clone, Debug)]
pub(crate) struct Source<'a> {
    /// Prefix of series labels (`"" ` in a single report, the scenario name in a comparison).
    pub label: String,
    /// The summary.
    pub summary: &'a RegretSummary,
    /// The curves.
    pub rows: &'a [CurveRow],
}

/// `(t, mean, spread)` of a metric for one (experiment, policy), divided by `t` when `per_slot`;
/// the spread is the band's half-width (sd, se or half the 95 % interval).
fn points(
    rows: &[CurveRow],
    experiment: &str,
    policy: &str,
    metric: Metric,
    per_slot: bool,
    band: Band,
) -> Vec<(f64, f64, f64)> {
    rows.iter()
        .filter(|r| r.experiment == experiment && r.policy == policy)
        .map(|r| {
            let MeanStd { mean, std } = r.get(metric);
            let spread = match band {
                Band::Sd => std,
                Band::Se => r.stderr(metric),
                Band::Ci95 => r.ci95(metric).map_or(0.0, |[lo, hi]| (hi - lo) / 2.0),
            };
            let t = r.t as f64;
            if per_slot {
                (t, mean / t, spread / t)
            } else {
                (t, mean, spread)
            }
        })
        .collect()
}

/// Log-spaced slots from 1 to `horizon` for drawing smooth reference curves.
fn dense(horizon: u64) -> Vec<f64> {
    let h = horizon.max(2) as f64;
    (0..=200).map(|i| math::powf(h, i as f64 / 200.0)).collect()
}

pub(crate) fn experiment_label(s: &RegretSummary, e: &ExperimentSummary) -> String {
    e.label.clone().unwrap_or_else(|| s.scenario.clone())
}

/// Series of one metric across sources and their experiments and policies.
fn curves(
    sources: &[Source],
    metric: Metric,
    per_slot: bool,
    experiment: Option<&str>,
    band: Band,
) -> Vec<Curve> {
    let mut out = Vec::new();
    for src in sources {
        for e in src.summary.body.experiments() {
            let label = experiment_label(src.summary, e);
            if experiment.is_some_and(|x| x != label) {
                continue;
            }
            for p in &e.policies {
                let mut name = p.name.clone();
                if !src.label.is_empty() {
                    name = format!("{}: {name}", src.label);
                }
                if experiment.is_none() && src.summary.body.experiments().len() > 1 {
                    name = format!("{name} [{label}]");
                }
                // In a comparison the policy's own name picks its style, whatever the source.
                let key = (!src.label.is_empty()).then(|| p.name.clone());
                out.push(Curve {
                    key,
                    label: name,
                    points: points(src.rows, &label, &p.name, metric, per_slot, band),
                });
            }
        }
    }
    out
}

const GREY: RGBColor = RGBColor(90, 90, 90);

/// The first slot from which Theorem 3's bound lies below every learning policy's mean curve
/// at every later checkpoint (policies with zero final regret, the oracle, are not learners);
/// `None` when it never does by the horizon.
fn lower_bound_from(curves: &[Curve], bound: &dyn Fn(f64) -> f64) -> Option<f64> {
    let learners: Vec<&Curve> = curves
        .iter()
        .filter(|c| c.points.last().is_some_and(|p| p.1 > 0.0))
        .collect();
    if learners.is_empty() {
        return None;
    }
    let ts: Vec<f64> = learners[0].points.iter().map(|p| p.0).collect();
    let below = |i: usize| {
        learners
            .iter()
            .all(|c| c.points.get(i).is_some_and(|p| bound(p.0) < p.1))
    };
    let mut from = None;
    for i in (0..ts.len()).rev() {
        if below(i) {
            from = Some(ts[i]);
        } else {
            break;
        }
    }
    from
}

/// The regret chart's reference curves: Theorem 3's lower bound where it means something (from
/// where it first lies below every learning policy's curve for good: it is asymptotic), and
/// Theorem 2's upper bound when it fits on the axis (otherwise a note gives its value).
fn bound_references(
    e: &ExperimentSummary,
    horizon: u64,
    regret: &[Curve],
) -> (Vec<Reference>, Vec<String>) {
    let mut refs = Vec::new();
    let mut notes = Vec::new();
    let b = &e.bounds;
    if !b.assumptions_hold {
        notes.push("Theorems 2–3 do not apply".to_string());
        return (refs, notes);
    }
    let curve_max = regret
        .iter()
        .flat_map(|c| c.points.iter().map(|p| p.1 + p.2))
        .fold(0.0, f64::max);
    if let Some(t3) = &b.theorem3 {
        match lower_bound_from(regret, &|t| t3.at(t)) {
            Some(from) => refs.push(Reference {
                label: format!(
                    "Thm 3 lower bound {:.3}·ln t (asymptotic; drawn where below)",
                    t3.coefficient
                ),
                points: dense(horizon)
                    .into_iter()
                    .filter(|&t| t >= from)
                    .map(|t| (t, t3.at(t)))
                    .collect(),
                color: RGBColor(0, 0, 0),
                dash: (8, 5),
            }),
            None => notes.push(format!(
                "Thm 3 lower bound {}·ln t: asymptotic, not yet below the curves",
                crate::report::format::sig(t3.coefficient, 4)
            )),
        }
    }
    if let Some(t2) = &b.theorem2 {
        if t2.at_horizon <= 3.0 * curve_max {
            refs.push(Reference {
                label: format!("Thm 2 upper bound {:.4}·ln t", t2.coefficient),
                points: dense(horizon).iter().map(|&t| (t, t2.at(t))).collect(),
                color: GREY,
                dash: (2, 4),
            });
        } else {
            notes.push(format!(
                "Thm 2 upper bound {}·ln t = {} at T (off scale)",
                crate::report::format::sig(t2.coefficient, 4),
                crate::report::plots::si(t2.at_horizon)
            ));
        }
    }
    (refs, notes)
}

/// What the time charts of one report or comparison share.
struct TimeCharts<'a> {
    sources: &'a [Source<'a>],
    experiment: Option<(&'a ExperimentSummary, &'a str)>,
    prefix: &'a str,
    opts: &'a ChartOptions,
    horizon: u64,
    /// ` — <scenario>` or ` — <scenario> — <configuration>` for titles.
    what: String,
}

impl TimeCharts<'_> {
    fn experiment_label(&self) -> Option<&str> {
        self.experiment.map(|(_, l)| l)
    }

    fn curves(&self, metric: Metric, per_slot: bool) -> Vec<Curve> {
        curves(
            self.sources,
            metric,
            per_slot,
            self.experiment_label(),
            self.opts.band,
        )
    }

    /// The dynamic oracle's segment boundaries (the last slot of each segment but the last).
    fn boundaries(&self) -> Option<(String, Vec<f64>)> {
        let (e, _) = self.experiment?;
        let xs: Vec<f64> = e
            .segments
            .iter()
            .filter(|s| s.last < self.horizon)
            .map(|s| s.last as f64)
            .collect();
        (!xs.is_empty()).then(|| ("segment boundary".to_string(), xs))
    }

    /// A time chart of cumulative (or per-slot) values.
    fn chart(&self, title: &str, y_label: String, curves: Vec<Curve>, log_x: bool) -> LineChart {
        LineChart {
            title: format!("{title}{}", self.what),
            x_label: format!("slot t{}", if log_x { " (log scale)" } else { "" }),
            y_label,
            log_x,
            log_y: false,
            error_bars: false,
            curves,
            band: Some(self.opts.band.describe().to_string()),
            references: Vec::new(),
            notes: Vec::new(),
            y_range_from: 0.0,
            y_from_zero: true,
            verticals: self.boundaries(),
        }
    }

    fn push(
        &self,
        chart: &LineChart,
        stem: String,
        caption: String,
        rendered: &mut Vec<Rendered>,
    ) -> Result<(), ChartError> {
        let files = render_chart(chart, &stem, self.opts)?;
        rendered.push(Rendered {
            caption,
            stem,
            files,
        });
        Ok(())
    }

    /// Cumulative collisions with the primary user, when any policy had one.
    fn collisions(&self, rendered: &mut Vec<Rendered>) -> Result<(), ChartError> {
        let series = self.curves(Metric::PuCollisions, false);
        if !series.iter().any(|c| c.points.iter().any(|p| p.1 != 0.0)) {
            return Ok(());
        }
        for log in axis_modes(self.opts.axis, false) {
            let mut chart = self.chart(
                "Collisions with the primary user",
                "cumulative PU collisions (slots)".into(),
                series.clone(),
                log,
            );
            chart.notes =
                vec!["a collision: transmitting on a channel sensed idle but busy".into()];
            self.push(
                &chart,
                stem_for(&format!("{}collisions", self.prefix), log),
                format!(
                    "Cumulative collisions with the primary user{} (mean, band: {})",
                    self.what,
                    self.opts.band.describe()
                ),
                rendered,
            )?;
        }
        Ok(())
    }

    /// Cumulative pseudo-regret with the bounds.
    fn regret(&self, rendered: &mut Vec<Rendered>) -> Result<(), ChartError> {
        let regret = self.curves(Metric::PseudoRegret, false);
        let (references, mut notes) = match self.experiment {
            Some((e, _)) => bound_references(e, self.horizon, &regret),
            None => (Vec::new(), Vec::new()),
        };
        let log_y = log_values(&regret, self.opts.value_axis);
        if log_y {
            for c in regret
                .iter()
                .filter(|c| c.points.last().is_some_and(|p| p.1 <= 0.0))
            {
                notes.push(format!("{}: 0, not drawn on a log axis", c.label));
            }
        }
        for log in axis_modes(self.opts.axis, true) {
            let mut chart = self.chart(
                "Cumulative pseudo-regret",
                format!(
                    "cumulative pseudo-regret{}",
                    if log_y { " (log scale)" } else { "" }
                ),
                regret.clone(),
                log,
            );
            chart.log_y = log_y;
            if log_y {
                // The first slots' regrets (fractions of one) would stretch a log axis over
                // decades nobody reads; they are clipped to its bottom.
                chart.y_range_from = 10.0;
            }
            chart.references = references.clone();
            chart.notes = notes.clone();
            self.push(
                &chart,
                stem_for(&format!("{}regret", self.prefix), log),
                format!(
                    "Cumulative pseudo-regret{}, {} slot axis (mean, band: {})",
                    self.what,
                    if log { "logarithmic" } else { "linear" },
                    self.opts.band.describe()
                ),
                rendered,
            )?;
        }
        Ok(())
    }

    /// Average net reward per slot, against the optimum.
    fn reward(&self, rendered: &mut Vec<Rendered>) -> Result<(), ChartError> {
        let reward = self.curves(Metric::Reward, true);
        let mut optimum_refs = Vec::new();
        if let Some((e, _)) = self.experiment {
            optimum_refs.push(Reference {
                label: format!("benchmark E[r*] = {:.4}", e.optimum.expected_reward),
                points: vec![
                    (1.0, e.optimum.expected_reward),
                    (self.horizon as f64, e.optimum.expected_reward),
                ],
                color: RGBColor(0, 0, 0),
                dash: (8, 5),
            });
        }
        // The first averages swing over a wide range: the value axis is fitted from slot T/100.
        let from = (self.horizon as f64 / 100.0).max(1.0);
        for log in axis_modes(self.opts.axis, false) {
            // On a linear slot axis the first 1 % is a sliver, clipped to the value axis. On a
            // log axis it is most of the width, and clipped values would be flat lines that
            // look like data: that axis starts at T/100 instead, and says so.
            let curves = if log {
                reward
                    .iter()
                    .map(|c| Curve {
                        key: None,
                        label: c.label.clone(),
                        points: c.points.iter().copied().filter(|p| p.0 >= from).collect(),
                    })
                    .collect()
            } else {
                reward.clone()
            };
            let mut chart = self.chart(
                "Average net reward per slot",
                "net reward per slot (1{idle} − cost)".into(),
                curves,
                log,
            );
            chart.band = None;
            chart.references = optimum_refs.clone();
            if log {
                for r in &mut chart.references {
                    r.points[0].0 = from;
                }
            }
            chart.y_range_from = from;
            chart.y_from_zero = false;
            let clipped = if log {
                format!(
                    "the slot axis starts at slot {}, 1 % of the horizon, where the averages have settled enough to share an axis",
                    crate::report::plots::si(from)
                )
            } else {
                "the first 1 % of slots is clipped to the axis".to_string()
            };
            self.push(
                &chart,
                stem_for(&format!("{}reward", self.prefix), log),
                format!(
                    "Average net reward per slot{} (cumulative reward / t; {clipped})",
                    self.what
                ),
                rendered,
            )?;
        }
        Ok(())
    }

    /// Cumulative energy and delay, when the scenario has them.
    fn costs(&self, rendered: &mut Vec<Rendered>) -> Result<(), ChartError> {
        for (metric, name) in [(Metric::Energy, "energy"), (Metric::Delay, "delay")] {
            let series = self.curves(metric, false);
            if !series.iter().any(|c| c.points.iter().any(|p| p.1 != 0.0)) {
                continue;
            }
            let unit_text = unit_label(self.sources, metric);
            for log in axis_modes(self.opts.axis, false) {
                let chart = self.chart(
                    &format!("Cumulative {name}"),
                    format!("cumulative {name}{unit_text}"),
                    series.clone(),
                    log,
                );
                self.push(
                    &chart,
                    stem_for(&format!("{}{name}", self.prefix), log),
                    format!(
                        "Cumulative {name}{unit_text}{} (mean, band: {})",
                        self.what,
                        self.opts.band.describe()
                    ),
                    rendered,
                )?;
            }
        }
        Ok(())
    }
}

/// The unit of energy or delay for an axis: the scenarios' unit, `cost units` for the papers'
/// single cost law (recorded as energy, no delay), and every source's unit named when they
/// differ.
fn unit_label(sources: &[Source], metric: Metric) -> String {
    let of = |s: &Source| {
        let u = if metric == Metric::Energy {
            &s.summary.units.energy
        } else {
            &s.summary.units.delay
        };
        if !u.is_empty() {
            u.clone()
        } else {
            let plain = s
                .summary
                .body
                .experiments()
                .iter()
                .all(|e| e.channels.iter().all(|c| c.mean_delay == 0.0));
            if plain && metric == Metric::Energy {
                "cost units".into()
            } else {
                format!(
                    "{} units",
                    if metric == Metric::Energy {
                        "energy"
                    } else {
                        "delay"
                    }
                )
            }
        }
    };
    let units: Vec<String> = sources.iter().map(of).collect();
    if units.iter().all(|u| *u == units[0]) {
        unit_suffix(&units[0])
    } else {
        let each: Vec<String> = sources
            .iter()
            .zip(&units)
            .map(|(s, u)| format!("{}: {u}", s.label))
            .collect();
        format!(" [units differ: {}]", each.join(", "))
    }
}

/// Time charts shared by a report and a comparison: regret, reward per slot, energy, delay.
pub(crate) fn time_charts(
    sources: &[Source],
    experiment: Option<(&ExperimentSummary, &str)>,
    prefix: &str,
    opts: &ChartOptions,
    regret_only: bool,
    rendered: &mut Vec<Rendered>,
) -> Result<(), ChartError> {
    let scenario = if sources.len() == 1 {
        sources[0].summary.scenario.clone()
    } else {
        let names: Vec<&str> = sources.iter().map(|s| s.label.as_str()).collect();
        format!("comparison of {}", names.join(", "))
    };
    let charts = TimeCharts {
        sources,
        experiment,
        prefix,
        opts,
        horizon: sources.iter().map(|s| s.summary.horizon).max().unwrap_or(1),
        what: match experiment.and_then(|(e, _)| e.label.as_ref()) {
            Some(l) => format!(" — {scenario} — {l}"),
            None => format!(" — {scenario}"),
        },
    };
    charts.regret(rendered)?;
    if !regret_only {
        charts.reward(rendered)?;
        charts.costs(rendered)?;
        charts.collisions(rendered)?;
    }
    Ok(())
}
