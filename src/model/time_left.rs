//! The reward by the time left in the slot (`reward: TimeLeft(..)`): probing eats the slot.
//!
//! The sequential-sensing model of Jiang, Lai, Fan & Poor (IEEE TWC 2009) and Liang et al.
//! (IEEE TWC 2008): the user senses channels one after another and transmits on the first one
//! sensed idle **for the rest of the slot**, so every probe shrinks what is left to send. With
//! slot length T (`slot: (duration: T)`) and the probes before and including channel k taking
//! t_k (their delays, drawn from the channels' delay laws), a transmission on channel k earns
//!
//! - `rate_k · max(0, 1 − t_k/T)` when k is truly idle (rate_k = `rates[k]`, else `rate`),
//! - `busy_rate · max(0, 1 − t_k/T)` when k is busy but sensed idle (a missed detection; Liang
//!   et al.'s C₁ under the primary's interference; 0 by default: the transmission is lost),
//!
//! less the probes' energy costs as today (`weights.energy · energy`). The probe's time is paid
//! by the shorter transmission, so the delay weight must be 0 (it would charge it twice), and
//! a probe that would start after the slot's end is not made (as with any slot duration).
//! Learners observe each probe's cost as its energy cost plus **the time used in reward
//! units**, `rate · delay / T` (with the scalar `rate`), so CC-UCB and the cascade baselines run
//! unchanged.
//!
//! **The benchmark** is the optimal sensing order and stopping point for the known statistics:
//! a dynamic programme over the set S of channels already sensed busy (the cascade goes on only
//! then, so the optimal adaptive rule is a fixed list), with elapsed time t(S) = Σ_{j∈S} d̄_j
//! (mean delays):
//!
//! V(S) = max(0, max_{k∉S, t(S) < T} [g_k(t(S) + d̄_k) − c_k + (1 − q_k)·V(S ∪ {k})]),
//! g_k(t) = (s_k·rate_k + (q_k − s_k)·busy_rate)·max(0, 1 − t/T),
//!
//! with s_k = P(idle and sensed idle), q_k = P(sensed idle), c_k the mean energy cost. Exact
//! (checked against every ordered subset for K ≤ 8) when delays are constant; with random
//! delays it uses their means (a choice, stated in the guide's sensing-time page). At most [`MAX_DP_CHANNELS`]
//! channels (2^K states).

use serde::{Deserialize, Serialize};

/// Most channels the dynamic programme takes (2^20 states, 8 MiB).
pub(crate) const MAX_DP_CHANNELS: usize = 20;

/// Most work the benchmark's programmes may take over all epochs of a horizon (states ×
/// channels × epochs, [`programme_work`]): about a second (85 ms per programme at K = 20). 20
/// piecewise channels of 1 000 segments asked for 20 minutes of it before `validate` answered
/// (issue 50).
pub(crate) const MAX_DP_WORK: u64 = 1 << 28;

/// The benchmark's work on `k` channels over `epochs` epochs: 2^k states of k choices each,
/// once per epoch (saturating).
pub(crate) fn programme_work(k: usize, epochs: u64) -> u64 {
    let states = 1u64.checked_shl(k as u32).unwrap_or(u64::MAX);
    states.saturating_mul(k as u64).saturating_mul(epochs)
}

/// The rule a scenario breaks when its epochs' programmes take more than [`MAX_DP_WORK`].
pub(crate) fn too_much_work(k: usize, epochs: u64) -> Option<String> {
    (k <= MAX_DP_CHANNELS && programme_work(k, epochs) > MAX_DP_WORK).then(|| {
        let most = MAX_DP_WORK / programme_work(k, 1).max(1);
        format!(
            "the time-left benchmark solves a dynamic programme over 2^{k} subsets for each of the {epochs} piecewise epochs before the horizon; with {k} channels at most {most} epochs fit its budget of about a second: fewer segments, fewer channels or a shorter horizon"
        )
    })
}

