//! lil'CLUCB's crossed pairs, kept from round to round instead of walked every round.
//!
//! With High's lower bounds ascending (`h_0 < h_1 < …`) and Low's upper bounds descending
//! (`l_0 > l_1 > …`), the pair `j` is crossed when `l_j > h_j`. `l_j − h_j` falls with `j`, so
//! the crossed pairs are the first `c`, and the crossed arms are the first `c` of each side.
//! lil'CLUCB samples the crossed arm of largest radius.
//!
//! Between two rounds one arm is sampled: on each side at most one entry leaves and one enters,
//! so every other entry's place moves by at most one, and `c` by at most one (found by stepping
//! from the last `c`). An arm can then join or leave the first `c` only near the old or the new
//! `c` (or be one that moved). So a round re-checks those few places and the moved arms, and an
//! [`ExtremeSet`] of the crossed arms keyed by radius gives the widest: O(log N) a round instead
//! of a walk over every crossed pair.

use crate::util::ranking::{ExtremeSet, Ranked, Swap};

/// Slack around the old and the new `c`: places move by at most one a round.
const SLACK: usize = 2;

/// The crossed arms of the last round and the widest of them.
#[derive(Clone, Debug)]
pub(crate) struct Crossed {
    /// Whether `member` and `tree` describe the last round's sides.
    valid: bool,
    /// `c` of the last round.
    count: usize,
    /// Each arm: in a crossed pair.
    member: Vec<bool>,
    /// The crossed arms keyed by radius: its extreme is the widest (ties: lower index), as the
    /// walk takes it.
    widest: ExtremeSet,
    /// Arms whose bound or radius changed since the last round.
    moved: Vec<usize>,
    /// Samples since the last round.
    samples: usize,
}

/// The number of crossed pairs of `high` (ascending) and `low` (ascending, read from the top),
/// found by stepping from `guess`: any guess gives the answer, and after one sample the last
/// round's count is within one of it (on each side the j-th entry after the sample is at
/// least as far out as the (j+1)-th before). A rebuild steps at most the `c` it then walks.
fn crossing(high: &[u128], low: &[u128], guess: usize) -> usize {
    let m = high.len().min(low.len());
    let crossed = |j: usize| low[low.len() - 1 - j] > high[j];
    let mut c = guess.min(m);
    while c > 0 && !crossed(c - 1) {
        c -= 1;
    }
    while c < m && crossed(c) {
        c += 1;
    }
    c
}

impl Crossed {
    /// Nothing kept yet.
    pub(crate) fn new() -> Crossed {
        Crossed {
            valid: false,
            count: 0,
            member: Vec::new(),
            widest: ExtremeSet::highest(0),
            moved: Vec::new(),
            samples: 0,
        }
    }

    /// Records that `arm` was sampled and which arms changed sides with it.
    pub(crate) fn sampled(&mut self, arm: usize, swap: Option<Swap>) {
        self.samples += 1;
        self.moved.push(arm);
        if let Some(Swap { demoted, promoted }) = swap {
            self.moved.extend([demoted, promoted]);
        }
    }

    /// Forgets the kept state (the sides are not one sorted run each, so the caller walks).
    pub(crate) fn invalidate(&mut self) {
        self.valid = false;
        self.moved.clear();
        self.samples = 0;
    }

    /// The widest crossed arm for sides `high` and `low` (ascending [`Ranked::key`]s of High's
    /// lower and Low's upper bounds), `radius` each arm's radius key, and `side_and_place` each
    /// arm's side and place in it (ascending); `None` when no pair is crossed.
    pub(crate) fn widest(
        &mut self,
        high: &[u128],
        low: &[u128],
        radius: &[u64],
        side_and_place: impl Fn(usize) -> Option<(bool, usize)>,
    ) -> Option<usize> {
        let n = radius.len();
        let c = crossing(high, low, self.count);
        // One sample since the last round keeps every place within one of where it was; more
        // (or none kept yet) and everything is rebuilt.
        if !self.valid || self.samples > 1 || self.member.len() != n {
            self.rebuild(high, low, radius, c);
        } else {
            let lo = self.count.min(c).saturating_sub(SLACK);
            let hi = self.count.max(c) + SLACK;
            for (j, &key) in high.iter().enumerate().take(hi).skip(lo) {
                self.set(Ranked::arm_of_key(key), j < c, radius);
            }
            for j in lo..hi.min(low.len()) {
                self.set(Ranked::arm_of_key(low[low.len() - 1 - j]), j < c, radius);
            }
            for i in 0..self.moved.len() {
                let arm = self.moved[i];
                let Some((is_high, place)) = side_and_place(arm) else {
                    // Not placed in one run: nothing kept can be trusted.
                    self.rebuild(high, low, radius, c);
                    break;
                };
                let member = if is_high {
                    place < c
                } else {
                    low.len() - 1 - place < c
                };
                // Its radius changed too: the leaf is rewritten whether or not it stays.
                self.member[arm] = !member;
                self.set(arm, member, radius);
            }
        }
        self.count = c;
        self.moved.clear();
        self.samples = 0;
        self.widest.extreme().map(|r| r.arm)
    }

    /// Every arm's membership and the whole tree from scratch.
    fn rebuild(&mut self, high: &[u128], low: &[u128], radius: &[u64], c: usize) {
        let n = radius.len();
        self.member.clear();
        self.member.resize(n, false);
        self.widest = ExtremeSet::highest(n);
        for j in 0..c {
            for key in [high[j], low[low.len() - 1 - j]] {
                self.set(Ranked::arm_of_key(key), true, radius);
            }
        }
        self.valid = true;
    }

    /// Makes `arm` a member or not, updating the tree when that changes.
    #[inline]
    fn set(&mut self, arm: usize, member: bool, radius: &[u64]) {
        if self.member[arm] == member {
            return;
        }
        self.member[arm] = member;
        if member {
            self.widest.insert_key(Ranked::key_of(radius[arm], arm));
        } else {
            self.widest.remove(arm);
        }
    }
}
