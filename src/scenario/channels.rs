//! Checking channel lists: occupancy processes (reading traces), sensing rates and cost laws,
//! into an [`Environment`].

use super::MAX_CHANNELS;
use super::Source;
use super::checker::{Checker, MAX_FADED_SEARCHES};
use super::locate::FieldPath;
use super::raw::{RawChannel, RawHeader};
use crate::model::channel::{Channel, EPOCH_OVERHEAD, Environment, MAX_EPOCH_ENTRIES};
use crate::model::cost::{CostModel, CostWeights, SplitCost};
use crate::model::detector::Fading;
use crate::model::law::{Law, LawSpec};
use crate::model::occupancy::{IidSpec, Occupancy, OccupancySpec, SpecContext, Step, probability};
use crate::model::sensing::{RawSensing, Sensing, SensingModel, SensingSpec};
use std::path::Path;

/// What every channel list of a scenario shares.
pub(super) struct Context<'a> {
    /// Weights of energy and delay.
    pub(super) weights: &'a CostWeights,
    /// Slots per run (a trace must be at least this long unless it wraps).
    pub(super) horizon: u64,
    /// Slot length in delay units.
    pub(super) slot_duration: Option<f64>,
    /// The scenario file's folder, for relative trace paths.
    pub(super) base: &'a Path,
}

impl<'a> Context<'a> {
    /// The context a scenario's header and file give its channel lists.
    pub(super) fn of(header: &RawHeader<'a>, source: &'a Source) -> Context<'a> {
        Context {
            weights: header.weights,
            // A zero horizon is reported by the header's check; the channels are still
            // checked, against one slot.
            horizon: header.horizon.max(1),
            slot_duration: header.slot.map(|s| s.duration),
            base: source.path.parent().unwrap_or(Path::new(".")),
        }
    }
}

/// Number of channels a list stands for (its entries' counts, zero counts ignored).
pub(super) fn channel_count(raw: &[RawChannel]) -> u64 {
    raw.iter().map(|c| c.count).fold(0, u64::saturating_add)
}

/// Checks a channel list and builds its environment (`None` when any entry is invalid). The
/// total number of channels is checked before any entry is expanded.
pub(super) fn check_channels(
    raw: &[RawChannel],
    at: &FieldPath,
    cx: &Context,
    ck: &mut Checker,
) -> Option<Environment> {
    let before = ck.problems.len();
    let total = channel_count(raw);
    ck.require(
        total <= MAX_CHANNELS,
        at,
        format!("holds {total} channels; at most {MAX_CHANNELS} are supported"),
    );
    let mut entries = Vec::new();
    for (i, ch) in raw.iter().enumerate() {
        let here = at.index(i);
        ck.require(
            ch.count >= 1,
            &here.field("count"),
            "must be at least 1 (got 0)",
        );
        let occupancy = check_occupancy(ch, &here, cx, ck);
        let sensing = check_sensing(ch.sensing.unwrap_or_default(), &here.field("sensing"), ck);
        let probe_time = sensing
            .as_ref()
            .and_then(|s| s.detector().map(|d| d.duration()));
        let cost = check_cost(ch, &here, cx.weights, probe_time, ck);
        if let (Some(o), Some(s), Some(c)) = (occupancy, sensing, cost) {
            entries.push((ch.count, Channel::with(o, c, s)));
        }
    }
    if ck.problems.len() != before || entries.is_empty() {
        return None;
    }
    let epochs = Environment::epoch_entries(
        entries.iter().map(|(_, c)| c.occupancy()),
        total,
        cx.horizon,
    );
    if epochs > MAX_EPOCH_ENTRIES {
        ck.fail(
            at,
            format!(
                "its piecewise segments start {} benchmark epochs of {total} channels each (counted as {epochs} entries with each epoch's own cost); at most {MAX_EPOCH_ENTRIES} are supported: fewer segments, fewer channels or a shorter horizon",
                epochs / (total + EPOCH_OVERHEAD)
            ),
        );
        return None;
    }
    let channels = entries
        .into_iter()
        .flat_map(|(count, ch)| std::iter::repeat_n(ch, count as usize))
        .collect();
    Some(Environment::with(channels, cx.slot_duration, cx.horizon))
}

/// `theta` (i.i.d.) or `occupancy`, exactly one of them; the process's own checks come from
/// its entry in the registry of processes.
fn check_occupancy(
    ch: &RawChannel,
    here: &FieldPath,
    cx: &Context,
    ck: &mut Checker,
) -> Option<Occupancy> {
    let (spec, at) = match (ch.theta, &ch.occupancy) {
        (Some(_), Some(_)) => {
            ck.fail(
                &here.field("theta"),
                "give either `theta` (i.i.d. slots) or `occupancy` (a process), not both",
            );
            return None;
        }
        (None, None) => {
            ck.fail(
                here,
                "has no occupancy: give `theta: <idle probability>` or `occupancy: <process>`",
            );
            return None;
        }
        // `theta: 0.8` is `occupancy: Iid(theta: 0.8)` written at the channel.
        (Some(theta), None) => (OccupancySpec::Iid(IidSpec { theta }), here.clone()),
        (None, Some(spec)) => (spec.clone(), here.field("occupancy")),
    };
    let mut scx = SpecContext {
        horizon: cx.horizon,
        base: cx.base,
        traces: &mut ck.traces,
    };
    match spec.check(&mut scx) {
        Ok(occupancy) => Some(occupancy),
        Err(problems) => {
            for p in problems {
                let mut path = at.clone();
                for step in p.at {
                    path = match step {
                        Step::Field(name) => path.field(name),
                        Step::Index(i) => path.index(i),
                    };
                }
                ck.fail(&path, p.rule);
            }
            None
        }
    }
}

