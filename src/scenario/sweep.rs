//! Sweeps: one regret scenario run at several values of any numeric field.
//!
//! ```ron
//! sweep: (field: "policies[0].policy.alpha", values: [0.25, 0.5, 1.0, 1.5, 2.0]),
//! sweep: (field: "channels[*].theta", values: [0.5, 0.7]),      // every channel at once
//! sweep: (field: "channels[1].count", values: [1, 2, 4, 8]),    // K, by repeating a group
//! sweep: (field: "horizon", values: [10000, 100000]),
//! sweep: (field: "channels[0].cost", values: [0.3, 0.5]),       // a one-parameter law: Bernoulli(p)
//! sweep: (field: "policies[*].policy.gamma", values: [0.9, 0.99, 0.999],
//!         label: "discount γ", log: false),                    // the charts' axis
//! ```
//!
//! `label` titles the swept value's chart axis (default: the field path) and `log` makes that
//! axis logarithmic (default: when every value is positive and they span 20× or more); both
//! change charts only, never a number.
//!
//! Fields are named as errors name them: struct fields by name, list entries by `[i]` (or `[*]`
//! for all), enum variants skipped (`policy.alpha` inside `CcUcb(alpha: ...)`). Each value gives
//! a *cell*: the scenario as written with that one field changed, checked like any scenario and
//! run exactly as a separate file with that value would be (same name, seed and random streams),
//! so a cell's statistics equal that separate run's, byte for byte.
//!
//! Mechanics: the raw scenario is written as a JSON tree (its serde form), the value set at the
//! path, and the tree read back into the raw scenario; a path that does not exist, or a value the
//! field cannot hold, is an error naming `sweep.field` or `sweep.values[i]`.

use crate::scenario::check::check_regret;
use crate::scenario::checker::{CheckRaw, Checker};
use crate::scenario::error::Problem;
use crate::scenario::locate::FieldPath;
use crate::scenario::overrides::{Overridable, OverrideError, Overrides};
use crate::scenario::raw::{RawRegret, RawSweep};
use crate::scenario::{MAX_CHANNELS, RegretScenario, Scenario, Source, SweepScenario};
use serde::Serialize;
use serde_json::Value;

/// Most cells one sweep may have.
pub(crate) const MAX_CELLS: usize = 1000;

/// Longest axis label, in characters.
const MAX_LABEL: usize = 200;

/// One field of a scenario swept over values, for any slot-stepped kind `S` (a regret or a
/// many-users scenario): the scenario at each value is a cell, checked exactly as a separate
/// file would be. The one sweep model: one checker (`check_sweep_of`), one cell label, one
/// way to apply overrides, whatever the kind.
///
/// ```
/// use specprobe::Scenario;
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let text = r#"Regret(name: "alpha", seed: 1, horizon: 1000, runs: 4,
///     channels: [(theta: 0.8, cost: Bernoulli(0.55)), (theta: 0.4, cost: Bernoulli(0.55))],
///     policies: [(policy: CcUcb(alpha: 1.5))],
///     sweep: (field: "policies[*].policy.alpha", values: [0.5, 1.0, 2.0]))"#;
/// let Scenario::Sweep(s) = specprobe::parse(text, "alpha.ron".as_ref())? else {
///     unreachable!("a sweep")
/// };
/// let sweep = s.sweep();
/// assert_eq!(sweep.field(), "policies[*].policy.alpha");
/// assert_eq!(sweep.values(), [0.5, 1.0, 2.0]);
/// // One checked scenario per value, each what a file with that value would give.
/// for cell in sweep.cells() {
///     assert_eq!((cell.horizon(), cell.runs()), (1000, 4));
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Sweep<S> {
    /// The swept field, named as errors name fields (e.g. `policies[*].policy.alpha`).
    pub(crate) field: String,
    /// Its values, one cell each, in the order given.
    pub(crate) values: Vec<f64>,
    /// How the charts draw the swept value.
    pub(crate) axis: SweepAxis,
    /// The scenario with the field at each value.
    pub(crate) cells: Vec<S>,
}

impl<S> Sweep<S> {
    /// The swept field, named as errors name fields (e.g. `policies[*].policy.alpha`).
    pub fn field(&self) -> &str {
        &self.field
    }

