//! Channels and the environment a policy probes.
//!
//! A channel has an occupancy process ([`crate::model::occupancy`]: i.i.d. as in the papers, Markov,
//! on/off traffic, a trace, piecewise), a cost model and sensing error rates. The environment
//! adds what every slot needs precomputed: the channels' long-run θ, their mean costs, the
//! probabilities that a probe succeeds and that the cascade stops there, the slot duration
//! that limits how many probes fit, and the **benchmark** regret is measured against:
//! - the *stationary oracle*: the optimal list for each channel's long-run θ and sensing rates,
//!   what a user who knows the long-run statistics would do;
//! - the *dynamic oracle*, when some channel is piecewise-stationary: the optimal list for the
//!   current segment's θ, changing at every segment boundary (dynamic regret).

use crate::model::cost::CostModel;
use crate::model::occupancy::{Occupancy, OccupancyState};
use crate::model::sensing::Sensing;
use crate::model::theory::{Bounds, Optimum, expected_reward_sensed};
use crate::model::time_left::TimeLeft;
use crate::util::crn::{Purpose, RunKey};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Most entries a scenario's piecewise boundaries may create, counting each benchmark epoch
/// as its channels plus [`EPOCH_OVERHEAD`] (an epoch holds each channel's probabilities and
/// its optimal list, about 24 bytes a channel, plus a few allocations): this bounds that part
/// of the set-up to about 50 MB.
pub(crate) const MAX_EPOCH_ENTRIES: u64 = 1 << 21;

/// What one epoch costs beyond its channels, in channel entries (its allocations).
pub(crate) const EPOCH_OVERHEAD: u64 = 32;

/// The distinct slots before the horizon after which some channel's process changes (each
/// starts a benchmark epoch), in increasing order.
fn boundaries<'a>(occupancies: impl Iterator<Item = &'a Occupancy>, horizon: u64) -> Vec<u64> {
    let h = horizon.min(1 << 62);
    let mut boundaries: Vec<u64> = occupancies
        .flat_map(|o| o.boundaries())
        .filter(|&b| b < h)
        .collect();
    boundaries.sort_unstable();
    boundaries.dedup();
    boundaries
}

/// One checked channel.
#[derive(Clone, Debug)]
pub(crate) struct Channel {
    occupancy: Occupancy,
    cost: CostModel,
    sensing: Sensing,
}

impl Channel {
    /// An i.i.d. channel idle with probability `theta` (checked to lie in [0, 1] by the
    /// caller), sensed perfectly: the papers' setting.
    #[cfg(test)]
    pub(crate) fn new(theta: f64, cost: CostModel) -> Channel {
        Channel::with(
            Occupancy::Iid(crate::model::occupancy::Iid::new(theta)),
            cost,
            Sensing::default(),
        )
    }

    /// A channel with any occupancy process and sensing.
    pub(crate) fn with(occupancy: Occupancy, cost: CostModel, sensing: Sensing) -> Channel {
        Channel {
            occupancy,
            cost,
            sensing,
        }
    }

    /// The occupancy process.
    pub(crate) fn occupancy(&self) -> &Occupancy {
        &self.occupancy
    }

    /// The cost model.
    pub(crate) fn cost(&self) -> &CostModel {
        &self.cost
    }

    /// The sensing error rates.
    pub(crate) fn sensing(&self) -> &Sensing {
        &self.sensing
    }
}

/// What regret is measured against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BenchmarkKind {
    /// The optimal list for the long-run θ.
    StationaryOracle,
    /// The optimal list for the current segment's θ.
    DynamicOracle,
}

impl BenchmarkKind {
    /// As the report says it.
    pub fn describe(self) -> &'static str {
        match self {
            BenchmarkKind::StationaryOracle => {
                "stationary oracle (the optimal list for each channel's long-run θ and sensing)"
            }
            BenchmarkKind::DynamicOracle => {
                "dynamic oracle (the optimal list for the current segment's θ: dynamic regret)"
            }
        }
    }
}

