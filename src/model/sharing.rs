//! The benchmarks of many users sharing the channels, from the true parameters.
//!
//! - [`m_best`]: the classic multi-player benchmark, each user on its own channel: the
//!   `min(M, K)` channels of largest expected net reward `s_k − c_k` (Anantharam et al. 1987;
//!   Besson & Kaufmann 2018). Without collisions (independent copies) every user takes the
//!   single best channel.
//! - [`disjoint_lists`]: cascades: the assignment of disjoint ordered lists to the users of
//!   largest total expected reward. Disjoint lists never meet, so the total is the sum of the
//!   single-user expected rewards, and the best list on a set of channels is the UCR-T1
//!   optimum restricted to it. Exact by enumerating every assignment of each channel to one
//!   user or to none where `(M + 1)^K ≤ ENUMERATION_LIMIT`; beyond, the better of two
//!   documented heuristics (greedy: user 0 takes the optimum on every channel, user 1 on what
//!   is left, …; dealing: the channels ranked by `s − c` dealt round-robin, each user the
//!   optimum on its hand), labelled as such in the outputs.

use super::theory::{expected_reward_sensed, optimal_list};
use crate::util::cancel::Cancel;

/// Assignments enumerated between two looks at the stop flag (a few milliseconds; a power of
/// two, used as a mask).
const CHECK_EVERY: u64 = 1 << 12;

/// Most assignments [`disjoint_lists`] enumerates.
pub(crate) const ENUMERATION_LIMIT: u64 = 1 << 20;

/// The (M + 1)^K assignments of `k` channels to `users` users or none, when the exact
/// benchmarks enumerate them all (at most [`ENUMERATION_LIMIT`]); `None` where they fall back
/// to the heuristics.
pub(crate) fn enumerated(k: usize, users: usize) -> Option<u64> {
    (users as u64 + 1)
        .checked_pow(k as u32)
        .filter(|&a| a <= ENUMERATION_LIMIT)
}

/// A benchmark for M users: one list per user and the total expected reward per slot.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Shared {
    /// Each user's list (empty: the user stays silent).
    pub lists: Vec<Vec<usize>>,
    /// The total expected net reward per slot.
    pub expected_reward: f64,
    /// Whether it is the optimum (`false`: the greedy heuristic).
    pub exact: bool,
}

/// The classic benchmark: `min(M, K)` users each on one of the channels of largest
/// `success − cost` (ties to the lower channel), best first; with `copies` (no collisions)
/// every user on the best channel.
pub(crate) fn m_best(success: &[f64], cost: &[f64], users: usize, copies: bool) -> Shared {
    let value = |k: usize| success[k] - cost[k];
    let mut order: Vec<usize> = (0..success.len()).collect();
    order.sort_by(|&a, &b| value(b).total_cmp(&value(a)).then(a.cmp(&b)));
    let lists: Vec<Vec<usize>> = if copies {
        vec![vec![order[0]]; users]
    } else {
        order.iter().take(users).map(|&k| vec![k]).collect()
    };
    let mut total = 0.0;
    for l in &lists {
        total += value(l[0]);
    }
    Shared {
        lists,
        expected_reward: total,
        exact: true,
    }
}

/// The UCR-T1 optimum on the channels of `set` (indices into the full instance).
fn optimum_on(set: &[usize], success: &[f64], stop: &[f64], cost: &[f64]) -> (Vec<usize>, f64) {
    let pick = |v: &[f64]| set.iter().map(|&i| v[i]).collect::<Vec<f64>>();
    let (s, q, c) = (pick(success), pick(stop), pick(cost));
    let local = optimal_list(&s, &q, &c);
    let value = expected_reward_sensed(&local, &s, &q, &c);
    (local.into_iter().map(|j| set[j]).collect(), value)
}

/// The best assignment of disjoint lists to `users` users (see the module docs). When
/// `cancel` is set during the enumeration, the best assignment so far, marked inexact: the
/// caller stops anyway.
pub(crate) fn disjoint_lists(
    success: &[f64],
    stop: &[f64],
    cost: &[f64],
    users: usize,
    cancel: &Cancel,
) -> Shared {
    disjoint_lists_by(success, cost, users, cancel, |set| {
        optimum_on(set, success, stop, cost)
    })
}

