//! Streaming statistics that merge exactly.
//!
//! Results must be byte-identical whatever the thread count or the sharding, yet runs finish in
//! any order and partial results are merged in any grouping. Floating-point addition is not
//! associative, so [`ExactSum`] keeps a sum *exactly* (Shewchuk's non-overlapping expansion, the
//! algorithm behind Python's `math.fsum`) and rounds only when read: the result is the correctly
//! rounded exact sum, a function of the multiset of inputs alone. [`Moments`] builds mean and
//! standard deviation on it. Memory is a few doubles per statistic, independent of the number of
//! values added.

use serde::{Deserialize, Serialize};

/// An exactly kept sum of finite `f64` values.
///
/// # Example
/// ```
/// use specprobe::summary::ExactSum;
/// let mut a = ExactSum::default();
/// for x in [1e16, 1.0, -1e16] { a.add(x); }
/// assert_eq!(a.value(), 1.0); // naive summation gives 0.0
/// ```
///
/// It serialises as its canonical expansion (its correctly rounded value, then the remainders),
/// so that the file of a sum depends on its value alone, not on the order the values were added
/// or merged in (the threads, the batches of runs).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(try_from = "Vec<f64>")]
pub struct ExactSum {
    partials: Vec<f64>,
}

/// Most components an exact sum read from a file may hold: an expansion of doubles needs
/// about 40 at most.
const MAX_COMPONENTS: usize = 64;

/// An exact sum read from a file holds what [`ExactSum::add`] can produce: at most 64
/// finite components whose sum is finite. Checked where it is read, so that
/// no damaged file reaches the arithmetic: `[1e308, 1e308]` overflows, and the canonical
/// expansion of an infinite or NaN sum never ends (`merge` hung on it while computing the
/// checksum).
impl TryFrom<Vec<f64>> for ExactSum {
    type Error = String;

    fn try_from(partials: Vec<f64>) -> Result<ExactSum, String> {
        if partials.len() > MAX_COMPONENTS {
            return Err(format!(
                "an exact sum holds at most {MAX_COMPONENTS} components (got {})",
                partials.len()
            ));
        }
        if let Some(x) = partials.iter().find(|x| !x.is_finite()) {
            return Err(format!("an exact sum's components are finite (got {x})"));
        }
        let sum = ExactSum { partials };
        // Each partial sum of the components must be finite too: the sum's arithmetic (and
        // its canonical form) works on them.
        let mut check = ExactSum::default();
        for &x in &sum.partials {
            check.add(x);
            if check.partials.iter().any(|p| !p.is_finite()) {
                return Err(
                    "an exact sum must be finite (its components overflow when added)".into(),
                );
            }
        }
        if !sum.value().is_finite() {
            return Err("an exact sum must be finite (its components overflow when added)".into());
        }
        Ok(sum)
    }
}

impl Serialize for ExactSum {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.canonical())
    }
}

impl ExactSum {
    /// Adds one finite value (non-finite values are a caller bug).
    pub fn add(&mut self, mut x: f64) {
        debug_assert!(x.is_finite(), "ExactSum::add({x})");
        let mut kept = 0;
        for j in 0..self.partials.len() {
            let mut y = self.partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                self.partials[kept] = lo;
                kept += 1;
            }
            x = hi;
        }
        self.partials.truncate(kept);
        self.partials.push(x);
    }

    /// Adds the product `a·b` exactly (the rounded product and its rounding error, which an
    /// FMA gives exactly).
    pub(crate) fn add_product(&mut self, a: f64, b: f64) {
        let p = a * b;
        let e = a.mul_add(b, -p);
        self.add(p);
        if e != 0.0 {
            self.add(e);
        }
    }

    /// The expansion's components (their exact sum is the value).
    pub(crate) fn components(&self) -> &[f64] {
        &self.partials
    }

    /// Adds another exact sum (exactly).
    pub(crate) fn merge(&mut self, other: &ExactSum) {
        for &p in &other.partials {
            self.add(p);
        }
    }

    /// The expansion determined by the exact sum alone: its correctly rounded value, the
    /// correctly rounded remainder, and so on until nothing remains, smallest first (as
    /// expansions are kept). Each remainder is below half an ulp of the term before, so the
    /// terms do not overlap and at most ~40 are needed; an empty list for zero.
    pub(crate) fn canonical(&self) -> Vec<f64> {
        let mut rest = self.clone();
        let mut terms = Vec::new();
        loop {
            // Every component is a multiple of the smallest subnormal, so a non-zero exact sum
            // rounds to a non-zero value: the loop ends when nothing is left.
            let v = rest.value();
            if v == 0.0 {
                break;
            }
            if !v.is_finite() {
                // Only a sum that overflowed gets here (files are checked where read): its
                // value is all there is to say, and subtracting it would never end.
                terms.push(v);
                break;
            }
            terms.push(v);
            rest.add(-v);
        }
        terms.reverse();
        terms
    }

    /// The exact sum, correctly rounded to the nearest `f64` (ties to even).
    pub fn value(&self) -> f64 {
        let p = &self.partials;
        let mut n = p.len();
        if n == 0 {
            return 0.0;
        }
        n -= 1;
        let mut hi = p[n];
        let mut lo = 0.0;
        while n > 0 {
            let x = hi;
            n -= 1;
            let y = p[n];
            hi = x + y;
            let yr = hi - x;
            lo = y - yr;
            if lo != 0.0 {
                break;
            }
        }
        // Half-way case: make the rounding of hi + lo + (what is left) correct.
        if n > 0 && ((lo < 0.0 && p[n - 1] < 0.0) || (lo > 0.0 && p[n - 1] > 0.0)) {
            let y = lo * 2.0;
            let x = hi + y;
            let yr = x - hi;
            if y == yr {
                hi = x;
            }
        }
        hi
    }
}

