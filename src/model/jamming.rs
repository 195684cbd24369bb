//! Jammers: adversaries among the users of a many-users scenario.
//!
//! A jammer transmits on purpose to destroy the secondary users' transmissions: every user
//! transmitting on a channel a jammer holds in that slot loses the slot, whatever the
//! collision model, and sees a collision where its feedback shows collisions. It earns nothing
//! and learns nothing, so it is not one of the scenario's `users` (the regret's M), and the
//! benchmark stays the jammer-free one. Jammers do not change what users sense: sensing detects
//! the primary user (the jammer's burst covers the data part of the slot, after the sensing,
//! as in Sawant et al., arXiv 1803.06810).
//!
//! ```ron
//! jammers: [
//!     (behaviour: Constant(channel: 2)),                  // one channel, every slot
//!     (behaviour: Sweep(step: 1), budget: 500),           // channel (start + step·(t − 1)) mod K
//!     (behaviour: Random, rate: 0.3),                     // a channel drawn each slot, 30 % of slots
//!     (behaviour: Coordinated(count: 2)),                 // 2 jammers on the 2 best channels
//!     (behaviour: Coordinated(channels: [0, 4], moving: true)), // 2 distinct channels drawn each slot
//!     (behaviour: Reactive),                              // where a user transmitted last slot
//! ],
//! ```
//!
//! **Budgets.** `budget: C` is the jammer's jammed slots in total (a coordinated group's jammers
//! jam together, so one slot of the group spends one unit); it jams from the first slot until
//! the budget is spent (default: every slot of the horizon). `rate: p` is its budget per slot:
//! it jams a slot with probability p (default 1), each attempt drawn from its own stream. With
//! `budget: 0` a jammer never jams, draws nothing, and the run is the jammer-free one bit for
//! bit: jammers draw from their own streams, keyed by (seed, jammer, run).
//!
//! **Choices** (the sources leave them open): a reactive jammer jams one channel on which a
//! user transmitted in the previous slot (drawn uniformly among them; none in the first slot or
//! after a silent one: no budget spent); `Coordinated(count: J)` holds the J channels of
//! largest expected net reward `s − c` of the first epoch (the strongest fixed attack on the
//! benchmark; ties to the lower channel).

use crate::util::rng::{SimRng, label_hash, stream};
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// One jammer of a scenario, as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct JammerSpec {
    /// Where it transmits.
    pub behaviour: BehaviourSpec,
    /// Jammed slots in total (default: every slot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<f64>,
    /// Probability of jamming a slot while budget is left (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
}

/// Where a jammer transmits, as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) enum BehaviourSpec {
    /// One channel, every slot.
    Constant {
        /// The channel.
        channel: f64,
    },
    /// Channel `(start + step·(t − 1)) mod K` in slot t.
    Sweep {
        /// The channel of slot 1.
        #[serde(default)]
        start: f64,
        /// Channels moved per slot.
        #[serde(default = "one")]
        step: f64,
    },
    /// A channel drawn uniformly each slot.
    Random,
    /// J jammers on J distinct channels each slot.
    Coordinated {
        /// J: the J best channels (or J drawn each slot, with `moving`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        count: Option<f64>,
        /// The channels held (instead of `count`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        channels: Option<Vec<f64>>,
        /// Draw J distinct channels afresh each slot (uniformly) instead of holding a set.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        moving: bool,
    },
    /// A channel on which a user transmitted in the previous slot.
    Reactive,
}

fn one() -> f64 {
    1.0
}

/// Where a jammer transmits, checked.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Behaviour {
    /// One channel.
    Constant(usize),
    /// `(start + step·(t − 1)) mod K`.
    Sweep { start: usize, step: usize },
    /// One channel drawn uniformly each slot.
    Random,
    /// These distinct channels, every slot.
    Hold(Vec<usize>),
    /// This many distinct channels drawn uniformly each slot.
    Moving(usize),
    /// One of the channels users transmitted on in the previous slot.
    Reactive,
}

/// One jammer, checked.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Jammer {
    pub behaviour: Behaviour,
    /// Jammed slots in total.
    pub budget: u64,
    /// Probability of jamming a slot while budget is left.
    pub rate: f64,
}

impl Jammer {
    /// Jammers it counts as (a coordinated group's J).
    pub(crate) fn count(&self) -> usize {
        match &self.behaviour {
            Behaviour::Hold(c) => c.len(),
            Behaviour::Moving(j) => *j,
            _ => 1,
        }
    }

    /// Whether it can jam at all.
    fn active(&self) -> bool {
        self.budget > 0 && self.rate > 0.0
    }

