//! The KL-UCB index ([`kl_upper`]) and its root search, one divergence
//! evaluation at a time, with bounds on its result in between.
//!
//! A policy that only needs the channel of largest index (kl-UCB, randomized Selfish KL-UCB)
//! need not solve every channel's index to 1e-12: it can step each search only until its upper
//! bound falls below the best index found, and stop the winner's as soon as its lower bound clears
//! every other channel's upper bound. The search is the same iteration as `kl_upper`'s, so a
//! search run to its end gives `kl_upper`'s bits, and the bounds hold for that result as
//! computed:
//!
//! - **rigorous:** the result is clamped to the bracket `[lo, hi]` the search keeps, and the
//!   bracket only shrinks;
//! - **by convexity:** `f(q) = d(p; q) − ℓ` is convex and increasing on `[p, 1)`, so a Newton
//!   step from an iterate above the root stays above it (the tangent lies below `f`), and the
//!   chord between the bracket's ends crosses zero at or below it (the chord lies above `f`).
//!   Both are widened ([`kl_widen_up`], [`kl_widen_down`]) relative (the search's tolerance) and by
//!   [`kl_root_slack`] absolute (the divergence's rounding, which is not relative: at `p = 0`
//!   and a level of 1e-11 it moves the root by 2e-6 of itself, which the test here catches with
//!   a relative margin alone).

use super::theory::{
    bernoulli_entropy, kl_bernoulli, kl_divergence_error, kl_root_slack, kl_upper_bound,
    kl_upper_near_one_with, kl_widen_down, kl_widen_up, near_one_is_above, pinsker_chi_bound,
};

/// The largest `q ∈ [p, 1]` with `n · d(p; q) ≤ budget`: the KL-UCB index (Garivier & Cappé
/// 2011) used by CascadeKL-UCB.
///
/// Safeguarded Newton iteration on the convex `q ↦ d(p; q)` inside the bracket
/// `[p, Pinsker bound]`, to a relative step of 1e-12 (at most 64 steps): a deterministic function
/// of its inputs, never above [`kl_upper_bound`]. It is [`KlSearch`] run to its end.
pub(crate) fn kl_upper(p: f64, n: f64, budget: f64) -> f64 {
    KlSearch::new(p, n, budget, kl_upper_bound(p, n, budget)).finish()
}

/// Most divergence evaluations of one search (each halves the bracket at least, so 64 reach
/// the resolution of a double).
const MAX_EVALUATIONS: u32 = 64;

/// One KL-UCB index's root search: the largest `q ∈ [p, 1]` with `n · d(p; q) ≤ budget`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KlSearch {
    /// The sample mean.
    p: f64,
    /// `budget / n`.
    level: f64,
    /// The bracket: the result is clamped into it, and it only shrinks.
    lo: f64,
    hi: f64,
    /// `f(lo)` (`−level` at `lo = p`).
    f_lo: f64,
    /// `f(hi)`, once `hi` has been evaluated (`NaN` before).
    f_hi: f64,
    /// The next point to evaluate (`NaN` before the start is chosen).
    q: f64,
    /// Whether `q` is a Newton step from `hi`, above the root.
    q_is_newton: bool,
    /// `H(p)`, where the caller has it (`NaN`: computed when the start needs it).
    entropy: f64,
    /// Evaluations so far.
    evaluations: u32,
    /// The result, once known.
    done: Option<f64>,
}

impl KlSearch {
    /// The search for `(p, n, budget)`; `bound` is `kl_upper_bound(p, n, budget)`, which the
    /// caller often has already. Costs no logarithm: the start is chosen by the first
    /// [`step`](Self::step).
    #[inline]
    pub(crate) fn new(p: f64, n: f64, budget: f64, bound: f64) -> KlSearch {
        KlSearch::with_entropy(p, n, budget, bound, f64::NAN)
    }

