//! Scenario files: RON schema ([`raw`]) and its validation into checked types.
//!
//! Loading is the only place where a scenario is trusted or not. [`load`] parses the file
//! (syntax and schema errors carry `file:line:col` and the field path) and then checks every rule
//! (each broken rule is reported with its position, field and rule, all at once). The simulator
//! only ever sees the checked [`RegretScenario`].

mod channels;
pub(crate) mod error;
pub(crate) mod identification;
pub(crate) mod locate;
mod locate_json;
pub(crate) mod raw;
pub(crate) mod sweep;

pub use identification::IdentificationScenario;

use crate::model::channel::Environment;
use crate::model::cost::{CostModel, CostWeights};
use crate::policy::{AnyPolicy, CustomPolicy, PolicySpec};
use crate::scenario::error::{Problem, ScenarioError};
use crate::util::stats::CheckpointSpec;
use channels::{channel_count, check_channels};
use locate::{FieldPath, locate};
use raw::{RawRegret, RawScenario, RawUnits};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Most channels one experiment may have (keeps per-run buffers reasonable).
pub(crate) const MAX_CHANNELS: u64 = 1 << 20;

/// A checked scenario.
#[derive(Clone, Debug)]
pub enum Scenario {
    /// A regret experiment.
    Regret(RegretScenario),
    /// A best-K identification experiment.
    Identification(IdentificationScenario),
    /// A regret scenario run at several values of one field.
    Sweep(SweepScenario),
}

/// A checked sweep: one regret scenario per value of the swept field.
#[derive(Clone, Debug)]
pub struct SweepScenario {
    /// Scenario name.
    pub(crate) name: String,
    /// Free text.
    pub(crate) description: String,
    /// The file it came from, with its text.
    pub(crate) source: Source,
    /// The swept field, named as errors name fields.
    pub(crate) field: String,
    /// Its values, one cell each.
    pub(crate) values: Vec<f64>,
    /// The cells: the scenario with the field at each value.
    pub(crate) cells: Vec<RegretScenario>,
}

impl SweepScenario {
    /// The swept field, named as errors name fields (e.g. `policies[*].policy.alpha`).
    pub fn field(&self) -> &str {
        &self.field
    }

    /// The swept values, one cell each.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// A hash (hex) of every cell and the sweep itself.
    pub(crate) fn fingerprint(&self) -> String {
        let mut parts = vec![format!(
            "sweep|{}|{}|{:?}",
            self.name, self.field, self.values
        )];
        parts.extend(self.cells.iter().map(RegretScenario::fingerprint));
        let joined: Vec<&str> = parts.iter().map(String::as_str).collect();
        format!("{:016x}", crate::util::rng::label_hash(&joined))
    }

    /// The cell label of value `v`: `field = v`.
    pub(crate) fn cell_label(&self, v: f64) -> String {
        format!("{} = {v}", self.field)
    }
}

impl Scenario {
    /// The scenario's name (it names the default output folder).
    pub fn name(&self) -> &str {
        match self {
            Scenario::Regret(s) => &s.name,
            Scenario::Identification(s) => &s.name,
            Scenario::Sweep(s) => &s.name,
        }
    }

    /// Where it came from: the file and its text (kept so that a shard's partial result can
    /// carry the scenario and `merge` needs nothing else).
    pub fn source(&self) -> &Source {
        match self {
            Scenario::Regret(s) => &s.source,
            Scenario::Identification(s) => &s.source,
            Scenario::Sweep(s) => &s.source,
        }
    }

    /// Applies overrides of the number of runs, the horizon and the seed; the one place that
    /// checks them (a horizon means nothing to an identification scenario).
    pub fn with_overrides(self, o: &Overrides) -> Result<Scenario, OverrideError> {
        if o.runs == Some(0) {
            return Err(OverrideError::ZeroRuns);
        }
        if o.horizon == Some(0) {
            return Err(OverrideError::ZeroHorizon);
        }
        if let Some(h) = o.horizon.filter(|&h| h > MAX_HORIZON) {
            return Err(OverrideError::HorizonTooLong(h));
        }
        Ok(match self {
            Scenario::Regret(s) => Scenario::Regret(s.with_overrides(o)?),
            Scenario::Sweep(mut s) => {
                if o.horizon.is_some() && s.field == "horizon" {
                    return Err(OverrideError::HorizonIsSwept);
                }
                s.cells = s
                    .cells
                    .into_iter()
                    .map(|c| c.with_overrides(o))
                    .collect::<Result<_, _>>()?;
                Scenario::Sweep(s)
            }
            Scenario::Identification(mut s) => {
                if o.horizon.is_some() {
                    return Err(OverrideError::HorizonForIdentification);
                }
                s.runs = o.runs.unwrap_or(s.runs);
                s.seed = o.seed.unwrap_or(s.seed);
                Scenario::Identification(s)
            }
        })
    }

