//! The per-channel indices the multi-player policies rank channels by: UCB1 and kl-UCB on the
//! samples a user (or the coordinator) has of each channel.
//!
//! UCB1: `μ̂ + sqrt(2 ln t / N)` (Auer et al. 2002, as SMPyBandits' `UCB`); kl-UCB:
//! `max{q : N · kl(μ̂, q) ≤ ln t}` (Garivier & Cappé 2011 with c = 1 and no `ln ln t` term,
//! the index Besson & Kaufmann's experiments use). A channel never sampled has index +∞.
//!
//! The policies only compare indices (is my channel among my M best? which channel has rank
//! r?), and a user samples one channel per slot, so computing every index every slot (a root
//! search each, for kl-UCB) is mostly wasted. Each channel whose samples have not changed
//! since the start of the current *epoch* of slots `[t₀, t₁]` (t₁ = t₀ + ⌊t₀/32⌋) keeps an
//! interval that holds its index over the whole epoch: the index is nondecreasing in `ln t`,
//! so its values at `t₀` and `t₁` bracket it (for kl-UCB, whose root is found to a relative
//! 1e-12, widened by a relative 1e-9). A channel sampled during the epoch has, for kl-UCB,
//! cheap bounds of the slot instead (the χ² lower bound and the Pinsker/χ² upper bound, no
//! root search), and for UCB1 its exact index. A comparison decided by the intervals needs
//! no index. An undecided kl-UCB comparison tries one-step bounds of the slot next (a Newton
//! step and a secant from the upper bound: one evaluation of the divergence); only what is
//! still undecided computes exact indices of the slot (cached for the slot). Every answer is
//! the one the full computation gives, which the tests check against it.

use crate::model::theory::{
    kl_root_slack, kl_upper_bound, kl_upper_one_step, kl_widen_down, kl_widen_up,
};
pub(crate) use crate::policy::IndexKind;
use crate::policy::{Clock, Convention, Reward, Rules, Ties, log_clock};
use crate::util::ranking::Ranked;
use crate::util::rng::SimRng;
use rand::Rng;
use serde::{Deserialize, Serialize};

// The lazy comparisons' bounds on an index (inherent methods of the policy layer's
// `IndexKind`, private to this module).
impl IndexKind {
    /// Bounds on the index at every clock of `[first, last]` (samples unchanged).
    fn bounds(self, n: u64, s: f64, first: u64, last: u64) -> (f64, f64) {
        let (lo, hi) = (self.value(n, s, first), self.value(n, s, last));
        if n == 0 {
            return (lo, hi);
        }
        match self {
            // Every operation is monotone under round-to-nearest: the values at the ends
            // bracket the computed index exactly.
            IndexKind::Ucb | IndexKind::UcbH => (lo, hi),
            IndexKind::KlUcb => {
                // Each end's rounding, at the larger level (the last clock's).
                let p = s / n as f64;
                let level = log_clock(last) / n as f64;
                let slack = 2.0 * kl_root_slack(p, level, lo, hi);
                (kl_widen_down(lo, slack), kl_widen_up(hi, slack))
            }
        }
    }
}

impl IndexKind {
    /// Bounds on the index at slot `t` without computing it, where that is much cheaper
    /// (kl-UCB: no root search); `None` for UCB1, whose index is as cheap as its bounds.
    ///
    /// The upper bound is [`kl_upper_bound`], which the root search starts below and never
    /// leaves. The lower bound comes from `kl(p, q) ≤ (q − p)²/(q(1 − q))` (the χ² bound): at
    /// the root `ℓ = ln t / N = kl(p, q)`, so `(1 + ℓ)q² − (2p + ℓ)q + p² ≥ 0` with `q ≥ p`,
    /// i.e. `q` is at least that quadratic's larger root; widened ([`kl_widen_down`]), as the
    /// epoch bounds are, for the root's tolerance and rounding, and never below `p` (the root
    /// search never returns less).
    fn cheap_bounds(self, n: u64, s: f64, log_t: f64) -> Option<(f64, f64)> {
        if self != IndexKind::KlUcb || n == 0 {
            return None;
        }
        let n = n as f64;
        let p = s / n;
        let hi = kl_upper_bound(p, n, log_t);
        let level = log_t / n;
        let root = (2.0 * p + level + (level * (level + 4.0 * p * (1.0 - p))).sqrt())
            / (2.0 * (1.0 + level));
        let slack = kl_root_slack(p, level, root, hi);
        let lo = kl_widen_down(root, slack).max(p);
        Some((lo.min(hi), hi))
    }
}

