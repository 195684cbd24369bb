//! Checking channel lists: occupancy processes (reading traces), sensing rates and cost laws,
//! into an [`Environment`].

use super::locate::FieldPath;
use super::raw::{OccupancySpec, RawChannel, RawSegment};
use super::{Checker, MAX_CHANNELS};
use crate::model::channel::{Channel, Environment};
use crate::model::cost::{CostModel, CostWeights};
use crate::model::holding::Holding;
use crate::model::law::{Law, LawSpec};
use crate::model::occupancy::{Iid, Markov, Occupancy, OnOff, Piecewise, Segment, TraceFile};
use crate::model::sensing::{Sensing, SensingSpec};
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
        let cost = check_cost(ch, &here, cx.weights, ck);
        if let (Some(o), Some(s), Some(c)) = (occupancy, sensing, cost) {
            entries.push((ch.count, Channel::with(o, c, s)));
        }
    }
    if ck.problems.len() != before || entries.is_empty() {
        return None;
    }
    let channels = entries
        .into_iter()
        .flat_map(|(count, ch)| std::iter::repeat_n(ch, count as usize))
        .collect();
    Some(Environment::with(channels, cx.slot_duration, cx.horizon))
}

fn probability(value: f64) -> bool {
    value.is_finite() && (0.0..=1.0).contains(&value)
}

/// `theta` (i.i.d.) or `occupancy`, exactly one of them.
fn check_occupancy(
    ch: &RawChannel,
    here: &FieldPath,
    cx: &Context,
    ck: &mut Checker,
) -> Option<Occupancy> {
    let iid = |theta: f64, path: FieldPath, ck: &mut Checker| {
        ck.require(
            probability(theta),
            &path,
            format!("is the probability of being idle and must lie in [0, 1] (got {theta})"),
        )
        .then(|| Occupancy::Iid(Iid::new(theta)))
    };
    let at = here.field("occupancy");
    match (ch.theta, &ch.occupancy) {
        (Some(_), Some(_)) => {
            ck.fail(
                &here.field("theta"),
                "give either `theta` (i.i.d. slots) or `occupancy` (a process), not both",
            );
            None
        }
        (None, None) => {
            ck.fail(
                here,
                "has no occupancy: give `theta: <idle probability>` or `occupancy: <process>`",
            );
            None
        }
        (Some(theta), None) => iid(theta, here.field("theta"), ck),
        (None, Some(OccupancySpec::Iid { theta })) => iid(*theta, at.field("theta"), ck),
        (
            None,
            Some(OccupancySpec::Markov {
                idle_to_busy,
                busy_to_idle,
            }),
        ) => check_markov(*idle_to_busy, *busy_to_idle, &at, ck),
        (None, Some(OccupancySpec::OnOff { idle, busy })) => {
            let law = |spec, name: &str, ck: &mut Checker| match Holding::new(spec) {
                Ok(h) => Some(h),
                Err(e) => {
                    ck.fail(&at.field(name).field(e.param), e.to_string());
                    None
                }
            };
            let (i, b) = (law(idle, "idle", ck), law(busy, "busy", ck));
            Some(Occupancy::OnOff(OnOff::new(i?, b?)))
        }
        (None, Some(OccupancySpec::Trace { file, column, wrap })) => {
            check_trace(file, *column, *wrap, &at, cx, ck)
        }
        (None, Some(OccupancySpec::Piecewise(segments))) => check_piecewise(segments, &at, ck),
    }
}

fn check_markov(a: f64, b: f64, at: &FieldPath, ck: &mut Checker) -> Option<Occupancy> {
    let mut ok = true;
    for (name, v) in [("idle_to_busy", a), ("busy_to_idle", b)] {
        ok &= ck.require(
            probability(v),
            &at.field(name),
            format!("is a transition probability and must lie in [0, 1] (got {v})"),
        );
    }
    ok &= ck.require(
        !(a == 0.0 && b == 0.0),
        at,
        "idle_to_busy and busy_to_idle are both 0: the chain never moves and has no stationary law",
    );
    ok.then(|| Occupancy::Markov(Markov::new(a, b)))
}