    /// `regret`, `identification` or `sweep`: the `kind` of its `summary.json`.
    pub fn kind(&self) -> &'static str {
        match self {
            Scenario::Regret(_) => "regret",
            Scenario::Identification(_) => "identification",
            Scenario::Sweep(_) => "sweep",
        }
    }

    /// Runs per policy (or per identification cell; per sweep cell).
    pub fn runs(&self) -> u64 {
        match self {
            Scenario::Regret(s) => s.runs,
            Scenario::Identification(s) => s.runs,
            Scenario::Sweep(s) => s.cells.first().map_or(0, |c| c.runs),
        }
    }

    /// Every number the outputs derive from the scenario before simulating, by name: each
    /// channel's θ and mean cost, each epoch's per-channel success and stop probabilities and
    /// optimum reward, the theorems' coefficients, each identification arm's mean. The loader
    /// guarantees all are finite (outputs are JSON, which has no NaN or infinity); the tests and
    /// the fuzz targets check that promise through this list.
    pub fn derived_numbers(&self) -> Vec<(String, f64)> {
        let mut out = Vec::new();
        let mut regret = |s: &RegretScenario, prefix: &str| {
            for e in &s.experiments {
                let env = &e.env;
                let name = |what: &str| format!("{prefix}{}: {what}", e.label);
                let channels = env.theta().iter().zip(env.mean_cost());
                for (i, (&theta, &cost)) in channels.enumerate() {
                    out.push((name(&format!("channel {i} θ")), theta));
                    out.push((name(&format!("channel {i} mean cost")), cost));
                }
                for (k, epoch) in env.epochs().iter().enumerate() {
                    let pairs = epoch.success.iter().zip(&epoch.stop);
                    for (i, (&success, &stop)) in pairs.enumerate() {
                        out.push((name(&format!("epoch {k} channel {i} success")), success));
                        out.push((name(&format!("epoch {k} channel {i} stop")), stop));
                    }
                    let optimum = epoch.optimum.expected_reward;
                    out.push((name(&format!("epoch {k} optimum reward")), optimum));
                }
                let bounds = env.bounds(s.theorem2_alpha(), s.horizon);
                for (which, b) in [
                    ("theorem 2", &bounds.theorem2),
                    ("theorem 3", &bounds.theorem3),
                ] {
                    if let Some(b) = b {
                        out.push((name(&format!("{which} coefficient")), b.coefficient));
                        out.push((name(&format!("{which} at the horizon")), b.at_horizon));
                    }
                }
            }
        };
        match self {
            Scenario::Regret(s) => regret(s, ""),
            Scenario::Sweep(s) => {
                for (value, cell) in s.values.iter().zip(&s.cells) {
                    regret(cell, &format!("{} = {value}, ", s.field));
                }
            }
            Scenario::Identification(s) => {
                for inst in &s.instances {
                    for p in &inst.points {
                        for (i, &m) in p.means().iter().enumerate() {
                            out.push((format!("{} N={}: arm {i} mean", inst.label, p.len()), m));
                        }
                    }
                }
            }
        }
        out
    }

    /// A hash (hex) of everything that determines the results and outputs, used to check that
    /// shards belong together.
    pub(crate) fn fingerprint(&self) -> String {
        match self {
            Scenario::Regret(s) => s.fingerprint(),
            Scenario::Identification(s) => s.fingerprint(),
            Scenario::Sweep(s) => s.fingerprint(),
        }
    }
}

/// The file a scenario came from and its text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Source {
    /// The file as given (relative paths inside it are resolved against its folder).
    pub path: PathBuf,
    /// Its text.
    pub text: std::sync::Arc<str>,
}

impl Source {
    /// `path.display()`.
    pub fn display(&self) -> std::path::Display<'_> {
        self.path.display()
    }
}

/// Overrides of a scenario's number of runs, horizon and seed: the command line's `--runs`,
/// `--horizon`, `--seed`, the library's [`crate::Simulation`] setters, and what a shard's
/// `partial.json` records so that `merge` re-applies them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overrides {
    /// Runs per policy (or per identification cell).
    pub runs: Option<u64>,
    /// Slots per run (regret scenarios only).
    pub horizon: Option<u64>,
    /// Seed of every random stream.
    pub seed: Option<u64>,
}