    /// The behaviour in scenario syntax.
    pub(crate) fn describe(&self) -> String {
        let what = match &self.behaviour {
            Behaviour::Constant(c) => format!("Constant(channel: {c})"),
            Behaviour::Sweep { start, step } => format!("Sweep(start: {start}, step: {step})"),
            Behaviour::Random => "Random".into(),
            Behaviour::Hold(c) => format!("Coordinated(channels: {c:?})"),
            Behaviour::Moving(j) => format!("Coordinated(count: {j}, moving: true)"),
            Behaviour::Reactive => "Reactive".into(),
        };
        format!("{what}, budget {} slots, rate {}", self.budget, self.rate)
    }
}

/// What a check found wrong: the field under the jammer's entry, and the rule.
pub(crate) type JamProblem = (Vec<&'static str>, String);

/// A whole number in `lo..=hi`, or the rule it breaks.
fn whole(x: f64, lo: u64, hi: u64, what: &str) -> Result<u64, String> {
    if x.is_finite() && x.fract() == 0.0 && x >= lo as f64 && x <= hi as f64 {
        Ok(x as u64)
    } else {
        Err(format!(
            "must be a whole number in {lo}..={hi} ({what}; got {x})"
        ))
    }
}

impl JammerSpec {
    /// Checks the jammer against `k` channels and the horizon; `value` is each channel's
    /// expected net reward (for `Coordinated(count: J)`'s choice of the J best).
    pub(crate) fn check(&self, value: &[f64], horizon: u64) -> Result<Jammer, Vec<JamProblem>> {
        let k = value.len() as u64;
        let mut problems: Vec<JamProblem> = Vec::new();
        let channel = |x: f64, at: Vec<&'static str>, p: &mut Vec<JamProblem>| {
            whole(x, 0, k.saturating_sub(1), "a channel index, 0-based")
                .map_err(|e| p.push((at, e)))
                .ok()
                .map(|c| c as usize)
        };
        let behaviour = match &self.behaviour {
            BehaviourSpec::Constant { channel: c } => {
                channel(*c, vec!["behaviour", "channel"], &mut problems).map(Behaviour::Constant)
            }
            BehaviourSpec::Sweep { start, step } => {
                let start = channel(*start, vec!["behaviour", "start"], &mut problems);
                let step = whole(*step, 1, k.max(1), "channels moved per slot")
                    .map_err(|e| problems.push((vec!["behaviour", "step"], e)))
                    .ok();
                start.zip(step).map(|(start, step)| Behaviour::Sweep {
                    start,
                    step: step as usize,
                })
            }
            BehaviourSpec::Random => Some(Behaviour::Random),
            BehaviourSpec::Reactive => Some(Behaviour::Reactive),
            BehaviourSpec::Coordinated {
                count,
                channels,
                moving,
            } => self.coordinated(*count, channels.as_deref(), *moving, value, &mut problems),
        };
        let budget = match self.budget {
            None => Some(horizon),
            Some(b) => whole(b, 0, horizon, "jammed slots in total, at most the horizon")
                .map_err(|e| problems.push((vec!["budget"], e)))
                .ok(),
        };
        let rate = self.rate.unwrap_or(1.0);
        if !(rate.is_finite() && (0.0..=1.0).contains(&rate)) {
            problems.push((
                vec!["rate"],
                format!("is the probability of jamming a slot and must lie in [0, 1] (got {rate})"),
            ));
        }
        match (behaviour, budget) {
            (Some(behaviour), Some(budget)) if problems.is_empty() => Ok(Jammer {
                behaviour,
                budget,
                rate,
            }),
            _ => Err(problems),
        }
    }

    fn coordinated(
        &self,
        count: Option<f64>,
        channels: Option<&[f64]>,
        moving: bool,
        value: &[f64],
        problems: &mut Vec<JamProblem>,
    ) -> Option<Behaviour> {
        let k = value.len();
        let rule = format!(
            "J coordinated jammers hold J distinct channels and must leave one free: 1 ≤ J < K = {k}"
        );
        match (count, channels) {
            (Some(_), Some(_)) | (None, None) => {
                problems.push((
                    vec!["behaviour"],
                    "Coordinated takes `count: J` (the J best channels, or J drawn each slot with `moving: true`) or `channels: [...]`, exactly one of them".into(),
                ));
                None
            }
            (Some(j), None) => {
                let j = whole(j, 1, k.saturating_sub(1) as u64, &rule)
                    .map_err(|e| problems.push((vec!["behaviour", "count"], e)))
                    .ok()? as usize;
                if moving {
                    return Some(Behaviour::Moving(j));
                }
                let mut order: Vec<usize> = (0..k).collect();
                order.sort_by(|&a, &b| value[b].total_cmp(&value[a]).then(a.cmp(&b)));
                order.truncate(j);
                order.sort_unstable();
                Some(Behaviour::Hold(order))
            }
            (None, Some(list)) => {
                if moving {
                    problems.push((
                        vec!["behaviour", "moving"],
                        "draws the channels each slot, so it takes `count: J`, not `channels`"
                            .into(),
                    ));
                    return None;
                }
                let before = problems.len();
                if list.is_empty() || list.len() >= k {
                    problems.push((
                        vec!["behaviour", "channels"],
                        format!("{rule} (got {} channels)", list.len()),
                    ));
                }
                let mut held = Vec::new();
                for &x in list {
                    match whole(x, 0, k.saturating_sub(1) as u64, "a channel index, 0-based") {
                        Ok(c) if held.contains(&(c as usize)) => problems.push((
                            vec!["behaviour", "channels"],
                            format!("lists channel {c} twice; coordinated jammers hold distinct channels"),
                        )),
                        Ok(c) => held.push(c as usize),
                        Err(e) => problems.push((vec!["behaviour", "channels"], e)),
                    }
                }
                held.sort_unstable();
                (problems.len() == before).then_some(Behaviour::Hold(held))
            }
        }
    }
}

