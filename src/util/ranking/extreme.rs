//! [`ExtremeSet`]: arms keyed by a value, of which only the highest- or the lowest-ranked is
//! ever read.
//!
//! lil'LUCB, LUCB++ and lil'RandLUCB read only `h_t` (the lowest lower bound in High) and `l_t`
//! (the highest upper bound in Low). A sampled arm's bound may move far through the order (the
//! extremes are the arms sampled, and their bounds move inward), which a sorted list pays for
//! with a long shift. A tournament tree over the arms pays O(log N) whatever the move, usually
//! less: an update stops climbing as soon as a node keeps its value.

use super::Ranked;

/// A tournament tree over arms: leaf `n + arm` holds the arm's encoded [`Ranked::key`] while it
/// is in the set and 0 otherwise; an inner node holds the larger of its children, so the root
/// is the extreme.
#[derive(Clone, Debug)]
pub(crate) struct ExtremeSet {
    /// Whether the highest-ranked entry is kept (else the lowest).
    highest: bool,
    tree: Vec<u128>,
}

impl ExtremeSet {
    /// An empty set of up to `n` arms that keeps its highest-ranked entry.
    pub(crate) fn highest(n: usize) -> ExtremeSet {
        ExtremeSet {
            highest: true,
            tree: vec![0; 2 * n],
        }
    }

    /// An empty set of up to `n` arms that keeps its lowest-ranked entry.
    pub(crate) fn lowest(n: usize) -> ExtremeSet {
        ExtremeSet {
            highest: false,
            ..ExtremeSet::highest(n)
        }
    }

    /// Inserts `arm` with `value` (it must not be in the set).
    #[inline]
    pub(crate) fn insert(&mut self, arm: usize, value: f64) {
        self.insert_key(Ranked { value, arm }.key());
    }

    /// Inserts the entry whose [`Ranked::key`] is `key`. Stored so that the larger stored value
    /// is the extreme: a lowest-first set stores the complement. Neither is ever 0 (the absent
    /// leaf): a key's low half is an arm's complement, never 0, and a complement is 0 only for
    /// arm 0 with the one NaN whose bits are all ones after the sign, which no bound is.
    #[inline]
    pub(crate) fn insert_key(&mut self, key: u128) {
        let stored = if self.highest { key } else { !key };
        debug_assert!(stored != 0, "key {key:#x}");
        self.set(Ranked::arm_of_key(key), stored);
    }

    /// Removes `arm` (its value is not needed: the tree is indexed by arm).
    #[inline]
    pub(crate) fn remove(&mut self, arm: usize) {
        self.set(arm, 0);
    }

    /// Gives `arm` the value `value`.
    #[inline]
    pub(crate) fn replace(&mut self, arm: usize, value: f64) {
        self.insert(arm, value);
    }

    /// The extreme entry, `None` when the set is empty.
    #[inline]
    pub(crate) fn extreme(&self) -> Option<Ranked> {
        let root = *self.tree.get(1)?;
        (root != 0).then(|| Ranked::from_key(if self.highest { root } else { !root }))
    }

    fn set(&mut self, arm: usize, stored: u128) {
        let n = self.tree.len() / 2;
        let mut i = n + arm;
        self.tree[i] = stored;
        while i > 1 {
            i /= 2;
            let up = self.tree[2 * i].max(self.tree[2 * i + 1]);
            if self.tree[i] == up {
                // The nodes above depend on this one only through its value.
                break;
            }
            self.tree[i] = up;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Operation by operation, the extreme is the `Ranked` maximum (or minimum) of the
        /// entries present, ties, ±0 and infinities included.
        #[test]
        fn extreme_is_the_ranked_extreme_of_the_entries(
            n in 1usize..70,
            highest in any::<bool>(),
            ops in prop::collection::vec(
                (0usize..70, prop::sample::select(vec![
                    -1.0, -0.0, 0.0, 0.25, 0.5, 1.0, f64::INFINITY, f64::NEG_INFINITY,
                ]), any::<bool>()),
                1..300,
            ),
        ) {
            let mut set = if highest { ExtremeSet::highest(n) } else { ExtremeSet::lowest(n) };
            let mut plain: Vec<Option<f64>> = vec![None; n];
            for (arm, value, keep) in ops {
                let arm = arm % n;
                match (plain[arm], keep) {
                    (None, _) => set.insert(arm, value),
                    (Some(_), true) => set.replace(arm, value),
                    (Some(_), false) => set.remove(arm),
                }
                plain[arm] = if plain[arm].is_some() && !keep { None } else { Some(value) };
                let entries = plain
                    .iter()
                    .enumerate()
                    .filter_map(|(arm, v)| v.map(|value| Ranked { value, arm }));
                let want = if highest { entries.max() } else { entries.min() };
                let got = set.extreme();
                prop_assert_eq!(got.map(|r| r.arm), want.map(|r| r.arm));
                prop_assert_eq!(
                    got.map(|r| r.value.to_bits()),
                    want.map(|r| r.value.to_bits())
                );
            }
        }
    }
}