/// An override that cannot apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OverrideError {
    /// `--horizon` for an identification scenario.
    #[error(
        "--horizon: identification scenarios have no horizon (runs stop when the algorithm does, or at `sample_cap`)"
    )]
    HorizonForIdentification,
    /// `--runs 0`.
    #[error("--runs: must be at least 1 run (got 0)")]
    ZeroRuns,
    /// `--horizon 0`.
    #[error("--horizon: must be at least 1 slot (got 0)")]
    ZeroHorizon,
    /// `--horizon` beyond [`MAX_HORIZON`].
    #[error("--horizon: at most {MAX_HORIZON} slots (2⁴⁰; got {0})")]
    HorizonTooLong(u64),
    /// `--horizon` for a scenario that sweeps the horizon.
    #[error("--horizon: the scenario sweeps `horizon`; set the values in its `sweep` instead")]
    HorizonIsSwept,
    /// `--horizon` longer than a trace that does not wrap.
    #[error(
        "--horizon: {horizon} slots, but channel {channel}'s trace holds {slots} (set `wrap: true` in the scenario or shorten the horizon)"
    )]
    TraceTooShort {
        /// The channel.
        channel: usize,
        /// Its trace's length.
        slots: u64,
        /// The horizon asked for.
        horizon: u64,
    },
}

/// A checked regret scenario.
#[derive(Clone, Debug)]
pub struct RegretScenario {
    /// Scenario name (safe as a folder name).
    pub(crate) name: String,
    /// Free text.
    pub(crate) description: String,
    /// The file it came from, with its text.
    pub(crate) source: Source,
    /// Seed of every random stream.
    pub(crate) seed: u64,
    /// Slots per run.
    pub(crate) horizon: u64,
    /// Runs per policy.
    pub(crate) runs: u64,
    /// Where curves are recorded.
    pub(crate) checkpoints: CheckpointSpec,
    /// Units for reports.
    pub(crate) units: Units,
    /// Weights of energy and delay.
    pub(crate) weights: CostWeights,
    /// One experiment, or one per grid configuration.
    pub(crate) experiments: Vec<Experiment>,
    /// Whether the file used `grid` (outputs then list experiments).
    pub(crate) is_grid: bool,
    /// The policies.
    pub(crate) policies: Vec<PolicyEntry>,
    /// The label paired differences are measured against (default: the first policy).
    pub(crate) reference: Option<String>,
}

/// Units of energy and delay (empty when the scenario gives none).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Units {
    /// Energy unit.
    pub energy: String,
    /// Delay unit.
    pub delay: String,
}

/// One channel configuration.
#[derive(Clone, Debug)]
pub(crate) struct Experiment {
    /// Label (the scenario name for a single experiment).
    pub label: String,
    /// The channels.
    pub env: Environment,
    /// Published final regrets by policy label.
    pub reference: BTreeMap<String, f64>,
}

/// One policy with its label.
#[derive(Clone, Debug)]
pub(crate) struct PolicyEntry {
    /// Unique label.
    pub label: String,
    /// A built-in policy with checked parameters, or a user's.
    pub policy: PolicyKind,
}

/// Where a policy comes from.
#[derive(Clone, Debug)]
pub(crate) enum PolicyKind {
    /// A built-in policy named in the scenario.
    Builtin(PolicySpec),
    /// A policy added through the library ([`crate::Simulation::policy`]).
    Custom(CustomPolicy),
}

impl PolicyEntry {
    /// The policy in outputs: scenario syntax for a built-in, the user's description otherwise.
    pub(crate) fn describe(&self) -> String {
        match &self.policy {
            PolicyKind::Builtin(spec) => spec.to_ron(),
            PolicyKind::Custom(c) => c.description().to_string(),
        }
    }

    /// Builds the policy for one run (`None` for a user's policy known by name only, as in a
    /// merge).
    pub(crate) fn build(&self, env: &Environment) -> Option<AnyPolicy> {
        match &self.policy {
            PolicyKind::Builtin(spec) => Some(spec.build(env)),
            PolicyKind::Custom(c) => c.build(env).map(AnyPolicy::Custom),
        }
    }
}

impl RegretScenario {
    /// The scenario's name (it names the default output folder).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Slots per run.
    pub fn horizon(&self) -> u64 {
        self.horizon
    }

    /// Runs per policy.
    pub fn runs(&self) -> u64 {
        self.runs
    }

    /// The seed of every random stream.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The policies' labels, in scenario order (the `name` of each policy in the outputs).
    pub fn policy_labels(&self) -> Vec<&str> {
        self.policies.iter().map(|p| p.label.as_str()).collect()
    }

