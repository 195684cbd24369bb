//! The LUCB skeleton shared by lil'LUCB, LUCB++, lil'RandLUCB and lil'CLUCB.
//!
//! After sampling each arm once: High = the K arms of largest empirical mean, Low = the rest;
//! each High arm has a lower bound `μ̂ − U(T, ω_H)`, each Low arm an upper bound `μ̂ + U(T, ω_L)`.
//! LIL radii depend on an arm's own sample count only, so an arm's bound changes only when it is
//! sampled or changes sides: the bounds sit in ordered sets updated in O(log N) per sample, and
//! `h_t` (lowest lower bound in High) and `l_t` (highest upper bound in Low) are read off the
//! ends. Ties follow [`crate::util::ranking::Ranked`]: h_t is the lowest-ranked, l_t the highest-ranked.

use super::Samples;
use super::confidence::Lil;
use crate::util::ranking::{ExtremeSet, MeanSplit, Ranked, RankedSet, Swap, order_key};

/// How the two sides' bounds are kept: in full order ([`Ordered`], for lil'CLUCB, which reads
/// the pairs) or only their ends ([`Ends`], for the rules that read `h_t` and `l_t` alone).
pub(crate) trait Sides: Clone + std::fmt::Debug {
    /// Empty sides for `n` arms.
    fn new(n: usize) -> Self;
    /// Adds `arm` with bound `value` to side `high`.
    fn insert(&mut self, high: bool, arm: usize, value: f64);
    /// Removes `arm`, stored with bound `value`, from side `high`.
    fn remove(&mut self, high: bool, arm: usize, value: f64);
    /// Moves `arm`'s bound on side `high` from `old` to `new`.
    fn replace(&mut self, high: bool, arm: usize, old: f64, new: f64);
    /// `(h_t, l_t)`: High's lowest-ranked lower bound and Low's highest-ranked upper bound.
    fn extremes(&self) -> Option<(Ranked, Ranked)>;
}

/// Both sides in full [`Ranked`] order.
#[derive(Clone, Debug)]
pub(crate) struct Ordered {
    lcb_high: RankedSet,
    ucb_low: RankedSet,
}

impl Ordered {
    fn side(&mut self, high: bool) -> &mut RankedSet {
        if high {
            &mut self.lcb_high
        } else {
            &mut self.ucb_low
        }
    }
}

impl Sides for Ordered {
    fn new(_: usize) -> Ordered {
        Ordered {
            lcb_high: RankedSet::default(),
            ucb_low: RankedSet::default(),
        }
    }
    #[inline]
    fn insert(&mut self, high: bool, arm: usize, value: f64) {
        self.side(high).insert(arm, value);
    }
    #[inline]
    fn remove(&mut self, high: bool, arm: usize, value: f64) {
        self.side(high).remove(arm, value);
    }
    #[inline]
    fn replace(&mut self, high: bool, arm: usize, old: f64, new: f64) {
        self.side(high).replace(arm, old, new);
    }
    #[inline]
    fn extremes(&self) -> Option<(Ranked, Ranked)> {
        Some((self.lcb_high.worst()?, self.ucb_low.best()?))
    }
}

/// Only each side's end: a tournament tree per side.
#[derive(Clone, Debug)]
pub(crate) struct Ends {
    lcb_high: ExtremeSet,
    ucb_low: ExtremeSet,
}

impl Ends {
    fn side(&mut self, high: bool) -> &mut ExtremeSet {
        if high {
            &mut self.lcb_high
        } else {
            &mut self.ucb_low
        }
    }
}

impl Sides for Ends {
    fn new(n: usize) -> Ends {
        Ends {
            lcb_high: ExtremeSet::lowest(n),
            ucb_low: ExtremeSet::highest(n),
        }
    }
    #[inline]
    fn insert(&mut self, high: bool, arm: usize, value: f64) {
        self.side(high).insert(arm, value);
    }
    #[inline]
    fn remove(&mut self, high: bool, arm: usize, _: f64) {
        self.side(high).remove(arm);
    }
    #[inline]
    fn replace(&mut self, high: bool, arm: usize, _: f64, new: f64) {
        self.side(high).replace(arm, new);
    }
    #[inline]
    fn extremes(&self) -> Option<(Ranked, Ranked)> {
        Some((self.lcb_high.extreme()?, self.ucb_low.extreme()?))
    }
}

