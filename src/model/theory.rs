//! The paper's theory: exact expected net reward of a list, the UCR-T1 optimum (Theorem 1), the
//! CC-UCB regret upper bound (Theorem 2) and the lower bound for α-consistent policies
//! (Theorem 3). All of it is computed from the true parameters; the simulator never estimates
//! what can be computed exactly.

use crate::util::math;
use serde::{Deserialize, Serialize};

/// Expected net reward of probing `list` in order and stopping at the first idle channel:
/// `Σ_k (θ_{I(k)} − c_{I(k)}) · Π_{j<k} (1 − θ_{I(j)})`.
///
/// The sum stops once the probability of reaching the next channel falls below
/// `f64::MIN_POSITIVE`: every later term is smaller than 2.3e-308 and cannot change the result.
pub(crate) fn expected_reward(list: &[usize], theta: &[f64], cost: &[f64]) -> f64 {
    let mut reach = 1.0;
    let mut total = 0.0;
    for &i in list {
        total += (theta[i] - cost[i]) * reach;
        reach *= 1.0 - theta[i];
        if reach < f64::MIN_POSITIVE {
            break;
        }
    }
    total
}

/// The UCR-T1 list of Theorem 1: every channel with `θ_i / c_i > 1`, in decreasing order of
/// `θ_i / c_i`.
///
/// Ratios are compared by cross-multiplication (`θ_a·c_b > θ_b·c_a`), so a free channel
/// (`c = 0`, `θ > 0`) ranks first instead of producing an infinite or undefined ratio. Channels
/// with equal ratios keep index order: swapping them does not change the expected reward (the
/// swap term of the paper's Appendix A is zero), so the choice is only for determinism. A channel
/// with `θ_i = c_i` contributes nothing and is left out (the threshold is strict, as in the
/// theorem).
pub(crate) fn ucr_t1(theta: &[f64], cost: &[f64]) -> Vec<usize> {
    let mut list: Vec<usize> = (0..theta.len()).filter(|&i| theta[i] > cost[i]).collect();
    list.sort_by(|&a, &b| {
        (theta[b] * cost[a])
            .total_cmp(&(theta[a] * cost[b]))
            .then(a.cmp(&b))
    });
    list
}

/// Expected net reward of a list when the probes may err: `s_i` is the probability that
/// channel `i` is idle *and* sensed idle (the transmission succeeds), `q_i` the probability that
/// it is sensed idle (the cascade stops there, collision or not):
/// `Σ_k (s_{I(k)} − c_{I(k)}) · Π_{j<k} (1 − q_{I(j)})`. With perfect sensing `s = q = θ` and this
/// is [`expected_reward`].
pub(crate) fn expected_reward_sensed(
    list: &[usize],
    success: &[f64],
    stop: &[f64],
    cost: &[f64],
) -> f64 {
    let mut reach = 1.0;
    let mut total = 0.0;
    for &i in list {
        total += (success[i] - cost[i]) * reach;
        reach *= 1.0 - stop[i];
        if reach < f64::MIN_POSITIVE {
            break;
        }
    }
    total
}

/// [`expected_reward_sensed`] of a list of which `list` may hold only a prefix yet: `more`
/// appends further entries (returning `false` once the list is complete). The sum stops as soon
/// as no later entry can change it: every later term is at most the probability `reach` of
/// getting that far (|s − c| ≤ 1 and `reach` only falls), and a term below a quarter of the
/// spacing of floats at the sum leaves the sum unchanged whatever its sign, so the value is
/// exactly that of the whole list (or of [`expected_reward_sensed`]'s own stopping rule).
///
/// Returns the value, the length of the prefix it depends on, and whether the list ended there
/// (then a longer list with the same prefix has another value).
#[inline]
pub(crate) fn expected_reward_prefix(
    list: &mut Vec<usize>,
    more: &mut impl FnMut(&mut Vec<usize>) -> bool,
    success: &[f64],
    stop: &[f64],
    cost: &[f64],
) -> (f64, usize, bool) {
    let mut reach = 1.0;
    let mut total = 0.0f64;
    let mut j = 0;
    loop {
        if j == list.len() && !more(list) {
            return (total, j, true);
        }
        let i = list[j];
        total += (success[i] - cost[i]) * reach;
        reach *= 1.0 - stop[i];
        j += 1;
        if reach < f64::MIN_POSITIVE || reach < negligible(total) {
            return (total, j, false);
        }
    }
}