    /// Applies overrides (already checked to be non-zero); a horizon longer than a trace that
    /// does not wrap is refused.
    fn with_overrides(mut self, o: &Overrides) -> Result<RegretScenario, OverrideError> {
        self.runs = o.runs.unwrap_or(self.runs);
        self.seed = o.seed.unwrap_or(self.seed);
        if let Some(h) = o.horizon {
            self.horizon = h;
            for e in &mut self.experiments {
                for (i, ch) in e.env.channels().iter().enumerate() {
                    if let Some(slots) = ch.occupancy().slots()
                        && slots < h
                    {
                        return Err(OverrideError::TraceTooShort {
                            channel: i,
                            slots,
                            horizon: h,
                        });
                    }
                }
                e.env.set_horizon(h);
            }
        }
        Ok(self)
    }

    /// A hash (hex) of everything that determines this scenario's results and outputs, used to
    /// check that shards belong together.
    pub(crate) fn fingerprint(&self) -> String {
        use std::fmt::Write;
        let mut s = format!(
            "regret|{}|{}|{}|{}|{}|{:?}|{:?}|{:?}|{}",
            self.name,
            self.description,
            self.seed,
            self.horizon,
            self.runs,
            self.checkpoints,
            self.weights,
            self.units,
            self.is_grid
        );
        for e in &self.experiments {
            let _ = write!(s, "|exp {}|{:?}", e.label, e.reference);
            let _ = write!(s, "|slot {:?}", e.env.slot_duration());
            for ch in e.env.channels() {
                let _ = write!(
                    s,
                    "|{}:{}",
                    ch.occupancy().describe(),
                    ch.sensing().describe()
                );
                if let Some(hash) = ch.occupancy().content_hash() {
                    let _ = write!(s, ":trace {hash:016x}");
                }
                let _ = match ch.cost() {
                    CostModel::Plain(l) => write!(s, ":{:?}", l.spec()),
                    CostModel::Split { energy, delay, .. } => {
                        write!(s, ":{:?}:{:?}", energy.spec(), delay.spec())
                    }
                };
            }
        }
        for p in &self.policies {
            let _ = write!(s, "|policy {}:{}", p.label, p.describe());
        }
        let _ = write!(s, "|reference {:?}", self.reference);
        format!("{:016x}", crate::util::rng::label_hash(&[&s]))
    }

    /// The index of the policy paired differences are measured against: `reference`, else
    /// the first policy.
    pub(crate) fn reference_index(&self) -> Option<usize> {
        match &self.reference {
            Some(label) => self.policies.iter().position(|p| &p.label == label),
            None => (!self.policies.is_empty()).then_some(0),
        }
    }

    /// The α Theorem 2 is evaluated with: that of the first unknown-cost CC-UCB policy, else the
    /// paper's 1.5.
    pub(crate) fn theorem2_alpha(&self) -> f64 {
        self.policies
            .iter()
            .find_map(|p| match &p.policy {
                PolicyKind::Builtin(spec) => spec.theorem2_alpha(),
                PolicyKind::Custom(_) => None,
            })
            .unwrap_or(crate::policy::DEFAULT_ALPHA)
    }
}

/// Reads, parses and checks a scenario file.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    parse(&read(path)?, path)
}

/// Reads a scenario file's text (a regular file of at most
/// [`MAX_SCENARIO_BYTES`](crate::util::input::MAX_SCENARIO_BYTES)).
pub(crate) fn read(path: &Path) -> Result<String, ScenarioError> {
    crate::util::input::read_text(path, crate::util::input::MAX_SCENARIO_BYTES).map_err(|error| {
        ScenarioError::Read {
            path: path.to_path_buf(),
            error,
        }
    })
}

