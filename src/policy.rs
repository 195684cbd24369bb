//! Cascade policies: the [`Policy`] trait, the [`PolicySpec`] a scenario names, and the
//! resolver from spec to a concrete policy.
//!
//! Each slot a policy writes an ordered probe list; the engine (not the policy) probes it in
//! order, stops at the first idle channel and reports each probed channel back through
//! [`Policy::observe`]. The slot loop is generic over the policy: [`AnyPolicy::visit`] dispatches
//! once per run, never per probe.
//!
//! Every learning policy except Thompson sampling starts with the paper's initialisation:
//! "pull all arms once". Under the cascade model a probe list of one channel always reveals that
//! channel, so slot `t ≤ K` probes channel `t − 1` alone (`initial_probe`). These K slots
//! count towards the horizon and the regret.

mod checked;
mod custom;
mod estimates;
mod index_rule;
mod lazy_rank;
mod one_channel;
#[macro_use]
mod registry_macro;
mod registry;
mod slot_ahead;

pub(crate) use cc_ucb::DEFAULT_ALPHA;
pub(crate) use cc_ucb::MAX_ALPHA;
pub use checked::ListFault;
pub(crate) use checked::{Checked, ListFaults, beyond_one_channel, first_offence};
pub use custom::CustomPolicy;
pub use custom::PolicyFactory;
pub(crate) use estimates::Estimates;
pub(crate) use index_rule::{Clock, Convention, IndexKind, Rules, Ties, log_clock};
pub(crate) use one_channel::Reward;
pub(crate) use registry::CatalogueEntry;
pub(crate) use registry::PolicyVisitor;
pub use registry::builtin_policy;
pub(crate) use slot_ahead::SlotAhead;
#[cfg(test)]
pub(crate) use {oracle::Oracle, random_list::RandomList};

use crate::model::channel::Environment;
use crate::util::rng::SimRng;
use registry::{ron_of, variant_params};
use serde::Serialize;
use serde::de::DeserializeOwned;

// The registry of built-in policies: one line per file, naming each policy as scenarios write
// it and the type of its scenario entry (a [`Builtin`]). From it come the `PolicySpec` a
// scenario names (with its RON and JSON parser), the catalogue `specprobe policies` prints, the
// labels, the checks, and `AnyPolicy`, whose `visit` hands the concrete type to the slot loop
// once per run. A new built-in policy is its file plus its line here.
builtin_policies! {
    oracle::{Oracle(OracleSpec)},
    cc_ucb::{CcUcb(CcUcbSpec), CcUcbKnownCost(CcUcbKnownCostSpec)},
    cascade_ucb1::{CascadeUcb1(CascadeUcb1Spec)},
    cascade_kl_ucb::{CascadeKlUcb(CascadeKlUcbSpec)},
    thompson::{ThompsonSampling(ThompsonSpec)},
    ucb1::{Ucb1(Ucb1Spec)},
    kl_ucb::{KlUcb(KlUcbSpec)},
    random_list::{RandomList(RandomListSpec)},
    sw_cc_ucb::{SwCcUcb(SwCcUcbSpec)},
    d_cc_ucb::{DCcUcb(DCcUcbSpec)},
    time_left_ucb::{TimeLeftUcb(TimeLeftUcbSpec)},
    known_order::{AvailabilityOrder(AvailabilityOrderSpec), RateOrder(RateOrderSpec)},
}

