//! The max-weight matching of users to channels: the benchmark of users who see the channels
//! differently (a K × M matrix of means), and the oracle of the policies that learn one
//! (BEACON's leader, CUCB). Kuhn–Munkres (the Hungarian algorithm) from `pathfinding`, exact in
//! O(n³) for any numbers of users and channels.
//!
//! `pathfinding` needs weights with a total order and exact arithmetic: they are scaled to
//! integers, `trunc(w · 2^s)` with `s` the largest power that keeps every weight below 2⁵²
//! (so a total over 1 024 users stays within `i64`). The assignment is optimal for the scaled
//! weights, hence within `2·rows · 2^−s` of the optimum of the real ones (a relative 2⁻⁵⁰ of
//! the largest weight per row, at the resolution of `f64` itself); the caller computes the
//! value of the assignment from the real weights.

use crate::util::math;
use pathfinding::kuhn_munkres::{Weights, kuhn_munkres};

/// The largest scaled weight (see the module docs).
const SCALE_BITS: i32 = 52;

/// The scaled integer weights of one matching problem, kept from one problem to the next
/// by a caller that solves many (a learner's oracle every slot): no allocation but
/// `pathfinding`'s own.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scaled {
    rows: usize,
    cols: usize,
    real: Vec<f64>,
    w: Vec<i64>,
}

impl Weights<i64> for Scaled {
    fn rows(&self) -> usize {
        self.rows
    }
    fn columns(&self) -> usize {
        self.cols
    }
    fn at(&self, row: usize, col: usize) -> i64 {
        self.w[row * self.cols + col]
    }
    fn neg(&self) -> Self {
        Scaled {
            w: self.w.iter().map(|&x| -x).collect(),
            real: self.real.iter().map(|&x| -x).collect(),
            ..*self
        }
    }
}

impl Scaled {
    /// The assignment of each of `rows` rows to a distinct column of `cols ≥ rows` maximising
    /// the total of `weight(row, col)` (finite), as `col[row]`.
    ///
    /// # Panics
    ///
    /// When `rows > cols` or a weight is not finite (the callers guarantee neither happens).
    pub(crate) fn max_weight(
        &mut self,
        rows: usize,
        cols: usize,
        weight: impl Fn(usize, usize) -> f64,
    ) -> Vec<usize> {
        assert!(
            rows <= cols,
            "every row needs a column: {rows} rows, {cols} columns"
        );
        if rows == 0 {
            return Vec::new();
        }
        self.rows = rows;
        self.cols = cols;
        self.real.clear();
        let mut largest = 0.0f64;
        for r in 0..rows {
            for c in 0..cols {
                let w = weight(r, c);
                assert!(w.is_finite(), "weight ({r}, {c}) is not finite: {w}");
                largest = largest.max(w.abs());
                self.real.push(w);
            }
        }
        // largest < 2^(e + 1) with e its binary exponent (read from its bits: `log2` and
        // `round` are libm calls here, and this runs every slot of an oracle learner), so
        // 2^s · largest < 2^52 with s = 51 − e; truncation keeps every weight within one unit.
        let e = ((largest.to_bits() >> 52) & 0x7ff) as i32 - 1023;
        let s = if largest > 0.0 { SCALE_BITS - 1 - e } else { 0 };
        let scale = math::powi(2f64, s);
        self.w.clear();
        self.w.extend(self.real.iter().map(|&w| (w * scale) as i64));
        kuhn_munkres(self).1
    }
}

/// [`Scaled::max_weight`] of a single problem.
pub(crate) fn max_weight(
    rows: usize,
    cols: usize,
    weight: impl Fn(usize, usize) -> f64,
) -> Vec<usize> {
    Scaled::default().max_weight(rows, cols, weight)
}