/// The checked jammers of a scenario (empty: none).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Jammers {
    pub list: Vec<Jammer>,
}

impl Jammers {
    /// Whether some jammer can jam (a budget and a rate above 0).
    pub(crate) fn active(&self) -> bool {
        self.list.iter().any(Jammer::active)
    }

    /// The channels every slot leaves to the users, where the jammers hold a fixed set for the
    /// whole horizon (constant and coordinated jammers on fixed channels, full budget, rate 1):
    /// the channels of the reduced benchmark stated in the report.
    pub(crate) fn fixed_set(&self, k: usize, horizon: u64) -> Option<Vec<usize>> {
        let mut held = vec![false; k];
        for j in self.list.iter().filter(|j| j.active()) {
            if j.budget < horizon || j.rate < 1.0 {
                return None;
            }
            match &j.behaviour {
                Behaviour::Constant(c) => held[*c] = true,
                Behaviour::Hold(cs) => cs.iter().for_each(|&c| held[c] = true),
                _ => return None,
            }
        }
        Some((0..k).filter(|&c| held[c]).collect())
    }
}

/// The jammers' state in one run: budget left and each jammer's own stream.
#[derive(Clone, Debug, Default)]
pub(crate) struct JamRun {
    left: Vec<u64>,
    rngs: Vec<SimRng>,
    /// Scratch: the channels users transmitted on last slot (reactive), or a draw's pool.
    pool: Vec<usize>,
}

/// The random-stream domain of jammer `j`.
fn domain(j: usize) -> u64 {
    label_hash(&["jammer", &j.to_string()])
}

impl JamRun {
    /// Restarts for run `run`: full budgets, fresh streams.
    pub(crate) fn start(&mut self, jammers: &Jammers, seed: u64, run: u64) {
        self.left.clear();
        self.left.extend(jammers.list.iter().map(|j| j.budget));
        self.rngs.clear();
        self.rngs
            .extend((0..jammers.list.len()).map(|j| stream(seed, domain(j), run)));
    }