impl IndexKind {
    /// Tighter bounds on the index than [`IndexKind::cheap_bounds`], for one step of a root
    /// search (kl-UCB: one evaluation of the divergence, [`kl_upper_one_step`]),
    /// widened for rounding and the root's tolerance; `None` for UCB1,
    /// for a channel never sampled, and where the one-step bounds do not apply. `bound` is the
    /// channel's [`kl_upper_bound`] at this slot when the caller has it.
    fn step_bounds(self, n: u64, s: f64, log_t: f64, bound: Option<f64>) -> Option<(f64, f64)> {
        if self != IndexKind::KlUcb || n == 0 {
            return None;
        }
        let n = n as f64;
        let p = s / n;
        let bound = bound.unwrap_or_else(|| kl_upper_bound(p, n, log_t));
        kl_upper_one_step(p, n, log_t, bound)
    }
}

/// Up to this many best channels, [`Indices::top`] picks them by lazy comparisons (m·K of
/// them); beyond, it computes every index and selects.
const SELECT_BY_COMPARISON: usize = 16;

/// `(index: Ucb)` or `(index: KlUcb)`, with the definitions it follows
/// (`convention: SMPyBandits`, `time: Samples`, `ties: Random`; see [`crate::policy::Rules`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct IndexSpec {
    /// The index (default kl-UCB).
    #[serde(default)]
    pub index: IndexKind,
    /// Whose definitions the policy follows (default specprobe's).
    #[serde(default, skip_serializing_if = "Convention::is_default")]
    pub convention: Convention,
    /// The `t` of `ln t`, overriding the convention's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<Clock>,
    /// How ties are broken, overriding the convention's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ties: Option<Ties>,
    /// What the index averages: the idle indicator (default, the multi-player bandit
    /// literature's reward) or the net reward `(X − Y + 1)/2`, as the single-user `Ucb1` and
    /// `KlUcb` can, for channels whose costs reorder them.
    #[serde(default = "Reward::idle", skip_serializing_if = "Reward::is_idle")]
    pub reward: Reward,
}

impl IndexSpec {
    /// Nanoseconds of one user's indices over `k` channels in one slot, measured with
    /// `specprobe run` (8 users, 256 channels, T = 4000, one thread): kl-UCB's 76 ns a channel
    /// (McTopM), UCB's 34 ns (rhoRand), rounded up.
    pub(crate) fn ns_per_slot(&self, k: u64) -> f64 {
        let per_channel = match self.index {
            IndexKind::Ucb | IndexKind::UcbH => 40.0,
            IndexKind::KlUcb => 90.0,
        };
        super::USER_SLOT_NS + per_channel * k as f64
    }
}

impl Default for IndexSpec {
    fn default() -> IndexSpec {
        IndexSpec {
            index: IndexKind::default(),
            convention: Convention::default(),
            time: None,
            ties: None,
            reward: Reward::Idle,
        }
    }
}

impl IndexSpec {
    /// The rules one user's index follows in a run of `horizon` slots. Ties default to
    /// `Random`, from the user's own stream, under either convention: users who break them
    /// alike (to the lower channel) can lock on one channel for a whole run (3 runs in 1 000
    /// at K = 6, M = 2; 23 at M = 4), which `ties: LowerChannel` still asks for.
    pub(crate) fn rules(&self, horizon: u64) -> Rules {
        self.rules_or(horizon, Ties::Random)
    }

    /// The rules with ties, where the scenario does not say, broken by `ties` under
    /// specprobe's convention (a single coordinator, who cannot lock against itself, keeps
    /// the lower channel: [`super::centralized`]) and by the convention's rule otherwise.
    pub(crate) fn rules_or(&self, horizon: u64, ties: Ties) -> Rules {
        let ties = match self.convention {
            Convention::Specprobe => Some(self.ties.unwrap_or(ties)),
            Convention::SMPyBandits => self.ties,
        };
        Rules::new(self.convention, self.time, ties).at_horizon(horizon)
    }

