//! [`RankedSet`]: arms kept in [`Ranked`] order, as a list of short sorted runs.
//!
//! The identification algorithms change one arm's value per sample, and by little: a sampled
//! arm's mean moves by O(1/n) and its confidence bound by a little more, so the entry moves a few
//! places. A sorted run handles that as one short shift ([`RankedSet::replace`]) where a
//! balanced tree removes and re-inserts through its nodes, and reading the set in order (as
//! lil'CLUCB does every sample, pair by pair from both ends) is a walk over contiguous memory.
//! Runs are bounded ([`RUN`]), so an insertion or a long move shifts at most a run's entries and
//! a set of any size keeps O(log N + RUN) updates.
//!
//! The order is [`Ranked`]'s, so every argmin, argmax and pairing read from the set is the one a
//! `BTreeSet<Ranked>` gives (a property test compares them operation by operation).

use super::Ranked;

/// Entries per run at which a run is split in two; runs that fall under a quarter of it merge
/// with a neighbour.
const RUN: usize = 1024;

/// Entries are kept as [`Ranked::key`]s: comparing two is two integer comparisons, which keeps
/// the binary searches branch-free.
type Key = u128;

#[inline]
fn key(arm: usize, value: f64) -> Key {
    Ranked { value, arm }.key()
}

/// Where `key` is in `run` (as `binary_search` answers), looked for first within a few places of
/// `hint`.
#[inline]
fn locate(run: &[Key], key: Key, hint: Option<u32>) -> Result<usize, usize> {
    const NEAR: usize = 4;
    if let Some(h) = hint {
        let h = h as usize;
        let (lo, hi) = (h.saturating_sub(NEAR), run.len().min(h + NEAR + 1));
        if lo < hi
            && let Some(i) = run[lo..hi].iter().position(|&e| e == key)
        {
            return Ok(lo + i);
        }
    }
    run.binary_search(&key)
}

/// A set of arms ordered by a per-arm value that changes over time.
#[derive(Clone, Debug, Default)]
pub(crate) struct RankedSet {
    /// Non-empty sorted runs, each entirely below the next.
    runs: Vec<Vec<Key>>,
    /// Per arm, where in its run it was last put. Other arms' moves shift it by a few places,
    /// so the entry is looked for around there before bisecting the run.
    hint: Vec<u32>,
}

impl RankedSet {
    /// The run that holds `key` or, for a key not present, the run it would go into.
    #[inline]
    fn run_of(&self, key: &Key) -> usize {
        // The first run whose last entry is not below `key`; past the end, the last run.
        let r = self
            .runs
            .partition_point(|run| run.last().is_some_and(|last| last < key));
        r.min(self.runs.len().saturating_sub(1))
    }

    /// Inserts `arm` with `value`.
    pub(crate) fn insert(&mut self, arm: usize, value: f64) {
        let key = key(arm, value);
        if self.runs.is_empty() {
            self.runs.push(Vec::with_capacity(RUN.min(64)));
        }
        let r = self.run_of(&key);
        let run = &mut self.runs[r];
        let at = run.partition_point(|e| *e < key);
        debug_assert!(run.get(at) != Some(&key), "arm {arm} is already in the set");
        run.insert(at, key);
        if self.hint.len() <= arm {
            self.hint.resize(arm + 1, 0);
        }
        self.hint[arm] = at as u32;
        if run.len() >= RUN {
            let upper = run.split_off(RUN / 2);
            self.runs.insert(r + 1, upper);
        }
    }

    /// Removes `arm`, which must be present with `value`.
    pub(crate) fn remove(&mut self, arm: usize, value: f64) {
        let key = key(arm, value);
        let r = self.run_of(&key);
        let Some(run) = self.runs.get_mut(r) else {
            debug_assert!(false, "arm {arm} with value {value} was not in the set");
            return;
        };
        match locate(run, key, self.hint.get(arm).copied()) {
            Ok(at) => {
                run.remove(at);
            }
            Err(_) => {
                debug_assert!(false, "arm {arm} with value {value} was not in the set");
                return;
            }
        }
        self.mend(r);
    }