/// The benchmark over an interval of slots.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Epoch {
    /// First slot.
    pub first: u64,
    /// Last slot (`u64::MAX` for the last epoch).
    pub last: u64,
    /// Per channel, P(idle and sensed idle).
    pub success: Vec<f64>,
    /// Per channel, P(sensed idle).
    pub stop: Vec<f64>,
    /// The optimal list and its expected reward.
    pub optimum: Optimum,
}

impl Epoch {
    /// Moves `epoch` forward to the epoch that holds slot `t` (slots only move forward);
    /// whether it moved (the one test a slot pays while it stays in the same epoch).
    #[inline(always)]
    pub(crate) fn advance(epochs: &[Epoch], epoch: &mut usize, t: u64) -> bool {
        if t <= epochs[*epoch].last {
            return false;
        }
        while t > epochs[*epoch].last {
            *epoch += 1;
        }
        true
    }
}

/// The channels of one experiment, with the quantities every slot needs precomputed.
#[derive(Clone, Debug)]
pub struct Environment {
    /// Shared, not copied, when an environment is cloned (an override or an estimate works on
    /// a copy of the scenario, and a scenario may declare 2¹⁸ channels).
    channels: Arc<Vec<Channel>>,
    slot_duration: Option<f64>,
    horizon: u64,
    theta: Vec<f64>,
    mean_cost: Vec<f64>,
    kind: BenchmarkKind,
    epochs: Vec<Epoch>,
    /// `reward: TimeLeft`, with the channels' mean delays; `None` for the unit reward.
    time_left: Option<Arc<TimeLeft>>,
}