    /// The label suffix: the index, `-net` for the net reward, then `-smpy` under
    /// SMPyBandits' convention.
    pub(crate) fn label(&self) -> String {
        let net = if self.reward == Reward::Net {
            "-net"
        } else {
            ""
        };
        format!("{}{net}{}", self.index.label(), self.convention.suffix())
    }

    /// Whether the index sees the probing costs (`reward: Net`).
    pub(crate) fn sees_costs(&self) -> bool {
        self.reward == Reward::Net
    }

    /// The sample a slot gives a channel: the idle indicator `x` (acknowledged, under the
    /// many-users feedback), or the rescaled net reward `(x − cost + 1)/2`, in [0, 1] for
    /// costs in [0, 1]; a cost law reaching beyond is clipped into it there, so that the
    /// indices (kl-UCB's divergence above all) stay defined.
    #[inline]
    pub(crate) fn sample(&self, x: bool, cost: f64) -> f64 {
        let x = f64::from(u8::from(x));
        match self.reward {
            Reward::Idle => x,
            Reward::Net => (0.5 * (x - cost + 1.0)).clamp(0.0, 1.0),
        }
    }
}

/// Samples of each channel and their indices, compared lazily (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Indices {
    kind: IndexKind,
    rules: Rules,
    n: Vec<u64>,
    /// Each channel's sum of samples (each in [0, 1]).
    s: Vec<f64>,
    /// Samples of every channel.
    total: u64,
    /// Under `ties: Random`, the current slot's key of the order among equal indices (one draw
    /// at [`Indices::start`]; channel `i` ranks by [`Indices::prio`]); unused otherwise.
    salt: u64,
    /// The epoch's interval of each channel, and whether it holds: computed this epoch, and
    /// no sample since (`changed`).
    lo: Vec<f64>,
    hi: Vec<f64>,
    fresh: Vec<bool>,
    changed: Vec<bool>,
    /// The exact index of the current slot, when computed.
    exact: Vec<f64>,
    stamp: Vec<u64>,
    /// For a channel sampled this epoch: the slot whose cheap bounds `lo`/`hi` hold (0: none).
    bound_stamp: Vec<u64>,
    /// The slot whose one-step bounds `step_lo`/`step_hi` hold (0: none), for comparisons
    /// the coarser intervals leave undecided.
    step_stamp: Vec<u64>,
    step_lo: Vec<f64>,
    step_hi: Vec<f64>,
    /// Scratch of [`Indices::top`]: channels already picked.
    taken: Vec<bool>,
    /// The current slot (what the per-slot caches are stamped with).
    t: u64,
    /// The current clock (the slot, or the samples so far: [`Rules::clock`]), and its `ln`,
    /// computed once per slot.
    clock: u64,
    log_t: f64,
    /// The current epoch, in clock values.
    first: u64,
    last: u64,
}

impl Indices {
    /// `k` channels, nothing seen.
    pub(crate) fn new(k: usize, kind: IndexKind, rules: Rules) -> Indices {
        Indices {
            kind,
            rules,
            n: vec![0; k],
            s: vec![0.0; k],
            total: 0,
            salt: 0,
            lo: vec![0.0; k],
            hi: vec![0.0; k],
            fresh: vec![false; k],
            changed: vec![false; k],
            exact: vec![0.0; k],
            stamp: vec![0; k],
            bound_stamp: vec![0; k],
            step_stamp: vec![0; k],
            step_lo: vec![0.0; k],
            step_hi: vec![0.0; k],
            taken: Vec::with_capacity(k),
            t: 0,
            clock: 0,
            log_t: 0.0,
            first: 0,
            last: 0,
        }
    }

    /// Channels.
    pub(crate) fn len(&self) -> usize {
        self.n.len()
    }

    /// One sample of `channel`, `x` in [0, 1] (the idle indicator, or a rescaled net reward:
    /// [`IndexSpec::sample`]).
    #[inline]
    pub(crate) fn add(&mut self, channel: usize, x: f64) {
        self.n[channel] += 1;
        self.s[channel] += x;
        self.total += 1;
        self.changed[channel] = true;
        self.stamp[channel] = 0;
        self.bound_stamp[channel] = 0;
        self.step_stamp[channel] = 0;
    }