/// Users' values of channels: the assignment of at most one channel to each user (distinct
/// channels) maximising the total of the values it uses, a user staying silent where no
/// channel left has a positive value for it; `None` for a silent user.
pub(crate) fn assign_positive(values: &[Vec<f64>], channels: usize) -> Vec<Option<usize>> {
    let users = values.len();
    // A user may take one of `users` silent columns (value 0); a non-positive value is as good
    // as silence.
    let cols = channels + users;
    let col = max_weight(users, cols, |u, c| {
        if c < channels {
            values[u][c].max(0.0)
        } else {
            0.0
        }
    });
    col.iter()
        .enumerate()
        .map(|(u, &c)| (c < channels && values[u][c] > 0.0).then_some(c))
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Brute force: every assignment of distinct channels (or none) to the users.
    pub(crate) fn brute_positive(values: &[Vec<f64>], channels: usize) -> f64 {
        fn go(u: usize, used: &mut Vec<bool>, values: &[Vec<f64>]) -> f64 {
            if u == values.len() {
                return 0.0;
            }
            let mut best = go(u + 1, used, values);
            for c in 0..used.len() {
                if !used[c] && values[u][c] > 0.0 {
                    used[c] = true;
                    best = best.max(values[u][c] + go(u + 1, used, values));
                    used[c] = false;
                }
            }
            best
        }
        go(0, &mut vec![false; channels], values)
    }

    fn total(values: &[Vec<f64>], a: &[Option<usize>]) -> f64 {
        a.iter()
            .enumerate()
            .filter_map(|(u, c)| c.map(|c| values[u][c]))
            .sum()
    }

    proptest! {
        /// The matching equals brute force on every instance with M, K ≤ 7 (to the
        /// integer scaling's resolution), never reuses a channel and never uses a
        /// non-positive value.
        #[test]
        fn matching_equals_brute_force(
            users in 1usize..=7,
            channels in 1usize..=7,
            seed in any::<u64>(),
            ties in any::<bool>(),
        ) {
            let mut rng = crate::util::rng::stream(seed, 0, 0);
            use rand::RngExt;
            let values: Vec<Vec<f64>> = (0..users)
                .map(|_| (0..channels).map(|_| {
                    let v: f64 = rng.random::<f64>() * 2.0 - 0.5;
                    // Coarse values make ties, the hard case for a tie-breaking oracle.
                    if ties { (v * 4.0).round() / 4.0 } else { v }
                }).collect())
                .collect();
            let a = assign_positive(&values, channels);
            let mut seen = vec![false; channels];
            for (u, c) in a.iter().enumerate() {
                if let Some(c) = *c {
                    prop_assert!(!seen[c], "channel {} twice", c);
                    seen[c] = true;
                    prop_assert!(values[u][c] > 0.0);
                }
            }
            let brute = brute_positive(&values, channels);
            let got = total(&values, &a);
            prop_assert!((got - brute).abs() <= 1e-12 * brute.abs().max(1.0), "{} vs {}", got, brute);
        }
    }

    #[test]
    fn a_large_instance_is_polynomial() {
        // 300 users × 400 channels: far beyond any enumeration (the dynamic programme over
        // the sets of channels would need 2⁴⁰⁰ states).
        let mut rng = crate::util::rng::stream(5, 0, 0);
        use rand::RngExt;
        let values: Vec<Vec<f64>> = (0..300)
            .map(|_| (0..400).map(|_| rng.random::<f64>()).collect())
            .collect();
        let a = assign_positive(&values, 400);
        assert_eq!(a.iter().filter(|c| c.is_some()).count(), 300);
        // Every user on a channel of its own, each better than the greedy's first pick on
        // average.
        let mut used: Vec<usize> = a.iter().flatten().copied().collect();
        used.sort_unstable();
        used.dedup();
        assert_eq!(used.len(), 300);
    }

    #[test]
    fn more_users_than_channels_leave_the_rest_silent() {
        let values = vec![vec![0.9, 0.1], vec![0.8, 0.7], vec![0.5, 0.6]];
        let a = assign_positive(&values, 2);
        assert_eq!(a, vec![Some(0), Some(1), None]);
        let negative = vec![vec![-0.1, -0.2]];
        assert_eq!(assign_positive(&negative, 2), vec![None]);
    }
}
