//! Exact ranking of many channels by an optimistic index, produced lazily, in less than linear
//! time per slot.
//!
//! CC-UCB ranks every channel by an index that reads the channel's statistics and one
//! exploration level `s = √(α ln t)` shared by all. Sorting all K indices each slot costs
//! O(K log K) (O(K) when the order barely changes), though a slot only probes the head of the
//! list and the exact expected reward only reads a prefix. Three facts make the head cheap:
//!
//! 1. Between two probes of a channel its index is nondecreasing in `s`, in floating point
//!    too (every operation of the index is monotone under round-to-nearest), and `s` grows
//!    with `t`. Over an *epoch* of slots `[t₀, t₁]` the index at `s(t₁)` bounds the index at
//!    any slot of the epoch from above.
//! 2. Channels with identical statistics have identical indices at every `s`: they form one
//!    *group*, listed together in index order (the ranking breaks ties by the lower index).
//!    During exploration thousands of channels share a handful of statistics.
//! 3. Only channels probed in a slot change their statistics; their groups change at the
//!    start of the next slot.
//!
//! So the groups are kept ordered by their bound (a B-tree), and a slot reveals groups in that
//! order, computing their exact index at the current `s` into a heap, only while some
//! unrevealed group could still rank before the best revealed one. Each entry emitted is the
//! one the full sort would put next (ties included: the order is the index, larger first, then
//! the channel, as in [`super::resort_by_key_desc`]), which a property test checks against the
//! full sort slot by slot. Per slot the cost is O((probed + revealed) log K); an epoch's start
//! recomputes every group's bound, O(G log G) for G groups.
//!
//! How long an epoch lasts is a trade: a long one is rebuilt rarely, but its bounds are loose
//! at its start (the level at its end is further away), so a slot reveals groups it then does
//! not emit. That waste per slot is about `W₀ + c·d` at distance `d` from the epoch's end (`W₀`
//! the few reveals any order check needs), and a rebuild costs `R` whatever the length `L`, so
//! the cost per slot is `R/L + c·L/2 + W₀`, least at `L = √(2R/c)`. Each epoch measures `c`
//! from its two halves (their mean distances differ by `L/2`) and sets the next one's length
//! from it, at most t/32 (the first epoch's length). Once UCB's exploration has packed the
//! indices tightly, a fixed t/32 left ~80 groups revealed and not emitted a slot at K = 4096;
//! this leaves ~5. The length changes only how fast the list comes, never which list: every
//! epoch's bounds hold. A revealed group that ranks before everything else is emitted at once,
//! without going through the heap.
//!
//! The B-tree and the group lists allocate as groups split and merge: rarely in steady state,
//! and never more than O(K) memory in all.

use crate::util::ranking::order_key;
use std::collections::{BTreeSet, BinaryHeap, HashMap};

/// What the ranking reads of a policy's index.
pub(crate) trait MonotoneIndex {
    /// Channel `i`'s index at exploration level `s`: nondecreasing in `s` as long as the
    /// channel's statistics do not change, in floating point (never NaN).
    fn index(&self, i: usize, s: f64) -> f64;
    /// The statistics the index reads, as bits: equal classes have equal indices at every `s`.
    fn class(&self, i: usize) -> Class;
    /// At least `index(i, s')` for every `s' ≤ s`: the index itself where it is monotone in
    /// floating point; an index computed to a tolerance (a root found by Newton steps) adds a
    /// margin above that tolerance.
    #[inline]
    fn bound(&self, i: usize, s: f64) -> f64 {
        self.index(i, s)
    }
}

/// Entries of the bounds tree copied at a time (a slot reveals a few dozen).
const UPCOMING: usize = 32;

/// See [`MonotoneIndex::class`].
pub(crate) type Class = [u64; 4];

/// Channels with identical statistics.
#[derive(Clone, Debug)]
struct Group {
    class: Class,
    /// Ascending.
    members: Vec<u32>,
    /// [`order_key`] of the index of the members at the epoch's last slot.
    bound: u64,
}

impl Group {
    /// The group's entry in the bounds tree: larger bound first, then the lower channel.
    fn entry(&self, g: u32) -> (u64, u32, u32) {
        (u64::MAX - self.bound, self.members[0], g)
    }
}