/// Count, exact sum and exact sum of squares: mean, standard deviation, standard error and a
/// confidence interval of a stream.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Moments {
    n: u64,
    sum: ExactSum,
    sum_sq: ExactSum,
}

/// Mean and sample standard deviation (with `n − 1`); the standard error is `std/√n`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MeanStd {
    /// Sample mean.
    pub mean: f64,
    /// Sample standard deviation (0 for fewer than two values).
    pub std: f64,
}

impl Moments {
    /// Adds one value (its square is kept exactly too).
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum.add(x);
        self.sum_sq.add_product(x, x);
    }

    /// Whether these moments could have come from [`Moments::add`]: finite sums held in at most
    /// 64 components (an expansion of doubles needs about 40 at most). Moments read from a
    /// file are checked with this before use: a damaged one could otherwise make
    /// [`Moments::std`] (quadratic in the components) run for hours.
    pub fn is_sound(&self) -> bool {
        let sound = |s: &ExactSum| {
            s.components().len() <= 64
                && s.components().iter().all(|x| x.is_finite())
                && s.value().is_finite()
        };
        sound(&self.sum) && sound(&self.sum_sq)
    }

    /// Whether these moments could have come from values in `[lo, hi]`: the mean inside,
    /// and the sum of squares between what equal values give (`(Σx)²/n`) and what values at
    /// the two ends give (`(lo + hi)·Σx − n·lo·hi`), with a relative slack of 10⁻⁹ for the
    /// rounding of the two sums. For moments read from a file (a forged vector of counts).
    pub fn within(&self, lo: f64, hi: f64) -> bool {
        if self.n == 0 {
            return self.sum.value() == 0.0 && self.sum_sq.value() == 0.0;
        }
        let (n, sum, sq) = (self.n as f64, self.sum.value(), self.sum_sq.value());
        let slack = |x: f64| 1e-9 * (x.abs() + 1.0);
        let mean = sum / n;
        mean >= lo - slack(lo)
            && mean <= hi + slack(hi)
            && sq + slack(sq) >= sum * sum / n
            && sq <= (lo + hi) * sum - n * lo * hi + slack(sq)
    }

    /// `(n, Σx, Σx²)`, each sum rounded once: equal for equal multisets of values whatever
    /// their order (for checking stored moments against the values they summarise).
    pub fn totals(&self) -> (u64, f64, f64) {
        (self.n, self.sum.value(), self.sum_sq.value())
    }

    /// Merges another stream (exactly: any grouping gives the same result).
    pub fn merge(&mut self, other: &Moments) {
        self.n += other.n;
        self.sum.merge(&other.sum);
        self.sum_sq.merge(&other.sum_sq);
    }

    /// Number of values.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Sample mean (0 when empty).
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum.value() / self.n as f64
        }
    }

    /// Sample standard deviation with `n − 1` (0 for fewer than two values).
    ///
    /// The numerator `n·Σx² − (Σx)²` is computed exactly from the exact sums (products of
    /// expansions, each term exact by FMA) and rounded once: identical values give exactly 0,
    /// and otherwise the variance is `numerator/(n(n − 1))` with two roundings, deterministic
    /// whatever the order and grouping of the values.
    pub fn std(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let n = self.n as f64;
        let mut numerator = ExactSum::default();
        for &q in self.sum_sq.components() {
            numerator.add_product(q, n);
        }
        let s = self.sum.components();
        for &a in s {
            for &b in s {
                numerator.add_product(-a, b);
            }
        }
        (numerator.value().max(0.0) / (n * (n - 1.0))).sqrt()
    }

    /// Standard error of the mean, `std/√n` (0 for fewer than two values).
    pub fn stderr(&self) -> f64 {
        self.std() / (self.n.max(1) as f64).sqrt()
    }

    /// Mean and standard deviation.
    pub fn mean_std(&self) -> MeanStd {
        MeanStd {
            mean: self.mean(),
            std: self.std(),
        }
    }
}