/// [`disjoint_lists`] with `value_on(set)`: one user's best list on the channels of `set`
/// (indices into the full instance) and its expected reward, under whatever reward rule the
/// caller has (the unit reward's UCR-T1 optimum, or `reward: TimeLeft`'s programme).
/// Disjoint lists never meet, so the total is the sum of the users' values under either rule.
pub(crate) fn disjoint_lists_by(
    success: &[f64],
    cost: &[f64],
    users: usize,
    cancel: &Cancel,
    value_on: impl Fn(&[usize]) -> Valued,
) -> Shared {
    let k = success.len();
    if users == 1 || enumerated(k, users).is_some() {
        return enumerate(k, users, cancel, &value_on);
    }
    let mut ranked: Vec<usize> = (0..k).collect();
    ranked.sort_by(|&a, &b| {
        (success[b] - cost[b])
            .total_cmp(&(success[a] - cost[a]))
            .then(a.cmp(&b))
    });
    heuristic(users, k, &ranked, |_, set| value_on(set))
}

/// Two heuristics, the better kept (greedy on a tie): greedy (user 0 its optimum on every
/// channel, user 1 on what is left, …), good when costs make lists short; and dealing (the
/// channels in `ranked` order dealt round-robin, each user its optimum on its hand), good
/// when lists are long (greedy then gives user 0 everything). `value_on(u, set)` is user u's
/// list on `set` and its expected reward.
fn heuristic(
    users: usize,
    k: usize,
    ranked: &[usize],
    value_on: impl Fn(usize, &[usize]) -> Valued,
) -> Shared {
    let mut left: Vec<usize> = (0..k).collect();
    let mut greedy = Vec::with_capacity(users);
    // A mask, not `list.contains`: that was K × |list| per user, 6.5 s of `validate` at
    // K = 2^18 (issue 50).
    let mut taken = vec![false; k];
    for u in 0..users {
        let (list, v) = value_on(u, &left);
        for &i in &list {
            taken[i] = true;
        }
        left.retain(|&i| !taken[i]);
        greedy.push((list, v));
    }
    let dealt: Vec<Valued> = (0..users)
        .map(|u| {
            let hand: Vec<usize> = ranked.iter().skip(u).step_by(users).copied().collect();
            value_on(u, &hand)
        })
        .collect();
    let sum = |l: &[Valued]| {
        let mut total = 0.0;
        for (_, v) in l {
            total += v;
        }
        total
    };
    let (greedy_total, dealt_total) = (sum(&greedy), sum(&dealt));
    let (lists, expected_reward) = if dealt_total > greedy_total {
        (dealt, dealt_total)
    } else {
        (greedy, greedy_total)
    };
    Shared {
        lists: lists.into_iter().map(|(l, _)| l).collect(),
        expected_reward,
        exact: false,
    }
}

/// Moves `owner` (each channel's user, 0 for none) to the next assignment of a base-(M + 1)
/// counter; `false` after the last.
fn next_assignment(owner: &mut [usize], users: usize) -> bool {
    for o in owner.iter_mut() {
        *o += 1;
        if *o <= users {
            return true;
        }
        *o = 0;
    }
    false
}

/// Every assignment of each channel to one of the users or to none; per user the optimum on
/// its channels. Users are interchangeable, so only assignments whose users first appear in
/// order 1, 2, … are visited.
fn enumerate(
    k: usize,
    users: usize,
    cancel: &Cancel,
    value_on: &impl Fn(&[usize]) -> Valued,
) -> Shared {
    if users == 1 {
        let all: Vec<usize> = (0..k).collect();
        let (list, value) = value_on(&all);
        return Shared {
            lists: vec![list],
            expected_reward: value,
            exact: true,
        };
    }
    let mut owner = vec![0usize; k];
    let mut best: Option<(f64, Vec<Vec<usize>>)> = None;
    let mut sets: Vec<Vec<usize>> = vec![Vec::new(); users];
    let mut visited = 0u64;
    loop {
        visited += 1;
        // Canonical: the first channel of user u+1 comes after the first of user u.
        let mut seen = 0;
        let canonical = owner.iter().all(|&o| {
            if o == 0 || o <= seen {
                true
            } else if o == seen + 1 {
                seen += 1;
                true
            } else {
                false
            }
        });
        if canonical {
            sets.iter_mut().for_each(Vec::clear);
            for (i, &o) in owner.iter().enumerate() {
                if o > 0 {
                    sets[o - 1].push(i);
                }
            }
            let mut total = 0.0;
            let mut lists = Vec::with_capacity(users);
            for set in &sets {
                let (list, value) = value_on(set);
                total += value;
                lists.push(list);
            }
            if best.as_ref().is_none_or(|(v, _)| total > *v) {
                best = Some((total, lists));
            }
        }
        let stopped = visited & (CHECK_EVERY - 1) == 0 && cancel.is_cancelled();
        if stopped || !next_assignment(&mut owner, users) {
            let (expected_reward, lists) = best.expect("at least one assignment");
            return Shared {
                lists,
                expected_reward,
                exact: !stopped,
            };
        }
    }
}