/// Below this, a term added to `total` leaves it unchanged: a quarter of the spacing of floats
/// at `total` (0 for a sum of 0 or subnormal, where no term is negligible).
#[inline]
fn negligible(total: f64) -> f64 {
    let exponent = total.abs().to_bits() & 0x7ff0_0000_0000_0000;
    if exponent == 0 {
        0.0
    } else {
        f64::from_bits(exponent) * (f64::EPSILON / 4.0)
    }
}

/// The optimal list when probes may err (see [`expected_reward_sensed`]).
///
/// **Exchange argument.** Two adjacent channels i then j contribute, from the probability R of
/// reaching them, `R·[(s_i − c_i) + (1 − q_i)(s_j − c_j)]`; swapped,
/// `R·[(s_j − c_j) + (1 − q_j)(s_i − c_i)]`. The difference is `R·[q_j(s_i − c_i) − q_i(s_j − c_j)]`,
/// so i may go first iff `(s_i − c_i)/q_i ≥ (s_j − c_j)/q_j`, and sorting any list in decreasing
/// `g = (s − c)/q` never lowers its value. In a sorted list, once a channel has `s ≤ c` (g ≤ 0)
/// every later one does too, so dropping it and everything after it removes only non-positive
/// terms. Appending a missing channel with `s > c` adds `R·(s − c) ≥ 0`. Hence the optimum is
/// every channel with `s_i > c_i` in decreasing `(s_i − c_i)/q_i` (cross-multiplied, ties by
/// index; such channels have `q ≥ s > 0`). With perfect sensing this is UCR-T1
/// (`(θ − c)/θ = 1 − c/θ`), and [`ucr_t1`] is used then so that the paper's setting keeps its
/// exact arithmetic.
pub(crate) fn optimal_list(success: &[f64], stop: &[f64], cost: &[f64]) -> Vec<usize> {
    if success == stop {
        return ucr_t1(success, cost);
    }
    let mut list: Vec<usize> = (0..success.len())
        .filter(|&i| success[i] > cost[i])
        .collect();
    list.sort_by(|&a, &b| {
        ((success[b] - cost[b]) * stop[a])
            .total_cmp(&((success[a] - cost[a]) * stop[b]))
            .then(a.cmp(&b))
    });
    list
}

/// The offline optimum of an instance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Optimum {
    /// The UCR-T1 list (channel indices, probing order).
    pub list: Vec<usize>,
    /// Its expected net reward per slot, `E[r(I*)]`.
    pub expected_reward: f64,
}

impl Optimum {
    /// UCR-T1 and its expected reward.
    pub fn of(theta: &[f64], cost: &[f64]) -> Optimum {
        let list = ucr_t1(theta, cost);
        let expected_reward = expected_reward(&list, theta, cost);
        Optimum {
            list,
            expected_reward,
        }
    }

    /// The optimum when probes may err (success and stop probabilities per channel).
    pub fn sensed(success: &[f64], stop: &[f64], cost: &[f64]) -> Optimum {
        let list = optimal_list(success, stop, cost);
        let expected_reward = expected_reward_sensed(&list, success, stop, cost);
        Optimum {
            list,
            expected_reward,
        }
    }
}

/// Kullback–Leibler divergence between Bernoulli laws of means `p` and `q`, `d(p; q)`, with the
/// conventions `0·log 0 = 0` and `d(p; q) = ∞` when `q` is 0 or 1 but `p` differs from it.
pub(crate) fn kl_bernoulli(p: f64, q: f64) -> f64 {
    fn term(x: f64, y: f64) -> f64 {
        if x == 0.0 {
            0.0
        } else if y == 0.0 {
            f64::INFINITY
        } else {
            x * math::ln(x / y)
        }
    }
    term(p, q) + term(1.0 - p, 1.0 - q)
}

/// An upper bound on the KL-UCB index, cheap to compute.
///
/// For `p ≤ q`, `d(p; q) = ∫_p^q (x − p)/(x(1 − x)) dx`, and `x(1 − x) ≤ 1/4` gives Pinsker's
/// `d ≥ 2(q − p)²`, while `x(1 − x) ≤ x ≤ q` gives `d ≥ (q − p)²/(2q)`. With `ℓ = budget/n`, the
/// index is therefore at most `min(p + sqrt(ℓ/2), p + ℓ + sqrt(2pℓ + ℓ²))`: the first bound is
/// tight near 1/2, the second near 0. When both exceed 1 (few samples), the bound of
/// `kl_upper_near_one` takes over.
#[inline]
pub(crate) fn kl_upper_bound(p: f64, n: f64, budget: f64) -> f64 {
    kl_upper_bound_with(p, n, budget, || bernoulli_entropy(p))
}