/// Whether `path` names a JSON scenario (`.json`); anything else is read as RON.
pub(crate) fn is_json(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// Whether scenario text is JSON: it comes from a `.json` file, or it opens with `{` (a RON
/// scenario opens with `Regret(` or `Identification(`, after any comments).
fn reads_as_json(text: &str, path: &Path) -> bool {
    is_json(path) || text.trim_start().starts_with('{')
}

/// Parses and checks scenario text; `path` is used in messages and to resolve relative paths.
/// A path ending in `.json`, or text opening with `{`, is read as JSON with the same schema.
pub fn parse(text: &str, path: &Path) -> Result<Scenario, ScenarioError> {
    let json = reads_as_json(text, path);
    let raw = if json {
        parse_raw_json(text, path)?
    } else {
        parse_raw(text, path)?
    };
    let mut checker = Checker {
        src: text,
        json,
        problems: Vec::new(),
        traces: Default::default(),
    };
    let source = Source {
        path: path.to_path_buf(),
        text: text.into(),
    };
    let scenario = match raw {
        RawScenario::Regret(r) if r.sweep.is_some() => {
            check_sweep(r, &source, &mut checker).map(Scenario::Sweep)
        }
        RawScenario::Regret(r) => check_regret(r, &source, &mut checker).map(Scenario::Regret),
        RawScenario::Identification(r) => {
            identification::check_identification(r, &source, &mut checker)
                .map(Scenario::Identification)
        }
    };
    match scenario {
        Some(s) if checker.problems.is_empty() => Ok(s),
        _ => {
            let mut problems = checker.problems;
            problems.sort_by_key(|p| (p.line == 0, p.line, p.col));
            Err(ScenarioError::Invalid {
                path: path.to_path_buf(),
                problems,
            })
        }
    }
}

pub(crate) fn parse_raw(text: &str, path: &Path) -> Result<RawScenario, ScenarioError> {
    // A policy written bare (`CcUcb`) is parsed as `CcUcb()`: serde cannot look ahead for the
    // parenthesis, and recovering from the failed attempt would leave serde_path_to_error
    // reporting the wrong field for a later error. Positions are mapped back to the file's.
    let inserted = locate::bare_policies(text);
    let mut parsed = String::with_capacity(text.len() + 2 * inserted.len());
    let mut from = 0;
    for &at in &inserted {
        parsed.push_str(&text[from..at]);
        parsed.push_str("()");
        from = at;
    }
    parsed.push_str(&text[from..]);
    let inserted_at: Vec<(usize, usize)> = inserted
        .iter()
        .map(|&at| {
            let before = &text[..at];
            let line = before.matches('\n').count() + 1;
            let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            (line, col)
        })
        .collect();
    let parse_error = |err: ron::error::SpannedError, field: String| {
        let (line, mut col) = (err.span.start.line, err.span.start.col);
        col -= 2 * inserted_at
            .iter()
            .filter(|&&(l, c)| l == line && c < col)
            .count();
        ScenarioError::Parse {
            path: path.to_path_buf(),
            problem: Problem {
                line,
                col: col.max(1),
                field: whole_if_empty(field),
                rule: err.code.to_string(),
            },
        }
    };
    let mut de =
        ron::Deserializer::from_str_with_options(&parsed, &crate::util::ron_text::ron_options())
            .map_err(|e| parse_error(e, String::new()))?;
    let raw: RawScenario = match serde_path_to_error::deserialize(&mut de) {
        Ok(raw) => raw,
        Err(err) => {
            let field = err.path().to_string();
            let spanned = de.span_error(err.into_inner());
            return Err(parse_error(spanned, field));
        }
    };
    if let Err(err) = de.end() {
        return Err(parse_error(de.span_error(err), String::new()));
    }
    Ok(raw)
}

/// JSON with the schema of the RON files: an enum is an object with one key (`{"Regret": {..}}`,
/// `{"Bernoulli": 0.55}`), a unit variant a string (`"Oracle"`), an optional field a value or
/// `null`.
pub(crate) fn parse_raw_json(text: &str, path: &Path) -> Result<RawScenario, ScenarioError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let problem = |line: usize, col: usize, field: String, rule: String| ScenarioError::Parse {
        path: path.to_path_buf(),
        problem: Problem {
            line,
            col,
            field: whole_if_empty(field),
            rule,
        },
    };
    let raw: RawScenario = serde_path_to_error::deserialize(&mut de).map_err(|err| {
        let field = err.path().to_string();
        let inner = err.into_inner();
        let rule = strip_position(&inner.to_string());
        problem(inner.line(), inner.column(), field, rule)
    })?;
    de.end().map_err(|e| {
        problem(
            e.line(),
            e.column(),
            String::new(),
            strip_position(&e.to_string()),
        )
    })?;
    Ok(raw)
}

/// A serde path as a problem's field: `(scenario)` for the whole file.
fn whole_if_empty(field: String) -> String {
    if field.is_empty() || field == "." {
        "(scenario)".to_string()
    } else {
        field
    }
}

/// serde_json's message without its trailing ` at line L column C` (the position is reported
/// separately, as for RON).
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

/// Collects problems with their positions.
struct Checker<'a> {
    src: &'a str,
    /// Whether `src` is JSON (else RON): how positions are found.
    json: bool,
    problems: Vec<Problem>,
    /// Trace files read so far.
    traces: crate::model::occupancy::TraceFiles,
}