/// A user's list and its expected reward.
type Valued = (Vec<usize>, f64);

/// Per-user means (`success[u]`, `stop[u]`: user u's channels): the assignment of disjoint
/// channel sets to the users of largest total expected reward, each user's value on its set
/// being its best single channel (`single`: the classic model; a user whose best `s − c` is not
/// positive stays silent) or its UCR-T1 optimum there (cascades). With `copies` (no
/// collisions) every user takes its own optimum on every channel. Exact for one channel each
/// by the max-weight matching ([`super::matching`], any M and K), for cascades by enumerating
/// every assignment of each channel to a user or none ((M + 1)^K ≤ 2²⁰); beyond, the better of
/// greedy in user order (user 0 its optimum on every channel, user 1 on the rest, …) and
/// dealing (the channels ranked by the users' mean `s − c`, dealt round-robin), labelled.
pub(crate) fn per_user(
    success: &[Vec<f64>],
    stop: &[Vec<f64>],
    cost: &[f64],
    single: bool,
    copies: bool,
    cancel: &Cancel,
) -> Shared {
    let (users, k) = (success.len(), cost.len());
    let all: Vec<usize> = (0..k).collect();
    let value_on = |u: usize, set: &[usize]| -> (Vec<usize>, f64) {
        if single {
            let mut best: Option<(usize, f64)> = None;
            for &c in set {
                let v = success[u][c] - cost[c];
                if v > 0.0 && best.is_none_or(|(_, b)| v > b) {
                    best = Some((c, v));
                }
            }
            best.map_or((Vec::new(), 0.0), |(c, v)| (vec![c], v))
        } else {
            optimum_on(set, &success[u], &stop[u], cost)
        }
    };
    let total = |lists: Vec<(Vec<usize>, f64)>, exact: bool| {
        let mut sum = 0.0;
        for (_, v) in &lists {
            sum += v;
        }
        Shared {
            lists: lists.into_iter().map(|(l, _)| l).collect(),
            expected_reward: sum,
            exact,
        }
    };
    if copies {
        return total((0..users).map(|u| value_on(u, &all)).collect(), true);
    }
    if single {
        // The max-weight matching of users to channels (Kuhn–Munkres): exact for any M and K.
        let values: Vec<Vec<f64>> = success
            .iter()
            .map(|s| s.iter().zip(cost).map(|(&s, &c)| s - c).collect())
            .collect();
        let lists = super::matching::assign_positive(&values, k)
            .into_iter()
            .enumerate()
            .map(|(u, c)| c.map_or((Vec::new(), 0.0), |c| (vec![c], values[u][c])))
            .collect();
        return total(lists, true);
    }
    if enumerated(k, users).is_some() {
        let mut owner = vec![0usize; k];
        let mut best: Option<(f64, Vec<Valued>)> = None;
        let mut sets: Vec<Vec<usize>> = vec![Vec::new(); users];
        let mut visited = 0u64;
        loop {
            visited += 1;
            sets.iter_mut().for_each(Vec::clear);
            for (i, &o) in owner.iter().enumerate() {
                if o > 0 {
                    sets[o - 1].push(i);
                }
            }
            let lists: Vec<(Vec<usize>, f64)> = sets
                .iter()
                .enumerate()
                .map(|(u, set)| value_on(u, set))
                .collect();
            let mut sum = 0.0;
            for (_, v) in &lists {
                sum += v;
            }
            if best.as_ref().is_none_or(|(b, _)| sum > *b) {
                best = Some((sum, lists));
            }
            let stopped = visited & (CHECK_EVERY - 1) == 0 && cancel.is_cancelled();
            if stopped || !next_assignment(&mut owner, users) {
                return total(best.expect("one assignment").1, !stopped);
            }
        }
    }
    // Dealing ranks the channels by the users' mean `s − c`.
    let mean = |c: usize| success.iter().map(|s| s[c]).sum::<f64>() / users as f64 - cost[c];
    let mut ranked: Vec<usize> = (0..k).collect();
    ranked.sort_by(|&a, &b| mean(b).total_cmp(&mean(a)).then(a.cmp(&b)));
    heuristic(users, k, &ranked, value_on)
}

