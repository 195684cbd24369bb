//! UCR-T1 (Theorem 1), and the sensing-aware optimum, against brute force over every ordered
//! subset of channels (property tests).

use super::{Optimum, expected_reward, expected_reward_sensed};
use proptest::prelude::*;

/// The best expected reward over all ordered lists of distinct channels (including the empty
/// list), by exhaustive search.
fn brute_force(theta: &[f64], cost: &[f64]) -> f64 {
    fn go(theta: &[f64], cost: &[f64], list: &mut Vec<usize>, used: &mut [bool], best: &mut f64) {
        *best = best.max(expected_reward(list, theta, cost));
        for i in 0..theta.len() {
            if !used[i] {
                used[i] = true;
                list.push(i);
                go(theta, cost, list, used, best);
                list.pop();
                used[i] = false;
            }
        }
    }
    let mut best = f64::NEG_INFINITY;
    go(
        theta,
        cost,
        &mut Vec::new(),
        &mut vec![false; theta.len()],
        &mut best,
    );
    best
}

fn instance() -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    (1usize..=6).prop_flat_map(|k| {
        (
            prop::collection::vec(0.0f64..=1.0, k),
            // Costs include exact zeros and values above θ.
            prop::collection::vec(prop_oneof![Just(0.0), 0.0f64..=1.0], k),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn ucr_t1_equals_brute_force((theta, cost) in instance()) {
        let opt = Optimum::of(&theta, &cost);
        let brute = brute_force(&theta, &cost);
        // Equal up to rounding of sums of at most six terms.
        prop_assert!((opt.expected_reward - brute).abs() < 1e-12,
            "UCR-T1 {:?} gives {} but brute force finds {}", opt.list, opt.expected_reward, brute);
        // And every listed channel has θ/c > 1, in decreasing order.
        for w in opt.list.windows(2) {
            prop_assert!(theta[w[0]] * cost[w[1]] >= theta[w[1]] * cost[w[0]]);
        }
        for &i in &opt.list {
            prop_assert!(theta[i] > cost[i]);
        }
    }
}

/// Ties in θ/c: any order of equally ranked channels gives the same reward (the swap term of the
/// paper's Appendix A vanishes), so UCR-T1 is optimal whichever order it picks.
#[test]
fn equal_ratios_give_equal_rewards() {
    let theta = [0.6, 0.3, 0.9];
    let cost = [0.4, 0.2, 0.6];
    let a = expected_reward(&[0, 1, 2], &theta, &cost);
    let b = expected_reward(&[2, 0, 1], &theta, &cost);
    assert!((a - b).abs() < 1e-15);
    assert!(
        (Optimum::of(&theta, &cost).expected_reward - brute_force(&theta, &cost)).abs() < 1e-15
    );
}

/// The best expected reward with imperfect sensing over all ordered lists, exhaustively.
fn brute_force_sensed(success: &[f64], stop: &[f64], cost: &[f64]) -> f64 {
    fn go(
        s: &[f64],
        q: &[f64],
        c: &[f64],
        list: &mut Vec<usize>,
        used: &mut [bool],
        best: &mut f64,
    ) {
        *best = best.max(expected_reward_sensed(list, s, q, c));
        for i in 0..s.len() {
            if !used[i] {
                used[i] = true;
                list.push(i);
                go(s, q, c, list, used, best);
                list.pop();
                used[i] = false;
            }
        }
    }
    let mut best = f64::NEG_INFINITY;
    go(
        success,
        stop,
        cost,
        &mut Vec::new(),
        &mut vec![false; success.len()],
        &mut best,
    );
    best
}

/// Channels with θ, false-alarm and missed-detection rates (exact zeros and ones included),
/// turned into success and stop probabilities as the engine does.
fn sensed_instance() -> impl Strategy<Value = (Vec<f64>, Vec<f64>, Vec<f64>)> {
    (1usize..=6).prop_flat_map(|k| {
        let rate = || prop_oneof![Just(0.0), Just(1.0), 0.0f64..=1.0];
        (
            prop::collection::vec((rate(), rate(), rate()), k),
            prop::collection::vec(prop_oneof![Just(0.0), 0.0f64..=1.0], k),
        )
            .prop_map(|(channels, cost)| {
                let sensing: Vec<crate::model::sensing::Sensing> = channels
                    .iter()
                    .map(|&(_, fa, md)| {
                        crate::model::sensing::Sensing::new(crate::model::sensing::SensingSpec {
                            false_alarm: fa,
                            missed_detection: md,
                        })
                    })
                    .collect();
                let success = channels
                    .iter()
                    .zip(&sensing)
                    .map(|(&(theta, _, _), s)| s.success_probability(theta))
                    .collect();
                let stop = channels
                    .iter()
                    .zip(&sensing)
                    .map(|(&(theta, _, _), s)| s.stop_probability(theta))
                    .collect();
                (success, stop, cost)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// The exchange-argument ordering (every channel with s > c, decreasing (s − c)/q) is
    /// optimal among all ordered subsets.
    #[test]
    fn sensing_aware_ordering_equals_brute_force((success, stop, cost) in sensed_instance()) {
        let opt = Optimum::sensed(&success, &stop, &cost);
        let brute = brute_force_sensed(&success, &stop, &cost);
        prop_assert!((opt.expected_reward - brute).abs() < 1e-12,
            "ordering {:?} gives {} but brute force finds {}", opt.list, opt.expected_reward, brute);
        for &i in &opt.list {
            prop_assert!(success[i] > cost[i]);
        }
    }
}