    /// The samples of `channel` (count, sum).
    pub(crate) fn samples(&self, channel: usize) -> (u64, f64) {
        (self.n[channel], self.s[channel])
    }

    /// The index kind.
    pub(crate) fn kind(&self) -> IndexKind {
        self.kind
    }

    /// The rules the index follows.
    pub(crate) fn rules(&self) -> Rules {
        self.rules
    }

    /// The current clock (the `t` of `ln t`).
    pub(crate) fn clock(&self) -> u64 {
        self.clock
    }

    /// Moves to slot `t` (nondecreasing); under `ties: Random`, draws the slot's order of
    /// equal indices from `rng` (one draw, whatever K), and draws nothing otherwise.
    pub(crate) fn start(&mut self, t: u64, rng: &mut SimRng) {
        let clock = self.rules.clock(t, self.total);
        if clock != self.clock {
            self.log_t = log_clock(clock);
        }
        self.t = t;
        self.clock = clock;
        if clock > self.last {
            self.first = clock;
            self.last = clock + clock / 32;
            self.fresh.iter_mut().for_each(|f| *f = false);
            self.changed.iter_mut().for_each(|c| *c = false);
        }
        if self.rules.ties == Ties::Random {
            self.salt = rng.next_u64();
        }
    }

    /// Channel `i`'s rank among equal indices this slot under `ties: Random` (smaller first):
    /// counter-based bits keyed by the slot's draw, so a uniform order of the tied channels
    /// costs one draw a slot and a hash only where two indices are equal, not K draws.
    #[inline]
    fn prio(&self, i: usize) -> u64 {
        crate::util::crn::bits(self.salt, i as u64)
    }

    /// The order of channels `i` and `j` when their indices are equal: whether `i` goes
    /// first (the lower channel, or under `ties: Random` the slot's random order).
    #[inline]
    fn first_among_equals(&self, i: usize, j: usize) -> bool {
        match self.rules.ties {
            Ties::LowerChannel => i < j,
            Ties::HigherChannel => i > j,
            Ties::Random => (self.prio(i), i) < (self.prio(j), j),
        }
    }

    /// Channel `i`'s exact index at the current slot.
    #[inline]
    pub(crate) fn value(&mut self, i: usize) -> f64 {
        // Under a fixed clock (`time: Horizon`) an index changes only with its samples, which
        // clear the stamp: one computed in an earlier slot still holds.
        let fixed = self.rules.clock == Clock::Horizon && self.stamp[i] != 0;
        if self.stamp[i] != self.t && !fixed {
            self.exact[i] = self.kind.value_log(self.n[i], self.s[i], self.log_t);
            self.stamp[i] = self.t;
        }
        self.exact[i]
    }

    #[inline]
    fn interval(&mut self, i: usize) -> (f64, f64) {
        if self.changed[i] {
            // Sampled this epoch: the exact index if known, else the slot's cheap bounds
            // (kl-UCB), else the exact index.
            if self.stamp[i] == self.t {
                let v = self.exact[i];
                return (v, v);
            }
            if self.bound_stamp[i] != self.t {
                match self.kind.cheap_bounds(self.n[i], self.s[i], self.log_t) {
                    Some((lo, hi)) => {
                        (self.lo[i], self.hi[i]) = (lo, hi);
                        self.bound_stamp[i] = self.t;
                    }
                    None => {
                        let v = self.value(i);
                        return (v, v);
                    }
                }
            }
            return (self.lo[i], self.hi[i]);
        }
        if !self.fresh[i] {
            (self.lo[i], self.hi[i]) = self
                .kind
                .bounds(self.n[i], self.s[i], self.first, self.last);
            self.fresh[i] = true;
        }
        (self.lo[i], self.hi[i])
    }

    /// Channel `i`'s interval narrowed by its one-step bounds at the current slot (kl-UCB).
    fn refined(&mut self, i: usize) -> (f64, f64) {
        if self.stamp[i] == self.t {
            let v = self.exact[i];
            return (v, v);
        }
        if self.step_stamp[i] != self.t {
            let (lo, hi) = self.interval(i);
            // A channel sampled this epoch holds its cheap bounds, whose upper one is the
            // Pinsker/χ² bound the step starts from.
            let bound = (self.changed[i] && self.bound_stamp[i] == self.t).then_some(hi);
            (self.step_lo[i], self.step_hi[i]) = self
                .kind
                .step_bounds(self.n[i], self.s[i], self.log_t, bound)
                .map_or((lo, hi), |(a, b)| (a.max(lo), b.min(hi)));
            self.step_stamp[i] = self.t;
        }
        (self.step_lo[i], self.step_hi[i])
    }