/// The best assignment of at most one channel to each user (distinct channels, a user with
/// no positive `s − c` left silent): dynamic programming over the sets of channels taken, the
/// exponential method the matching replaced, kept as a test oracle.
#[cfg(test)]
fn assign_one_each(success: &[Vec<f64>], cost: &[f64]) -> Vec<(Vec<usize>, f64)> {
    let (users, k) = (success.len(), cost.len());
    let states = 1usize << k;
    // best[u][mask]: the largest total of users 0..u on exactly the channels of `mask`.
    let mut best = vec![vec![f64::NEG_INFINITY; states]; users + 1];
    let mut choice = vec![vec![None::<usize>; states]; users + 1];
    best[0][0] = 0.0;
    for u in 0..users {
        for mask in 0..states {
            let here = best[u][mask];
            if here == f64::NEG_INFINITY {
                continue;
            }
            if here > best[u + 1][mask] {
                best[u + 1][mask] = here;
                choice[u + 1][mask] = None;
            }
            for c in (0..k).filter(|&c| mask & (1 << c) == 0) {
                let v = success[u][c] - cost[c];
                if v <= 0.0 {
                    continue;
                }
                let next = mask | (1 << c);
                if here + v > best[u + 1][next] {
                    best[u + 1][next] = here + v;
                    choice[u + 1][next] = Some(c);
                }
            }
        }
    }
    let mut mask = (0..states)
        .max_by(|&a, &b| best[users][a].total_cmp(&best[users][b]).then(b.cmp(&a)))
        .unwrap_or(0);
    let mut lists = vec![(Vec::new(), 0.0); users];
    for u in (0..users).rev() {
        if let Some(c) = choice[u + 1][mask] {
            lists[u] = (vec![c], success[u][c] - cost[c]);
            mask &= !(1 << c);
        }
    }
    lists
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Brute force over every ordered list of every user (no symmetry, no UCR-T1 shortcut).
    fn brute(success: &[f64], stop: &[f64], cost: &[f64], users: usize) -> f64 {
        fn lists(pool: &[usize], out: &mut Vec<Vec<usize>>, prefix: &mut Vec<usize>) {
            out.push(prefix.clone());
            for &c in pool {
                if !prefix.contains(&c) {
                    prefix.push(c);
                    lists(pool, out, prefix);
                    prefix.pop();
                }
            }
        }
        fn go(
            u: usize,
            used: &mut Vec<usize>,
            s: &[f64],
            q: &[f64],
            c: &[f64],
            users: usize,
        ) -> f64 {
            if u == users {
                return 0.0;
            }
            let pool: Vec<usize> = (0..s.len()).filter(|i| !used.contains(i)).collect();
            let mut all = Vec::new();
            lists(&pool, &mut all, &mut Vec::new());
            let mut best = f64::NEG_INFINITY;
            for l in all {
                let v = expected_reward_sensed(&l, s, q, c);
                let n = used.len();
                used.extend(&l);
                best = best.max(v + go(u + 1, used, s, q, c, users));
                used.truncate(n);
            }
            best
        }
        go(0, &mut Vec::new(), success, stop, cost, users)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(60))]
        /// The enumeration equals brute force on random small instances, sensing errors
        /// included.
        #[test]
        fn enumeration_equals_brute_force(
            k in 1usize..5,
            users in 1usize..4,
            raw in proptest::collection::vec((0.0f64..1.0, 0.0f64..0.3, 0.0f64..0.8), 5),
        ) {
            let s: Vec<f64> = raw[..k].iter().map(|r| r.0 * (1.0 - r.1)).collect();
            let q: Vec<f64> = raw[..k].iter().map(|r| r.0 * (1.0 - r.1) + (1.0 - r.0) * r.1).collect();
            let c: Vec<f64> = raw[..k].iter().map(|r| r.2).collect();
            let got = disjoint_lists(&s, &q, &c, users, &Cancel::new());
            prop_assert!(got.exact);
            let want = brute(&s, &q, &c, users);
            prop_assert!((got.expected_reward - want).abs() < 1e-12, "{} vs {want}", got.expected_reward);
            // The lists are disjoint and their rewards add up.
            let mut all: Vec<usize> = got.lists.iter().flatten().copied().collect();
            let n = all.len();
            all.sort_unstable();
            all.dedup();
            prop_assert_eq!(all.len(), n);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(60))]
        /// Per-user means: the exact assignment (dynamic programming for one channel each,
        /// enumeration for cascades) equals brute force over every user's every list on the
        /// channels left by the users before it, in every order of the users.
        #[test]
        fn per_user_assignment_equals_brute_force(
            k in 1usize..5,
            users in 1usize..4,
            raw in proptest::collection::vec((0.0f64..1.0, 0.0f64..0.5), 15),
            single in any::<bool>(),
        ) {
            let s: Vec<Vec<f64>> = (0..users).map(|u| raw[u * 5..u * 5 + k].iter().map(|r| r.0).collect()).collect();
            let c: Vec<f64> = raw[..k].iter().map(|r| r.1).collect();
            let got = per_user(&s, &s, &c, single, false, &Cancel::new());
            prop_assert!(got.exact);
            // Brute force: each user any list (one channel at most when single) of channels no
            // earlier user took; users in index order (the assignment is to named users).
            fn go(u: usize, used: &mut Vec<usize>, s: &[Vec<f64>], c: &[f64], single: bool) -> f64 {
                if u == s.len() {
                    return 0.0;
                }
                let pool: Vec<usize> = (0..c.len()).filter(|i| !used.contains(i)).collect();
                let mut all = vec![Vec::new()];
                let mut frontier = vec![Vec::new()];
                while let Some(p) = frontier.pop() {
                    if single && !p.is_empty() {
                        continue;
                    }
                    for &x in &pool {
                        if !p.contains(&x) {
                            let mut q = p.clone();
                            q.push(x);
                            all.push(q.clone());
                            frontier.push(q);
                        }
                    }
                }
                let mut best = f64::NEG_INFINITY;
                for l in all {
                    let v = if single {
                        l.first().map_or(0.0, |&x| (s[u][x] - c[x]).max(0.0))
                    } else {
                        expected_reward_sensed(&l, &s[u], &s[u], c)
                    };
                    let n = used.len();
                    used.extend(&l);
                    best = best.max(v + go(u + 1, used, s, c, single));
                    used.truncate(n);
                }
                best
            }
            let want = go(0, &mut Vec::new(), &s, &c, single);
            prop_assert!((got.expected_reward - want).abs() < 1e-12, "{} vs {want}", got.expected_reward);
            let mut all: Vec<usize> = got.lists.iter().flatten().copied().collect();
            let n = all.len();
            all.sort_unstable();
            all.dedup();
            prop_assert_eq!(all.len(), n);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// The one-channel benchmark (the matching) equals the dynamic programme over the sets
        /// of channels it replaced, the exponential method kept as an oracle, on M, K ≤ 7.
        #[test]
        fn the_matching_equals_the_dynamic_programme(
            k in 1usize..=7,
            users in 1usize..=7,
            raw in proptest::collection::vec(0.0f64..1.0, 49),
            cost in proptest::collection::vec(0.0f64..0.4, 7),
        ) {
            let s: Vec<Vec<f64>> = (0..users).map(|u| raw[u * 7..u * 7 + k].to_vec()).collect();
            let c = &cost[..k];
            let got = per_user(&s, &s, c, true, false, &Cancel::new());
            let want: f64 = assign_one_each(&s, c).iter().map(|(_, v)| v).sum();
            prop_assert!((got.expected_reward - want).abs() <= 1e-12, "{} vs {}", got.expected_reward, want);
        }
    }

    #[test]
    fn m_best_takes_distinct_channels_or_copies() {
        let s = [0.1, 0.9, 0.5, 0.7];
        let c = [0.0; 4];
        let b = m_best(&s, &c, 2, false);
        assert_eq!(b.lists, [vec![1], vec![3]]);
        assert!((b.expected_reward - 1.6).abs() < 1e-15);
        assert_eq!(m_best(&s, &c, 6, false).lists.len(), 4);
        assert_eq!(m_best(&s, &c, 3, true).lists, [vec![1], vec![1], vec![1]]);
    }

    #[test]
    fn large_instances_fall_back_to_the_labelled_heuristic() {
        let s = vec![0.5; 30];
        let c = vec![0.1; 30];
        let b = disjoint_lists(&s, &s, &c, 3, &Cancel::new());
        assert!(!b.exact);
        assert_eq!(b.lists.len(), 3);
        // Free probes: greedy would give user 0 every channel; dealing beats one channel each.
        let s: Vec<f64> = (1..=9).map(|i| f64::from(i) / 10.0).collect();
        let b = disjoint_lists(&s, &s, &[0.0; 9], 6, &Cancel::new());
        assert!(!b.exact);
        assert!(b.lists.iter().all(|l| !l.is_empty()), "{:?}", b.lists);
        let m = m_best(&s, &[0.0; 9], 6, false);
        assert!(
            b.expected_reward >= m.expected_reward,
            "{} < {}",
            b.expected_reward,
            m.expected_reward
        );
    }
}