/// High/Low split with confidence bounds kept in order (all of it, or its ends: `S`).
#[derive(Clone, Debug)]
pub(crate) struct LucbCore<S: Sides = Ends> {
    k: usize,
    lil: Lil,
    omega_high: f64,
    omega_low: f64,
    samples: Samples,
    split: Option<MeanSplit>,
    sides: S,
    bound: Vec<f64>,
    /// The [`order_key`] of each arm's radius on its current side (read every sample by
    /// lil'CLUCB).
    radius_key: Vec<u64>,
    /// `l_t` of a round whose `h_t` was just returned (rules that sample both).
    pending: Option<usize>,
}

impl<S: Sides> LucbCore<S> {
    /// `n` arms, top `k`, radius `U(T, ω_high)` for High arms and `U(T, ω_low)` for Low arms.
    pub(crate) fn new(
        n: usize,
        k: usize,
        lil: Lil,
        omega_high: f64,
        omega_low: f64,
    ) -> LucbCore<S> {
        LucbCore {
            k,
            lil,
            omega_high,
            omega_low,
            samples: Samples::new(n),
            split: None,
            sides: S::new(n),
            bound: vec![0.0; n],
            radius_key: vec![order_key(f64::INFINITY); n],
            pending: None,
        }
    }

    /// Radii of LUCB++ and lil'RandLUCB: `U(T, δ/(2(N−K)))` in High, `U(T, δ/(2K))` in Low (each
    /// side's union bound runs over the arms that could be wrongly placed on it).
    pub(crate) fn split_radii(n: usize, k: usize, lil: Lil, delta: f64) -> LucbCore<S> {
        LucbCore::new(
            n,
            k,
            lil,
            delta / (2.0 * (n - k) as f64),
            delta / (2.0 * k as f64),
        )
    }

    /// The LUCB round of lil'LUCB and LUCB++: stop when `LCB(h_t) ≥ UCB(l_t)`, otherwise sample
    /// `h_t` now and `l_t` next.
    pub(crate) fn next_both(&mut self) -> Option<usize> {
        if let Some(arm) = self.initial().or_else(|| self.pending.take()) {
            return Some(arm);
        }
        let (h, l) = self.extremes()?;
        if h.value >= l.value {
            return None;
        }
        self.pending = Some(l.arm);
        Some(h.arm)
    }

    /// The sample statistics.
    pub(crate) fn samples(&self) -> &Samples {
        &self.samples
    }

    /// The next arm of the initialisation, while it lasts.
    pub(crate) fn initial(&mut self) -> Option<usize> {
        self.samples.initial()
    }

    /// The [`order_key`] of each arm's radius on its current side, once the split exists
    /// (every arm's is set when it is built).
    pub(crate) fn radius_keys(&self) -> &[u64] {
        &self.radius_key
    }

    /// `arm`'s radius on side `high` at its present count. Only the side an arm is on is
    /// computed (two logarithms); the other side's when it changes sides, which is rare.
    fn side_radius_of(&self, arm: usize, high: bool) -> f64 {
        let omega = if high {
            self.omega_high
        } else {
            self.omega_low
        };
        let t = self.samples.counts()[arm];
        self.lil.radius_of(t, self.lil.iterated_log(t, omega))
    }

    fn unlink(&mut self, arm: usize, high: bool) {
        self.sides.remove(high, arm, self.bound[arm]);
    }

    /// Stores `arm`'s bound and radius key for side `high`; returns the bound.
    fn refresh(&mut self, arm: usize, high: bool) -> f64 {
        let radius = self.side_radius_of(arm, high);
        let m = self.samples.means()[arm];
        let b = if high { m - radius } else { m + radius };
        self.bound[arm] = b;
        self.radius_key[arm] = order_key(radius);
        b
    }

    fn link(&mut self, arm: usize, high: bool) {
        let b = self.refresh(arm, high);
        self.sides.insert(high, arm, b);
    }

    /// Records a sample of `arm` and repairs the split and the bounds; returns the arms that
    /// changed sides, if any (only `arm`'s bound and radius change otherwise).
    pub(crate) fn observe(&mut self, arm: usize, reward: f64) -> Option<Swap> {
        self.samples.add(arm, reward);
        let Some(split) = &self.split else {
            if self.samples.initialised() {
                self.build();
            }
            return None;
        };
        let was_high = split.is_high(arm);
        let mean = self.samples.means()[arm];
        let swap = self.split.as_mut().and_then(|s| s.update(arm, mean));
        match swap {
            None => {
                // Same side: the bound moves within its set, usually by a few places.
                let old = self.bound[arm];
                let new = self.refresh(arm, was_high);
                self.sides.replace(was_high, arm, old, new);
            }
            Some(Swap { demoted, promoted }) => {
                // Only `arm`'s mean moved, so it is one of the two; both change sides, each
                // leaving its set under the bound it was stored with.
                debug_assert!(arm == demoted || arm == promoted);
                for (a, now_high) in [(demoted, false), (promoted, true)] {
                    self.unlink(a, !now_high);
                    self.link(a, now_high);
                }
            }
        }
        swap
    }