/// The lazily produced ranking (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct LazyRanking {
    groups: Vec<Group>,
    free: Vec<u32>,
    group_of: Vec<u32>,
    by_class: HashMap<Class, u32>,
    /// Every group's [`Group::entry`].
    bounds: BTreeSet<(u64, u32, u32)>,
    /// Revealed this slot and not yet emitted, the first in rank order on top.
    revealed: BinaryHeap<Revealed>,
    /// The next entries of `bounds` to reveal this slot, in order (reversed: the next is
    /// last), copied from the tree a run at a time rather than searched for one by one.
    upcoming: Vec<(u64, u32, u32)>,
    /// The last entry copied into `upcoming`, and whether the tree has no more.
    cursor: Option<(u64, u32, u32)>,
    exhausted: bool,
    /// Channels whose statistics changed since their group was last updated.
    dirty: Vec<u32>,
    is_dirty: Vec<bool>,
    /// This slot's exploration level, the epoch's last slot and level.
    s: f64,
    epoch_end: u64,
    s_end: f64,
    /// This epoch's first slot and the first of its second half; per half, its slots and the
    /// groups they revealed and did not emit (see the module docs: what sets the next epoch's
    /// length).
    epoch_start: u64,
    epoch_mid: u64,
    halves: [Half; 2],
    /// Only entries whose index ranks above this one are listed ([`order_key`]).
    threshold: u64,
    built: bool,
}

impl LazyRanking {
    /// A ranking of `k` channels listing those whose index exceeds `threshold`.
    pub(crate) fn new(k: usize, threshold: f64) -> LazyRanking {
        LazyRanking {
            groups: Vec::new(),
            free: Vec::new(),
            group_of: vec![0; k],
            by_class: HashMap::new(),
            bounds: BTreeSet::new(),
            revealed: BinaryHeap::new(),
            upcoming: Vec::with_capacity(UPCOMING),
            cursor: None,
            exhausted: false,
            dirty: Vec::new(),
            is_dirty: vec![false; k],
            s: 0.0,
            epoch_end: 0,
            s_end: f64::NEG_INFINITY,
            epoch_start: 0,
            epoch_mid: 0,
            halves: [Half::default(); 2],
            threshold: order_key(threshold),
            built: false,
        }
    }

    /// Channel `i`'s statistics changed (it was probed): its group changes at the next slot.
    #[inline]
    pub(crate) fn touch(&mut self, i: usize) {
        if !self.is_dirty[i] {
            self.is_dirty[i] = true;
            self.dirty.push(i as u32);
        }
    }

    /// Starts slot `t`, whose exploration level is `level(t)` (nondecreasing in `t`).
    pub(crate) fn start(&mut self, t: u64, level: impl Fn(u64) -> f64, index: &impl MonotoneIndex) {
        let s = level(t);
        self.s = s;
        if !self.built {
            self.build(index);
        } else {
            self.regroup(index);
        }
        // The bound holds while s ≤ s_end: checked, not assumed of `ln` (a NaN level starts a
        // new epoch too).
        let within = s.partial_cmp(&self.s_end).is_some_and(|o| o.is_le());
        // What the last slot revealed and did not emit.
        let last = t.wrapping_sub(1);
        if last >= self.epoch_start {
            let half = &mut self.halves[usize::from(last >= self.epoch_mid)];
            half.slots += 1;
            half.wasted += self.revealed.len() as u64;
        }
        if t > self.epoch_end || !within {
            let length = self.next_epoch_length(t);
            self.epoch_start = t;
            self.epoch_mid = t.saturating_add(length / 2);
            self.halves = [Half::default(); 2];
            self.epoch_end = t.saturating_add(length);
            self.s_end = level(self.epoch_end).max(s);
            self.rebound(index);
        }
        self.revealed.clear();
        self.upcoming.clear();
        self.cursor = None;
        self.exhausted = false;
    }

    /// The length of the epoch starting at `t` (see the module docs): `√(2R/c)`, with the
    /// rebuild `R` counted as half a reveal per group (a bound and a tree entry, against an
    /// index, a heap entry and a tree read) and `c` the growth of the waste per slot with the
    /// distance to the epoch's end, from the last epoch's halves; at most `t/32`, at least 1.
    fn next_epoch_length(&self, t: u64) -> u64 {
        let longest = (t >> 5).max(1);
        let [first, second] = self.halves;
        if self.epoch_start == 0 || first.slots == 0 || second.slots == 0 {
            // No measure yet (or an epoch too short to halve): the longest.
            return longest;
        }
        let per_slot = |h: Half| h.wasted as f64 / h.slots as f64;
        let length = (first.slots + second.slots) as f64;
        let c = 2.0 * (per_slot(first) - per_slot(second)) / length;
        if c <= 0.0 {
            return longest;
        }
        let rebuild = self.bounds.len() as f64 / 2.0;
        // `as` saturates.
        ((2.0 * rebuild / c).sqrt() as u64).clamp(1, longest)
    }