    /// The channels jammed in slot `t`: `mask` (K entries, cleared here) and `held` (the
    /// jammed channels, increasing, without repeats). `previous` is each user's channel of
    /// transmission in the previous slot (for reactive jammers). Returns the channel-slots
    /// jammed, counted per jammer.
    pub(crate) fn jam(
        &mut self,
        jammers: &Jammers,
        t: u64,
        previous: &[Option<usize>],
        mask: &mut [bool],
        held: &mut Vec<usize>,
    ) -> u64 {
        mask.iter_mut().for_each(|m| *m = false);
        held.clear();
        let k = mask.len();
        let mut count = 0;
        for (j, jammer) in jammers.list.iter().enumerate() {
            if self.left[j] == 0 {
                continue;
            }
            let rng = &mut self.rngs[j];
            if jammer.rate < 1.0 && rng.random::<f64>() >= jammer.rate {
                continue;
            }
            let pool = &mut self.pool;
            pool.clear();
            match &jammer.behaviour {
                Behaviour::Constant(c) => pool.push(*c),
                Behaviour::Sweep { start, step } => {
                    let at = (*start as u128 + *step as u128 * u128::from(t - 1)) % k as u128;
                    pool.push(at as usize);
                }
                Behaviour::Random => pool.push(rng.random_range(0..k)),
                Behaviour::Hold(cs) => pool.extend_from_slice(cs),
                Behaviour::Moving(n) => {
                    // A partial Fisher–Yates shuffle: n distinct channels, uniformly.
                    pool.extend(0..k);
                    for i in 0..*n {
                        let pick = rng.random_range(i..k);
                        pool.swap(i, pick);
                    }
                    pool.truncate(*n);
                }
                Behaviour::Reactive => {
                    pool.extend(previous.iter().flatten().copied());
                    pool.sort_unstable();
                    pool.dedup();
                    if pool.is_empty() {
                        continue;
                    }
                    let pick = pool[rng.random_range(0..pool.len())];
                    pool.clear();
                    pool.push(pick);
                }
            }
            self.left[j] -= 1;
            count += pool.len() as u64;
            for &c in pool.iter() {
                mask[c] = true;
            }
        }
        held.extend((0..k).filter(|&c| mask[c]));
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> JammerSpec {
        crate::util::ron_text::ron_options()
            .from_str(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn run_of(jammers: &Jammers, k: usize, slots: u64, tx: &[Option<usize>]) -> Vec<Vec<usize>> {
        let mut run = JamRun::default();
        run.start(jammers, 7, 3);
        let mut mask = vec![false; k];
        let mut held = Vec::new();
        (1..=slots)
            .map(|t| {
                run.jam(jammers, t, tx, &mut mask, &mut held);
                held.clone()
            })
            .collect()
    }

    #[test]
    fn behaviours_jam_where_they_say_within_their_budgets() {
        let value = [0.1, 0.9, 0.5, 0.7];
        let check = |s: &str| Jammers {
            list: vec![spec(s).check(&value, 10_000).expect("valid")],
        };
        let sweep = run_of(
            &check("(behaviour: Sweep(start: 1, step: 3), budget: 5)"),
            4,
            7,
            &[],
        );
        assert_eq!(
            sweep,
            [vec![1], vec![0], vec![3], vec![2], vec![1], vec![], vec![]]
        );
        let best = check("(behaviour: Coordinated(count: 2))");
        assert_eq!(best.list[0].behaviour, Behaviour::Hold(vec![1, 3]));
        assert_eq!(best.fixed_set(4, 10_000), Some(vec![1, 3]));
        assert_eq!(
            best.fixed_set(4, 10_001),
            None,
            "the budget ends before the horizon"
        );
        let moving = run_of(
            &check("(behaviour: Coordinated(count: 3, moving: true))"),
            4,
            200,
            &[],
        );
        assert!(moving.iter().all(|h| h.len() == 3));
        assert!((0..4).all(|c| moving.iter().any(|h| !h.contains(&c))));
        let reactive = run_of(
            &check("(behaviour: Reactive)"),
            4,
            50,
            &[Some(2), None, Some(0)],
        );
        assert!(reactive.iter().all(|h| h == &[0] || h == &[2]));
        assert!(reactive.iter().any(|h| h == &[0]) && reactive.iter().any(|h| h == &[2]));
        assert!(
            run_of(&check("(behaviour: Reactive)"), 4, 3, &[None])
                .iter()
                .all(Vec::is_empty)
        );
        let rare = run_of(&check("(behaviour: Random, rate: 0.25)"), 4, 4000, &[]);
        let jammed = rare.iter().filter(|h| !h.is_empty()).count();
        assert!(
            (850..1150).contains(&jammed),
            "{jammed} of 4000 at rate 1/4"
        );
        let none = run_of(
            &check("(behaviour: Constant(channel: 0), budget: 0)"),
            4,
            5,
            &[],
        );
        assert!(none.iter().all(Vec::is_empty));
        assert!(!check("(behaviour: Constant(channel: 0), budget: 0)").active());
    }

    #[test]
    fn bad_jammers_are_refused_with_the_field_and_the_rule() {
        let value = [0.1, 0.9, 0.5];
        let problems = |s: &str| spec(s).check(&value, 100).expect_err("invalid");
        let (at, rule) = &problems("(behaviour: Random, budget: -1)")[0];
        assert_eq!(at, &["budget"]);
        assert!(rule.contains("0..=100"), "{rule}");
        assert_eq!(
            problems("(behaviour: Random, budget: 101)")[0].0,
            ["budget"]
        );
        let (at, rule) = &problems("(behaviour: Coordinated(count: 3))")[0];
        assert_eq!(at, &["behaviour", "count"]);
        assert!(rule.contains("J < K = 3"), "{rule}");
        assert_eq!(
            problems("(behaviour: Coordinated(channels: [0, 1, 2]))")[0].0,
            ["behaviour", "channels"]
        );
        assert!(
            problems("(behaviour: Coordinated(channels: [1, 1]))")[0]
                .1
                .contains("twice")
        );
        assert_eq!(
            problems("(behaviour: Constant(channel: 3))")[0].0,
            ["behaviour", "channel"]
        );
        assert_eq!(problems("(behaviour: Random, rate: 1.5)")[0].0, ["rate"]);
        assert_eq!(problems("(behaviour: Coordinated())")[0].0, ["behaviour"]);
    }
}