    /// Whether channel `i` ranks above channel `j` (larger index; ties by the rule: the lower
    /// channel, the higher, or the slot's random order).
    /// Decided by the coarsest bounds that separate the two: the intervals, then (kl-UCB) the
    /// one-step bounds of the slot, then the exact indices.
    #[inline]
    pub(crate) fn above(&mut self, i: usize, j: usize) -> bool {
        /// `Some(i above j)` when the two intervals do not overlap.
        fn separate((li, hi): (f64, f64), (lj, hj): (f64, f64)) -> Option<bool> {
            (li > hj || hi < lj).then_some(li > hj)
        }
        if let Some(above) = separate(self.interval(i), self.interval(j)) {
            return above;
        }
        if self.kind == IndexKind::KlUcb
            && let Some(above) = separate(self.refined(i), self.refined(j))
        {
            return above;
        }
        let (vi, vj) = (self.value(i), self.value(j));
        if self.rules.ties != Ties::LowerChannel && vi == vj {
            return self.first_among_equals(i, j);
        }
        Ranked { value: vi, arm: i } > Ranked { value: vj, arm: j }
    }

    /// How many channels rank above `a`, counting no further than `limit`.
    pub(crate) fn count_above(&mut self, a: usize, limit: usize) -> usize {
        let mut count = 0;
        for i in 0..self.len() {
            if i != a && self.above(i, a) {
                count += 1;
                if count >= limit {
                    break;
                }
            }
        }
        count
    }

    /// Whether `a` is among the `m` best channels.
    pub(crate) fn in_top(&mut self, a: usize, m: usize) -> bool {
        m > 0 && self.count_above(a, m) < m
    }

    /// The `m` best channels, best first, into `out`; `out` may hold last slot's answer, which
    /// is kept when it still holds (checked by comparisons only).
    pub(crate) fn top(&mut self, m: usize, out: &mut Vec<usize>) {
        let m = m.min(self.len());
        if out.len() == m && self.still_top(out) {
            return;
        }
        let k = self.len();
        if m > SELECT_BY_COMPARISON {
            let values: Vec<f64> = (0..k).map(|i| self.value(i)).collect();
            match self.rules.ties {
                Ties::LowerChannel => super::top(&values, m, out),
                Ties::HigherChannel => super::top_by(&values, |i| (k - i) as u64, m, out),
                Ties::Random => super::top_by(&values, |i| self.prio(i), m, out),
            }
            return;
        }
        // A few best channels: picked one by one with lazy comparisons, which need the exact
        // index only of channels whose intervals overlap (m·K comparisons against K roots).
        out.clear();
        self.taken.clear();
        self.taken.resize(k, false);
        for _ in 0..m {
            let mut best: Option<usize> = None;
            for i in 0..k {
                if self.taken[i] {
                    continue;
                }
                best = match best {
                    Some(b) if !self.above(i, b) => Some(b),
                    _ => Some(i),
                };
            }
            let Some(best) = best else { break };
            self.taken[best] = true;
            out.push(best);
        }
    }