    fn build(&mut self) {
        let split = MeanSplit::new(self.samples.means(), self.k);
        let n = self.samples.len();
        self.split = Some(split);
        for arm in 0..n {
            let high = self.split.as_ref().is_some_and(|s| s.is_high(arm));
            self.link(arm, high);
        }
    }

    /// `(h_t, l_t)` with their bounds: the lowest-ranked lower bound in High and the
    /// highest-ranked upper bound in Low (`None` before the initialisation ends).
    pub(crate) fn extremes(&self) -> Option<(Ranked, Ranked)> {
        self.sides.extremes()
    }

    /// The empirical top-K set.
    pub(crate) fn answer(&self, out: &mut Vec<usize>) {
        match &self.split {
            Some(s) => out.extend(s.high()),
            None => {
                let split = MeanSplit::new(self.samples.means(), self.k);
                out.extend(split.high());
            }
        }
    }
}

impl LucbCore<Ordered> {
    /// High arms' lower bounds as [`Ranked::key`]s, lowest-ranked first.
    pub(crate) fn high_keys_by_bound(&self) -> impl Iterator<Item = u128> {
        self.sides.lcb_high.keys_ascending()
    }

    /// Both sides' bounds as ascending slices of [`Ranked::key`]s (High's lower bounds, Low's
    /// upper bounds) while each side is one sorted run.
    pub(crate) fn bound_slices(&self) -> Option<(&[u128], &[u128])> {
        Some((
            self.sides.lcb_high.single_run()?,
            self.sides.ucb_low.single_run()?,
        ))
    }

    /// Low arms' upper bounds as [`Ranked::key`]s, highest-ranked first.
    pub(crate) fn low_keys_by_bound(&self) -> impl Iterator<Item = u128> {
        self.sides.ucb_low.keys_descending()
    }

    /// `arm`'s side (`true`: High) and its place in that side's set, ascending, once the
    /// split exists and while the side is one sorted run (see [`LucbCore::bound_slices`]).
    pub(crate) fn side_and_place(&self, arm: usize) -> Option<(bool, usize)> {
        let high = self.split.as_ref()?.is_high(arm);
        let set = if high {
            &self.sides.lcb_high
        } else {
            &self.sides.ucb_low
        };
        Some((high, set.place_in_single_run(arm, self.bound[arm])?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After any sequence of samples, h_t and l_t equal a from-scratch computation, with the
    /// sides kept whole and with their ends only.
    #[test]
    fn incremental_bounds_match_full_recomputation() {
        check_bounds::<Ordered>();
        check_bounds::<Ends>();
    }

    fn check_bounds<S: Sides>() {
        use rand::RngExt;
        let mut rng = crate::util::rng::stream(4, 4, 4);
        for trial in 0..50 {
            let n = if trial < 25 { 2 + trial % 9 } else { 3 * trial };
            let k = 1 + trial % (n - 1);
            let lil = Lil {
                epsilon: 0.0,
                sigma: 0.5,
            };
            let mut core = LucbCore::<S>::new(n, k, lil, 0.01, 0.02);
            for _ in 0..200 {
                let arm = match core.initial() {
                    Some(a) => a,
                    None => rng.random_range(0..n),
                };
                // Coarse rewards so that equal means and bounds occur.
                core.observe(arm, f64::from(rng.random_range(0..3u8)) * 0.5);
                let Some((h, l)) = core.extremes() else {
                    continue;
                };
                let means = core.samples().means();
                let counts = core.samples().counts();
                let mut high = Vec::new();
                core.answer(&mut high);
                let lcb = |a: usize| Ranked {
                    value: means[a] - lil.radius(counts[a], 0.01),
                    arm: a,
                };
                let ucb = |a: usize| Ranked {
                    value: means[a] + lil.radius(counts[a], 0.02),
                    arm: a,
                };
                let want_h = high.iter().map(|&a| lcb(a)).min().unwrap();
                let want_l = (0..n).filter(|a| !high.contains(a)).map(ucb).max().unwrap();
                assert_eq!((h.arm, l.arm), (want_h.arm, want_l.arm), "trial {trial}");
                assert_eq!(h.value, want_h.value);
                assert_eq!(l.value, want_l.value);
            }
        }
    }
}
