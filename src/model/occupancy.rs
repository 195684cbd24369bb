//! Channel occupancy processes: when a channel is idle.
//!
//! One trait, [`Process`], and one file per process: i.i.d. slots ([`Iid`], the papers'
//! setting), a two-state Markov chain ([`Markov`], Gilbert–Elliott), primary-user on/off
//! traffic with general holding times ([`OnOff`]), a measured trace replayed ([`Trace`]) and
//! i.i.d. slots whose θ changes at given slots ([`Piecewise`]).
//!
//! What the slot loop needs from a process: the state of the channel at an instant (slot `t`
//! plus an offset inside the slot, asked in increasing time order by one player), its long-run
//! idle probability for the benchmark, and a description for `validate`. Every process is lazy
//! and exact: it advances only when asked, so a channel nobody probes costs nothing, and its
//! path depends only on its keys (see [`crate::util::crn`]), never on who asks or when.

#[macro_use]
mod registry_macro;

#[cfg(test)]
pub(crate) use iid::Iid;
pub use markov::set_certification_band;
pub(crate) use trace::TraceFiles;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::Path;

// The registry of occupancy processes: one line per file, naming each process as scenarios
// write it and the type of its scenario entry (a [`ProcessSpec`]). From it come the
// `OccupancySpec` a scenario names, the checked `Occupancy` with its path state, and their
// dispatch. A new process is its file plus its line here.
occupancy_processes! {
    iid::{Iid(IidSpec)},
    markov::{Markov(MarkovSpec)},
    on_off::{OnOff(OnOffSpec)},
    lopez_benitez::{LopezBenitez(LopezBenitezSpec)},
    trace::{Trace(TraceSpec)},
    piecewise::{Piecewise(PiecewiseSpec)},
}

/// Long-run properties shown by `validate` and in reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct ProcessStats {
    /// Long-run fraction of time idle (θ).
    pub theta: f64,
    /// Mean length of an idle period, in slots (`None` where undefined).
    pub mean_idle: Option<f64>,
    /// Mean length of a busy period, in slots.
    pub mean_busy: Option<f64>,
    /// Lag-1 autocorrelation of the slot-sampled state (`None` where no closed form exists).
    pub autocorrelation: Option<f64>,
}

/// An occupancy process.
pub(crate) trait Process {
    /// What one player's path keeps between queries (reset for every run).
    type State: Clone + std::fmt::Debug;

    /// The path state at the start of a run whose occupancy key is `key`.
    fn start(&self, key: u64) -> Self::State;

    /// Whether the channel is idle in slot `slot` (from 1) at `offset` ∈ [0, 1) into the slot.
    /// One player asks in increasing (slot, offset) order.
    fn idle(&self, state: &mut Self::State, slot: u64, offset: f64) -> bool;

    /// After an [`Process::idle`] query in slot `slot` that found the channel idle, the offset
    /// into that slot (in slots: 1 is the slot's end) at which the idle period ends, i.e. when
    /// the primary user returns. Processes that hold their state for a whole slot (i.i.d.,
    /// Markov, traces, piecewise) never return inside it: infinity.
    fn idle_until(&self, _state: &Self::State, _slot: u64) -> f64 {
        f64::INFINITY
    }

    /// The idle probability at slot `slot` (what an oracle that knows the current segment
    /// uses); the long-run θ for every process but [`Piecewise`].
    fn theta_at(&self, slot: u64) -> f64;

    /// Long-run properties over a horizon of `horizon` slots.
    fn stats(&self, horizon: u64) -> ProcessStats;

    /// The process in scenario syntax.
    fn describe(&self) -> String;

    /// Slots after which the idle probability changes, in increasing order (a piecewise
    /// process's segment ends; none for a stationary one).
    fn boundaries(&self) -> Vec<u64> {
        Vec::new()
    }

    /// Whether the benchmark follows the process's segments (a dynamic oracle) rather than its
    /// long-run θ.
    fn is_dynamic(&self) -> bool {
        false
    }

    /// Whether slots are independent draws of one θ: the papers' setting, where their theorems
    /// hold.
    fn is_iid(&self) -> bool {
        false
    }

    /// How many slots the process can replay, if it is finite (a trace that does not wrap).
    fn slots(&self) -> Option<u64> {
        None
    }

    /// A hash of what the description leaves out but the path depends on (a trace's
    /// contents), for the fingerprints that tell shards of different scenarios apart.
    fn content_hash(&self) -> Option<u64> {
        None
    }

    /// Memory the process shares with every copy of it (a trace's bits): an identity that
    /// is the same for every copy, and its bytes, so that an estimate counts it once.
    fn shared_memory(&self) -> Option<(usize, u64)> {
        None
    }

    /// What `validate` should say about how the process was read (a trace's header row).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }

    /// The same primary user as a user sees it for whom the channel is idle a fraction `theta`
    /// of the time (per-user means, `user_theta`): the process on the same keys, so that the
    /// users' paths are as positively correlated as their means allow; `Err(why)` where the
    /// process has no such form (the default: the process fixes its own idle fraction).
    fn seen_idle(&self, theta: f64) -> Result<Self, String>
    where
        Self: Sized,
    {
        let _ = theta;
        Err("its idle fraction is fixed by its own parameters".to_string())
    }
}

/// A step of the path from a channel's `occupancy` field to a broken parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// A named parameter.
    Field(&'static str),
    /// An entry of a list.
    Index(usize),
}

/// A parameter of a process that breaks its rule: where (relative to the process) and the rule.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SpecProblem {
    /// The path to the parameter; empty for the process as a whole.
    pub(crate) at: Vec<Step>,
    /// The rule it breaks, with the value.
    pub(crate) rule: String,
}

impl SpecProblem {
    /// A broken rule at `at`.
    pub(crate) fn at(at: &[Step], rule: impl Into<String>) -> SpecProblem {
        SpecProblem {
            at: at.to_vec(),
            rule: rule.into(),
        }
    }
}

/// What checking a process's parameters may need besides them.
pub(crate) struct SpecContext<'a> {
    /// Slots per run (a trace must be at least this long unless it wraps).
    pub(crate) horizon: u64,
    /// The scenario file's folder, for relative paths.
    pub(crate) base: &'a Path,
    /// Trace files read so far (each read once however many channels use it).
    pub(crate) traces: &'a mut TraceFiles,
}

/// The scenario entry of an occupancy process: its parameters as a scenario writes them,
/// checked into the process.
///
/// A new process is one file that defines the process (a [`Process`]) and its entry (a type
/// implementing this trait), plus one line in the registry (`occupancy/registry.rs`): the
/// scenario schema (RON and JSON), the checks and the slot loop's dispatch come from there.
pub(crate) trait ProcessSpec:
    Clone + std::fmt::Debug + PartialEq + Serialize + DeserializeOwned
{
    /// The process it builds.
    type Process: Process + Clone + std::fmt::Debug;

    /// Checks every parameter; all broken rules at once.
    fn check(&self, cx: &mut SpecContext<'_>) -> Result<Self::Process, Vec<SpecProblem>>;
}

/// `value` is a probability.
pub(crate) fn probability(value: f64) -> bool {
    value.is_finite() && (0.0..=1.0).contains(&value)
}

/// Stats of a process with known mean idle and busy periods (autocorrelation unknown).
fn period_stats(theta: f64, mean_idle: f64, mean_busy: f64) -> ProcessStats {
    ProcessStats {
        theta,
        mean_idle: Some(mean_idle),
        mean_busy: Some(mean_busy),
        autocorrelation: None,
    }
}