    /// The swept values, one cell each.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The cells: the scenario at each value, in the order of [`Sweep::values`].
    pub fn cells(&self) -> &[S] {
        &self.cells
    }

    /// The cell label of value `v`: `field = v`.
    pub(crate) fn cell_label(&self, v: f64) -> String {
        format!("{} = {v}", self.field)
    }

    /// What the sweep adds to its base scenario's fingerprint: the field, values and axis, and
    /// each cell's own fingerprint (`cell`).
    pub(crate) fn fingerprint_part(&self, cell: impl Fn(&S) -> String) -> String {
        use std::fmt::Write;
        let mut s = format!(
            "|sweep {}|{:?}{}",
            self.field,
            self.values,
            self.axis.fingerprint()
        );
        for c in &self.cells {
            let _ = write!(s, "|cell {}", cell(c));
        }
        s
    }

    /// The scenarios that run: `sweep`'s cells, or `base` alone when there is no sweep (a
    /// many-users or identification scenario holds its sweep as an option).
    pub(crate) fn cells_or<'a>(sweep: Option<&'a Self>, base: &'a S) -> &'a [S] {
        sweep.map_or(std::slice::from_ref(base), |sw| &sw.cells)
    }

    /// Each value with its cell.
    pub(crate) fn points(&self) -> impl Iterator<Item = (f64, &S)> {
        self.values.iter().copied().zip(&self.cells)
    }

    /// The same sweep with every cell passed through `f`, or `f`'s first error (overrides,
    /// added policies).
    pub(crate) fn try_map_cells<E>(self, f: impl FnMut(S) -> Result<S, E>) -> Result<Sweep<S>, E> {
        let cells = self.cells.into_iter().map(f).collect::<Result<_, _>>()?;
        Ok(Sweep { cells, ..self })
    }
}

/// How a sweep's charts draw the swept value: a title and the scale, as the scenario asked.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SweepAxis {
    /// The axis title, if the scenario gave one (else the field path is used).
    pub label: Option<String>,
    /// A logarithmic axis (`Some(true)`), a linear one (`Some(false)`), or automatic.
    pub log: Option<bool>,
}

impl SweepAxis {
    /// Whether an axis over `values` is logarithmic: as asked, else when every value is
    /// positive and they span 20× or more (a linear axis would squeeze the small ones).
    pub(crate) fn is_log(log: Option<bool>, values: &[f64]) -> bool {
        log.unwrap_or_else(|| {
            let (lo, hi) = values
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                    (a.min(v), b.max(v))
                });
            values.iter().all(|&v| v > 0.0) && hi >= 20.0 * lo
        })
    }

    /// What breaks the rules, as (field, rule): a label is one line of 1 to 200 characters,
    /// and a logarithmic axis needs every value positive. Scenarios and saved summaries are
    /// checked alike.
    pub(crate) fn problems(&self, values: &[f64]) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(label) = &self.label
            && (label.trim().is_empty()
                || label.chars().count() > MAX_LABEL
                || label.chars().any(char::is_control))
        {
            out.push((
                "label",
                format!(
                    "must be one line of 1 to {MAX_LABEL} characters, with no control character (got {label:?})"
                ),
            ));
        }
        if self.log == Some(true)
            && let Some(i) = values.iter().position(|&v| v.is_nan() || v <= 0.0)
        {
            out.push((
                "log",
                format!(
                    "a logarithmic axis needs every value > 0, and `values[{i}]` is {}",
                    values[i]
                ),
            ));
        }
        out
    }

    /// The fingerprint's part: empty unless set, so that sweeps without either keep theirs.
    pub(crate) fn fingerprint(&self) -> String {
        match (&self.label, self.log) {
            (None, None) => String::new(),
            (label, log) => format!("|axis {label:?} {log:?}"),
        }
    }
}

/// Checks a sweep's `label` and `log` (see [`SweepAxis::problems`]).
pub(crate) fn check_axis(spec: &RawSweep, ck: &mut Checker) -> SweepAxis {
    let axis = SweepAxis {
        label: spec.label.clone(),
        log: spec.log,
    };
    let at = FieldPath::default().field("sweep");
    for (field, rule) in axis.problems(&spec.values) {
        ck.fail(&at.field(field), rule);
    }
    axis
}

/// One step of a sweep path.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Field(String),
    Index(usize),
    All,
}