impl Checker<'_> {
    fn fail(&mut self, path: &FieldPath, rule: impl Into<String>) {
        // The deepest part of the path present in the text: a parameter of a tuple variant such
        // as `Bernoulli(1.5)` has no name to find, so the law itself is pointed at.
        let find = if self.json {
            locate_json::locate_json
        } else {
            locate
        };
        let (line, col) = (0..=path.0.len())
            .rev()
            .find_map(|n| find(self.src, &FieldPath(path.0[..n].to_vec())))
            .unwrap_or((0, 0));
        self.problems.push(Problem {
            line,
            col,
            field: path.to_string(),
            rule: rule.into(),
        });
    }

    /// Checks `ok`, reporting `rule` at `path` when it fails; returns `ok`.
    fn require(&mut self, ok: bool, path: &FieldPath, rule: impl Into<String>) -> bool {
        if !ok {
            self.fail(path, rule);
        }
        ok
    }

    /// The scenario name names the output folder: it must be a safe file name.
    fn name(&mut self, name: &str, path: &FieldPath) {
        self.require(
            is_safe_name(name),
            path,
            format!(
                "must be 1 to {MAX_NAME} characters, only letters, digits, '.', '_' and '-', not starting with '.' (it names the output folder; got {name:?})"
            ),
        );
    }

    /// A label (of a `what`: policy, configuration, instance) must be non-empty and unique
    /// among those already `seen`.
    fn label(&mut self, seen: &mut BTreeSet<String>, label: &str, path: &FieldPath, what: &str) {
        if self.require(!label.trim().is_empty(), path, "must not be empty")
            && !seen.insert(label.to_string())
        {
            self.fail(
                path,
                format!("duplicate {what} label {label:?}: labels must be unique"),
            );
        }
    }
}

/// Longest horizon: 2⁴⁰ slots. Even one policy's single run of that length takes days; a
/// longer one is a typing slip, not an experiment.
pub(crate) const MAX_HORIZON: u64 = 1 << 40;

/// Longest scenario name: it names the output folder, beside which the lock and staging
/// folders add a few characters, all within a file name's 255 bytes.
pub(crate) const MAX_NAME: usize = 100;

pub(crate) fn is_safe_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_NAME
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && !s.starts_with('.')
}

fn check_regret(raw: RawRegret, source: &Source, ck: &mut Checker) -> Option<RegretScenario> {
    let root = FieldPath::default();
    check_run_settings(&raw, &root, ck);
    let policies = check_policy_labels(&raw, &root, ck);
    let (experiments, sizes) = check_experiments(&raw, source, &policies, &root, ck);
    check_reference_policy(&raw, &policies, &root, ck);
    check_policy_parameters(&raw, &sizes, &root, ck);
    Some(RegretScenario {
        name: raw.name,
        description: raw.description,
        source: source.clone(),
        seed: raw.seed,
        horizon: raw.horizon,
        runs: raw.runs,
        checkpoints: raw.checkpoints,
        units: units(raw.units),
        weights: raw.weights,
        is_grid: !raw.grid.is_empty(),
        experiments,
        policies,
        reference: raw.reference,
    })
}

/// `reference` names a policy, and `slot.duration` is positive.
fn check_reference_policy(
    raw: &RawRegret,
    policies: &[PolicyEntry],
    root: &FieldPath,
    ck: &mut Checker,
) {
    if let Some(r) = &raw.reference {
        let labels: Vec<&str> = policies.iter().map(|p| p.label.as_str()).collect();
        ck.require(
            labels.contains(&r.as_str()),
            &root.field("reference"),
            format!("names policy {r:?}, which is not a policy label of this scenario (labels: {labels:?})"),
        );
    }
    if let Some(slot) = raw.slot {
        ck.require(
            slot.duration.is_finite() && slot.duration > 0.0,
            &root.field("slot").field("duration"),
            format!(
                "is the slot's length in delay units and must be a positive finite number (got {})",
                slot.duration
            ),
        );
    }
}

