//! Ranking arms by a value, and keeping the empirical top-K set up to date in O(log N) per
//! sample (used by the identification algorithms and CascadeKL-UCB).
//!
//! Arms are ranked by a value, ties going to the lower index ([`Ranked`]): every "K arms with the
//! highest empirical means", every argmin and argmax in the algorithms uses this one total order,
//! so results never depend on iteration order. Only the sampled arm's mean changes between two
//! decisions, so [`MeanSplit`] repairs the top-K set with at most one swap instead of re-sorting.

use std::cmp::Ordering;

mod extreme;
mod set;
pub(crate) use extreme::ExtremeSet;
pub(crate) use set::RankedSet;

/// `x`'s place in `f64::total_cmp`'s order as an unsigned integer: `order_key(a) < order_key(b)`
/// exactly when `a.total_cmp(&b)` is `Less`, so integer minima and maxima rank as [`Ranked`]
/// does, branch-free.
#[inline]
pub(crate) fn order_key(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 { !b } else { b | (1 << 63) }
}

/// An arm keyed by a value; greater = ranked higher (larger value, then lower index).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ranked {
    /// The value ranked on (a mean, a confidence bound, an index).
    pub value: f64,
    /// The arm.
    pub arm: usize,
}

impl Ranked {
    /// This entry as one integer in the same order: the value's [`order_key`] above the arm's
    /// complement (a lower arm ranks higher). Minima, maxima and searches over keys are integer
    /// operations, branch-free where a comparison of `Ranked`s branches.
    #[inline]
    pub(crate) fn key(self) -> u128 {
        Ranked::key_of(order_key(self.value), self.arm)
    }

    /// The [`Ranked::key`] of `arm` with a value whose [`order_key`] is `order`.
    #[inline]
    pub(crate) fn key_of(order: u64, arm: usize) -> u128 {
        (u128::from(order) << 64) | u128::from(!(arm as u64))
    }

    /// The arm of the entry whose [`Ranked::key`] is `key`.
    #[inline]
    pub(crate) fn arm_of_key(key: u128) -> usize {
        !(key as u64) as usize
    }

    /// The entry whose [`Ranked::key`] is `key` (the value's exact bits).
    #[inline]
    pub(crate) fn from_key(key: u128) -> Ranked {
        let (hi, lo) = ((key >> 64) as u64, key as u64);
        // `order_key`'s inverse: a set top bit marks a value with the sign bit clear.
        let bits = if hi >> 63 == 1 { hi & !(1 << 63) } else { !hi };
        Ranked {
            value: f64::from_bits(bits),
            arm: Ranked::arm_of_key(u128::from(lo)),
        }
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> Ordering {
        self.value
            .total_cmp(&other.value)
            .then(other.arm.cmp(&self.arm))
    }
}

/// The empirical top-K set ("High") and the rest ("Low"), kept by mean. Only High's lowest
/// and Low's highest mean decide a swap, so each side keeps its end only ([`ExtremeSet`]).
#[derive(Clone, Debug)]
pub(crate) struct MeanSplit {
    high: ExtremeSet,
    low: ExtremeSet,
    in_high: Vec<bool>,
    mean: Vec<f64>,
}

/// An arm that changed sides in [`MeanSplit::update`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Swap {
    /// Moved from High to Low.
    pub demoted: usize,
    /// Moved from Low to High.
    pub promoted: usize,
}

impl MeanSplit {
    /// Splits arms by `means` into the top `k` and the rest.
    pub(crate) fn new(means: &[f64], k: usize) -> MeanSplit {
        let mut order: Vec<usize> = (0..means.len()).collect();
        order.sort_unstable_by(|&a, &b| {
            Ranked {
                value: means[b],
                arm: b,
            }
            .cmp(&Ranked {
                value: means[a],
                arm: a,
            })
        });
        let mut split = MeanSplit {
            high: ExtremeSet::lowest(means.len()),
            low: ExtremeSet::highest(means.len()),
            in_high: vec![false; means.len()],
            mean: means.to_vec(),
        };
        for (rank, &arm) in order.iter().enumerate() {
            if rank < k {
                split.in_high[arm] = true;
                split.high.insert(arm, means[arm]);
            } else {
                split.low.insert(arm, means[arm]);
            }
        }
        split
    }