/// Parses `a.b[3].c[*]`.
fn parse_path(path: &str) -> Result<Vec<Step>, String> {
    let mut steps = Vec::new();
    for part in path.split('.') {
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if name.is_empty() && (steps.is_empty() || rest.is_empty()) {
            return Err(format!("`{path}` has an empty field name"));
        }
        if !name.is_empty() {
            if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!("`{path}`: `{name}` is not a field name"));
            }
            steps.push(Step::Field(name.to_string()));
        }
        while !rest.is_empty() {
            let close = rest
                .find(']')
                .ok_or_else(|| format!("`{path}`: `[` without `]`"))?;
            let inner = &rest[1..close];
            steps.push(if inner == "*" {
                Step::All
            } else {
                Step::Index(inner.parse().map_err(|_| {
                    format!("`{path}`: `[{inner}]` is not an index (a number or `*`)")
                })?)
            });
            rest = &rest[close + 1..];
            if !rest.is_empty() && !rest.starts_with('[') {
                return Err(format!("`{path}`: unexpected `{rest}`"));
            }
        }
    }
    if steps.is_empty() {
        return Err("the field path is empty".into());
    }
    Ok(steps)
}

/// The JSON number for `v`: an integer when `v` is whole (integer fields refuse `2.0`).
fn number(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        if v >= 0.0 {
            Value::from(v as u64)
        } else {
            Value::from(v as i64)
        }
    } else {
        serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
    }
}

/// An enum variant as serde writes it: an object with a single key that starts upper-case.
fn variant(v: &mut Value) -> Option<&mut Value> {
    match v {
        Value::Object(map) if map.len() == 1 => {
            let (key, inner) = map.iter_mut().next()?;
            key.starts_with(|c: char| c.is_ascii_uppercase())
                .then_some(inner)
        }
        _ => None,
    }
}

/// Sets `value` at `steps` under `at` (`walked` names the path so far, for messages); returns
/// how many fields were set.
fn set(at: &mut Value, steps: &[Step], value: &Value, walked: &str) -> Result<usize, String> {
    let Some(step) = steps.first() else {
        // A one-parameter law (`Bernoulli(0.5)`) or a bare number.
        if let Some(inner) = variant(at)
            && inner.is_number()
        {
            *inner = value.clone();
            return Ok(1);
        }
        return if at.is_number() || at.is_null() {
            *at = value.clone();
            Ok(1)
        } else {
            Err(format!("`{walked}` is not a number"))
        };
    };
    let rest = &steps[1..];
    match step {
        Step::Field(name) => {
            let here = if walked.is_empty() {
                name.clone()
            } else {
                format!("{walked}.{name}")
            };
            if let Value::Object(map) = at
                && let Some(next) = map.get_mut(name)
            {
                return set(next, rest, value, &here);
            }
            if let Some(inner) = variant(at) {
                // Enum variants are not part of the path: `policy.alpha` in `CcUcb(alpha: ..)`.
                if inner.is_object() {
                    return set(inner, steps, value, walked);
                }
                if inner.is_number() && rest.is_empty() {
                    *inner = value.clone();
                    return Ok(1);
                }
            }
            match at {
                // An optional field left out: the checked scenario says whether it exists.
                Value::Object(map) if rest.is_empty() => {
                    map.insert(name.clone(), value.clone());
                    Ok(1)
                }
                _ => Err(format!("`{here}` does not exist")),
            }
        }
        Step::Index(i) => {
            let here = format!("{walked}[{i}]");
            match at {
                Value::Array(items) => {
                    let len = items.len();
                    let item = items.get_mut(*i).ok_or_else(|| {
                        format!("`{here}` does not exist: `{walked}` has {len} entries")
                    })?;
                    set(item, rest, value, &here)
                }
                _ => Err(format!("`{walked}` is not a list")),
            }
        }
        Step::All => match at {
            Value::Array(items) if !items.is_empty() => {
                let mut n = 0;
                for (i, item) in items.iter_mut().enumerate() {
                    n += set(item, rest, value, &format!("{walked}[{i}]"))?;
                }
                Ok(n)
            }
            Value::Array(_) => Err(format!("`{walked}` is empty")),
            _ => Err(format!("`{walked}` is not a list")),
        },
    }
}

