//! Scenario files: RON schema ([`raw`]) and its validation into checked types.
//!
//! Loading is the only place where a scenario is trusted or not. [`load`] parses the file
//! (syntax and schema errors carry `file:line:col` and the field path) and then checks every rule
//! (each broken rule is reported with its position, field and rule, all at once). The simulator
//! only ever sees the checked [`RegretScenario`].

pub(crate) mod additions;
mod channels;
mod check;
mod checker;
pub(crate) mod error;
mod header;
mod hint;
pub(crate) mod identification;
pub(crate) mod locate;
mod locate_json;
pub(crate) mod multi_user;
mod overrides;
mod parse;
pub(crate) mod raw;
pub(crate) mod sweep;
mod syntax;
pub(crate) mod target;

pub(crate) use checker::label_is_printable;
pub(crate) use header::{Header, MAX_HORIZON};
pub use identification::IdentificationScenario;
pub use multi_user::MultiUserScenario;
pub use overrides::{OverrideError, Overrides};
pub(crate) use parse::read;
pub use parse::{load, parse};

use crate::model::channel::Environment;
use crate::model::cost::CostModel;
use crate::policy::{AnyPolicy, CustomPolicy, PolicySpec};
use additions::{AdditionError, Additions};
use std::collections::BTreeMap;
use std::path::PathBuf;
pub use sweep::Sweep;

/// Most channels a scenario may hold (over a `count`, a grid's configurations or a sweep's
/// cells). Checking builds each channel (about 340 bytes), so 2¹⁸ keep `validate` under 100 MB;
/// at 2²⁰ it took 352 MB and the run 2.3 GB (issue 50).
pub(crate) const MAX_CHANNELS: u64 = 1 << 18;