    /// [`new`](Self::new) with `H(p)` ([`bernoulli_entropy`]) given, or `NaN`.
    #[inline]
    pub(crate) fn with_entropy(p: f64, n: f64, budget: f64, bound: f64, entropy: f64) -> KlSearch {
        debug_assert_eq!(bound.to_bits(), kl_upper_bound(p, n, budget).to_bits());
        let done = (budget <= 0.0 || p >= 1.0).then(|| p.min(1.0));
        KlSearch {
            p,
            level: budget / n,
            lo: p,
            hi: bound,
            f_lo: -(budget / n),
            f_hi: f64::NAN,
            q: f64::NAN,
            q_is_newton: false,
            entropy,
            evaluations: 0,
            done,
        }
    }

    /// `H(p)`, if the search has it (`NaN` otherwise).
    #[inline]
    pub(crate) fn entropy(&self) -> f64 {
        self.entropy
    }

    /// The result, once the search has converged.
    #[inline]
    pub(crate) fn value(&self) -> Option<f64> {
        self.done
    }

    /// An upper bound on the result: the Newton step from the bracket's top, widened, or the
    /// top itself.
    #[inline]
    pub(crate) fn upper(&self) -> f64 {
        if let Some(v) = self.done {
            return v;
        }
        if !self.q_is_newton {
            return self.hi;
        }
        let q = self.q;
        let slack = 2.0 * kl_root_slack(self.p, self.f_hi + self.level, self.chord(), self.hi);
        self.hi.min(kl_widen_up(q, slack))
    }

    /// A lower bound on the result: where the chord across the bracket crosses zero, widened,
    /// or the bracket's bottom.
    #[inline]
    pub(crate) fn lower(&self) -> f64 {
        if let Some(v) = self.done {
            return v;
        }
        // Before `hi` is evaluated `f_hi` is NaN: no chord yet.
        if self.f_hi.partial_cmp(&self.f_lo) != Some(std::cmp::Ordering::Greater) {
            return self.lo;
        }
        let c = self.chord();
        let d = self.f_hi + self.level;
        let slack = 2.0 * kl_root_slack(self.p, d, c, self.hi);
        // Each end's error moves the crossing by at most its width over the rise.
        let error = 2.0 * kl_divergence_error(self.p, d, self.hi) * (self.hi - self.lo)
            / (self.f_hi - self.f_lo);
        self.lo.max(kl_widen_down(c, slack + error))
    }

    /// Where the chord from `(lo, f(lo))` to `(hi, f(hi))` crosses zero (`lo` before `hi` is
    /// evaluated).
    #[inline]
    fn chord(&self) -> f64 {
        if self.f_hi > self.f_lo {
            self.lo - self.f_lo * (self.hi - self.lo) / (self.f_hi - self.f_lo)
        } else {
            self.lo
        }
    }

    /// One more evaluation of the divergence (the first also chooses the start, as
    /// `kl_upper` does); nothing once the search is done.
    ///
    /// Not inlined: the choice steps a few of many searches, while `finish` runs one to its end
    /// through an inlined copy (`advance`): `spectrum-8ch` (CascadeKL-UCB among others) then
    /// runs 1.0 % more instructions than with `kl_upper`'s former loop, against 2.6 % with the
    /// search stepped by calls (callgrind, one run, T = 20 000).
    #[inline(never)]
    pub(crate) fn step(&mut self) {
        self.advance();
    }