impl Environment {
    /// The smallest and largest cost a probe of any channel can have (the cost laws'
    /// supports): the bandit cost the slot's net reward counts (see
    /// [`Environment::observed_cost_range`] for what a learner observes).
    pub fn cost_range(&self) -> (f64, f64) {
        self.channels
            .iter()
            .map(|c| c.cost().support())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (a, b)| {
                (lo.min(a), hi.max(b))
            })
    }

    /// The smallest and largest cost a learner observes for a probe, as the engine's policies
    /// and the training environments' observations see it: the cost laws' supports, and under
    /// `reward: TimeLeft` the price of the time the probe uses (`rate · delay / T`) added,
    /// bounded by the delay laws' supports.
    pub fn observed_cost_range(&self) -> (f64, f64) {
        let Some(tl) = self.time_left() else {
            return self.cost_range();
        };
        let mut range = (f64::INFINITY, f64::NEG_INFINITY);
        for c in self.channels.iter() {
            let ((clo, chi), (dlo, dhi)) = (c.cost().support(), c.cost().delay_support());
            // The observed cost is affine in the cost and the delay: its extremes are at the
            // corners.
            for (cost, delay) in [(clo, dlo), (clo, dhi), (chi, dlo), (chi, dhi)] {
                let y = tl.observed_cost(cost, delay);
                range = (range.0.min(y), range.1.max(y));
            }
        }
        range
    }

    /// The environment of `channels` with no slot duration, for any horizon.
    #[cfg(test)]
    pub(crate) fn new(channels: Vec<Channel>) -> Environment {
        Environment::with(channels, None, u64::MAX)
    }

    /// The environment with a slot duration (in delay units: probes that would start after it
    /// are not made) for runs of `horizon` slots (long-run θ of traces and piecewise channels
    /// are averages over it).
    pub(crate) fn with(
        channels: Vec<Channel>,
        slot_duration: Option<f64>,
        horizon: u64,
    ) -> Environment {
        let mean_cost = channels.iter().map(|c| c.cost.mean()).collect();
        let mut env = Environment {
            channels: Arc::new(channels),
            slot_duration,
            horizon,
            theta: Vec::new(),
            mean_cost,
            kind: BenchmarkKind::StationaryOracle,
            epochs: Vec::new(),
            time_left: None,
        };
        env.set_horizon(horizon);
        env
    }

    /// The same channels with the reward by the time left in the slot: its benchmark is the
    /// optimal sensing order of [`TimeLeft::optimum`].
    pub(crate) fn with_time_left(mut self, tl: TimeLeft) -> Environment {
        let delays = self.channels.iter().map(|c| c.cost.mean_delay()).collect();
        self.time_left = Some(Arc::new(tl.with_delays(delays)));
        self.set_horizon(self.horizon);
        self
    }

    /// The reward by the time left in the slot, if the scenario asks for it.
    pub(crate) fn time_left(&self) -> Option<&TimeLeft> {
        self.time_left.as_deref()
    }

    /// `env` with this environment's reward rule (channel `i` of `env` is `to[i]` here).
    fn keeping_reward(&self, env: Environment, to: Option<&[usize]>) -> Environment {
        match (&self.time_left, to) {
            (None, _) => env,
            (Some(tl), None) => env.with_time_left((**tl).clone()),
            (Some(tl), Some(to)) => env.with_time_left(tl.relabelled(to)),
        }
    }

    /// The same channels under new labels: channel `i` of the result is channel `to[i]` here
    /// (a permutation), so that a policy built on it knows each channel's parameters under
    /// the labels it sees.
    pub(crate) fn relabelled(&self, to: &[usize]) -> Environment {
        let channels = to.iter().map(|&c| self.channels[c].clone()).collect();
        self.keeping_reward(
            Environment::with(channels, self.slot_duration, self.horizon),
            Some(to),
        )
    }

    /// The same channels as one user sees them under per-user means: channel `i` idle a
    /// fraction `theta[i]` of the time on the primary user's shared draws
    /// ([`crate::model::occupancy::Process::seen_idle`]), costs and sensing unchanged; the
    /// first channel whose process has no such form, with why.
    pub(crate) fn with_idle(&self, theta: &[f64]) -> Result<Environment, (usize, String)> {
        let mut channels = Vec::with_capacity(self.channels.len());
        for (i, (c, &t)) in self.channels.iter().zip(theta).enumerate() {
            let occupancy = c.occupancy.seen_idle(t).map_err(|why| (i, why))?;
            channels.push(Channel::with(occupancy, c.cost.clone(), c.sensing.clone()));
        }
        Ok(self.keeping_reward(
            Environment::with(channels, self.slot_duration, self.horizon),
            None,
        ))
    }

    /// Entries (epochs × (channels + overhead)) of the benchmark's epochs for `occupancies` over
    /// `horizon`: every distinct piecewise boundary before the horizon starts an epoch holding
    /// each channel's probabilities, so this is what the set-up will hold, counted without
    /// building it (see [`MAX_EPOCH_ENTRIES`]).
    pub(crate) fn epoch_entries<'a>(
        occupancies: impl Iterator<Item = &'a Occupancy>,
        channels: u64,
        horizon: u64,
    ) -> u64 {
        Environment::epoch_count(occupancies, horizon)
            .saturating_mul(channels.saturating_add(EPOCH_OVERHEAD))
    }

    /// Epochs of the benchmark for `occupancies` over `horizon` (one, plus one per distinct
    /// piecewise boundary before the horizon), counted without building them.
    pub(crate) fn epoch_count<'a>(
        occupancies: impl Iterator<Item = &'a Occupancy>,
        horizon: u64,
    ) -> u64 {
        boundaries(occupancies, horizon).len() as u64 + 1
    }

    /// Recomputes what depends on the horizon (an override changed it).
    pub(crate) fn set_horizon(&mut self, horizon: u64) {
        self.horizon = horizon;
        let h = horizon.min(1 << 62);
        self.theta = self
            .channels
            .iter()
            .map(|c| c.occupancy.stats(h).theta)
            .collect();
        let boundaries = boundaries(self.channels.iter().map(|c| &c.occupancy), horizon);
        let dynamic = self.channels.iter().any(|c| c.occupancy.is_dynamic());
        self.kind = if dynamic {
            BenchmarkKind::DynamicOracle
        } else {
            BenchmarkKind::StationaryOracle
        };
        let mut epochs = Vec::new();
        let mut first = 1;
        for last in boundaries.into_iter().chain([u64::MAX]) {
            let theta: Vec<f64> = if dynamic {
                self.channels
                    .iter()
                    .map(|c| c.occupancy.theta_at(first))
                    .collect()
            } else {
                self.theta.clone()
            };
            let success: Vec<f64> = self
                .channels
                .iter()
                .zip(&theta)
                .map(|(c, &t)| c.sensing.success_probability(t))
                .collect();
            let stop: Vec<f64> = self
                .channels
                .iter()
                .zip(&theta)
                .map(|(c, &t)| c.sensing.stop_probability(t))
                .collect();
            let optimum = match &self.time_left {
                None => Optimum::sensed(&success, &stop, &self.mean_cost),
                Some(tl) => {
                    let (list, expected_reward) =
                        tl.optimum(&success, &stop, &self.mean_cost, tl.delays());
                    Optimum {
                        list,
                        expected_reward,
                    }
                }
            };
            epochs.push(Epoch {
                first,
                last,
                success,
                stop,
                optimum,
            });
            first = last.saturating_add(1);
        }
        self.epochs = epochs;
    }

    /// Number of channels, K.
    pub fn len(&self) -> usize {
        self.channels.len()
    }

    /// Whether there are no channels (never true for a validated scenario).
    pub fn is_empty(&self) -> bool {
        self.channels.is_empty()
    }

    /// The channels.
    pub(crate) fn channels(&self) -> &[Channel] {
        &self.channels
    }

    /// Long-run idle probabilities θ (over the horizon for traces and piecewise channels).
    pub fn theta(&self) -> &[f64] {
        &self.theta
    }

    /// Exact mean bandit costs c.
    pub fn mean_cost(&self) -> &[f64] {
        &self.mean_cost
    }

    /// The slot duration in delay units, if the scenario sets one.
    pub fn slot_duration(&self) -> Option<f64> {
        self.slot_duration
    }

    /// The horizon the long-run quantities are computed for.
    pub fn horizon(&self) -> u64 {
        self.horizon
    }

    /// What regret is measured against.
    pub fn benchmark(&self) -> BenchmarkKind {
        self.kind
    }

    /// The benchmark's epochs: one for the stationary oracle, one per segment otherwise.
    pub(crate) fn epochs(&self) -> &[Epoch] {
        &self.epochs
    }

    /// The benchmark's optimum at the first slot (the only one for the stationary oracle).
    pub fn optimum(&self) -> &Optimum {
        &self.epochs[0].optimum
    }

    /// Whether every channel is i.i.d. and sensed perfectly with no slot duration: the
    /// papers' setting, where their theorems apply.
    pub(crate) fn is_papers_setting(&self) -> bool {
        self.slot_duration.is_none()
            && self
                .channels
                .iter()
                .all(|c| c.occupancy.is_iid() && c.sensing.is_perfect())
    }

    /// Whether any channel's sensing errs.
    pub(crate) fn senses_imperfectly(&self) -> bool {
        self.channels.iter().any(|c| !c.sensing.is_perfect())
    }

    /// Exact expected net reward of a list in epoch `e` (see
    /// [`expected_reward_sensed`]): in the papers' setting,
    /// `Σ (θ_i − c_i) Π_{j before i} (1 − θ_j)`.
    #[inline]
    pub(crate) fn expected_reward_in(&self, e: usize, list: &[usize]) -> f64 {
        let epoch = &self.epochs[e];
        expected_reward_sensed(list, &epoch.success, &epoch.stop, &self.mean_cost)
    }

    /// Theorems 2 (CC-UCB with exploration `alpha`) and 3 at `horizon`: they hold in the
    /// papers' setting only, and say why not elsewhere.
    pub(crate) fn bounds(&self, alpha: f64, horizon: u64) -> Bounds {
        if self.is_papers_setting() {
            Bounds::of(self.theta(), self.mean_cost(), alpha, horizon)
        } else {
            Bounds::not_applicable(
                "the theorems assume i.i.d. channels sensed perfectly with no slot duration".into(),
            )
        }
    }

    /// Exact expected net reward of a list at the first slot.
    pub fn expected_reward(&self, list: &[usize]) -> f64 {
        self.expected_reward_in(0, list)
    }

    /// Restarts `states` at the start of each channel's occupancy path keyed by `occupancy`
    /// (one key per channel).
    pub(crate) fn start_paths(&self, occupancy: &[u64], states: &mut Vec<OccupancyState>) {
        states.clear();
        let channels = self.channels.iter().zip(occupancy);
        states.extend(channels.map(|(ch, &key)| ch.occupancy.start(key)));
    }
}