/// Declares the closed [`Scenario`] enum from the list of the experiment kinds, and from the
/// same list everything that dispatches over the kinds (`$d` is a `$`, for the macros it
/// declares):
///
/// - `each_kind!(value, s => body)` evaluates `body` with `s` bound to the kind's value inside
///   a `Scenario` (or a reference to one); `each_kind!(in E, value, s => body)` does so for any
///   enum `E` in scope with one variant per kind (`Results`).
/// - `map_kind!(value, s => body)` puts `body` back in the same kind's variant of `Scenario`
///   (overrides, added policies); `map_kind!(in A => B, value, s => body)` in `B`'s (a
///   scenario's results, a shard's scenario).
/// - `first_kind!(|K| body)` evaluates the `Option` `body` with the type `K` standing for each
///   kind's scenario type in turn, and gives the first `Some`: for what a layer asks of the
///   kinds without a value of one (which kind reads a saved folder back, which compare draws).
/// - `From` each kind's scenario into `Scenario`.
///
/// A layer's per-kind behaviour is a trait that each kind implements in its own folder (see
/// `report::describe::Describe`), so the dispatch names no kind. The list is
/// `experiment_kinds!`'s (in `lib.rs`), from which every layer generates its closed enum of the
/// kinds: this `Scenario`, the file forms (`raw::RawScenario`, checked by each kind's
/// `CheckRaw`), the results (`Results`, with each kind's `KindResults`) and the shards' bodies
/// (`PartialBody`), and the `kind` its result folders are written as (`store::names::ResultKind`).
/// A new kind is its own files in each layer and one entry in that list (see the guide's
/// architecture page).
macro_rules! builtin_kinds {
    ($d:tt $(
        $(#[$doc:meta])* $kind:ident($t:path, $r:path, $b:path $(, raw $raw:path)? $(, writes $file:literal swept $swept:literal)?),
    )*) => {
        /// A checked scenario.
        #[derive(Clone, Debug)]
        pub enum Scenario {
            $( $(#[$doc])* $kind($t), )*
        }

        $(
            impl From<$t> for Scenario {
                fn from(s: $t) -> Scenario {
                    Scenario::$kind(s)
                }
            }
        )*

        macro_rules! each_kind {
            (in $d e:ident, $d value:expr, $d s:ident => $d body:expr) => {
                match $d value {
                    $( $d e::$kind($d s) => $d body, )*
                }
            };
            ($d value:expr, $d s:ident => $d body:expr) => {{
                use $crate::scenario::Scenario;
                $crate::scenario::each_kind!(in Scenario, $d value, $d s => $d body)
            }};
        }
        pub(crate) use each_kind;

        macro_rules! map_kind {
            (in $d from:ident => $d to:ident, $d value:expr, $d s:ident => $d body:expr) => {
                match $d value {
                    $( $d from::$kind($d s) => $d to::$kind($d body), )*
                }
            };
            ($d value:expr, $d s:ident => $d body:expr) => {{
                use $crate::scenario::Scenario;
                $crate::scenario::map_kind!(in Scenario => Scenario, $d value, $d s => $d body)
            }};
        }
        pub(crate) use map_kind;

        macro_rules! first_kind {
            (|$d k:ident| $d body:expr) => {
                None$(.or_else(|| {
                    type $d k = $t;
                    $d body
                }))*
            };
        }
        pub(crate) use first_kind;
    };
}

experiment_kinds!($ builtin_kinds);

/// A checked sweep: one regret scenario per value of the swept field.
#[derive(Clone, Debug)]
pub struct SweepScenario {
    /// Scenario name.
    pub(crate) name: String,
    /// Free text.
    pub(crate) description: String,
    /// The file it came from, with its text.
    pub(crate) source: Source,
    /// The swept field, its values and the cells.
    pub(crate) sweep: Sweep<RegretScenario>,
}

impl SweepScenario {
    /// The scenario's name (it names the default output folder).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The sweep: its field, values and cells.
    pub fn sweep(&self) -> &Sweep<RegretScenario> {
        &self.sweep
    }

    /// A hash (hex) of every cell and the sweep itself.
    pub(crate) fn fingerprint(&self) -> String {
        let sw = &self.sweep;
        let mut parts = vec![format!(
            "sweep|{}|{}|{:?}{}",
            self.name,
            sw.field,
            sw.values,
            sw.axis.fingerprint()
        )];
        parts.extend(sw.cells.iter().map(RegretScenario::fingerprint));
        let joined: Vec<&str> = parts.iter().map(String::as_str).collect();
        format!("{:016x}", crate::util::rng::label_hash(&joined))
    }
}

impl Scenario {
    /// The scenario with `a` appended to its policies, teams or algorithms, as its kind takes
    /// them (see [`Additions`]): an entry of the wrong kind, or a label that is empty,
    /// unprintable or taken, is refused.
    pub(crate) fn with_additions(self, a: &Additions) -> Result<Scenario, AdditionError> {
        Ok(match self {
            Scenario::Regret(s) => Scenario::Regret(a.to_regret(s)?),
            Scenario::Sweep(mut s) => {
                s.sweep = s.sweep.try_map_cells(|c| a.to_regret(c))?;
                Scenario::Sweep(s)
            }
            Scenario::MultiUser(s) => Scenario::MultiUser(a.to_multi_user(s)?),
            Scenario::Identification(s) => {
                Scenario::Identification(s.try_map_all(&|s| a.to_identification(s))?)
            }
        })
    }

    /// The scenario's name (it names the default output folder).
    pub fn name(&self) -> &str {
        each_kind!(self, s => s.name())
    }

    /// Where it came from: the file and its text (kept so that a shard's partial result can
    /// carry the scenario and `merge` needs nothing else).
    pub fn source(&self) -> &Source {
        match self {
            Scenario::Regret(s) => &s.header.source,
            Scenario::Identification(s) => &s.source,
            Scenario::Sweep(s) => &s.source,
            Scenario::MultiUser(s) => &s.header.source,
        }
    }

    /// Runs per policy (or per identification cell; per sweep cell).
    pub fn runs(&self) -> u64 {
        match self {
            Scenario::Regret(s) => s.header.runs,
            Scenario::Identification(s) => s
                .sweep
                .as_ref()
                .and_then(|sw| sw.cells.first())
                .map_or(s.runs, |c| c.runs),
            Scenario::Sweep(s) => s.sweep.cells.first().map_or(0, |c| c.header.runs),
            Scenario::MultiUser(s) => s
                .sweep
                .as_ref()
                .and_then(|sw| sw.cells.first())
                .map_or(s.header.runs, |c| c.header.runs),
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
                let bounds = env.bounds(s.theorem2_alpha(), s.header.horizon);
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
                for (value, cell) in s.sweep.points() {
                    regret(cell, &format!("{}, ", s.sweep.cell_label(value)));
                }
            }
            Scenario::MultiUser(s) => {
                for (i, (&theta, &cost)) in s.env.theta().iter().zip(s.env.mean_cost()).enumerate()
                {
                    out.push((format!("channel {i} θ"), theta));
                    out.push((format!("channel {i} mean cost"), cost));
                }
            }
            Scenario::Identification(s) => {
                let mut arms = |s: &IdentificationScenario, prefix: &str| {
                    for inst in &s.instances {
                        for p in &inst.points {
                            for (i, &m) in p.means().iter().enumerate() {
                                let name =
                                    format!("{prefix}{} N={}: arm {i} mean", inst.label, p.len());
                                out.push((name, m));
                            }
                        }
                    }
                };
                arms(s, "");
                if let Some(sw) = &s.sweep {
                    for (value, cell) in sw.points() {
                        arms(cell, &format!("{}, ", sw.cell_label(value)));
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
            Scenario::MultiUser(s) => s.fingerprint(),
        }
    }
}

/// Every channel of `env` as fingerprints read it: process, sensing, trace content, cost laws.
pub(crate) fn describe_channels(s: &mut String, env: &Environment) {
    use std::fmt::Write;
    // The reward rule belongs with the channels it pays on (absent for the unit reward, so
    // that earlier fingerprints stay as they were).
    if let Some(tl) = env.time_left() {
        let _ = write!(s, "|reward TimeLeft{:?}", tl.spec());
    }
    for ch in env.channels() {
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
            CostModel::Split(split) => {
                write!(s, ":{:?}:{:?}", split.energy.spec(), split.delay.spec())
            }
        };
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

/// A checked regret scenario.
#[derive(Clone, Debug)]
pub struct RegretScenario {
    /// Name, seed, horizon, runs, checkpoints, units and weights.
    pub(crate) header: Header,
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

    /// Whether it is a built-in policy whose lists hold one channel (a user's lists are not
    /// known to).
    pub(crate) fn single_channel(&self) -> bool {
        matches!(&self.policy, PolicyKind::Builtin(spec) if spec.single_channel())
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
        &self.header.name
    }

    /// Slots per run.
    pub fn horizon(&self) -> u64 {
        self.header.horizon
    }

    /// Runs per policy.
    pub fn runs(&self) -> u64 {
        self.header.runs
    }

    /// The seed of every random stream.
    pub fn seed(&self) -> u64 {
        self.header.seed
    }

    /// The policies' labels, in scenario order (the `name` of each policy in the outputs).
    pub fn policy_labels(&self) -> Vec<&str> {
        self.policies.iter().map(|p| p.label.as_str()).collect()
    }

    /// A hash (hex) of everything that determines this scenario's results and outputs, used to
    /// check that shards belong together.
    pub(crate) fn fingerprint(&self) -> String {
        use std::fmt::Write;
        let mut s = format!("regret|{}|{}", self.header.fingerprint(), self.is_grid);
        for e in &self.experiments {
            let _ = write!(s, "|exp {}|{:?}", e.label, e.reference);
            let _ = write!(s, "|slot {:?}", e.env.slot_duration());
            describe_channels(&mut s, &e.env);
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