    /// [`step`](Self::step)'s body.
    #[inline(always)]
    fn advance(&mut self) {
        if self.done.is_some() {
            return;
        }
        let (p, level) = (self.p, self.level);
        if self.evaluations == 0 {
            let bound = self.hi;
            // The near-one bound only where it could be the smaller: the same start, without its
            // two logarithms and its exponential in the common case. Where the bound is the
            // near-one bound already, it is the start.
            let near_one_already = pinsker_chi_bound(p, level) >= 1.0;
            self.hi = if near_one_already || (bound < 1.0 && near_one_is_above(p, level, bound)) {
                bound
            } else {
                if self.entropy.is_nan() {
                    self.entropy = bernoulli_entropy(p);
                }
                bound.min(kl_upper_near_one_with(p, level, self.entropy))
            };
            debug_assert!(self.hi <= 1.0);
            // Newton from an upper bound descends monotonically onto the root (the function is
            // convex). d(p; 1) is infinite for p < 1, so a bound of 1 is replaced by the midpoint.
            self.q = if self.hi < 1.0 {
                self.hi
            } else {
                0.5 * (self.lo + self.hi)
            };
        }
        let q = self.q;
        let f = kl_bernoulli(p, q) - level;
        if f > 0.0 {
            self.hi = q;
            self.f_hi = f;
        } else {
            self.lo = q;
            self.f_lo = f;
        }
        self.evaluations += 1;
        let step = f * (q * (1.0 - q)) / (q - p);
        // Converged: the Newton step is below the precision asked for (checked before the
        // bracket test, which a step of a few ulps would fail and turn into bisection).
        if step.abs() <= 1e-12 * q {
            self.done = Some((q - step).clamp(self.lo, self.hi));
            return;
        }
        let next = q - step;
        let newton = next > self.lo && next < self.hi;
        self.q = if newton {
            next
        } else {
            0.5 * (self.lo + self.hi)
        };
        self.q_is_newton = newton && f > 0.0;
        if self.evaluations == MAX_EVALUATIONS {
            self.done = Some(self.q);
        }
    }

    /// The search run to its end: `kl_upper`'s result.
    #[inline]
    pub(crate) fn finish(&mut self) -> f64 {
        loop {
            if let Some(v) = self.done {
                return v;
            }
            self.advance();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::theory::{kl_bernoulli, kl_upper_one_step};
    use crate::util::math;

    /// Every bound holds at every evaluation, and the search ends on `kl_upper`'s bits: over
    /// random means (the edges included), counts up to 10⁷ and budgets from 1e-13 to 55.
    #[test]
    fn bounds_hold_at_every_step_and_the_end_is_kl_uppers() {
        use rand::RngExt;
        let mut rng = crate::util::rng::stream(11, 0, 0);
        for case in 0..200_000u32 {
            let p = match case % 7 {
                0 => 0.0,
                1 => f64::from(rng.random_range(0..=40u32)) / 40.0,
                _ => rng.random::<f64>(),
            };
            let n = math::exp(rng.random::<f64>() * 16.0).round().max(1.0);
            let budget = math::exp(rng.random::<f64>() * 34.0 - 30.0);
            let exact = kl_upper(p, n, budget);
            // The one-step bounds the pruning uses hold too.
            let bound = kl_upper_bound(p, n, budget);
            if let Some((below, above)) = kl_upper_one_step(p, n, budget, bound) {
                assert!(
                    below <= exact && exact <= above,
                    "one step: p {p} n {n} budget {budget}: {below} ≤ {exact} ≤ {above}"
                );
            }
            let mut s = KlSearch::new(p, n, budget, kl_upper_bound(p, n, budget));
            loop {
                let (lower, upper) = (s.lower(), s.upper());
                assert!(
                    lower <= exact && exact <= upper,
                    "p {p} n {n} budget {budget}: {lower} ≤ {exact} ≤ {upper}"
                );
                if s.value().is_some() {
                    break;
                }
                s.step();
            }
            assert_eq!(s.value().map(f64::to_bits), Some(exact.to_bits()));
        }
    }

    #[test]
    fn kl_upper_inverts_the_divergence() {
        for (p, n, budget) in [
            (0.3, 10.0, 2.0),
            (0.0, 3.0, 5.0),
            (0.99, 1000.0, 12.0),
            (0.5, 1.0, 0.01),
        ] {
            let q = kl_upper(p, n, budget);
            assert!(
                (n * kl_bernoulli(p, q) - budget).abs() < 1e-8,
                "{p} {n} {budget}: {q}"
            );
            assert!(q <= kl_upper_bound(p, n, budget));
        }
        assert_eq!(kl_upper(0.3, 10.0, 0.0), 0.3);
        // The root is 1 − e^{−1000} or so: 1.0 is its correct rounding.
        let q = kl_upper(0.9, 1.0, 100.0);
        assert!(q > 0.999_999 && q <= 1.0, "{q}");
        assert_eq!(kl_upper(1.0, 5.0, 1.0), 1.0);
    }
}