    /// Whether `list` is in order and above every other channel.
    fn still_top(&mut self, list: &[usize]) -> bool {
        for w in list.windows(2) {
            if !self.above(w[0], w[1]) {
                return false;
            }
        }
        let Some(&worst) = list.last() else {
            return true;
        };
        (0..self.len()).all(|i| list.contains(&i) || self.above(worst, i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn net_samples_are_rescaled_into_the_unit_interval() {
        let net = IndexSpec {
            reward: Reward::Net,
            ..IndexSpec::default()
        };
        assert_eq!(net.sample(true, 0.0), 1.0);
        assert_eq!(net.sample(false, 1.0), 0.0);
        assert_eq!(net.sample(true, 0.4), 0.8);
        assert_eq!((net.sample(false, 2.5), net.sample(true, -1.0)), (0.0, 1.0));
        assert_eq!(IndexSpec::default().sample(true, 0.7), 1.0);
        assert!(net.sees_costs() && !IndexSpec::default().sees_costs());
        assert_eq!(net.label(), "klucb-net");
    }
    use proptest::prelude::*;

    #[test]
    fn unseen_channels_come_first_and_indices_exceed_means() {
        for kind in [IndexKind::Ucb, IndexKind::KlUcb] {
            let mut ix = Indices::new(3, kind, Rules::default());
            for _ in 0..10 {
                ix.add(0, 1.0);
                ix.add(1, 0.0);
            }
            ix.start(20, &mut crate::util::rng::stream(1, 0, 0));
            assert!(ix.value(2).is_infinite());
            assert!(ix.value(0) >= 1.0 - 1e-12, "{kind:?}");
            assert!(ix.value(1) > 0.0 && ix.value(1) < ix.value(0));
        }
        assert!(IndexKind::KlUcb.value(100, 0.0, 1000) < IndexKind::Ucb.value(100, 0.0, 1000));
    }

    /// The cheap kl-UCB bounds hold the computed index (the root search's own value, not the
    /// true root) on a grid of counts, means and slots, edges included; and they are useful:
    /// well inside (0, 1) they are within a small factor of the index's own width.
    #[test]
    fn cheap_kl_bounds_hold_the_computed_index() {
        let kind = IndexKind::KlUcb;
        assert_eq!(IndexKind::Ucb.cheap_bounds(10, 5.0, log_clock(100)), None);
        assert_eq!(kind.cheap_bounds(0, 0.0, log_clock(100)), None);
        for n in [1u64, 2, 3, 7, 10, 64, 1000, 123_457, 10_000_000] {
            for s in [0, 1, n / 3, n / 2, n - n / 10, n.saturating_sub(1), n] {
                let s = s.min(n) as f64;
                for t in [1u64, 2, 3, 10, 1000, 100_000, 1 << 40] {
                    let v = kind.value(n, s, t);
                    let (lo, hi) = kind.cheap_bounds(n, s, log_clock(t)).unwrap();
                    assert!(lo <= v && v <= hi, "n {n} s {s} t {t}: {lo} <= {v} <= {hi}");
                    let p = s / n as f64;
                    if n >= 64 && t >= 1000 && p > 0.1 && p < 0.9 {
                        assert!(hi - lo < 2.0 * (v - p), "n {n} s {s} t {t}: {lo} {v} {hi}");
                    }
                }
            }
        }
    }

    /// The one-step kl-UCB bounds hold the computed index on the same grid as the cheap ones,
    /// and they are useful: with a thousand samples or more and a mean inside (0.1, 0.9), their
    /// width is under a tenth of the index's exploration bonus.
    #[test]
    fn one_step_kl_bounds_hold_the_computed_index() {
        let kind = IndexKind::KlUcb;
        assert_eq!(
            IndexKind::Ucb.step_bounds(10, 5.0, log_clock(100), None),
            None
        );
        assert_eq!(kind.step_bounds(0, 0.0, log_clock(100), None), None);
        let mut used = 0;
        for n in [1u64, 2, 3, 7, 10, 64, 1000, 123_457, 10_000_000] {
            for s in [0, 1, n / 3, n / 2, n - n / 10, n.saturating_sub(1), n] {
                let s = s.min(n) as f64;
                for t in [1u64, 2, 3, 10, 1000, 100_000, 1 << 40] {
                    let Some((lo, hi)) = kind.step_bounds(n, s, log_clock(t), None) else {
                        continue;
                    };
                    used += 1;
                    let v = kind.value(n, s, t);
                    assert!(lo <= v && v <= hi, "n {n} s {s} t {t}: {lo} <= {v} <= {hi}");
                    let p = s / n as f64;
                    if n >= 1000 && p > 0.1 && p < 0.9 {
                        assert!(hi - lo < 0.1 * (v - p), "n {n} s {s} t {t}: {lo} {v} {hi}");
                    }
                }
            }
        }
        assert!(used > 200, "{used}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Slot after slot, the lazy comparisons, top sets and counts equal those of every index
        /// computed in full, ties included (coarse rewards make equal statistics common), under
        /// either clock (the slot, or the samples so far) and every tie rule (the lower
        /// channel, the higher, or the slot's random order).
        #[test]
        fn lazy_answers_equal_the_full_computation(
            k in 2usize..24,
            m in 1usize..20,
            kl in any::<bool>(),
            samples in any::<bool>(),
            tie in 0usize..3,
            seed in 0u64..1000,
        ) {
            use rand::RngExt;
            let kind = if kl { IndexKind::KlUcb } else { IndexKind::Ucb };
            let ties = [Ties::LowerChannel, Ties::HigherChannel, Ties::Random][tie];
            let rules = Rules::new(
                Convention::Specprobe,
                Some(if samples { Clock::Samples } else { Clock::Slots }),
                Some(ties),
            );
            let mut rng = crate::util::rng::stream(seed, 5, 0);
            let mut ix = Indices::new(k, kind, rules);
            let mut hint = Vec::new();
            let theta: Vec<f64> = (0..k).map(|_| rng.random::<f64>()).collect();
            for t in 1..400u64 {
                ix.start(t, &mut rng);
                let clock = if samples { ix.n.iter().sum() } else { t };
                prop_assert_eq!(ix.clock(), clock);
                let full: Vec<f64> = (0..k).map(|i| kind.value(ix.n[i], ix.s[i], clock)).collect();
                let mut want = Vec::new();
                let prio: Vec<u64> = (0..k).map(|i| ix.prio(i)).collect();
                // The order in full: larger index first, then the tie rule.
                let before = |i: usize, j: usize| {
                    full[i] > full[j]
                        || (full[i] == full[j]
                            && match ties {
                                Ties::LowerChannel => i < j,
                                Ties::HigherChannel => i > j,
                                Ties::Random => (prio[i], i) < (prio[j], j),
                            })
                };
                match ties {
                    Ties::LowerChannel => crate::multi::top(&full, m, &mut want),
                    Ties::HigherChannel => crate::multi::top_by(&full, |i| (k - i) as u64, m, &mut want),
                    Ties::Random => crate::multi::top_by(&full, |i| prio[i], m, &mut want),
                }
                ix.top(m, &mut hint);
                prop_assert_eq!(&hint, &want, "slot {}", t);
                let a = rng.random_range(0..k);
                let above = (0..k).filter(|&i| i != a && before(i, a)).count();
                if ties == Ties::LowerChannel {
                    let ranked = (0..k)
                        .filter(|&i| i != a && Ranked { value: full[i], arm: i } > Ranked { value: full[a], arm: a })
                        .count();
                    prop_assert_eq!(ranked, above);
                }
                prop_assert_eq!(ix.count_above(a, k), above);
                prop_assert_eq!(ix.in_top(a, m), above < m);
                // A few samples per slot, on channels near the top.
                for _ in 0..2 {
                    let c = if rng.random::<f64>() < 0.7 { want[rng.random_range(0..want.len())] } else { rng.random_range(0..k) };
                    // Idle indicators on even channels, rescaled net rewards (fractional
                    // sums) on odd ones: the lazy comparisons hold for both.
                    let x = f64::from(u8::from(rng.random::<f64>() < theta[c]));
                    let sample = if c % 2 == 0 { x } else { 0.5 * (x - rng.random::<f64>() + 1.0) };
                    ix.add(c, sample);
                }
            }
        }

        /// Under `ties: Random` equal indices are ordered uniformly: with every channel unseen
        /// (all infinite), each of K channels is the best in about 1/K of the slots.
        #[test]
        fn random_ties_are_uniform(k in 2usize..6, seed in 0u64..50) {
            let rules = Rules::new(Convention::SMPyBandits, None, None);
            let mut ix = Indices::new(k, IndexKind::KlUcb, rules);
            let mut rng = crate::util::rng::stream(seed, 9, 0);
            let mut first = vec![0u32; k];
            let mut best = Vec::new();
            let slots = 4000u32;
            for t in 1..=u64::from(slots) {
                ix.start(t, &mut rng);
                ix.top(1, &mut best);
                first[best[0]] += 1;
            }
            // Binomial(4000, 1/k): 5 standard deviations either side.
            let p = 1.0 / k as f64;
            let sd = (f64::from(slots) * p * (1.0 - p)).sqrt();
            for &c in &first {
                prop_assert!((f64::from(c) - f64::from(slots) * p).abs() < 5.0 * sd, "{:?}", first);
            }
        }
    }
}