/// The 97.5 % quantile of Student's t with `n − 1` degrees of freedom: a two-sided 95 %
/// confidence interval for a mean of `n` values is `mean ± t·s/√n`. Student's t rather than the
/// normal quantile because runs are often few (10 to 50), and a run's total over many slots is
/// close to normal, where this interval is exact; for many runs it is the normal one (1.96).
/// `None` for fewer than two values.
pub(crate) fn t975(n: u64) -> Option<f64> {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    if n < 2 {
        return None;
    }
    StudentsT::new(0.0, 1.0, (n - 1) as f64)
        .ok()
        .map(|t| t.inverse_cdf(0.975))
}

/// A 95 % confidence interval for the mean of `n` values with mean `mean` and standard
/// deviation `std` (Student's t, see [`t975`]); `None` for fewer than two values.
pub(crate) fn ci95(n: u64, mean: f64, std: f64) -> Option<[f64; 2]> {
    let half = t975(n)? * std / (n as f64).sqrt();
    Some([mean - half, mean + half])
}

/// How the slots at which curves are recorded are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CheckpointSpec {
    /// Log-spaced points per decade from a Renard series: 5, 10 or 20.
    #[serde(default = "default_per_decade")]
    pub per_decade: u32,
    /// Evenly spaced points over the horizon (for linear-axis charts).
    #[serde(default = "default_linear")]
    pub linear: u32,
}

fn default_per_decade() -> u32 {
    20
}
fn default_linear() -> u32 {
    40
}

impl Default for CheckpointSpec {
    fn default() -> Self {
        CheckpointSpec {
            per_decade: default_per_decade(),
            linear: default_linear(),
        }
    }
}

/// Renard's R20 series ×100; R10 and R5 are its every second and every fourth term.
const R20: [u64; 20] = [
    100, 112, 125, 140, 160, 180, 200, 224, 250, 280, 315, 355, 400, 450, 500, 560, 630, 710, 800,
    900,
];

impl CheckpointSpec {
    /// The allowed values of `per_decade`.
    pub(crate) const PER_DECADE: [u32; 3] = [5, 10, 20];

    /// The slots (1-based, increasing, distinct, ending at `horizon`) at which cumulative
    /// metrics are recorded: `1..=10`, a Renard series of round numbers per decade above, the
    /// evenly spaced points, and the horizon. Integer arithmetic only, so every machine agrees.
    pub(crate) fn slots(&self, horizon: u64) -> Vec<u64> {
        let step = (20 / self.per_decade.clamp(1, 20)) as usize;
        let mut out: Vec<u64> = (1..=10.min(horizon)).collect();
        let mut decade: u64 = 10;
        'outer: while decade <= horizon {
            for &m in R20.iter().step_by(step) {
                let t = u128::from(m) * u128::from(decade) / 100;
                if t > u128::from(horizon) {
                    break 'outer;
                }
                out.push(t as u64);
            }
            match decade.checked_mul(10) {
                Some(d) => decade = d,
                None => break,
            }
        }
        let linear = u64::from(self.linear);
        for j in 1..=linear {
            out.push((u128::from(horizon) * u128::from(j) / u128::from(linear)) as u64);
        }
        out.push(horizon);
        out.retain(|&t| t >= 1 && t <= horizon);
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::math;
    use proptest::prelude::*;

    /// A mean inside the range with a spread no values inside it have is caught: 0, 0, 0, 3
    /// (mean 0.75) cannot be counts in [0, 1].
    #[test]
    fn an_impossible_spread_is_not_within() {
        let mut m = Moments::default();
        for x in [0.0, 0.0, 0.0, 3.0] {
            m.add(x);
        }
        assert!(!m.within(0.0, 1.0));
        assert!(m.within(0.0, 3.0));
    }

    #[test]
    fn exact_sum_beats_cancellation() {
        let mut s = ExactSum::default();
        for x in [1e100, 1.0, -1e100, 1e-100] {
            s.add(x);
        }
        assert_eq!(s.value(), 1.0);
        let mut t = ExactSum::default();
        for _ in 0..10 {
            t.add(0.1);
        }
        assert_eq!(t.value(), 1.0); // the correctly rounded sum of ten 0.1s is 1.0
    }

