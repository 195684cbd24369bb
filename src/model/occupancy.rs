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

mod iid;
mod markov;
mod on_off;
mod piecewise;
mod trace;

pub(crate) use iid::Iid;
pub(crate) use markov::Markov;
pub(crate) use markov::MarkovState;
pub(crate) use on_off::OnOff;
pub(crate) use on_off::OnOffState;
pub(crate) use piecewise::Piecewise;
pub(crate) use piecewise::PiecewiseState;
pub(crate) use piecewise::Segment;
pub(crate) use trace::Trace;
pub(crate) use trace::TraceFile;

use serde::{Deserialize, Serialize};

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

    /// The idle probability at slot `slot` (what an oracle that knows the current segment
    /// uses); the long-run θ for every process but [`Piecewise`].
    fn theta_at(&self, slot: u64) -> f64;

    /// Long-run properties over a horizon of `horizon` slots.
    fn stats(&self, horizon: u64) -> ProcessStats;

    /// The process in scenario syntax.
    fn describe(&self) -> String;
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

/// A checked occupancy process of any kind.
#[derive(Clone, Debug)]
pub(crate) enum Occupancy {
    /// Idle with probability θ in every slot, independently.
    Iid(Iid),
    /// Two-state Markov chain.
    Markov(Markov),
    /// Alternating idle and busy periods.
    OnOff(OnOff),
    /// A measured trace.
    Trace(Trace),
    /// i.i.d. segments.
    Piecewise(Piecewise),
}

/// The path state of any process.
#[derive(Clone, Debug)]
pub(crate) enum OccupancyState {
    /// The occupancy key.
    Iid(u64),
    /// Markov chain.
    Markov(MarkovState),
    /// On/off periods.
    OnOff(OnOffState),
    /// Trace (stateless).
    Trace,
    /// Piecewise.
    Piecewise(PiecewiseState),
}

impl Occupancy {
    /// The state at the start of a run.
    pub(crate) fn start(&self, key: u64) -> OccupancyState {
        match self {
            Occupancy::Iid(p) => OccupancyState::Iid(p.start(key)),
            Occupancy::Markov(p) => OccupancyState::Markov(p.start(key)),
            Occupancy::OnOff(p) => OccupancyState::OnOff(p.start(key)),
            Occupancy::Trace(p) => {
                p.start(key);
                OccupancyState::Trace
            }
            Occupancy::Piecewise(p) => OccupancyState::Piecewise(p.start(key)),
        }
    }

    /// Whether the channel is idle at (slot, offset); `state` must come from this process.
    #[inline]
    pub(crate) fn idle(&self, state: &mut OccupancyState, slot: u64, offset: f64) -> bool {
        match (self, state) {
            (Occupancy::Iid(p), OccupancyState::Iid(s)) => p.idle(s, slot, offset),
            (Occupancy::Markov(p), OccupancyState::Markov(s)) => p.idle(s, slot, offset),
            (Occupancy::OnOff(p), OccupancyState::OnOff(s)) => p.idle(s, slot, offset),
            (Occupancy::Trace(p), OccupancyState::Trace) => p.idle(&mut (), slot, offset),
            (Occupancy::Piecewise(p), OccupancyState::Piecewise(s)) => p.idle(s, slot, offset),
            _ => unreachable!("a path state always comes from its own process"),
        }
    }

    /// See [`Process::theta_at`].
    pub(crate) fn theta_at(&self, slot: u64) -> f64 {
        match self {
            Occupancy::Iid(p) => p.theta_at(slot),
            Occupancy::Markov(p) => p.theta_at(slot),
            Occupancy::OnOff(p) => p.theta_at(slot),
            Occupancy::Trace(p) => p.theta_at(slot),
            Occupancy::Piecewise(p) => p.theta_at(slot),
        }
    }

    /// See [`Process::stats`].
    pub(crate) fn stats(&self, horizon: u64) -> ProcessStats {
        match self {
            Occupancy::Iid(p) => p.stats(horizon),
            Occupancy::Markov(p) => p.stats(horizon),
            Occupancy::OnOff(p) => p.stats(horizon),
            Occupancy::Trace(p) => p.stats(horizon),
            Occupancy::Piecewise(p) => p.stats(horizon),
        }
    }

    /// See [`Process::describe`].
    pub(crate) fn describe(&self) -> String {
        match self {
            Occupancy::Iid(p) => p.describe(),
            Occupancy::Markov(p) => p.describe(),
            Occupancy::OnOff(p) => p.describe(),
            Occupancy::Trace(p) => p.describe(),
            Occupancy::Piecewise(p) => p.describe(),
        }
    }

    /// Slots after which the idle probability changes (Piecewise only), in increasing order.
    pub(crate) fn boundaries(&self) -> Vec<u64> {
        match self {
            Occupancy::Piecewise(p) => p.boundaries(),
            _ => Vec::new(),
        }
    }
}