/// A cascade policy.
///
/// Each slot the engine asks for an ordered probe list, probes it in order, stops at the first
/// channel sensed idle, and reports every probed channel back. The engine, not the policy,
/// applies the stopping rule and scores the slot.
///
/// The trait is object safe: a policy written outside specprobe runs as a `Box<dyn Policy>`
/// (one dynamic call per `plan` and per `observe`), the built-in ones monomorphised.
///
/// # Example
/// An ε-greedy cascade policy: with probability ε a random channel alone, otherwise every channel
/// whose empirical idle rate beats its empirical cost, best ratio first.
/// ```
/// use specprobe::rand::RngExt;
/// use specprobe::{Policy, SimRng};
///
/// struct EpsGreedy { eps: f64, n: Vec<f64>, idle: Vec<f64>, cost: Vec<f64> }
///
/// impl Policy for EpsGreedy {
///     fn plan(&mut self, _t: u64, list: &mut Vec<usize>, rng: &mut SimRng) {
///         let k = self.n.len();
///         if let Some(i) = (0..k).find(|&i| self.n[i] == 0.0) {
///             return list.push(i); // see every channel once
///         }
///         if rng.random::<f64>() < self.eps {
///             return list.push(rng.random_range(0..k));
///         }
///         let ratio = |i: usize| self.idle[i] / self.cost[i].max(1e-9);
///         list.extend((0..k).filter(|&i| ratio(i) > 1.0));
///         list.sort_by(|&a, &b| ratio(b).total_cmp(&ratio(a)));
///     }
///     fn observe(&mut self, channel: usize, idle: bool, cost: f64) {
///         self.n[channel] += 1.0;
///         let n = self.n[channel];
///         self.idle[channel] += (f64::from(u8::from(idle)) - self.idle[channel]) / n;
///         self.cost[channel] += (cost - self.cost[channel]) / n;
///     }
/// }
///
/// let mut p = EpsGreedy { eps: 0.1, n: vec![0.0; 2], idle: vec![0.0; 2], cost: vec![0.0; 2] };
/// let mut list = Vec::new();
/// p.plan(1, &mut list, &mut specprobe::stream(1, 0, 0));
/// assert_eq!(list, vec![0]);
/// ```
pub trait Policy {
    /// Writes slot `t`'s probe order into `list` (empty on entry; `t` counts from 1). `rng` is
    /// this run's policy stream: draw from it, never from a generator of your own, so that runs
    /// stay reproducible.
    ///
    /// The channels of one slot's list (with what [`Policy::extend`] appends) are distinct
    /// indices below K. A policy from outside specprobe that breaks this stops the run with a
    /// [`ListFault`] naming the policy, the slot and the list (from Rust and from Python alike);
    /// built-in policies keep the rule by construction.
    fn plan(&mut self, t: u64, list: &mut Vec<usize>, rng: &mut SimRng);

    /// Learns from one probe of `channel` in the current slot: its sensed state and its bandit
    /// cost.
    fn observe(&mut self, channel: usize, idle: bool, cost: f64);

    /// Appends the next entries of this slot's list, when `plan` wrote only a prefix of it
    /// (a policy with long lists whose ranking is expensive produces it lazily: the engine asks
    /// for more only when it has probed every entry so far, or needs more of the list for its
    /// exact expected reward). Returns `false` when the list is complete, which is the default:
    /// `plan` writes the whole list. The entries appended are those of the list as planned,
    /// whatever `observe` learned since.
    fn extend(&mut self, list: &mut Vec<usize>) -> bool {
        let _ = list;
        false
    }
}

/// A boxed policy is a policy: one dynamic call per `plan` and per `observe`.
impl<P: Policy + ?Sized> Policy for Box<P> {
    #[inline]
    fn plan(&mut self, t: u64, list: &mut Vec<usize>, rng: &mut SimRng) {
        (**self).plan(t, list, rng);
    }

    #[inline]
    fn observe(&mut self, channel: usize, idle: bool, cost: f64) {
        (**self).observe(channel, idle, cost);
    }

    #[inline]
    fn extend(&mut self, list: &mut Vec<usize>) -> bool {
        (**self).extend(list)
    }
}

/// A policy parameter that breaks its rule (like [`crate::model::law::LawError`] for laws).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{rule}")]
pub(crate) struct ParamError {
    /// The parameter's name in scenario syntax, e.g. `list_len`.
    pub param: &'static str,
    /// The rule it breaks, with the value, e.g. `must lie in 1..=6, the number of channels (got 7)`.
    pub rule: String,
}

impl ParamError {
    /// `param` must be a finite number in `(0, max]`.
    pub(crate) fn within(param: &'static str, value: f64, max: f64) -> Result<(), ParamError> {
        if value.is_finite() && value > 0.0 && value <= max {
            Ok(())
        } else {
            Err(ParamError {
                param,
                rule: format!("must be a positive finite number at most {max} (got {value:?})"),
            })
        }
    }

    /// CC-UCB's exploration parameter α: in `(0, MAX_ALPHA]`.
    pub(crate) fn alpha(value: f64) -> Result<(), ParamError> {
        ParamError::within("alpha", value, MAX_ALPHA)
    }

    /// CC-UCB's cost floor ε: in `(0, 1]` (costs lie in [0, 1]).
    pub(crate) fn epsilon(value: f64) -> Result<(), ParamError> {
        ParamError::within("epsilon", value, 1.0)
    }

    /// `param` (a list length) must lie in `1..=k`.
    pub(crate) fn list_len(param: &'static str, value: usize, k: usize) -> Result<(), ParamError> {
        if (1..=k).contains(&value) {
            Ok(())
        } else {
            Err(ParamError {
                param,
                rule: format!("must lie in 1..={k}, the number of channels (got {value})"),
            })
        }
    }
}