/// `raw` with `field` set to `v`, or why not.
pub(super) fn with_value<T: Serialize + serde::de::DeserializeOwned>(
    raw: &T,
    field: &str,
    v: f64,
) -> Result<T, SweepError> {
    let steps = parse_path(field).map_err(SweepError::Field)?;
    let mut tree = serde_json::to_value(raw).map_err(|e| SweepError::Field(e.to_string()))?;
    set(&mut tree, &steps, &number(v), "").map_err(SweepError::Field)?;
    serde_json::from_value(tree).map_err(|e| {
        let msg = e.to_string();
        if msg.contains("unknown field") {
            SweepError::Field(format!("`{field}` does not exist ({msg})"))
        } else {
            SweepError::Value(format!("{v} cannot be `{field}`: {msg}"))
        }
    })
}

/// Why a sweep cannot be expanded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum SweepError {
    /// The path is malformed or names nothing.
    Field(String),
    /// The value does not fit the field.
    Value(String),
}

/// A regret file: a sweep when it has a `sweep` field, one regret scenario otherwise.
impl CheckRaw for RawRegret {
    fn check(self, source: &Source, ck: &mut Checker) -> Option<Scenario> {
        if self.sweep.is_some() {
            check_sweep(self, source, ck).map(Into::into)
        } else {
            check_regret(self, source, ck).map(Into::into)
        }
    }
}

/// A regret sweep (see [`check_sweep_of`]), bounded by the channels its cells hold.
pub(crate) fn check_sweep(
    mut raw: RawRegret,
    source: &Source,
    ck: &mut Checker,
) -> Option<SweepScenario> {
    let spec = raw.sweep.take()?;
    let mut cell_channels = 0u64;
    let (base, sweep) = check_sweep_of(
        raw,
        spec,
        source,
        ck,
        check_regret,
        |raw, spec, base, at, ck| {
            bound_channels(spec, base, at, ck) && bound_declared(raw, spec, at, ck)
        },
        |cell, at, ck| {
            cell_channels = cell_channels.saturating_add(channels_of(cell));
            ck.require(
                cell_channels <= MAX_CHANNELS,
                at,
                format!("the cells up to this value hold {cell_channels} channels in all; at most {MAX_CHANNELS} are supported"),
            )
        },
    );
    let base = base?;
    Some(SweepScenario {
        name: base.header.name,
        description: base.header.description,
        source: source.clone(),
        sweep: sweep?,
    })
}

/// Checks a sweep of any kind: its axis, the scenario as written (its problems reported where
/// they are; it is the sweep's base), the number of values, the kind's own bound on all cells
/// together (`bound`, before any cell is built), then each value's cell (see
/// [`check_cell_with`]), which `admit` may still refuse (a running total). The sweep is `None`
/// unless every cell checked.
pub(super) fn check_sweep_of<R, S>(
    raw: R,
    spec: RawSweep,
    source: &Source,
    ck: &mut Checker,
    check: impl Fn(R, &Source, &mut Checker) -> Option<S>,
    bound: impl FnOnce(&R, &RawSweep, Option<&S>, &FieldPath, &mut Checker) -> bool,
    mut admit: impl FnMut(&S, &FieldPath, &mut Checker) -> bool,
) -> (Option<S>, Option<Sweep<S>>)
where
    R: Clone + Serialize + serde::de::DeserializeOwned,
{
    let at_values = FieldPath::default().field("sweep").field("values");
    let axis = check_axis(&spec, ck);
    let base = check(raw.clone(), source, ck);
    let base_problems: Vec<(String, String)> = ck
        .problems
        .iter()
        .map(|p| (p.field.clone(), p.rule.clone()))
        .collect();
    if spec.values.is_empty() {
        ck.fail(&at_values, "must list at least one value");
    }
    if spec.values.len() > MAX_CELLS {
        ck.fail(
            &at_values,
            format!(
                "lists {} values; at most {MAX_CELLS} cells are supported",
                spec.values.len()
            ),
        );
        return (base, None);
    }
    if !bound(&raw, &spec, base.as_ref(), &at_values, ck) {
        return (base, None);
    }
    let mut cells = Vec::new();
    for i in 0..spec.values.len() {
        match check_cell_with(&raw, &spec, i, source, &base_problems, ck, &check) {
            Cell::Skipped => {}
            Cell::Abort => return (base, None),
            Cell::Checked(cell) => {
                if !admit(&cell, &at_values.index(i), ck) {
                    return (base, None);
                }
                cells.push(*cell);
            }
        }
    }
    let sweep = (cells.len() == spec.values.len()).then(|| Sweep {
        field: spec.field,
        values: spec.values,
        axis,
        cells,
    });
    (base, sweep)
}

