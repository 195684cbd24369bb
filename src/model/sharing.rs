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
//!   user or to none where `(M + 1)^K ≤ ENUMERATION_LIMIT`; beyond, the documented greedy
//!   heuristic (user 1 takes the optimum on every channel, user 2 on what is left, …), labelled
//!   as such in the outputs.

use super::theory::{expected_reward_sensed, optimal_list};

/// Most assignments [`disjoint_lists`] enumerates.
pub(crate) const ENUMERATION_LIMIT: u64 = 1 << 20;

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

/// The best assignment of disjoint lists to `users` users (see the module docs).
pub(crate) fn disjoint_lists(success: &[f64], stop: &[f64], cost: &[f64], users: usize) -> Shared {
    let k = success.len();
    let assignments = (users as u64 + 1).checked_pow(k as u32);
    if users == 1 || assignments.is_some_and(|a| a <= ENUMERATION_LIMIT) {
        return enumerate(success, stop, cost, users);
    }
    let mut left: Vec<usize> = (0..k).collect();
    let mut lists = Vec::with_capacity(users);
    let mut total = 0.0;
    for _ in 0..users {
        let (list, value) = optimum_on(&left, success, stop, cost);
        left.retain(|i| !list.contains(i));
        total += value;
        lists.push(list);
    }
    Shared {
        lists,
        expected_reward: total,
        exact: false,
    }
}

/// Every assignment of each channel to one of the users or to none; per user the optimum on
/// its channels. Users are interchangeable, so only assignments whose users first appear in
/// order 1, 2, … are visited.
fn enumerate(success: &[f64], stop: &[f64], cost: &[f64], users: usize) -> Shared {
    let k = success.len();
    if users == 1 {
        let all: Vec<usize> = (0..k).collect();
        let (list, value) = optimum_on(&all, success, stop, cost);
        return Shared {
            lists: vec![list],
            expected_reward: value,
            exact: true,
        };
    }
    let mut owner = vec![0usize; k];
    let mut best: Option<(f64, Vec<Vec<usize>>)> = None;
    let mut sets: Vec<Vec<usize>> = vec![Vec::new(); users];
    loop {
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
                let (list, value) = optimum_on(set, success, stop, cost);
                total += value;
                lists.push(list);
            }
            if best.as_ref().is_none_or(|(v, _)| total > *v) {
                best = Some((total, lists));
            }
        }
        // Next assignment (a base-(M+1) counter).
        let mut i = 0;
        loop {
            if i == k {
                let (expected_reward, lists) = best.expect("at least one assignment");
                return Shared {
                    lists,
                    expected_reward,
                    exact: true,
                };
            }
            owner[i] += 1;
            if owner[i] <= users {
                break;
            }
            owner[i] = 0;
            i += 1;
        }
    }
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
            let got = disjoint_lists(&s, &q, &c, users);
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
        let b = disjoint_lists(&s, &s, &c, 3);
        assert!(!b.exact);
        assert_eq!(b.lists.len(), 3);
    }
}