/// [`kl_upper_bound`] with the entropy `H(p)` given when it is needed (a caller that keeps it
/// per channel saves its two logarithms; the bits are the same).
#[inline]
pub(crate) fn kl_upper_bound_with(
    p: f64,
    n: f64,
    budget: f64,
    entropy: impl FnOnce() -> f64,
) -> f64 {
    let level = budget / n;
    let bound = pinsker_chi_bound(p, level);
    if bound < 1.0 {
        bound
    } else if p < 1.0 {
        kl_upper_near_one_with(p, level, entropy())
    } else {
        1.0
    }
}

/// The smaller of Pinsker's and the χ² bound (see [`kl_upper_bound`]), at `ℓ = level`.
#[inline]
pub(crate) fn pinsker_chi_bound(p: f64, level: f64) -> f64 {
    let pinsker = p + (0.5 * level).sqrt();
    let chi = p + level + (2.0 * p * level + level * level).sqrt();
    pinsker.min(chi)
}

/// A third upper bound, tight when the index is close to 1: writing
/// `d(p; q) = −H(p) − p ln q − (1 − p) ln(1 − q)` (H the entropy) and dropping `−p ln q ≥ 0`,
/// `q* = 1 − exp(−(ℓ + H(p))/(1 − p))` has `d(p; q*) ≥ ℓ`. Exact for `p = 0`.
#[cfg(test)]
pub(crate) fn kl_upper_near_one(p: f64, level: f64) -> f64 {
    kl_upper_near_one_with(p, level, bernoulli_entropy(p))
}

/// [`kl_upper_near_one`] with `H(p)` given.
#[inline]
pub(crate) fn kl_upper_near_one_with(p: f64, level: f64, entropy: f64) -> f64 {
    -math::exp_m1(-(level + entropy) / (1.0 - p))
}

/// The entropy `H(p)` of a Bernoulli(`p`) variable, in nats, `0 ≤ p < 1`.
#[inline]
pub(crate) fn bernoulli_entropy(p: f64) -> f64 {
    -(if p > 0.0 { p * math::ln(p) } else { 0.0 }) - (1.0 - p) * math::ln(1.0 - p)
}

/// Whether `kl_upper_near_one(p, level)` (as computed) is at least `bound`, decided without
/// its logarithms and exponential, for `0 ≤ p < 1`: the entropy is at least
/// `4 ln 2 · p(1 − p)` (in bits, `h(p) ≥ 4p(1 − p)`), and `e^x ≥ 1 + x + x²/2 + x³/6 + x⁴/24`
/// for `x ≥ 0`, so the near-one bound `1 − e^(−x)` is at least `1 − 1/(that polynomial)` with
/// `x = (ℓ + 4 ln 2 · p(1 − p))/(1 − p)`. The relative margin of 1e-9 covers the rounding of
/// both computations (a few ulps each). `false` means "maybe not": the caller computes it.
#[inline]
pub(crate) fn near_one_is_above(p: f64, level: f64, bound: f64) -> bool {
    let x = (level + 4.0 * std::f64::consts::LN_2 * p * (1.0 - p)) / (1.0 - p);
    // 1 − 1/(1 + s) written s/(1 + s): no cancellation when x is tiny.
    let s = x * (1.0 + x / 2.0 * (1.0 + x / 3.0 * (1.0 + x / 4.0)));
    s / (1.0 + s) * (1.0 - 1e-9) >= bound
}