/// Channels of every experiment of a checked scenario.
fn channels_of(s: &RegretScenario) -> u64 {
    s.experiments.iter().map(|e| e.env.len() as u64).sum()
}

/// The channels of all cells together within bounds: every cell is a full scenario held until
/// the end, so the total is bounded before any cell is expanded (a cell sweeping a count may
/// hold more; each is counted again as it is checked).
fn bound_channels(
    spec: &RawSweep,
    base: Option<&RegretScenario>,
    at_values: &FieldPath,
    ck: &mut Checker,
) -> bool {
    let per_cell = base.map_or(0, channels_of);
    let total = per_cell.saturating_mul(spec.values.len() as u64);
    ck.require(
        total <= MAX_CHANNELS,
        at_values,
        format!(
            "{} cells of {per_cell} channels hold {total} channels in all; at most {MAX_CHANNELS} are supported",
            spec.values.len()
        ),
    )
}

/// Channels a raw scenario declares (every entry's `count`, grid configurations included),
/// counted without building any.
fn declared_channels(raw: &RawRegret) -> u64 {
    raw.channels
        .iter()
        .chain(raw.grid.iter().flat_map(|c| &c.channels))
        .fold(0u64, |n, ch| n.saturating_add(ch.count))
}

/// A sweep over a `count`: the channels every cell declares, summed before any cell is built
/// (1 000 values of a large count expanded hundreds of MB of cells before the total was
/// refused). Other fields leave the channels as the base scenario has them, which
/// [`bound_channels`] bounds.
fn bound_declared(raw: &RawRegret, spec: &RawSweep, at: &FieldPath, ck: &mut Checker) -> bool {
    if !spec.field.ends_with("count") {
        return true;
    }
    let mut total = 0u64;
    for &v in &spec.values {
        // A value that cannot be set is reported when its cell is checked.
        let Ok(cell) = with_value(raw, &spec.field, v) else {
            continue;
        };
        total = total.saturating_add(declared_channels(&cell));
        if total > MAX_CHANNELS {
            ck.fail(
                at,
                format!(
                    "the {} cells declare {total} or more channels in all (counted before building any); at most {MAX_CHANNELS} are supported",
                    spec.values.len()
                ),
            );
            return false;
        }
    }
    true
}

/// What checking one value's cell gave.
enum Cell<S> {
    /// The value itself is wrong, or its cell breaks a rule (reported at the value).
    Skipped,
    /// The field cannot be swept at all (reported at `sweep.field`): no cell can be built.
    Abort,
    /// The cell, checked.
    Checked(Box<S>),
}

/// Checks value `i` of the sweep and its cell: the scenario with the field at that value,
/// checked by `check` exactly as a separate file would be; the cell's problems that the
/// scenario as written does not have already are reported at the value.
fn check_cell_with<R, S>(
    raw: &R,
    spec: &RawSweep,
    i: usize,
    source: &Source,
    base_problems: &[(String, String)],
    ck: &mut Checker,
    check: impl FnOnce(R, &Source, &mut Checker) -> Option<S>,
) -> Cell<S>
where
    R: Serialize + serde::de::DeserializeOwned,
{
    let v = spec.values[i];
    let at = FieldPath::default().field("sweep").field("values").index(i);
    if !ck.require(
        v.is_finite(),
        &at,
        format!("must be a finite number (got {v})"),
    ) {
        return Cell::Skipped;
    }
    if spec.values[..i].contains(&v) {
        ck.fail(&at, format!("{v} is listed twice"));
        return Cell::Skipped;
    }
    let cell_raw = match with_value(raw, &spec.field, v) {
        Ok(r) => r,
        Err(SweepError::Field(message)) => {
            ck.fail(&FieldPath::default().field("sweep").field("field"), message);
            return Cell::Abort;
        }
        Err(SweepError::Value(message)) => {
            ck.fail(&at, message);
            return Cell::Skipped;
        }
    };
    let mut cell_ck = Checker {
        parse: ck.parse,
        src: ck.src,
        json: ck.json,
        problems: Vec::new(),
        traces: std::mem::take(&mut ck.traces),
        faded: std::mem::take(&mut ck.faded),
    };
    let cell = check(cell_raw, source, &mut cell_ck);
    ck.traces = cell_ck.traces;
    ck.faded = cell_ck.faded;
    let own: Vec<Problem> = cell_ck
        .problems
        .into_iter()
        .filter(|p| !base_problems.contains(&(p.field.clone(), p.rule.clone())))
        .collect();
    for p in &own {
        ck.fail(
            &at,
            format!("with `{}` = {v}: {}: {}", spec.field, p.field, p.rule),
        );
    }
    match (cell, own.is_empty()) {
        (Some(cell), true) => Cell::Checked(Box::new(cell)),
        _ => Cell::Skipped,
    }
}