/// One channel's keys in one run: what its occupancy path, costs and sensing draw from (see
/// [`crate::util::crn`]). Kept together, one channel's in one place: a probe reads two of them,
/// and N copies of a world hold theirs in one array.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct ChannelKeys {
    pub(crate) occupancy: u64,
    pub(crate) cost: u64,
    pub(crate) delay: u64,
    pub(crate) sensing: u64,
}

impl ChannelKeys {
    /// Channel `i`'s keys in run `key`.
    #[inline]
    pub(crate) fn of(key: RunKey, i: usize) -> ChannelKeys {
        ChannelKeys {
            occupancy: key.channel(i, Purpose::Occupancy),
            cost: key.channel(i, Purpose::Cost),
            delay: key.channel(i, Purpose::Delay),
            sensing: key.channel(i, Purpose::Sensing),
        }
    }
}

/// The channels' sample paths in one run: each channel's keys, and the occupancy path state of
/// each player that probes them, the policy and the benchmark (a process advances only when
/// asked, so each player keeps its own position on the same path). Reset (not reallocated) for
/// every run.
#[derive(Clone, Debug, Default)]
pub(crate) struct Paths {
    /// What each channel draws from.
    pub(crate) keys: Vec<ChannelKeys>,
    /// The policy's position on each channel's occupancy path.
    pub(crate) occupancy: Vec<OccupancyState>,
    /// The benchmark's position on each channel's occupancy path.
    pub(crate) benchmark: Vec<OccupancyState>,
}