/// Bounds on the KL-UCB index as `kl_search::kl_upper` computes it, from one evaluation of the
/// divergence, the cost of one of the root search's Newton steps: `(below, above)`, or `None`
/// where [`kl_upper_bound`] is not below 1 (few samples) or the budget is 0. `bound` is
/// `kl_upper_bound(p, n, budget)`, which the caller often has already.
///
/// With `q₀` = [`kl_upper_bound`] (`d(p; q₀) ≥ ℓ`) and `f(q) = d(p; q) − ℓ`, convex and
/// increasing on `[p, 1)`: the Newton step from `q₀` stays at or above the exact root (the
/// tangent lies below `f`), and the chord from `(p, −ℓ)` to `(q₀, f(q₀))` crosses zero at or
/// below it (the chord lies above `f`). Both are widened by [`KL_STEP_MARGIN`] relative (the
/// search's own tolerance) and by [`kl_root_slack`] absolute (the divergence's rounding, which
/// moves both the step and the computed root).
pub(crate) fn kl_upper_one_step(p: f64, n: f64, budget: f64, bound: f64) -> Option<(f64, f64)> {
    if budget <= 0.0 || p >= 1.0 {
        return None;
    }
    debug_assert_eq!(bound, kl_upper_bound(p, n, budget));
    let q = bound;
    if q >= 1.0 || q <= p {
        return None;
    }
    let level = budget / n;
    let d = kl_bernoulli(p, q);
    if d <= 0.0 || !d.is_finite() {
        return None;
    }
    let newton = (q - (d - level) * (q * (1.0 - q)) / (q - p)).min(q);
    let secant = (p + (q - p) * (level / d)).min(q);
    // The step's error and the computed root's, each at most the slack; the chord's own error
    // is its distance from p times d's relative error.
    let slack = 2.0 * kl_root_slack(p, d, secant, q);
    let chord_error = (secant - p) * kl_divergence_error(p, d, q) / d;
    Some((
        kl_widen_down(secant, slack + chord_error).max(p),
        kl_widen_up(newton, slack),
    ))
}

/// Relative margin that widens bounds on `kl_search::kl_upper`'s result for its own tolerance (a
/// relative step of 1e-12: between two budgets the computed root may step down by about that
/// much although the exact root only grows).
const KL_STEP_MARGIN: f64 = 1e-9;

/// `x`, an upper bound on the exact KL-UCB index, raised into one on the index as
/// `kl_search::kl_upper` computes it: by [`KL_STEP_MARGIN`] relative (its tolerance) and by
/// `slack` absolute (its rounding, [`kl_root_slack`]). Every such bound is widened here.
#[inline]
pub(crate) fn kl_widen_up(x: f64, slack: f64) -> f64 {
    x + KL_STEP_MARGIN * x.abs() + slack + f64::MIN_POSITIVE
}

/// [`kl_widen_up`]'s mirror for a lower bound.
#[inline]
pub(crate) fn kl_widen_down(x: f64, slack: f64) -> f64 {
    x - KL_STEP_MARGIN * x.abs() - slack - f64::MIN_POSITIVE
}

/// An absolute bound on the rounding error of `d(p; q)` as [`kl_bernoulli`] computes it, where
/// it is about `d`: a few ulps of its two terms (whose sizes sum to at most `2 + d`), and of the
/// ratio `(1 − p)/(1 − q)`, whose rounding is absolute in `1 − q`.
#[inline]
pub(crate) fn kl_divergence_error(p: f64, d: f64, q: f64) -> f64 {
    16.0 * f64::EPSILON * (4.0 + d + (1.0 - p) / (1.0 - q))
}

/// An absolute bound on how far the divergence's rounding moves `kl_search::kl_upper`'s result from the
/// exact root, for a root in `[below, above]` with `p < below` and `above < 1`, where the
/// divergence is about `d` (the budget's level at the root): the error of `f` over its slope
/// `f′(x) = (x − p)/(x(1 − x))`, which is increasing, so smallest at `below`. Relative margins
/// do not cover it: at `p = 0` and a level of 1e-11 the rounding of `1 − q` alone moves the
/// root by 2e-6 of itself. Zero where the result is exact (`p ≥ 1` or no budget: it is then
/// `min(p, 1)`); infinite where `below ≤ p` or `above ≥ 1` otherwise (no bound).
#[inline]
pub(crate) fn kl_root_slack(p: f64, d: f64, below: f64, above: f64) -> f64 {
    if p >= 1.0 || d <= 0.0 {
        0.0
    } else if below > p && above < 1.0 {
        kl_divergence_error(p, d, above) * below * (1.0 - below) / (below - p)
    } else {
        f64::INFINITY
    }
}