/// The scenario entry of a built-in policy: its parameters, checked and turned into the policy.
///
/// A new built-in policy is one file that defines the policy and a type implementing this trait,
/// plus one line in the registry (`src/policy/registry.rs`); the scenario parser, `specprobe
/// policies`, labels, checks and the engine's static dispatch all come from there.
pub(crate) trait Builtin:
    Clone + std::fmt::Debug + PartialEq + Serialize + DeserializeOwned
{
    /// The name in scenario files, e.g. `CcUcb`.
    const NAME: &'static str;
    /// What the policy does, one line for `specprobe policies`.
    const SUMMARY: &'static str;
    /// A remark on a parameter's default for the note under `specprobe policies` (empty for
    /// none).
    const NOTE: &'static str = "";
    /// The policy it builds.
    type Policy: Policy;

    /// The spec written bare (`CcUcb` or `CcUcb()`): every parameter at its default, or the
    /// name of the parameter that has none.
    fn bare() -> Result<Self, &'static str>;

    /// The spec shown by `specprobe policies` (the bare one where it exists).
    fn example() -> Self;

    /// The label used when a scenario gives none.
    fn label(&self) -> &'static str;

    /// Checks the parameters against an instance of `k` channels; every broken rule.
    fn check(&self, k: usize) -> Vec<ParamError>;

    /// Whether the policy learns the idle probability alone, blind to the probing costs
    /// (`reward: Idle`), so that its ranking of the channels may differ from the net reward's
    /// (default: no).
    fn learns_idle_only(&self) -> bool {
        false
    }

    /// Whether every list holds exactly one channel (a classic bandit policy): many users
    /// running it form the classic multi-player bandit.
    fn single_channel(&self) -> bool {
        false
    }

    /// The policy as one of several users runs it (Selfish): an index policy whose scenario
    /// leaves its ties to specprobe's default breaks them at random from the user's own
    /// stream, as the many-users index policies do, since users who all break them to the
    /// lower channel can lock on one channel for a whole run (default: unchanged).
    fn among_users(&self) -> Self {
        self.clone()
    }

    /// Builds the policy for an environment (parameters already checked).
    fn build(&self, env: &Environment) -> Self::Policy;

    /// CPU nanoseconds one slot of this policy costs, `base + per_channel · K`, for the run-time
    /// estimate: measured by `scripts/calibrate-costs.py` (one run on one thread, set-up,
    /// benchmark pass and outputs included) and fitted at K = 6 and 1024.
    const NS_PER_SLOT: (f64, f64) = (150.0, 10.0);

    /// Bytes of state one run of the policy keeps beyond the per-channel statistics every
    /// policy has, for `k` channels and runs of `horizon` slots (a sliding window's
    /// observations), so that the resource estimate sees it before anything runs.
    fn extra_memory(&self, _k: u64, _horizon: u64) -> u64 {
        0
    }

    /// The exploration parameter α that Theorem 2's CC-UCB bound is evaluated with, when this
    /// is the paper's CC-UCB with unknown costs (the first such policy of a scenario sets it).
    fn theorem2_alpha(&self) -> Option<f64> {
        None
    }
}

/// The paper's initialisation: slot `t ≤ K` probes channel `t − 1` alone.
#[inline]
pub(crate) fn initial_probe(t: u64, k: usize) -> Option<usize> {
    if t <= k as u64 {
        Some((t - 1) as usize)
    } else {
        None
    }
}

/// Sorts `list` by decreasing `key`, breaking ties by increasing channel index, so that the
/// order is a pure function of the keys (any sort algorithm gives the same list).
#[inline]
pub(crate) fn sort_by_key_desc(list: &mut [usize], key: &[f64]) {
    list.sort_unstable_by(|&a, &b| key[b].total_cmp(&key[a]).then(a.cmp(&b)));
}

/// Re-sorts `order` (a permutation of channels) by decreasing `key`, ties by increasing index,
/// starting from its previous order.
///
/// Between two slots only the probed channels' estimates and the common exploration factor
/// change, so the previous order is nearly right: insertion sort finishes it in about one pass.
/// When too many elements move (early exploration, a big jump in a key) it stops after a budget
/// of `4·len + 64` shifts and lets `sort_unstable_by` finish in O(n log n) without allocating.
/// The result depends only on the keys (the order is total), never on the path taken.
#[inline]
pub(crate) fn resort_by_key_desc(order: &mut [usize], key: &[f64]) {
    // `total_cmp` as one integer comparison (its own transform of the bits).
    resort_by(order, key, |x: f64| {
        let b = x.to_bits() as i64;
        b ^ ((((b >> 63) as u64) >> 1) as i64)
    });
}