    /// Moves `arm` from `old` (where it must be) to `new`: a rotation within its run when the
    /// new place is in the same run, which is the usual case.
    pub(crate) fn replace(&mut self, arm: usize, old: f64, new: f64) {
        let (from, to) = (key(arm, old), key(arm, new));
        let r = self.run_of(&from);
        // The new key stays in this run when it falls between the neighbouring runs.
        let stays = (r == 0 || self.runs[r - 1].last().is_some_and(|l| *l < to))
            && self
                .runs
                .get(r + 1)
                .is_none_or(|next| next.first().is_some_and(|f| to < *f));
        let Some(run) = self.runs.get_mut(r) else {
            debug_assert!(false, "arm {arm} with value {old} was not in the set");
            return;
        };
        let Ok(at) = locate(run, from, self.hint.get(arm).copied()) else {
            debug_assert!(false, "arm {arm} with value {old} was not in the set");
            return;
        };
        if !stays {
            self.remove(arm, old);
            self.insert(arm, new);
            return;
        }
        // Entries between the old and the new place shift by one. Most moves are short, so the
        // first few are shifted one by one as the new place is looked for; a long move finds
        // its place by bisection and shifts the rest at once.
        const STEPS: usize = 16;
        let mut i = at;
        if to > from {
            let stop = run.len().min(at + 1 + STEPS);
            while i + 1 < stop && run[i + 1] < to {
                run[i] = run[i + 1];
                i += 1;
            }
            if i + 1 == stop && stop < run.len() && run[stop] < to {
                let end = stop + run[stop..].partition_point(|e| *e < to);
                run.copy_within(stop..end, stop - 1);
                i = end - 1;
            }
        } else {
            let stop = at.saturating_sub(STEPS);
            while i > stop && run[i - 1] > to {
                run[i] = run[i - 1];
                i -= 1;
            }
            if i == stop && stop > 0 && run[stop - 1] > to {
                let start = run[..stop].partition_point(|e| *e < to);
                run.copy_within(start..stop, start + 1);
                i = start;
            }
        }
        run[i] = to;
        self.hint[arm] = i as u32;
    }

    /// Merges run `r` into a neighbour when it has become short (or removes it when empty), so
    /// that the runs stay few.
    fn mend(&mut self, r: usize) {
        let len = self.runs[r].len();
        if len == 0 {
            self.runs.remove(r);
            return;
        }
        if len >= RUN / 4 || self.runs.len() == 1 {
            return;
        }
        let (a, b) = if r + 1 < self.runs.len() {
            (r, r + 1)
        } else {
            (r - 1, r)
        };
        if self.runs[a].len() + self.runs[b].len() < RUN {
            let upper = self.runs.remove(b);
            self.runs[a].extend_from_slice(&upper);
        }
    }

    /// The highest-ranked entry.
    #[inline]
    pub(crate) fn best(&self) -> Option<Ranked> {
        self.runs
            .last()
            .and_then(|run| run.last())
            .map(|&k| Ranked::from_key(k))
    }

    /// The lowest-ranked entry.
    #[inline]
    pub(crate) fn worst(&self) -> Option<Ranked> {
        self.runs
            .first()
            .and_then(|run| run.first())
            .map(|&k| Ranked::from_key(k))
    }

    /// The entries' [`Ranked::key`]s from the lowest-ranked up: the same order, compared as
    /// integers.
    pub(crate) fn keys_ascending(&self) -> impl Iterator<Item = u128> {
        self.runs.iter().flat_map(|run| run.iter().copied())
    }

    /// The entries' [`Ranked::key`]s from the highest-ranked down.
    pub(crate) fn keys_descending(&self) -> impl Iterator<Item = u128> {
        self.runs
            .iter()
            .rev()
            .flat_map(|run| run.iter().rev().copied())
    }

    /// Where `arm`, present with `value`, is in the set's ascending order, while the set is one
    /// run: looked for around where it was last put, so usually without a search.
    pub(crate) fn place_in_single_run(&self, arm: usize, value: f64) -> Option<usize> {
        let [run] = self.runs.as_slice() else {
            return None;
        };
        locate(run, key(arm, value), self.hint.get(arm).copied()).ok()
    }