/// An upper bound on `kl_search::kl_upper`'s value, as computed, from one Newton step
/// ([`kl_upper_one_step`]); `None` where the step does not apply.
#[inline]
pub(crate) fn kl_upper_above(p: f64, n: f64, budget: f64, bound: f64) -> Option<f64> {
    kl_upper_one_step(p, n, budget, bound).map(|(_, above)| above)
}

/// The paper's regret bounds for one instance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bounds {
    /// Whether Assumption 1 holds: `θ_i ≠ c_i` and `c_i > 0` for every channel. When it does
    /// not, the bounds below are `null` and `violations` says why.
    pub assumptions_hold: bool,
    /// Each broken assumption, naming the channel.
    pub violations: Vec<String>,
    /// Theorem 2 (CC-UCB, unknown costs): `R(T) ≤ Σ_{i∉I*} c_i·16α/Δ_i² · log T + O(1)`,
    /// with `Δ_i = c_i − θ_i`.
    pub theorem2: Option<LogBound>,
    /// Theorem 3 (any α-consistent policy): `liminf R(T)/log T ≥ Σ_{i∉I*} (c_i − θ_i)/d(θ_i; c_i)`.
    pub theorem3: Option<LogBound>,
}

/// A bound of the form `coefficient · log T`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogBound {
    /// The exploration parameter the bound was computed with (Theorem 2 only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub alpha: Option<f64>,
    /// The factor in front of `log T`.
    pub coefficient: f64,
    /// `coefficient · ln(horizon)`.
    pub at_horizon: f64,
}

impl LogBound {
    /// The bound's value at slot `t` (natural logarithm, as in the paper).
    pub fn at(&self, t: f64) -> f64 {
        self.coefficient * math::ln(t)
    }
}

/// Below this, |θ − c| counts as θ = c for Assumption 1: the bounds divide by (c − θ)², so a
/// θ that equals c up to rounding (θ = 0.9 against c = 0.2·3 + 0.1·3) would give Theorem 2 a
/// meaningless 1e34.
pub(crate) const ASSUMPTION_TOLERANCE: f64 = 1e-9;

impl Bounds {
    /// No bounds, for the stated reason.
    pub fn not_applicable(reason: String) -> Bounds {
        Bounds {
            assumptions_hold: false,
            violations: vec![reason],
            theorem2: None,
            theorem3: None,
        }
    }

    /// The bounds of an instance, with Theorem 2's exploration parameter `alpha`.
    pub fn of(theta: &[f64], cost: &[f64], alpha: f64, horizon: u64) -> Bounds {
        let mut violations = Vec::new();
        for (i, (&t, &c)) in theta.iter().zip(cost).enumerate() {
            if (t - c).abs() <= ASSUMPTION_TOLERANCE {
                violations.push(format!(
                    "channel {i}: θ = {t} equals c = {c} within {ASSUMPTION_TOLERANCE:e} (Assumption 1.1 needs θ ≠ c)"
                ));
            }
            if c <= 0.0 {
                violations.push(format!("channel {i}: c = {c} (Assumption 1.2 needs c > 0)"));
            }
        }
        if !violations.is_empty() {
            return Bounds {
                assumptions_hold: false,
                violations,
                theorem2: None,
                theorem3: None,
            };
        }
        let log_t = math::ln(horizon as f64);
        let bad = || (0..theta.len()).filter(|&i| theta[i] < cost[i]);
        let coef2: f64 = bad()
            .map(|i| {
                let gap = cost[i] - theta[i];
                cost[i] * 16.0 * alpha / (gap * gap)
            })
            .sum();
        // d(θ; c) is infinite when c = 1 > θ: such a channel adds nothing to the lower bound.
        let coef3: f64 = bad()
            .map(|i| (cost[i] - theta[i]) / kl_bernoulli(theta[i], cost[i]))
            .filter(|x| x.is_finite())
            .sum();
        // Every written number must be finite (JSON has no infinity): a bound that overflows
        // is left out rather than written as null.
        let bound = |alpha: Option<f64>, coefficient: f64| {
            let at_horizon = coefficient * log_t;
            (coefficient.is_finite() && at_horizon.is_finite()).then_some(LogBound {
                alpha,
                coefficient,
                at_horizon,
            })
        };
        Bounds {
            assumptions_hold: true,
            violations,
            theorem2: bound(Some(alpha), coef2),
            theorem3: bound(None, coef3),
        }
    }
}