/// The rule a configuration of `k` channels breaks beyond [`MAX_DP_CHANNELS`] (checked from
/// the channel count before the channels are built: a `count` of 2²⁰ took 0.4 s and 500 MB
/// per sweep cell to be told so).
pub(crate) fn too_many_channels(k: u64) -> String {
    format!(
        "the time-left benchmark is an exact dynamic programme over subsets of channels, for at most {MAX_DP_CHANNELS} channels (this configuration has {k})"
    )
}

/// The largest rate: over 2⁴⁰ slots, 2⁶⁴ runs and 1 024 users the sums of squares of the
/// rewards stay below `f64::MAX` (rate · 2⁴⁰ ≤ 1.1·10¹¹², squared and summed ≤ 10²⁶⁰).
pub(crate) const MAX_RATE: f64 = 1e100;

/// `reward: TimeLeft(..)` as a scenario writes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TimeLeftSpec {
    /// The rate of a transmission on an idle channel over a whole slot (default 1), and the
    /// price of the time a probe uses (`rate · delay / T`) that learners observe.
    #[serde(default = "one")]
    pub(crate) rate: f64,
    /// Per-channel rates (adaptive modulation), one per channel; `rate` for all if absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) rates: Option<Vec<f64>>,
    /// The rate of a transmission on a busy channel sensed idle (default 0: lost).
    #[serde(default)]
    pub(crate) busy_rate: f64,
    /// What a transmission earns when the primary user returns during it (default `Lost`).
    #[serde(default, skip_serializing_if = "OnReturn::is_lost")]
    pub(crate) on_return: OnReturn,
}

/// What a transmission earns when the primary user returns during it (only continuous-time
/// channels, on/off and López-Benítez, can change state inside a slot; the return is counted as
/// interference to the primary user either way).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum OnReturn {
    /// Nothing: the collided transmission is lost whole (a half-duplex user cannot see the
    /// return while it sends).
    #[default]
    Lost,
    /// The part sent before the return: rate × (return − start)/T.
    Prorated,
}

impl OnReturn {
    fn is_lost(&self) -> bool {
        *self == OnReturn::Lost
    }
}

fn one() -> f64 {
    1.0
}