    /// Whether `arm` is in the top-K set.
    pub(crate) fn is_high(&self, arm: usize) -> bool {
        self.in_high[arm]
    }

    /// Each arm's side: `true` for the top-K set.
    pub(crate) fn sides(&self) -> &[bool] {
        &self.in_high
    }

    /// Arms of the top-K set (lowest-ranked first). Sorted here: it is read once, for the
    /// answer.
    pub(crate) fn high(&self) -> impl Iterator<Item = usize> + use<> {
        let mut high: Vec<Ranked> = (self.in_high.iter().enumerate())
            .filter(|&(_, &h)| h)
            .map(|(arm, _)| Ranked {
                value: self.mean[arm],
                arm,
            })
            .collect();
        high.sort_unstable();
        high.into_iter().map(|r| r.arm)
    }

    /// Updates `arm`'s mean and restores the split; returns the swap it caused, if any.
    pub(crate) fn update(&mut self, arm: usize, mean: f64) -> Option<Swap> {
        self.mean[arm] = mean;
        if self.in_high[arm] {
            self.high.replace(arm, mean);
        } else {
            self.low.replace(arm, mean);
        }
        // Only `arm` moved, so at most one pair can be out of order.
        let (worst_high, best_low) = (self.high.extreme()?, self.low.extreme()?);
        if best_low > worst_high {
            let (d, p) = (worst_high.arm, best_low.arm);
            self.high.remove(d);
            self.low.remove(p);
            self.high.insert(p, best_low.value);
            self.low.insert(d, worst_high.value);
            self.in_high[d] = false;
            self.in_high[p] = true;
            return Some(Swap {
                demoted: d,
                promoted: p,
            });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn top_k(means: &[f64], k: usize) -> Vec<usize> {
        let mut v: Vec<usize> = (0..means.len()).collect();
        v.sort_by(|&a, &b| {
            Ranked {
                value: means[b],
                arm: b,
            }
            .cmp(&Ranked {
                value: means[a],
                arm: a,
            })
        });
        let mut top = v[..k].to_vec();
        top.sort_unstable();
        top
    }

    proptest! {
        /// After any sequence of updates the split equals the top-K computed from scratch.
        #[test]
        fn incremental_split_equals_full_sort(
            n in 2usize..12,
            k_frac in 0.0f64..1.0,
            updates in proptest::collection::vec((0usize..12, 0u8..5), 0..60),
        ) {
            let k = 1 + ((n - 1) as f64 * k_frac) as usize;
            // Coarse values so that ties are common.
            let mut means: Vec<f64> = (0..n).map(|i| (i % 3) as f64 * 0.25).collect();
            let mut split = MeanSplit::new(&means, k);
            for (arm, v) in updates {
                let arm = arm % n;
                means[arm] = v as f64 * 0.25;
                split.update(arm, means[arm]);
                let mut got: Vec<usize> = split.high().collect();
                got.sort_unstable();
                prop_assert_eq!(got, top_k(&means, k));
            }
        }
    }

    proptest! {
        /// Keys order as `Ranked` does and give back the exact value and arm.
        #[test]
        fn keys_keep_the_order_and_the_bits(
            a in (any::<u64>(), 0usize..1 << 40),
            b in (any::<u64>(), 0usize..1 << 40),
        ) {
            let (x, y) = (
                Ranked { value: f64::from_bits(a.0), arm: a.1 },
                Ranked { value: f64::from_bits(b.0), arm: b.1 },
            );
            prop_assert_eq!(x.key().cmp(&y.key()), x.cmp(&y));
            let back = Ranked::from_key(x.key());
            prop_assert_eq!((back.value.to_bits(), back.arm), (a.0, a.1));
        }
    }

    #[test]
    fn ties_rank_the_lower_index_higher() {
        let split = MeanSplit::new(&[0.5, 0.5, 0.5], 2);
        assert!(split.is_high(0) && split.is_high(1) && !split.is_high(2));
    }
}