fn check_trace(
    file: &str,
    column: usize,
    wrap: bool,
    at: &FieldPath,
    cx: &Context,
    ck: &mut Checker,
) -> Option<Occupancy> {
    let path = cx.base.join(file);
    let parsed = ck
        .traces
        .entry(path.clone())
        .or_insert_with(|| {
            TraceFile::read(&path)
                .map(Arc::new)
                .map_err(|e| e.to_string())
        })
        .clone();
    let trace = match parsed {
        Ok(t) => t,
        Err(message) => {
            ck.fail(&at.field("file"), message);
            return None;
        }
    };
    let Some(column_trace) = trace.column(file, column, wrap) else {
        ck.fail(
            &at.field("column"),
            format!(
                "{} has {} column{} (columns count from 1; got {column})",
                path.display(),
                trace.width(),
                if trace.width() == 1 { "" } else { "s" }
            ),
        );
        return None;
    };
    ck.require(
        wrap || cx.horizon <= trace.rows(),
        &at.field("file"),
        format!(
            "{} holds {} slots, fewer than the horizon of {}: shorten the horizon or set `wrap: true`",
            path.display(),
            trace.rows(),
            cx.horizon
        ),
    )
    .then_some(Occupancy::Trace(column_trace))
}

fn check_piecewise(segments: &[RawSegment], at: &FieldPath, ck: &mut Checker) -> Option<Occupancy> {
    if segments.is_empty() {
        ck.fail(at, "must list at least one segment, e.g. [(theta: 0.5)]");
        return None;
    }
    let before = ck.problems.len();
    let mut previous = 0u64;
    let last = segments.len() - 1;
    for (j, s) in segments.iter().enumerate() {
        let here = at.index(j);
        ck.require(
            probability(s.theta),
            &here.field("theta"),
            format!(
                "is the probability of being idle and must lie in [0, 1] (got {})",
                s.theta
            ),
        );
        match (s.until, j == last) {
            (Some(_), true) => ck.fail(
                &here.field("until"),
                "the last segment runs to the horizon and takes no `until`",
            ),
            (None, false) => ck.fail(
                &here.field("until"),
                "every segment but the last needs `until` (its last slot)",
            ),
            (Some(u), false) => {
                ck.require(
                    u > previous,
                    &here.field("until"),
                    format!("must be after the previous segment's last slot {previous} (got {u})"),
                );
                previous = u;
            }
            (None, true) => {}
        }
    }
    (ck.problems.len() == before).then(|| {
        Occupancy::Piecewise(Piecewise::new(
            segments
                .iter()
                .map(|s| Segment::new(s.until, s.theta))
                .collect(),
        ))
    })
}

fn check_sensing(spec: SensingSpec, at: &FieldPath, ck: &mut Checker) -> Option<Sensing> {
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

fn check_cost(
    ch: &RawChannel,
    here: &FieldPath,
    weights: &CostWeights,
    ck: &mut Checker,
) -> Option<CostModel> {
    let model = match (&ch.cost, &ch.energy, &ch.delay) {
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
            let d = check_law(delay.as_ref().unwrap_or(&zero), &here.field("delay"), ck)
                .and_then(|l| physical(l, "delay", &here.field("delay"), ck));
            CostModel::Split {
                energy: e?,
                delay: d?,
                weights: *weights,
            }
        }
    };
    let (lo, hi) = model.support();
    let field = if ch.cost.is_some() {
        here.field("cost")
    } else if ch.energy.is_some() {
        here.field("energy")
    } else {
        here.field("delay")
    };
    let what = match model {
        CostModel::Plain(_) => "the bandit cost".to_string(),
        CostModel::Split { .. } => format!(
            "the bandit cost {}·energy + {}·delay",
            weights.energy, weights.delay
        ),
    };
    ck.require(
        lo >= 0.0 && hi <= 1.0,
        &field,
        format!("{what} ranges over [{lo}, {hi}], but its support must lie in [0, 1]"),
    )
    .then_some(model)
}

/// Trace files read while checking one scenario, shared by the channels that use them.
pub(super) type TraceCache = std::collections::BTreeMap<PathBuf, Result<Arc<TraceFile>, String>>;