/// A broken rule: (field under `TimeLeft`, empty for the whole rule; index; why).
pub(crate) type TimeLeftProblem = ((&'static str, Option<usize>), String);

/// The checked rule.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TimeLeft {
    spec: TimeLeftSpec,
    /// Per channel, the idle rate.
    rates: Vec<f64>,
    /// The slot's length T in delay units.
    slot: f64,
    /// Per channel, the mean delay of a probe (set by the environment).
    delays: Vec<f64>,
}

impl TimeLeftSpec {
    /// Checks the rule for `k` channels in slots of length `slot` (if the scenario sets one)
    /// with delay weight `delay_weight`; each broken rule as (its field under `TimeLeft`, empty
    /// for the rule as a whole; an index into it; the rule).
    pub(crate) fn check(
        &self,
        k: usize,
        slot: Option<f64>,
        delay_weight: f64,
    ) -> Result<TimeLeft, Vec<TimeLeftProblem>> {
        let mut problems = Vec::new();
        let finite_nonneg = |v: f64| v.is_finite() && v >= 0.0;
        // A run's reward is at most rate × 2⁴⁰ slots, and the statistics sum its square over
        // the runs and users: a rate up to MAX_RATE keeps every such sum finite.
        let beyond = |v: f64| {
            format!(
                "must be at most {MAX_RATE:e}: a run's rewards (up to rate × horizon) and their squares summed over runs must stay finite (got {v:e})"
            )
        };
        if !(self.rate.is_finite() && self.rate > 0.0) {
            problems.push((
                ("rate", None),
                format!("must be a positive finite number (got {})", self.rate),
            ));
        } else if self.rate > MAX_RATE {
            problems.push((("rate", None), beyond(self.rate)));
        }
        if !finite_nonneg(self.busy_rate) {
            problems.push((
                ("busy_rate", None),
                format!("must be a finite number ≥ 0 (got {})", self.busy_rate),
            ));
        } else if self.busy_rate > MAX_RATE {
            problems.push((("busy_rate", None), beyond(self.busy_rate)));
        }
        if let Some(rates) = &self.rates {
            if rates.len() != k {
                problems.push((
                    ("rates", None),
                    format!(
                        "lists {} rates for {k} channels: give one per channel",
                        rates.len()
                    ),
                ));
            }
            for (i, &r) in rates.iter().enumerate() {
                if !finite_nonneg(r) {
                    problems.push((
                        ("rates", Some(i)),
                        format!("must be a finite number ≥ 0 (got {r})"),
                    ));
                } else if r > MAX_RATE {
                    problems.push((("rates", Some(i)), beyond(r)));
                }
            }
        }
        if k > MAX_DP_CHANNELS {
            problems.push((("", None), too_many_channels(k as u64)));
        }
        if slot.is_none() {
            problems.push((
                ("", None),
                "needs the slot's length: add `slot: (duration: T)` in the delay's units".into(),
            ));
        }
        if delay_weight != 0.0 {
            problems.push((
                ("", None),
                format!("the probes' time is paid by the shorter transmission; `weights.delay` must be 0 so that it is not charged twice (got {delay_weight})"),
            ));
        }
        match slot {
            Some(slot) if problems.is_empty() => Ok(TimeLeft {
                rates: self.rates.clone().unwrap_or_else(|| vec![self.rate; k]),
                spec: self.clone(),
                slot,
                delays: Vec::new(),
            }),
            _ => Err(problems),
        }
    }
}

impl TimeLeft {
    /// The scenario's values.
    pub(crate) fn spec(&self) -> &TimeLeftSpec {
        &self.spec
    }

    /// Per channel, the idle rate.
    pub(crate) fn rates(&self) -> &[f64] {
        &self.rates
    }

    /// The same rule for channels relabelled by `to` (channel i of the result is `to[i]`);
    /// the environment that takes it sets the relabelled channels' delays
    /// ([`TimeLeft::with_delays`]).
    pub(crate) fn relabelled(&self, to: &[usize]) -> TimeLeft {
        TimeLeft {
            rates: to.iter().map(|&c| self.rates[c]).collect(),
            ..self.clone()
        }
    }

    /// The rule with the channels' mean probe delays (what the benchmark and the expected
    /// reward use).
    pub(crate) fn with_delays(self, delays: Vec<f64>) -> TimeLeft {
        TimeLeft { delays, ..self }
    }

    /// Per channel, the mean delay of a probe.
    pub(crate) fn delays(&self) -> &[f64] {
        &self.delays
    }

    /// The fraction of the slot left after `elapsed` delay units.
    #[inline(always)]
    fn left(&self, elapsed: f64) -> f64 {
        (1.0 - elapsed / self.slot).max(0.0)
    }

    /// What a transmission on channel `i` earns, started after `elapsed` delay units, the
    /// channel truly idle or not, the primary user returning `back` into the slot (a fraction
    /// of it; ≥ 1 or infinite when it does not return inside the slot). The second value says
    /// whether the return interrupted the transmission.
    #[inline(always)]
    pub(crate) fn gain(&self, i: usize, idle: bool, elapsed: f64, back: f64) -> (f64, bool) {
        let rate = if idle {
            self.rates[i]
        } else {
            self.spec.busy_rate
        };
        // The transmission runs from `start` to the slot's end; a return before the end
        // overlaps it (one during the probe itself leaves nothing clean to send).
        let start = elapsed / self.slot;
        if idle && back < 1.0 && start < 1.0 {
            let part = match self.spec.on_return {
                OnReturn::Lost => 0.0,
                OnReturn::Prorated => rate * (back - start).max(0.0),
            };
            return (part, true);
        }
        (rate * self.left(elapsed), false)
    }

    /// The cost a learner observes for a probe of bandit cost `cost` that took `delay`: the
    /// time used in reward units added.
    #[inline(always)]
    pub(crate) fn observed_cost(&self, cost: f64, delay: f64) -> f64 {
        cost + self.spec.rate * delay / self.slot
    }

    /// The expected transmission gain of channel `i` when its probe ends at `end`.
    #[inline(always)]
    fn expected_gain(&self, i: usize, success: f64, stop: f64, end: f64) -> f64 {
        (success * self.rates[i] + (stop - success) * self.spec.busy_rate) * self.left(end)
    }

    /// The expected net reward of probing `list` (of which `more` appends the rest) in order,
    /// with per-channel P(idle and sensed idle) `success`, P(sensed idle) `stop`, mean costs
    /// `cost` and mean delays `delay` (probes that would start after the slot are not made).
    pub(crate) fn expected_reward(
        &self,
        list: &mut Vec<usize>,
        more: &mut impl FnMut(&mut Vec<usize>) -> bool,
        success: &[f64],
        stop: &[f64],
        cost: &[f64],
        delay: &[f64],
    ) -> f64 {
        let (mut reach, mut total, mut elapsed) = (1.0, 0.0, 0.0);
        let mut j = 0;
        loop {
            if j == list.len() && !more(list) {
                return total;
            }
            if elapsed >= self.slot || reach < f64::MIN_POSITIVE {
                return total;
            }
            let i = list[j];
            elapsed += delay[i];
            total += reach * (self.expected_gain(i, success[i], stop[i], elapsed) - cost[i]);
            reach *= 1.0 - stop[i];
            j += 1;
        }
    }

    /// The optimal list and its expected net reward (the dynamic programme of the module
    /// docs).
    pub(crate) fn optimum(
        &self,
        success: &[f64],
        stop: &[f64],
        cost: &[f64],
        delay: &[f64],
    ) -> (Vec<usize>, f64) {
        let mut list = Vec::new();
        self.plan_into(
            success,
            stop,
            cost,
            delay,
            &mut Programme::default(),
            &mut list,
        );
        // The list's value as every slot's pseudo-regret computes it (the programme's sums
        // run in another order): the benchmark's own regret is then exactly 0.
        let value = self.expected_reward(
            &mut list.clone(),
            &mut |_| false,
            success,
            stop,
            cost,
            delay,
        );
        (list, value)
    }

    /// [`TimeLeft::optimum`] on the channels of `set` only (indices into the full instance,
    /// whose rates and mean delays this rule holds): one user's best list among them, for the
    /// many-users benchmark's disjoint lists.
    pub(crate) fn optimum_on(
        &self,
        set: &[usize],
        success: &[f64],
        stop: &[f64],
        cost: &[f64],
    ) -> (Vec<usize>, f64) {
        let pick = |v: &[f64]| set.iter().map(|&i| v[i]).collect::<Vec<f64>>();
        let delays = pick(&self.delays);
        let local = self.relabelled(set).with_delays(delays.clone());
        let (list, value) = local.optimum(&pick(success), &pick(stop), &pick(cost), &delays);
        (list.into_iter().map(|j| set[j]).collect(), value)
    }

    /// The programme: appends the optimal list to `list` and returns its value, with the
    /// tables in `p` (kept by a learner that plans every slot: no allocation once sized).
    pub(crate) fn plan_into(
        &self,
        success: &[f64],
        stop: &[f64],
        cost: &[f64],
        delay: &[f64],
        p: &mut Programme,
        list: &mut Vec<usize>,
    ) -> f64 {
        let k = success.len();
        debug_assert!(k <= MAX_DP_CHANNELS);
        let full = 1usize << k;
        p.value.resize(full, 0.0);
        // The channel probed next from each state (`u8::MAX`: stop).
        p.next.resize(full, u8::MAX);
        p.elapsed.resize(full, 0.0);
        let Programme {
            value,
            next,
            elapsed,
        } = p;
        elapsed[0] = 0.0;
        for s in 1..full {
            let low = s.trailing_zeros() as usize;
            elapsed[s] = elapsed[s & (s - 1)] + delay[low];
        }
        // A superset has a larger mask: states from the full set down.
        for s in (0..full).rev() {
            let (mut best, mut arg) = (0.0f64, u8::MAX);
            if elapsed[s] < self.slot {
                for i in 0..k {
                    if s & (1 << i) != 0 {
                        continue;
                    }
                    let t = s | (1 << i);
                    let v = self.expected_gain(i, success[i], stop[i], elapsed[t]) - cost[i]
                        + (1.0 - stop[i]) * value[t];
                    if v > best {
                        (best, arg) = (v, i as u8);
                    }
                }
            }
            value[s] = best;
            next[s] = arg;
        }
        let mut s = 0usize;
        while next[s] != u8::MAX {
            let i = next[s] as usize;
            list.push(i);
            s |= 1 << i;
        }
        value[0]
    }

    /// The unit reward as a rule (rate 1, busy 0, an endless slot): what a learner built for
    /// this reward plans with on a scenario without `reward: TimeLeft`.
    pub(crate) fn unit(k: usize, delays: Vec<f64>) -> TimeLeft {
        TimeLeft {
            spec: TimeLeftSpec {
                rate: 1.0,
                rates: None,
                busy_rate: 0.0,
                on_return: OnReturn::Lost,
            },
            rates: vec![1.0; k],
            slot: f64::INFINITY,
            delays,
        }
    }
}

/// The programme's tables (values, choices and elapsed times of the 2^K states).
#[derive(Clone, Debug, Default)]
pub(crate) struct Programme {
    value: Vec<f64>,
    next: Vec<u8>,
    elapsed: Vec<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rule(rates: Vec<f64>, busy: f64, slot: f64) -> TimeLeft {
        TimeLeftSpec {
            rate: 1.0,
            rates: Some(rates.clone()),
            busy_rate: busy,
            on_return: OnReturn::Lost,
        }
        .check(rates.len(), Some(slot), 0.0)
        .unwrap()
    }

    /// The best of every ordered subset of the channels, by enumeration.
    fn brute(tl: &TimeLeft, s: &[f64], q: &[f64], c: &[f64], d: &[f64]) -> f64 {
        fn go(
            tl: &TimeLeft,
            list: &mut Vec<usize>,
            s: &[f64],
            q: &[f64],
            c: &[f64],
            d: &[f64],
            best: &mut f64,
        ) {
            let v = tl.expected_reward(&mut list.clone(), &mut |_| false, s, q, c, d);
            *best = best.max(v);
            for i in 0..s.len() {
                if !list.contains(&i) {
                    list.push(i);
                    go(tl, list, s, q, c, d, best);
                    list.pop();
                }
            }
        }
        let mut best = 0.0;
        go(tl, &mut Vec::new(), s, q, c, d, &mut best);
        best
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The dynamic programme's value is the best of every ordered subset (K ≤ 6 here,
        /// ≤ 8 in the test below), and its list achieves it.
        #[test]
        fn the_programme_is_the_best_ordered_subset(
            chans in prop::collection::vec((0.0f64..1.0, 0.0f64..0.3, 0.0f64..0.3, 0.0f64..0.5, 0.0f64..3.0), 1..6),
            busy in prop_oneof![Just(0.0), 0.0f64..1.0],
            slot in 0.5f64..2.0,
        ) {
            let theta: Vec<f64> = chans.iter().map(|c| c.0).collect();
            let s: Vec<f64> = chans.iter().map(|c| c.0 * (1.0 - c.1)).collect();
            let q: Vec<f64> = chans.iter().map(|c| c.0 * (1.0 - c.1) + (1.0 - c.0) * c.1).collect();
            let cost: Vec<f64> = chans.iter().map(|c| c.2 * 0.5).collect();
            let d: Vec<f64> = chans.iter().map(|c| c.3).collect();
            let rates: Vec<f64> = chans.iter().map(|c| c.4).collect();
            let _ = theta;
            let tl = rule(rates, busy, slot);
            let (list, v) = tl.optimum(&s, &q, &cost, &d);
            let b = brute(&tl, &s, &q, &cost, &d);
            prop_assert!((v - b).abs() <= 1e-12 * (1.0 + b.abs()), "dp {v} brute {b}");
            let achieved = tl.expected_reward(&mut list.clone(), &mut |_| false, &s, &q, &cost, &d);
            prop_assert!((achieved - v).abs() <= 1e-12 * (1.0 + v.abs()), "{list:?}: {achieved} vs {v}");
        }
    }

    /// K = 8 against every ordered subset (109 601 lists), on an instance where adaptive
    /// modulation makes the order of decreasing availability lose (Jiang et al. 2009's point).
    #[test]
    fn eight_channels_by_brute_force_and_availability_order_is_not_optimal() {
        let theta = [0.9, 0.85, 0.8, 0.6, 0.5, 0.45, 0.3, 0.2];
        let rates = [0.5, 0.6, 0.8, 2.0, 2.5, 1.0, 3.0, 1.5];
        let tl = rule(rates.to_vec(), 0.0, 1.0);
        let s = theta.to_vec();
        let q = theta.to_vec();
        let c = vec![0.01; 8];
        let d = vec![0.1; 8];
        let (list, v) = tl.optimum(&s, &q, &c, &d);
        let b = brute(&tl, &s, &q, &c, &d);
        assert!((v - b).abs() < 1e-12, "{v} vs {b}");
        let mut by_theta: Vec<usize> = (0..8).collect();
        by_theta.sort_by(|&a, &b| theta[b].total_cmp(&theta[a]));
        let best_prefix = (1..=8)
            .map(|n| {
                tl.expected_reward(&mut by_theta[..n].to_vec(), &mut |_| false, &s, &q, &c, &d)
            })
            .fold(f64::NEG_INFINITY, f64::max);
        assert!(
            best_prefix < v - 0.05,
            "availability order {best_prefix} vs DP {v} ({list:?})"
        );
    }

    /// Without rates, sensing errors or costs and with free probes, the transmission earns
    /// the rate on the first idle channel: the optimum probes every channel, most available
    /// first, and its value is 1 − Π(1 − θ).
    #[test]
    fn free_probes_reduce_to_the_first_idle_channel() {
        let theta = [0.3, 0.7, 0.5];
        let tl = rule(vec![1.0; 3], 0.0, 1.0);
        let (list, v) = tl.optimum(&theta, &theta, &[0.0; 3], &[0.0; 3]);
        assert_eq!(list.len(), 3);
        assert!((v - (1.0 - 0.7 * 0.3 * 0.5)).abs() < 1e-15);
    }

    /// Each broken rule is named.
    #[test]
    fn rules() {
        let spec = TimeLeftSpec {
            rate: 0.0,
            rates: Some(vec![1.0, -1.0]),
            busy_rate: f64::NAN,
            on_return: OnReturn::Prorated,
        };
        let fields: Vec<(&str, Option<usize>)> = spec
            .check(3, None, 1.0)
            .unwrap_err()
            .into_iter()
            .map(|p| p.0)
            .collect();
        assert_eq!(
            fields,
            [
                ("rate", None),
                ("busy_rate", None),
                ("rates", None),
                ("rates", Some(1)),
                ("", None),
                ("", None)
            ]
        );
    }
}