/// A sweep: the scenario as written is checked (its problems reported where they are), then
/// each value's cell; a cell's own problems are reported at its value.
fn check_sweep(mut raw: RawRegret, source: &Source, ck: &mut Checker) -> Option<SweepScenario> {
    let spec = raw.sweep.take()?;
    let root = FieldPath::default();
    let at_field = root.field("sweep").field("field");
    let at_values = root.field("sweep").field("values");
    let base = check_regret(raw.clone(), source, ck);
    let base_problems: Vec<(String, String)> = ck
        .problems
        .iter()
        .map(|p| (p.field.clone(), p.rule.clone()))
        .collect();
    if spec.values.is_empty() {
        ck.fail(&at_values, "must list at least one value");
    }
    if spec.values.len() > sweep::MAX_CELLS {
        ck.fail(
            &at_values,
            format!(
                "lists {} values; at most {} cells are supported",
                spec.values.len(),
                sweep::MAX_CELLS
            ),
        );
        return None;
    }
    // Every cell is a full scenario held until the end: the channels of all cells together
    // are bounded before any cell is expanded (a cell sweeping a count may hold more).
    let per_cell = base.as_ref().map_or(0, |b| {
        b.experiments
            .iter()
            .map(|e| e.env.len() as u64)
            .sum::<u64>()
    });
    let total = per_cell.saturating_mul(spec.values.len() as u64);
    if total > MAX_CHANNELS {
        ck.fail(
            &at_values,
            format!(
                "{} cells of {per_cell} channels hold {total} channels in all; at most {MAX_CHANNELS} are supported",
                spec.values.len()
            ),
        );
        return None;
    }
    let mut cells = Vec::new();
    let mut cell_channels = 0u64;
    for (i, &v) in spec.values.iter().enumerate() {
        let at = at_values.index(i);
        if !ck.require(
            v.is_finite(),
            &at,
            format!("must be a finite number (got {v})"),
        ) {
            continue;
        }
        if spec.values[..i].contains(&v) {
            ck.fail(&at, format!("{v} is listed twice"));
            continue;
        }
        let cell_raw = match sweep::with_value(&raw, &spec.field, v) {
            Ok(r) => r,
            Err(sweep::SweepError::Field(message)) => {
                ck.fail(&at_field, message);
                return None;
            }
            Err(sweep::SweepError::Value(message)) => {
                ck.fail(&at, message);
                continue;
            }
        };
        let mut cell_ck = Checker {
            src: ck.src,
            json: ck.json,
            problems: Vec::new(),
            traces: std::mem::take(&mut ck.traces),
        };
        let cell = check_regret(cell_raw, source, &mut cell_ck);
        ck.traces = cell_ck.traces;
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
        if let (Some(cell), true) = (cell, own.is_empty()) {
            cell_channels = cell_channels.saturating_add(
                cell.experiments
                    .iter()
                    .map(|e| e.env.len() as u64)
                    .sum::<u64>(),
            );
            if cell_channels > MAX_CHANNELS {
                ck.fail(
                    &at,
                    format!("the cells up to this value hold {cell_channels} channels in all; at most {MAX_CHANNELS} are supported"),
                );
                return None;
            }
            cells.push(cell);
        }
    }
    let base = base?;
    Some(SweepScenario {
        name: base.name,
        description: base.description,
        source: source.clone(),
        field: spec.field,
        values: spec.values,
        cells,
    })
}

/// Name, horizon, runs, checkpoints and weights.
fn check_run_settings(raw: &RawRegret, root: &FieldPath, ck: &mut Checker) {
    ck.name(&raw.name, &root.field("name"));
    ck.require(
        raw.horizon >= 1,
        &root.field("horizon"),
        "must be at least 1 slot (got 0)",
    );
    ck.require(
        raw.horizon <= MAX_HORIZON,
        &root.field("horizon"),
        format!(
            "must be at most {MAX_HORIZON} slots (2⁴⁰: about two days for one policy's single run; got {})",
            raw.horizon
        ),
    );
    ck.require(
        raw.runs >= 1,
        &root.field("runs"),
        "must be at least 1 run (got 0)",
    );
    let cp = root.field("checkpoints");
    ck.require(
        CheckpointSpec::PER_DECADE.contains(&raw.checkpoints.per_decade),
        &cp.field("per_decade"),
        format!(
            "must be 5, 10 or 20 (a Renard series; got {})",
            raw.checkpoints.per_decade
        ),
    );
    ck.require(
        raw.checkpoints.linear <= 10_000,
        &cp.field("linear"),
        format!("must be at most 10000 (got {})", raw.checkpoints.linear),
    );
    for (name, w) in [("energy", raw.weights.energy), ("delay", raw.weights.delay)] {
        ck.require(
            w.is_finite() && w >= 0.0,
            &root.field("weights").field(name),
            format!("must be a finite number ≥ 0 (got {w})"),
        );
    }
}

/// The policies with their labels (non-empty, unique; the policy's own label by default).
fn check_policy_labels(raw: &RawRegret, root: &FieldPath, ck: &mut Checker) -> Vec<PolicyEntry> {
    let mut seen = BTreeSet::new();
    if raw.policies.is_empty() {
        ck.fail(&root.field("policies"), "must list at least one policy");
    }
    raw.policies
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let at = root.field("policies").index(i);
            let label = p
                .label
                .clone()
                .unwrap_or_else(|| p.policy.default_label().to_string());
            // Without a `label`, the default label comes from the policy.
            let label_path = if p.label.is_some() {
                at.field("label")
            } else {
                at.field("policy")
            };
            ck.label(&mut seen, &label, &label_path, "policy");
            PolicyEntry {
                label,
                policy: PolicyKind::Builtin(p.policy.clone()),
            }
        })
        .collect()
}