    /// The first unrevealed entry of the tree, copying the next run of entries when needed.
    #[inline(always)]
    fn peek_unrevealed(&mut self) -> Option<(u64, u32, u32)> {
        if self.upcoming.is_empty() && !self.exhausted {
            self.copy_upcoming();
        }
        self.upcoming.last().copied()
    }

    /// Copies the next run of entries from the tree (apart from the inlined peek: a run serves
    /// 32 peeks, and the tree's range search would bloat every caller).
    #[inline(never)]
    fn copy_upcoming(&mut self) {
        let from = match self.cursor {
            None => std::ops::Bound::Unbounded,
            Some(c) => std::ops::Bound::Excluded(c),
        };
        self.upcoming.extend(
            self.bounds
                .range((from, std::ops::Bound::Unbounded))
                .take(UPCOMING),
        );
        self.exhausted = self.upcoming.len() < UPCOMING;
        self.cursor = self.upcoming.last().copied();
        self.upcoming.reverse();
    }

    /// Groups every channel by class.
    fn build(&mut self, index: &impl MonotoneIndex) {
        self.groups.clear();
        self.free.clear();
        self.by_class.clear();
        for i in 0..self.group_of.len() {
            let class = index.class(i);
            let g = match self.by_class.get(&class) {
                Some(&g) => g,
                None => {
                    let g = self.groups.len() as u32;
                    self.groups.push(Group {
                        class,
                        members: Vec::new(),
                        bound: 0,
                    });
                    self.by_class.insert(class, g);
                    g
                }
            };
            self.groups[g as usize].members.push(i as u32);
            self.group_of[i] = g;
        }
        for &i in &self.dirty {
            self.is_dirty[i as usize] = false;
        }
        self.dirty.clear();
        self.built = true;
        // Bounds come with the first epoch, whose length owes nothing to an earlier run.
        self.epoch_end = 0;
        self.epoch_start = 0;
    }

    /// Every group's bound at the epoch's end, and the tree rebuilt.
    fn rebound(&mut self, index: &impl MonotoneIndex) {
        let s_end = self.s_end;
        // Collected, a B-tree sorts its entries and builds itself in one pass, rather than
        // searching for the place of each.
        self.bounds = self
            .groups
            .iter_mut()
            .enumerate()
            .filter(|(_, group)| !group.members.is_empty())
            .map(|(g, group)| {
                group.bound = order_key(index.bound(group.members[0] as usize, s_end));
                group.entry(g as u32)
            })
            .collect();
    }

    /// Moves each channel probed since the last slot to the group of its new statistics.
    fn regroup(&mut self, index: &impl MonotoneIndex) {
        let dirty = std::mem::take(&mut self.dirty);
        for &i in &dirty {
            self.is_dirty[i as usize] = false;
            let class = index.class(i as usize);
            let old = self.group_of[i as usize];
            if self.groups[old as usize].class == class {
                continue;
            }
            self.leave(i, old);
            self.join(i, class, index);
        }
        self.dirty = dirty;
        self.dirty.clear();
    }

    fn leave(&mut self, i: u32, g: u32) {
        let group = &mut self.groups[g as usize];
        self.bounds.remove(&group.entry(g));
        let at = group
            .members
            .binary_search(&i)
            .expect("a channel is in its group");
        group.members.remove(at);
        if group.members.is_empty() {
            self.by_class.remove(&group.class);
            self.free.push(g);
        } else {
            self.bounds.insert(group.entry(g));
        }
    }

    fn join(&mut self, i: u32, class: Class, index: &impl MonotoneIndex) {
        let g = match self.by_class.get(&class) {
            Some(&g) => {
                let group = &mut self.groups[g as usize];
                self.bounds.remove(&group.entry(g));
                let at = group.members.binary_search(&i).unwrap_err();
                group.members.insert(at, i);
                g
            }
            None => {
                let bound = order_key(index.bound(i as usize, self.s_end));
                let group = Group {
                    class,
                    members: vec![i],
                    bound,
                };
                let g = match self.free.pop() {
                    Some(g) => {
                        self.groups[g as usize] = group;
                        g
                    }
                    None => {
                        self.groups.push(group);
                        self.groups.len() as u32 - 1
                    }
                };
                self.by_class.insert(class, g);
                g
            }
        };
        self.group_of[i as usize] = g;
        self.bounds.insert(self.groups[g as usize].entry(g));
    }

    /// Appends the next channel of this slot's list to `list` ([`super::Policy::extend`]);
    /// `false` when the list is complete.
    #[inline]
    pub(crate) fn extend(&mut self, index: &impl MonotoneIndex, list: &mut Vec<usize>) -> bool {
        match self.next(index) {
            Some(i) => {
                list.push(i);
                true
            }
            None => false,
        }
    }

