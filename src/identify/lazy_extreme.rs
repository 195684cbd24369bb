//! LUCB1's `h_t` or `l_t` without scanning every arm every round.
//!
//! LUCB1's bounds `μ̂_a ± root_t · f_a` all move every round through the common factor `root_t`
//! (it grows with the round), so a plain search scans the N arms per round. But `root_t` grows
//! slowly (`root_t² = ln(k₁N/δ) + 4 ln t`), and between two of its own samples an arm's bound is
//! a monotone function of it. Over an epoch of rounds `[t₀, t₁]`, with `root` in `[R₀, R₁]`, an
//! arm's score (its bound, oriented so that larger is better) lies between its values at `R₀`
//! and `R₁`. At the epoch's start the G largest scores at `R₀` give a threshold `T` (the G-th);
//! only the arms whose score at `R₁` reaches `T` (the candidates) can be the extreme while one of
//! those G arms (the guards) keeps a score at `R₀` of at least `T`: that guard's score is a lower
//! bound of the maximum, and every other arm's is below it. A sampled arm, or one that changes
//! sides, is re-checked against `T` when it changes; the epoch ends early when no guard is left.
//!
//! Exactness: the operations are the plain search's (`m + σ·(root·f)`, each monotone in `root`
//! in floating point), scores are compared as [`Ranked::key`]s (value, then arm), and the
//! threshold comparisons are strict where they exclude an arm, so the arm found is the plain
//! search's, ties included (a test compares them round by round).

use crate::util::ranking::Ranked;

/// Guards per epoch: fewer make more epochs end early; more make more candidates.
const GUARDS: usize = 16;
/// An epoch starting at round `t` lasts `1 + t / EPOCH_DIV` rounds.
const EPOCH_DIV: u64 = 128;

/// One side's extreme: High's lowest lower bound or Low's highest upper bound.
#[derive(Clone, Debug)]
pub(crate) struct LazyExtreme {
    /// High (lower bounds, minimised) or Low (upper bounds, maximised).
    high: bool,
    /// Whether an epoch is set up.
    valid: bool,
    /// The epoch's last round and the factor's values at its two ends.
    last_round: u64,
    r0: f64,
    r1: f64,
    /// The G-th largest score at `R₀` when the epoch began.
    threshold: u128,
    /// Guards left, and which arms they are.
    guards: usize,
    guard: Vec<bool>,
    /// Arms whose score may reach the threshold during the epoch (some may have left the side
    /// since; they are dropped as the list is read).
    candidates: Vec<usize>,
    candidate: Vec<bool>,
    /// Scratch for the scores at `R₀`.
    scratch: Vec<u128>,
}

/// An arm's statistics as the search reads them.
#[derive(Clone, Copy)]
pub(crate) struct Arms<'a> {
    /// Empirical means.
    pub means: &'a [f64],
    /// Per-arm radius factors `f_a` (the radius is `root · f_a`).
    pub factor: &'a [f64],
    /// Sides: `true` for High.
    pub in_high: &'a [bool],
}

impl LazyExtreme {
    /// The search for `n` arms on the High side (`high`) or the Low side.
    pub(crate) fn new(n: usize, high: bool) -> LazyExtreme {
        LazyExtreme {
            high,
            valid: false,
            last_round: 0,
            r0: 0.0,
            r1: 0.0,
            threshold: 0,
            guards: 0,
            guard: vec![false; n],
            candidates: Vec::new(),
            candidate: vec![false; n],
            scratch: Vec::with_capacity(n),
        }
    }

    /// The bound of `arm` at `root` as a `Ranked`, and its score: its key, complemented on the
    /// High side so that the extreme is always the largest score.
    #[inline]
    fn score(&self, arms: &Arms, arm: usize, root: f64) -> (Ranked, u128) {
        let sign = if self.high { -1.0 } else { 1.0 };
        let r = Ranked {
            value: arms.means[arm] + sign * (root * arms.factor[arm]),
            arm,
        };
        let key = r.key();
        (r, if self.high { !key } else { key })
    }

    #[inline]
    fn member(&self, arms: &Arms, arm: usize) -> bool {
        arms.in_high[arm] == self.high
    }

    /// The extreme arm and its bound at round `t`, whose factor is `root`; `root_at` gives the
    /// factor of any round. `None` when the side is empty.
    pub(crate) fn find(
        &mut self,
        arms: &Arms,
        t: u64,
        root: f64,
        root_at: impl Fn(u64) -> f64,
    ) -> Option<Ranked> {
        let in_epoch = self.valid && t <= self.last_round && (self.r0..=self.r1).contains(&root);
        if !in_epoch || self.guards == 0 {
            self.begin(arms, t, root, root_at);
        }
        let mut best: Option<(Ranked, u128)> = None;
        let mut i = 0;
        while i < self.candidates.len() {
            let arm = self.candidates[i];
            if !self.member(arms, arm) {
                self.candidate[arm] = false;
                self.candidates.swap_remove(i);
                continue;
            }
            let (r, s) = self.score(arms, arm, root);
            if best.is_none_or(|(_, b)| s > b) {
                best = Some((r, s));
            }
            i += 1;
        }
        best.map(|(r, _)| r)
    }

    /// Starts an epoch at round `t`.
    fn begin(&mut self, arms: &Arms, t: u64, root: f64, root_at: impl Fn(u64) -> f64) {
        for &a in &self.candidates {
            self.candidate[a] = false;
        }
        self.candidates.clear();
        self.guard.fill(false);
        self.valid = true;
        self.r0 = root;
        self.last_round = t + t / EPOCH_DIV;
        self.r1 = root_at(self.last_round);
        if self.r1.is_nan() || self.r1 < self.r0 {
            // Not increasing at this precision: an epoch of this round alone.
            (self.last_round, self.r1) = (t, root);
        }
        let n = arms.means.len();
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        scratch.extend(
            (0..n)
                .filter(|&a| self.member(arms, a))
                .map(|a| self.score(arms, a, self.r0).1),
        );
        self.guards = scratch.len().min(GUARDS);
        self.threshold = u128::MAX;
        if self.guards > 0 {
            let at = scratch.len() - self.guards;
            self.threshold = *scratch.select_nth_unstable(at).1;
            // The G largest scores, after the selection, and the arms they carry.
            for &score in &scratch[at..] {
                let key = if self.high { !score } else { score };
                self.guard[Ranked::arm_of_key(key)] = true;
            }
        }
        self.scratch = scratch;
        for a in 0..n {
            if self.member(arms, a) && self.score(arms, a, self.r1).1 >= self.threshold {
                self.candidate[a] = true;
                self.candidates.push(a);
            }
        }
    }

    /// Re-checks `arm` after its mean or factor changed or it changed sides.
    pub(crate) fn changed(&mut self, arms: &Arms, arm: usize) {
        if !self.valid {
            return;
        }
        if !self.member(arms, arm) {
            if self.guard[arm] {
                self.guard[arm] = false;
                self.guards -= 1;
            }
            return;
        }
        if self.guard[arm] && self.score(arms, arm, self.r0).1 < self.threshold {
            self.guard[arm] = false;
            self.guards -= 1;
        }
        if !self.candidate[arm] && self.score(arms, arm, self.r1).1 >= self.threshold {
            self.candidate[arm] = true;
            self.candidates.push(arm);
        }
    }
}