/// [`resort_by_key_desc`] for keys known to be `+0.0` or above (no NaN, no sign bit), whose
/// bits order as `total_cmp` orders them: `total_cmp`'s transform is then the identity, and
/// skipping it saved 38 instructions a slot of CC-UCB at K = 6 (callgrind) (the same order, bit for bit).
#[inline]
pub(crate) fn resort_by_nonnegative_key_desc(order: &mut [usize], key: &[f64]) {
    debug_assert!(key.iter().all(|k| k.to_bits() >> 63 == 0 && !k.is_nan()));
    resort_by(order, key, |x: f64| x.to_bits() as i64);
}

/// The insertion sort of [`resort_by_key_desc`], keys compared as `total(key)`: the item's key
/// taken once per insertion rather than once per comparison.
#[inline(always)]
fn resort_by(order: &mut [usize], key: &[f64], total: impl Fn(f64) -> i64) {
    let mut budget = 4 * order.len() + 64;
    for i in 1..order.len() {
        let item = order[i];
        let item_key = total(key[item]);
        let mut j = i;
        while j > 0 {
            let other = order[j - 1];
            let other_key = total(key[other]);
            if !(item_key > other_key || (item_key == other_key && item < other)) {
                break;
            }
            order[j] = other;
            j -= 1;
            budget = budget.saturating_sub(1);
        }
        order[j] = item;
        if budget == 0 {
            sort_by_key_desc(order, key);
            return;
        }
    }
}

/// Keeps the `len` channels of largest `key` (ties to the lower index) in `list`, ordered.
#[inline]
pub(crate) fn top_by_key(list: &mut Vec<usize>, key: &[f64], len: usize) {
    list.clear();
    list.extend(0..key.len());
    let cmp = |a: &usize, b: &usize| key[*b].total_cmp(&key[*a]).then(a.cmp(b));
    if len < list.len() {
        list.select_nth_unstable_by(len, cmp);
        list.truncate(len);
    }
    list.sort_unstable_by(cmp);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_round_trips_through_ron_and_labels_are_distinct() {
        let mut labels = std::collections::BTreeSet::new();
        for entry in PolicySpec::catalogue() {
            let text = entry.example.to_ron();
            let back: PolicySpec = crate::util::ron_text::ron_options()
                .from_str(&text)
                .unwrap();
            assert_eq!(back, entry.example, "{text}");
            assert!(labels.insert(entry.example.default_label()));
        }
    }

    #[test]
    fn check_names_the_parameter() {
        let errors = PolicySpec::CascadeUcb1(CascadeUcb1Spec { list_len: 7 }).check(6);
        assert_eq!(errors[0].param, "list_len");
        assert!(errors[0].rule.contains("1..=6"), "{}", errors[0].rule);
        let errors = PolicySpec::CcUcb(CcUcbSpec {
            alpha: 0.0,
            epsilon: 0.0,
        })
        .check(6);
        let params: Vec<&str> = errors.iter().map(|e| e.param).collect();
        assert_eq!(params, ["alpha", "epsilon"]);
    }

    proptest::proptest! {
        /// The adaptive re-sort gives exactly the full sort, from any starting order, ties
        /// included, in `total_cmp`'s order (negative keys, both zeros, infinities, NaN).
        #[test]
        fn resort_equals_full_sort(
            keys in proptest::collection::vec(0u8..10, 1..300),
            seed in 0u64..1000,
        ) {
            use rand::seq::SliceRandom;
            const VALUES: [f64; 10] =
                [f64::NEG_INFINITY, -1.5, -0.0, 0.0, 0.5, 1.0, 1.5, 2.0, f64::INFINITY, f64::NAN];
            let key: Vec<f64> = keys.iter().map(|&k| VALUES[usize::from(k)]).collect();
            let mut order: Vec<usize> = (0..key.len()).collect();
            // Nearly sorted start, and a shuffled one.
            sort_by_key_desc(&mut order, &key);
            if seed % 2 == 0 {
                order.shuffle(&mut crate::util::rng::stream(seed, 0, 0));
            } else if order.len() > 3 {
                let last = order.len() - 2;
                order.swap(1, last);
            }
            let mut want = order.clone();
            sort_by_key_desc(&mut want, &key);
            resort_by_key_desc(&mut order, &key);
            proptest::prop_assert_eq!(order, want);
        }
    }

    #[test]
    fn top_by_key_orders_and_breaks_ties_by_index() {
        let key = [0.5, 0.9, 0.5, 0.1, 0.9];
        let mut list = Vec::new();
        top_by_key(&mut list, &key, 3);
        assert_eq!(list, vec![1, 4, 0]);
        top_by_key(&mut list, &key, 5);
        assert_eq!(list, vec![1, 4, 0, 2, 3]);
    }
}