/// The experiments: one channel list or a grid of configurations. Both forms are checked even
/// when both are (wrongly) given, so that every problem is reported at once. Also returns each
/// channel list's K with a note naming its configuration, for the policy checks.
fn check_experiments(
    raw: &RawRegret,
    source: &Source,
    policies: &[PolicyEntry],
    root: &FieldPath,
    ck: &mut Checker,
) -> (Vec<Experiment>, Vec<(String, u64)>) {
    let mut experiments = Vec::new();
    let mut sizes = Vec::new();
    let is_grid = !raw.grid.is_empty();
    let base = source.path.parent().unwrap_or(Path::new("."));
    let cx = channels::Context {
        weights: &raw.weights,
        horizon: raw.horizon.max(1),
        slot_duration: raw.slot.map(|s| s.duration),
        base,
    };
    if !raw.channels.is_empty() && is_grid {
        ck.fail(
            &root.field("grid"),
            "give either `channels` (one experiment) or `grid` (several), not both",
        );
    }
    if raw.channels.is_empty() && !is_grid {
        ck.fail(
            &root.field("channels"),
            "the channel list is empty: give `channels` or a `grid` of configurations",
        );
    }
    if !raw.channels.is_empty() {
        sizes.push((String::new(), channel_count(&raw.channels)));
        if let Some(env) = check_channels(&raw.channels, &root.field("channels"), &cx, ck) {
            experiments.push(Experiment {
                label: raw.name.clone(),
                env,
                reference: BTreeMap::new(),
            });
        }
    }
    // Every configuration's channels are held at once: their total is bounded before any
    // configuration is expanded.
    let total = raw
        .grid
        .iter()
        .map(|c| channel_count(&c.channels))
        .fold(0u64, u64::saturating_add);
    if total > MAX_CHANNELS {
        ck.fail(
            &root.field("grid"),
            format!(
                "its configurations hold {total} channels in all; at most {MAX_CHANNELS} are supported"
            ),
        );
        return (experiments, sizes);
    }
    let labels: BTreeSet<&str> = policies.iter().map(|p| p.label.as_str()).collect();
    let mut seen = BTreeSet::new();
    for (g, conf) in raw.grid.iter().enumerate() {
        let at = root.field("grid").index(g);
        ck.label(&mut seen, &conf.label, &at.field("label"), "configuration");
        if conf.channels.is_empty() {
            ck.fail(&at.field("channels"), "the channel list is empty");
        }
        check_reference(&conf.reference, &labels, &at.field("reference"), ck);
        sizes.push((
            format!(" (configuration {:?})", conf.label),
            channel_count(&conf.channels),
        ));
        if let Some(env) = check_channels(&conf.channels, &at.field("channels"), &cx, ck) {
            experiments.push(Experiment {
                label: conf.label.clone(),
                env,
                reference: conf.reference.clone(),
            });
        }
    }
    (experiments, sizes)
}

/// A configuration's published values name policies of the scenario and are finite.
fn check_reference(
    reference: &BTreeMap<String, f64>,
    labels: &BTreeSet<&str>,
    at: &FieldPath,
    ck: &mut Checker,
) {
    for (policy, value) in reference {
        ck.require(
            labels.contains(policy.as_str()),
            at,
            format!("names policy {policy:?}, which is not a policy label of this scenario"),
        );
        ck.require(
            value.is_finite(),
            at,
            format!("value for {policy:?} must be finite (got {value})"),
        );
    }
}

/// Policy parameters against every channel list's size: every broken rule of the first list
/// that breaks any.
fn check_policy_parameters(
    raw: &RawRegret,
    sizes: &[(String, u64)],
    root: &FieldPath,
    ck: &mut Checker,
) {
    for (i, p) in raw.policies.iter().enumerate() {
        for (where_, k) in sizes {
            let errors = p.policy.check(*k as usize);
            for e in &errors {
                ck.fail(
                    &root
                        .field("policies")
                        .index(i)
                        .field("policy")
                        .field(e.param),
                    format!("{}{where_}", e.rule),
                );
            }
            if !errors.is_empty() {
                break;
            }
        }
    }
}

fn units(raw: RawUnits) -> Units {
    Units {
        energy: raw.energy,
        delay: raw.delay,
    }
}