    /// Every entry's [`Ranked::key`], ascending, as one slice while the set is one run.
    pub(crate) fn single_run(&self) -> Option<&[u128]> {
        match self.runs.as_slice() {
            [] => Some(&[]),
            [run] => Some(run),
            _ => None,
        }
    }

    /// Number of entries.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.runs.iter().map(Vec::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    #[derive(Clone, Debug)]
    enum Op {
        Insert(usize, u8),
        Remove(usize),
        Replace(usize, u8),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0usize..3000, 0u8..40).prop_map(|(a, v)| Op::Insert(a, v)),
            (0usize..3000).prop_map(Op::Remove),
            (0usize..3000, 0u8..40).prop_map(|(a, v)| Op::Replace(a, v)),
        ]
    }

    /// Coarse values (many ties, infinities and both zeros) so that every tie-break is met.
    fn value(v: u8) -> f64 {
        match v {
            0 => f64::NEG_INFINITY,
            1 => f64::INFINITY,
            2 => -0.0,
            3 => 0.0,
            v => f64::from(v) * 0.25 - 4.0,
        }
    }

    proptest! {
        /// Every operation leaves the same entries in the same order as a `BTreeSet<Ranked>`,
        /// with sets large enough to split and merge runs.
        #[test]
        fn the_set_is_a_btree_set_of_ranked(
            fill in 0usize..2600,
            ops in proptest::collection::vec(op(), 0..400),
        ) {
            let mut set = RankedSet::default();
            let mut want = BTreeSet::new();
            let mut value_of = std::collections::HashMap::new();
            for arm in 0..fill {
                let v = value((arm * 7 % 40) as u8);
                set.insert(arm, v);
                want.insert(Ranked { value: v, arm });
                value_of.insert(arm, v);
            }
            for op in ops {
                match op {
                    Op::Insert(arm, v) if !value_of.contains_key(&arm) => {
                        set.insert(arm, value(v));
                        want.insert(Ranked { value: value(v), arm });
                        value_of.insert(arm, value(v));
                    }
                    Op::Remove(arm) => {
                        if let Some(v) = value_of.remove(&arm) {
                            set.remove(arm, v);
                            want.remove(&Ranked { value: v, arm });
                        }
                    }
                    Op::Replace(arm, v) => {
                        if let Some(old) = value_of.insert(arm, value(v)) {
                            set.replace(arm, old, value(v));
                            want.remove(&Ranked { value: old, arm });
                            want.insert(Ranked { value: value(v), arm });
                        } else {
                            value_of.remove(&arm);
                        }
                    }
                    Op::Insert(..) => {}
                }
                prop_assert_eq!(set.len(), want.len());
                prop_assert!(set.runs.iter().all(|r| !r.is_empty() && r.len() < RUN));
                prop_assert_eq!(set.best(), want.last().copied());
                prop_assert_eq!(set.worst(), want.first().copied());
            }
            let got: Vec<(u64, usize)> = set.keys_ascending().map(Ranked::from_key).map(|r| (r.value.to_bits(), r.arm)).collect();
            let exp: Vec<(u64, usize)> = want.iter().map(|r| (r.value.to_bits(), r.arm)).collect();
            prop_assert_eq!(got, exp);
            let got: Vec<usize> = set.keys_descending().map(Ranked::arm_of_key).collect();
            let exp: Vec<usize> = want.iter().rev().map(|r| r.arm).collect();
            prop_assert_eq!(got, exp);
        }
    }

    /// Walking up a long set with small moves, as the algorithms do, never leaves a run out of
    /// order or over size.
    #[test]
    fn many_small_moves_keep_runs_sorted() {
        let mut set = RankedSet::default();
        let mut v: Vec<f64> = (0..5000).map(|a| (a % 97) as f64).collect();
        for (a, &x) in v.iter().enumerate() {
            set.insert(a, x);
        }
        for step in 0..20_000usize {
            let a = step * 31 % 5000;
            let new = v[a] + ((step % 5) as f64 - 2.0) * 0.5;
            set.replace(a, v[a], new);
            v[a] = new;
        }
        let all: Vec<Ranked> = set.keys_ascending().map(Ranked::from_key).collect();
        assert_eq!(all.len(), 5000);
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        assert!(set.runs.iter().all(|r| !r.is_empty() && r.len() < RUN));
    }
}