#[cfg(test)]
mod brute_force;

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The prefix sum that stops once no later term can change it equals the whole sum bit
        /// for bit, written whole or a few entries at a time; it depends only on the prefix it
        /// reports.
        #[test]
        fn prefix_expected_reward_is_the_whole_lists_exactly(
            probs in proptest::collection::vec((0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0), 1..400),
            step in 1usize..7,
            near_one in proptest::bool::ANY,
        ) {
            let k = probs.len();
            // Stop probabilities near 1 make the reach vanish fast, the case the rule is for.
            let stop: Vec<f64> = probs.iter().map(|p| if near_one { 0.9 + p.0 / 10.0 } else { p.0 }).collect();
            let success: Vec<f64> = stop.iter().zip(&probs).map(|(q, p)| q * p.1).collect();
            let cost: Vec<f64> = probs.iter().map(|p| p.2).collect();
            let full: Vec<usize> = (0..k).rev().collect();
            let want = expected_reward_sensed(&full, &success, &stop, &cost);
            let mut list: Vec<usize> = Vec::new();
            let mut next = 0;
            let mut more = |l: &mut Vec<usize>| {
                if next >= k {
                    return false;
                }
                let end = (next + step).min(k);
                l.extend_from_slice(&full[next..end]);
                next = end;
                true
            };
            let (got, used, complete) = expected_reward_prefix(&mut list, &mut more, &success, &stop, &cost);
            proptest::prop_assert_eq!(got.to_bits(), want.to_bits());
            proptest::prop_assert_eq!(
                expected_reward_sensed(&full[..used], &success, &stop, &cost).to_bits(),
                want.to_bits()
            );
            proptest::prop_assert!(!complete || used == k);
        }
    }

    const FIG1A_THETA: [f64; 6] = [0.8, 0.7, 0.6, 0.5, 0.4, 0.3];

    #[test]
    fn paper_fig1a_optimum_has_three_channels() {
        let cost = [0.55; 6];
        let opt = Optimum::of(&FIG1A_THETA, &cost);
        assert_eq!(opt.list, vec![0, 1, 2]);
        let want = 0.25 + 0.2 * 0.15 + 0.2 * 0.3 * 0.05;
        assert!((opt.expected_reward - want).abs() < 1e-15);
    }

    /// The paper's (commented-out) table of the offline policy: with a common cost c the list
    /// length drops as c passes each θ_i. Its "Reward" column is the probability that the list
    /// finds an idle channel, 1 − Π(1 − θ), which is the expected reward at zero cost. The L = 6
    /// row prints 0.9905 where 1 − 0.2·0.3·0.4·0.5·0.6·0.7 = 0.99496: a typo in the source.
    #[test]
    fn offline_structure_matches_the_papers_table() {
        let rows = [
            (0.2, 6, 0.99496),
            (0.35, 5, 0.9928),
            (0.45, 4, 0.9880),
            (0.55, 3, 0.9760),
            (0.65, 2, 0.9400),
            (0.75, 1, 0.8000),
            (0.85, 0, 0.0),
        ];
        for (c, len, idle_probability) in rows {
            let list = ucr_t1(&FIG1A_THETA, &[c; 6]);
            assert_eq!(list.len(), len, "c = {c}");
            let p = expected_reward(&list, &FIG1A_THETA, &[0.0; 6]);
            assert!((p - idle_probability).abs() < 1e-4, "c = {c}: {p}");
        }
    }

    #[test]
    fn free_channels_rank_first_and_ties_keep_index_order() {
        let theta = [0.5, 0.2, 0.4, 0.4];
        let cost = [0.25, 0.0, 0.2, 0.2];
        assert_eq!(ucr_t1(&theta, &cost), vec![1, 0, 2, 3]);
    }

    #[test]
    fn kl_and_bounds_on_fig1a() {
        assert!((kl_bernoulli(0.5, 0.55) - 0.005_025_167).abs() < 1e-8);
        assert_eq!(kl_bernoulli(0.3, 0.3), 0.0);
        let b = Bounds::of(&FIG1A_THETA, &[0.55; 6], 1.5, 200_000);
        assert!(b.assumptions_hold);
        let t2 = b.theorem2.unwrap().coefficient;
        let want2 = 0.55 * 24.0 * (1.0 / 0.0025 + 1.0 / 0.0225 + 1.0 / 0.0625);
        assert!((t2 - want2).abs() < 1e-6 * want2);
        let t3 = b.theorem3.unwrap().coefficient;
        let want3: f64 = [0.5, 0.4, 0.3]
            .iter()
            .map(|&t| (0.55 - t) / kl_bernoulli(t, 0.55))
            .sum();
        assert!((t3 - want3).abs() < 1e-12);
        assert!((t3 - 15.23).abs() < 0.05, "{t3}");
    }

    #[test]
    fn theta_equal_to_c_up_to_rounding_breaks_assumption_1() {
        let c = 0.2 * 3.0 + 0.1 * 3.0;
        assert_ne!(c, 0.9);
        let b = Bounds::of(&[0.9, 0.3], &[c, 0.5], 1.5, 1000);
        assert!(!b.assumptions_hold, "{b:?}");
        assert!(b.theorem2.is_none());
    }

    #[test]
    fn bounds_refuse_instances_breaking_assumption_1() {
        let b = Bounds::of(&[0.5, 0.3], &[0.5, 0.0], 1.5, 100);
        assert!(!b.assumptions_hold);
        assert_eq!(b.violations.len(), 2);
        assert!(b.theorem2.is_none() && b.theorem3.is_none());
    }

    /// Where the cheap test says the near-one bound is above the others, the computed near-one
    /// bound is at least as large, so `kl_upper` starts where it did when it computed both (and
    /// returns the same bits); and the test does skip it in the usual case. Counts and budgets
    /// as the indices see them: n up to 10⁷ samples, budgets ln t up to t = 2⁴⁰, means on a fine
    /// grid with the edges and every fraction s/n of small n.
    #[test]
    fn the_skipped_near_one_bound_is_never_the_smaller() {
        let mut means: Vec<f64> = (0..=2000).map(|i| f64::from(i) / 2000.0).collect();
        for n in 1..=60u32 {
            means.extend((0..=n).map(|s| f64::from(s) / f64::from(n)));
        }
        means.extend([1e-300, 1e-12, 1e-6, 1.0 - 1e-12, 1.0 - 1e-6]);
        let mut skipped = 0usize;
        let mut cases = 0usize;
        for &p in means.iter().filter(|&&p| p < 1.0) {
            for n in [1.0, 2.0, 3.0, 10.0, 77.0, 1000.0, 123_457.0, 1e7] {
                for budget in [1e-9, 0.01, 0.5, 1.0, 2.3, 6.9, 13.8, 27.7] {
                    let bound = kl_upper_bound(p, n, budget);
                    let level = budget / n;
                    // The usual case: a channel sampled often, t ≥ 10, a mean away from 0 and 1.
                    let usual = n >= 64.0 && budget >= 2.3 && p > 0.05 && p < 0.95;
                    cases += usize::from(usual);
                    if bound < 1.0 && near_one_is_above(p, level, bound) {
                        skipped += usize::from(usual);
                        assert!(
                            kl_upper_near_one(p, level) >= bound,
                            "p {p} n {n} budget {budget}: {} < {bound}",
                            kl_upper_near_one(p, level)
                        );
                    }
                }
            }
        }
        assert!(skipped * 4 >= cases * 3, "skipped {skipped} of {cases}");
    }

    proptest::proptest! {
        /// The same on random means, counts and budgets, tiny and huge levels included.
        #[test]
        fn a_skipped_near_one_bound_is_never_the_smaller(
            p in 0.0f64..1.0,
            log_n in 0.0f64..17.0,
            log_budget in -30.0f64..4.0,
        ) {
            let (n, budget) = (math::exp(log_n).round().max(1.0), math::exp(log_budget));
            let bound = kl_upper_bound(p, n, budget);
            let level = budget / n;
            if bound < 1.0 && near_one_is_above(p, level, bound) {
                proptest::prop_assert!(kl_upper_near_one(p, level) >= bound);
            }
        }
    }

    #[test]
    fn expected_reward_stops_at_certain_idle() {
        // θ = 1 for the first channel: nothing after it can be reached.
        let r = expected_reward(&[0, 1], &[1.0, 0.9], &[0.1, 0.0]);
        assert_eq!(r, 0.9);
    }

    #[test]
    fn expected_reward_of_a_two_channel_list() {
        let theta = [0.8, 0.7];
        let cost = [0.55, 0.55];
        let r = expected_reward(&[0, 1], &theta, &cost);
        assert!((r - (0.25 + 0.2 * 0.15)).abs() < 1e-15);
    }
}