impl Paths {
    /// The paths of run `key` of an environment.
    #[cfg(test)]
    pub(crate) fn new(env: &Environment, key: RunKey) -> Paths {
        let mut p = Paths::default();
        p.reset(env, key);
        p
    }

    /// Restarts every path for run `key`, for a second user of the same spectrum: its own
    /// cost, delay and sensing draws from `key`, the primary user's occupancy paths those of
    /// `shared` (every user sees the same primary user).
    pub(crate) fn reset_sharing(&mut self, env: &Environment, key: RunKey, shared: &[u64]) {
        self.reset(env, key);
        for (k, &occupancy) in self.keys.iter_mut().zip(shared) {
            k.occupancy = occupancy;
        }
        env.start_paths(shared, &mut self.occupancy);
        env.start_paths(shared, &mut self.benchmark);
    }

    /// Each channel's occupancy key (what a second user's paths share: [`Paths::reset_sharing`]).
    pub(crate) fn occupancy_keys(&self) -> Vec<u64> {
        self.keys.iter().map(|k| k.occupancy).collect()
    }

    /// Restarts every path for run `key`.
    pub(crate) fn reset(&mut self, env: &Environment, key: RunKey) {
        self.keys.clear();
        self.occupancy.clear();
        self.benchmark.clear();
        for (i, ch) in env.channels.iter().enumerate() {
            let keys = ChannelKeys::of(key, i);
            self.keys.push(keys);
            self.occupancy.push(ch.occupancy.start(keys.occupancy));
            self.benchmark.push(ch.occupancy.start(keys.occupancy));
        }
    }

    /// A view of these paths (what a slot reads and advances).
    #[inline]
    pub(crate) fn view(&mut self) -> PathsMut<'_> {
        PathsMut {
            keys: &self.keys,
            occupancy: &mut self.occupancy,
            benchmark: &mut self.benchmark,
        }
    }
}

/// One run's paths as a slot reads them: [`Paths`]' own, or one copy's rows of the arrays that
/// N copies of a world share.
pub(crate) struct PathsMut<'a> {
    pub(crate) keys: &'a [ChannelKeys],
    pub(crate) occupancy: &'a mut [OccupancyState],
    pub(crate) benchmark: &'a mut [OccupancyState],
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scenario may declare a million copies of one channel (`count`): a copy must stay
    /// small (it was 600 bytes before the rare laws were shared) and allocate nothing.
    #[test]
    fn a_channel_copy_is_small() {
        assert!(
            std::mem::size_of::<Channel>() <= 256,
            "{}",
            std::mem::size_of::<Channel>()
        );
    }
}