    proptest! {
        /// Moments of values in [lo, hi] are always `within(lo, hi)` (no false alarm on
        /// honest data, rounding included); a value beyond `n·hi` always fails.
        #[test]
        fn moments_within_their_range(
            xs in proptest::collection::vec(-3.0f64..=7.0, 1..40),
            scale in 1e-3f64..1e6,
        ) {
            let (lo, hi) = (-3.0 * scale, 7.0 * scale);
            let mut m = Moments::default();
            for &x in &xs {
                m.add(x * scale);
            }
            prop_assert!(m.within(lo, hi));
            m.add(hi * (xs.len() as f64 + 2.0) - lo * xs.len() as f64);
            prop_assert!(!m.within(lo, hi));
        }

        /// The value depends only on the multiset of inputs: any order, any grouping into
        /// partial sums merged in any order.
        #[test]
        fn exact_sum_is_order_and_grouping_independent(
            xs in proptest::collection::vec(-1e12f64..1e12, 0..60),
            split in 0usize..60,
        ) {
            let mut forward = ExactSum::default();
            xs.iter().for_each(|&x| forward.add(x));
            let mut backward = ExactSum::default();
            xs.iter().rev().for_each(|&x| backward.add(x));
            let cut = split.min(xs.len());
            let (mut a, mut b) = (ExactSum::default(), ExactSum::default());
            xs[..cut].iter().for_each(|&x| a.add(x));
            xs[cut..].iter().for_each(|&x| b.add(x));
            b.merge(&a);
            prop_assert_eq!(forward.value().to_bits(), backward.value().to_bits());
            prop_assert_eq!(forward.value().to_bits(), b.value().to_bits());
            // The serialised form is canonical too, and reads back to the same value.
            let canonical = forward.canonical();
            prop_assert_eq!(&canonical, &backward.canonical());
            prop_assert_eq!(&canonical, &b.canonical());
            let back: ExactSum = serde_json::from_str(&serde_json::to_string(&b).unwrap()).unwrap();
            prop_assert_eq!(back.value().to_bits(), forward.value().to_bits());
            prop_assert_eq!(back.canonical(), canonical);
        }
    }

    /// Identical values have exactly zero spread (the naive Σx² − (Σx)²/n does not: 9.7e-9 on
    /// Figure 1(a) at t = 4), however they are grouped.
    #[test]
    fn identical_values_have_exactly_zero_std() {
        for x in [
            0.1,
            1.0 / 3.0,
            12_345.678_9,
            1e-300,
            0.55 * 4.0 - 0.283 * 4.0,
        ] {
            let mut a = Moments::default();
            let mut b = Moments::default();
            for i in 0..37 {
                if i % 3 == 0 { a.add(x) } else { b.add(x) }
            }
            a.merge(&b);
            assert_eq!(a.std(), 0.0, "{x}");
            assert_eq!(a.stderr(), 0.0);
        }
    }

    /// Student's t quantiles against tables, and the interval's half-width.
    #[test]
    fn t_quantiles_and_intervals() {
        assert!((t975(2).unwrap() - 12.706).abs() < 1e-3);
        assert!((t975(21).unwrap() - 2.086).abs() < 1e-3);
        assert!((t975(100_001).unwrap() - 1.960).abs() < 1e-3);
        assert_eq!(t975(1), None);
        let [lo, hi] = ci95(21, 10.0, 2.0).unwrap();
        assert!((hi - 10.0 - 2.086 * 2.0 / 21f64.sqrt()).abs() < 1e-3);
        assert!((10.0 - lo - (hi - 10.0)).abs() < 1e-12);
    }

    #[test]
    fn moments_match_two_pass_formulas() {
        let xs = [3.0, 5.0, 7.0, 11.0];
        let mut m = Moments::default();
        xs.iter().for_each(|&x| m.add(x));
        assert_eq!(m.mean(), 6.5);
        let var = xs.iter().map(|x| math::powi(x - 6.5f64, 2)).sum::<f64>() / 3.0;
        assert!((m.std() - var.sqrt()).abs() < 1e-12);
        let mut single = Moments::default();
        single.add(4.0);
        assert_eq!(single.std(), 0.0);
    }

    #[test]
    fn checkpoints_are_increasing_and_end_at_the_horizon() {
        for horizon in [1, 7, 10, 11, 999, 200_000, 1_000_000_000] {
            let cp = CheckpointSpec::default().slots(horizon);
            assert_eq!(*cp.last().unwrap(), horizon);
            assert!(cp.windows(2).all(|w| w[0] < w[1]));
            assert_eq!(cp[0], 1);
        }
        let cp = CheckpointSpec::default().slots(200_000);
        assert!(cp.contains(&100_000) && cp.contains(&31_500) && cp.contains(&5_000));
        // Memory stays bounded in the horizon: 20 per decade + 40 linear + 10.
        assert!(CheckpointSpec::default().slots(u64::MAX / 2).len() < 20 * 20 + 60);
    }

    #[test]
    fn checkpoint_slots_of_a_small_horizon() {
        let cp = CheckpointSpec {
            per_decade: 5,
            linear: 2,
        }
        .slots(1000);
        assert_eq!(
            cp,
            vec![
                1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16, 25, 40, 63, 100, 160, 250, 400, 500, 630, 1000
            ]
        );
    }
}