    /// The next channel of this slot's list, or `None` when the list is complete.
    pub(crate) fn next(&mut self, index: &impl MonotoneIndex) -> Option<usize> {
        loop {
            let unrevealed = self.peek_listed();
            let top = self.revealed.peek().copied();
            let emit = match top {
                None if unrevealed.is_none() => return None,
                None => false,
                Some(r) => r.before(unrevealed),
            };
            if emit {
                let r = top.expect("an entry to emit");
                if r.key <= self.threshold {
                    return self.end();
                }
                match self.groups[r.group as usize].members.get(r.at as usize + 1) {
                    // The group's next member takes its place (same index, next channel).
                    Some(&next) => {
                        let mut top = self.revealed.peek_mut().expect("peeked");
                        top.member = next;
                        top.at += 1;
                    }
                    None => {
                        self.revealed.pop();
                    }
                }
                return Some(r.member as usize);
            }
            let (_, min, g) = unrevealed.expect("an unrevealed group");
            self.upcoming.pop();
            let r = Revealed {
                key: order_key(index.index(min as usize, self.s)),
                member: min,
                group: g,
                at: 0,
            };
            // The revealed group is usually the next entry (once the epoch's bounds are tight):
            // emitted at once, it skips the heap. The same test as the loop's next turn would
            // make with it on top.
            if self.revealed.peek().is_none_or(|top| r > *top) && r.before(self.peek_listed()) {
                if r.key <= self.threshold {
                    return self.end();
                }
                if let Some(&next) = self.groups[g as usize].members.get(1) {
                    self.revealed.push(Revealed {
                        member: next,
                        at: 1,
                        ..r
                    });
                }
                return Some(min as usize);
            }
            self.revealed.push(r);
        }
    }

    /// The first unrevealed entry that can be listed: a group whose bound does not exceed the
    /// threshold lists nothing, nor do those after it.
    #[inline]
    fn peek_listed(&mut self) -> Option<(u64, u32, u32)> {
        let threshold = self.threshold;
        self.peek_unrevealed()
            .filter(|&(neg, _, _)| u64::MAX - neg > threshold)
    }

    /// Ends the list: everything left ranks at or below the threshold (for every later call too).
    fn end(&mut self) -> Option<usize> {
        self.upcoming.clear();
        self.exhausted = true;
        None
    }
}

/// Slots of half an epoch, and the groups they revealed and did not emit.
#[derive(Clone, Copy, Debug, Default)]
struct Half {
    slots: u64,
    wasted: u64,
}

/// A revealed group: its exact index and the next member to emit.
#[derive(Clone, Copy, Debug)]
struct Revealed {
    /// [`order_key`] of the index.
    key: u64,
    member: u32,
    group: u32,
    /// `member`'s place in the group.
    at: u32,
}

impl Revealed {
    /// Whether this entry ranks before every unrevealed channel: before the first unrevealed
    /// group's bound (each index is at most its bound), or there is none.
    #[inline]
    fn before(&self, unrevealed: Option<(u64, u32, u32)>) -> bool {
        unrevealed.is_none_or(|(neg, min, _)| {
            let bound = u64::MAX - neg;
            self.key > bound || (self.key == bound && self.member < min)
        })
    }
}

/// The heap's order: the entry ranking first (larger index, then the lower channel) is the
/// greatest.
impl Ord for Revealed {
    #[inline]
    fn cmp(&self, other: &Revealed) -> std::cmp::Ordering {
        self.key
            .cmp(&other.key)
            .then(other.member.cmp(&self.member))
    }
}