/// Error rates, or an energy detector's (its rules reported at its fields).
fn check_sensing(raw: RawSensing, at: &FieldPath, ck: &mut Checker) -> Option<Sensing> {
    match raw {
        RawSensing::Rates(spec) => check_rates(spec, at, ck),
        RawSensing::Model(SensingModel::EnergyDetector(spec)) => {
            let searched = spec.fading == Fading::Rayleigh && spec.threshold.is_none();
            if searched {
                if let Some((_, d)) = ck.faded.iter().find(|(s, _)| *s == spec) {
                    return Some(Sensing::of_detector(*d));
                }
                if ck.faded.len() >= MAX_FADED_SEARCHES {
                    ck.fail(
                        &at.field("EnergyDetector").field("target_pd"),
                        format!(
                            "at most {MAX_FADED_SEARCHES} distinct Rayleigh-faded detectors may set their threshold from `target_pd` (each is a numerical search of a few milliseconds); give the others `threshold:`"
                        ),
                    );
                    return None;
                }
            }
            match spec.check() {
                Ok(detector) => {
                    if searched {
                        ck.faded.push((spec, detector));
                    }
                    Some(Sensing::of_detector(detector))
                }
                Err(problems) => {
                    let at = at.field("EnergyDetector");
                    for p in problems {
                        ck.fail(&at.field(p.field), p.rule);
                    }
                    None
                }
            }
        }
    }
}

fn check_rates(spec: SensingSpec, at: &FieldPath, ck: &mut Checker) -> Option<Sensing> {
    let mut ok = true;
    for (name, v) in [
        ("false_alarm", spec.false_alarm),
        ("missed_detection", spec.missed_detection),
    ] {
        ok &= ck.require(
            probability(v),
            &at.field(name),
            format!("is an error probability and must lie in [0, 1] (got {v})"),
        );
    }
    ok.then(|| Sensing::new(spec))
}

fn check_law(spec: &LawSpec, at: &FieldPath, ck: &mut Checker) -> Option<Law> {
    match Law::new(spec) {
        Ok(law) => Some(law),
        Err(e) => {
            ck.fail(&at.field(e.param), e.to_string());
            None
        }
    }
}

/// Largest energy or delay of one probe: cumulative sums over any horizon stay finite.
pub(crate) const MAX_PROBE_QUANTITY: f64 = 1e12;

/// Energy and delay are physical quantities: never negative, and bounded.
fn physical(law: Law, what: &str, at: &FieldPath, ck: &mut Checker) -> Option<Law> {
    let (lo, hi) = law.support();
    ck.require(
        lo >= 0.0 && hi <= MAX_PROBE_QUANTITY,
        at,
        format!(
            "the {what} of a probe ranges over [{lo}, {hi}], but must lie in [0, {MAX_PROBE_QUANTITY:e}] (an {what} cannot be negative)"
        ),
    )
    .then_some(law)
}

/// The channel's cost model. `probe_time`: an energy detector's sensing time, the delay of a
/// channel that gives neither `delay` nor a single `cost` (one number sets the probe's time
/// and its errors).
fn check_cost(
    ch: &RawChannel,
    here: &FieldPath,
    weights: &CostWeights,
    probe_time: Option<f64>,
    ck: &mut Checker,
) -> Option<CostModel> {
    // The detector's sensing time stands in for a delay the channel does not give.
    let from_detector = ch.cost.is_none() && ch.delay.is_none() && probe_time.is_some();
    let detector_delay = probe_time.filter(|_| from_detector).map(LawSpec::Constant);
    let delay = ch.delay.as_ref().or(detector_delay.as_ref());
    let model = match (&ch.cost, &ch.energy, delay) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            ck.fail(
                &here.field("cost"),
                "give either `cost` (the bandit cost itself) or `energy`/`delay` (weighted by `weights`), not both",
            );
            return None;
        }
        (None, None, None) => {
            ck.fail(
                here,
                "has no cost: give `cost: <law>` or `energy: <law>` and/or `delay: <law>`",
            );
            return None;
        }
        (Some(cost), None, None) => CostModel::Plain(check_law(cost, &here.field("cost"), ck)?),
        (None, energy, delay) => {
            let zero = LawSpec::Constant(0.0);
            let e = check_law(energy.as_ref().unwrap_or(&zero), &here.field("energy"), ck)
                .and_then(|l| physical(l, "energy", &here.field("energy"), ck));
            let d = check_law(delay.unwrap_or(&zero), &here.field("delay"), ck)
                .and_then(|l| physical(l, "delay", &here.field("delay"), ck));
            CostModel::Split(Box::new(SplitCost {
                energy: e?,
                delay: d?,
                weights: *weights,
            }))
        }
    };
    let (lo, hi) = model.support();
    let field = if ch.cost.is_some() {
        here.field("cost")
    } else if from_detector {
        here.field("sensing")
            .field("EnergyDetector")
            .field("duration")
    } else if ch.energy.is_some() {
        here.field("energy")
    } else {
        here.field("delay")
    };
    let what = match model {
        CostModel::Plain(_) => "the bandit cost".to_string(),
        CostModel::Split(_) => format!(
            "the bandit cost {}·energy + {}·delay{}",
            weights.energy,
            weights.delay,
            if from_detector {
                " (the delay is the detector's sensing time τ)"
            } else {
                ""
            }
        ),
    };
    ck.require(
        lo >= 0.0 && hi <= 1.0,
        &field,
        format!("{what} ranges over [{lo}, {hi}], but its support must lie in [0, 1]"),
    )
    .then_some(model)
}