impl<S> Sweep<S> {
    /// Applies overrides to every cell (`apply`), refusing one that sets the swept field.
    pub(crate) fn with_overrides(
        self,
        o: &Overrides,
        apply: impl Fn(S, &Overrides) -> Result<S, OverrideError>,
    ) -> Result<Sweep<S>, OverrideError> {
        self.refuse_swept(o)?;
        self.try_map_cells(|c| apply(c, o))
    }

    /// Refuses an override of the swept field: every cell would get the one value.
    pub(crate) fn refuse_swept(&self, o: &Overrides) -> Result<(), OverrideError> {
        if o.horizon.is_some() && self.field == "horizon" {
            return Err(OverrideError::HorizonIsSwept);
        }
        if o.users.is_some() && self.field == "users" {
            return Err(OverrideError::UsersAreSwept);
        }
        for (flag, set) in [("runs", o.runs.is_some()), ("seed", o.seed.is_some())] {
            if set && self.field == flag {
                return Err(OverrideError::FieldIsSwept(flag));
            }
        }
        Ok(())
    }
}

impl Overridable for SweepScenario {
    /// Every cell's overrides (an override of the swept field refused).
    fn with_overrides(mut self, o: &Overrides) -> Result<SweepScenario, OverrideError> {
        self.sweep = self.sweep.with_overrides(o, Overridable::with_overrides)?;
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_parse_like_error_paths() {
        assert_eq!(
            parse_path("policies[0].policy.alpha").unwrap(),
            vec![
                Step::Field("policies".into()),
                Step::Index(0),
                Step::Field("policy".into()),
                Step::Field("alpha".into())
            ]
        );
        assert_eq!(parse_path("channels[*].theta").unwrap()[1], Step::All);
        assert!(parse_path("channels[x].theta").is_err());
        assert!(parse_path("a..b").is_err());
        assert!(parse_path("").is_err());
    }

    #[test]
    fn values_are_set_through_variants_and_lists() {
        let mut v: Value = serde_json::json!({
            "policies": [{"policy": {"CcUcb": {"alpha": 1.5, "epsilon": 1e-5}}}],
            "channels": [{"theta": 0.1, "cost": {"Bernoulli": 0.5}}, {"theta": 0.2, "cost": {"Bernoulli": 0.5}}],
            "horizon": 10
        });
        assert_eq!(
            set(
                &mut v,
                &parse_path("policies[0].policy.alpha").unwrap(),
                &number(2.0),
                ""
            ),
            Ok(1)
        );
        assert_eq!(v["policies"][0]["policy"]["CcUcb"]["alpha"], 2);
        assert_eq!(
            set(
                &mut v,
                &parse_path("channels[*].theta").unwrap(),
                &number(0.7),
                ""
            ),
            Ok(2)
        );
        assert_eq!(
            set(
                &mut v,
                &parse_path("channels[1].cost").unwrap(),
                &number(0.3),
                ""
            ),
            Ok(1)
        );
        assert_eq!(v["channels"][1]["cost"]["Bernoulli"], 0.3);
        let err = set(
            &mut v,
            &parse_path("channels[5].theta").unwrap(),
            &number(0.3),
            "",
        )
        .unwrap_err();
        assert!(
            err.contains("`channels[5]` does not exist: `channels` has 2 entries"),
            "{err}"
        );
        let err = set(
            &mut v,
            &parse_path("horizon.x.y").unwrap(),
            &number(1.0),
            "",
        )
        .unwrap_err();
        assert!(err.contains("does not exist"), "{err}");
    }
}