impl PartialOrd for Revealed {
    fn partial_cmp(&self, other: &Revealed) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Revealed {
    fn eq(&self, other: &Revealed) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Revealed {}

/// Plays `lazy` and `full` (the same policy, ranking lazily and by the full sort) side by side
/// for `slots` slots on i.i.d. channels idle with probability `theta`, probing the head of the
/// list as the engine does and reading the rest; returns the first slot whose lists differ.
#[cfg(test)]
pub(crate) fn same_lists<P: super::Policy>(
    lazy: &mut P,
    full: &mut P,
    theta: &[f64],
    mut cost: impl FnMut(&mut crate::util::rng::SimRng, usize) -> f64,
    slots: u64,
    rng: &mut crate::util::rng::SimRng,
) -> Option<(u64, Vec<usize>, Vec<usize>)> {
    use crate::util::rng::stream;
    use rand::RngExt;
    for t in 1..=slots {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        lazy.plan(t, &mut a, &mut stream(0, 0, 0));
        full.plan(t, &mut b, &mut stream(0, 0, 0));
        // Probe the head as the engine does: stop at the first idle channel.
        let mut j = 0;
        loop {
            if j == a.len() && !lazy.extend(&mut a) {
                break;
            }
            let i = a[j];
            j += 1;
            let idle = rng.random::<f64>() < theta[i];
            let c = cost(rng, i);
            lazy.observe(i, idle, c);
            full.observe(i, idle, c);
            if idle {
                break;
            }
        }
        while lazy.extend(&mut a) {}
        if a != b {
            return Some((t, a, b));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::resort_by_key_desc;
    use crate::util::math;
    use proptest::prelude::*;

    /// A CC-UCB-like index over integer statistics, so that classes repeat.
    struct Toy {
        n: Vec<u64>,
        hits: Vec<u64>,
    }

    impl MonotoneIndex for Toy {
        fn index(&self, i: usize, s: f64) -> f64 {
            let n = self.n[i] as f64;
            let w = 1.0 / n.sqrt();
            let theta = self.hits[i] as f64 / n;
            (theta + s * w) / (0.5 - s * w).max(1e-5)
        }
        fn class(&self, i: usize) -> Class {
            [self.n[i], self.hits[i], 0, 0]
        }
    }

    fn full_sort(toy: &Toy, s: f64, threshold: f64) -> Vec<usize> {
        let k = toy.n.len();
        let key: Vec<f64> = (0..k).map(|i| toy.index(i, s)).collect();
        let mut order: Vec<usize> = (0..k).collect();
        resort_by_key_desc(&mut order, &key);
        order
            .into_iter()
            .take_while(|&i| key[i] > threshold)
            .collect()
    }

    /// An epoch whose waste grows with the distance to its end is followed by a shorter one,
    /// at the length that balances the two costs; a flat waste (or none measured) keeps the
    /// longest.
    #[test]
    fn epochs_shorten_where_loose_bounds_waste_reveals() {
        let mut lazy = LazyRanking::new(4, 1.0);
        lazy.bounds = (0..800).map(|g| (u64::from(g), g, g)).collect();
        let t = 1_000_000;
        assert_eq!(lazy.next_epoch_length(t), t >> 5, "nothing measured yet");
        lazy.epoch_start = t - 200;
        lazy.halves = [
            Half {
                slots: 100,
                wasted: 1000,
            },
            Half {
                slots: 100,
                wasted: 200,
            },
        ];
        // c = 2·(10 − 2)/200 = 0.08 a slot of distance, R = 800/2: √(2·400/0.08) = 100.
        assert_eq!(lazy.next_epoch_length(t), 100);
        lazy.halves[1].wasted = 1000;
        assert_eq!(
            lazy.next_epoch_length(t),
            t >> 5,
            "flat waste: the bounds are not why"
        );
        lazy.halves[1].slots = 0;
        assert_eq!(lazy.next_epoch_length(t), t >> 5, "one half unmeasured");
        lazy.halves = [
            Half {
                slots: 1,
                wasted: 1_000_000,
            },
            Half {
                slots: 1,
                wasted: 0,
            },
        ];
        assert_eq!(lazy.next_epoch_length(t), 1, "at least one slot");
    }

    proptest! {
        /// Slot by slot, the lazy list is the full sort's, whatever is probed.
        #[test]
        fn lazy_lists_equal_the_full_sort(
            k in 1usize..60,
            probes in proptest::collection::vec((0usize..60, any::<bool>(), 0usize..4), 1..120),
            threshold in prop_oneof![Just(1.0), Just(f64::NEG_INFINITY), 0.5f64..3.0],
        ) {
            let mut toy = Toy { n: vec![1; k], hits: (0..k as u64).map(|i| i % 2).collect() };
            let mut lazy = LazyRanking::new(k, threshold);
            let level = |t: u64| (1.5 * math::ln(t as f64)).sqrt();
            for (t, &(first, idle, depth)) in (k as u64 + 1..).zip(&probes) {
                lazy.start(t, level, &toy);
                let want = full_sort(&toy, level(t), threshold);
                // Probe some of the head, as the engine does, then read the rest.
                let mut got = Vec::new();
                while let Some(i) = lazy.next(&toy) {
                    got.push(i);
                    if got.len() <= depth {
                        toy.n[i] += 1;
                        toy.hits[i] += u64::from(idle ^ (i == first % k));
                        lazy.touch(i);
                    }
                }
                prop_assert_eq!(lazy.next(&toy), None, "the end stays the end");
                prop_assert_eq!(got, want, "slot {}", t);
            }
        }
    }
}
