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
//! channel, so slot `t ≤ K` probes channel `t − 1` alone ([`initial_probe`]). These K slots
//! count towards the horizon and the regret.

mod cascade_kl_ucb;
mod cascade_ucb1;
mod cc_ucb;
mod estimates;
mod oracle;
mod random_list;
mod thompson;
mod ucb1;

pub use cascade_kl_ucb::CascadeKlUcb;
pub use cascade_ucb1::CascadeUcb1;
pub use cc_ucb::CcUcb;
pub use estimates::Estimates;
pub use oracle::Oracle;
pub use random_list::RandomList;
pub use thompson::ThompsonSampling;
pub use ucb1::Ucb1;

use crate::channel::Environment;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// A cascade policy.
pub trait Policy {
    /// Writes slot `t`'s probe order into `list` (empty on entry; `t` counts from 1).
    fn plan<R: Rng + ?Sized>(&mut self, t: u64, list: &mut Vec<usize>, rng: &mut R);

    /// Learns from one probe of `channel` in the current slot: its state and its bandit cost.
    fn observe(&mut self, channel: usize, idle: bool, cost: f64);
}

/// The paper's initialisation: slot `t ≤ K` probes channel `t − 1` alone.
#[inline]
pub fn initial_probe(t: u64, k: usize) -> Option<usize> {
    if t <= k as u64 {
        Some((t - 1) as usize)
    } else {
        None
    }
}

/// Sorts `list` by decreasing `key`, breaking ties by increasing channel index, so that the
/// order is a pure function of the keys (any sort algorithm gives the same list).
#[inline]
pub fn sort_by_key_desc(list: &mut [usize], key: &[f64]) {
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
pub fn resort_by_key_desc(order: &mut [usize], key: &[f64]) {
    let before = |a: usize, b: usize| match key[a].total_cmp(&key[b]) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Equal => a < b,
    };
    let mut budget = 4 * order.len() + 64;
    for i in 1..order.len() {
        let item = order[i];
        let mut j = i;
        while j > 0 && before(item, order[j - 1]) {
            order[j] = order[j - 1];
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
pub fn top_by_key(list: &mut Vec<usize>, key: &[f64], len: usize) {
    list.clear();
    list.extend(0..key.len());
    let cmp = |a: &usize, b: &usize| key[*b].total_cmp(&key[*a]).then(a.cmp(b));
    if len < list.len() {
        list.select_nth_unstable_by(len, cmp);
        list.truncate(len);
    }
    list.sort_unstable_by(cmp);
}

fn default_alpha() -> f64 {
    1.5
}
fn default_epsilon() -> f64 {
    1e-5
}

/// A policy as a scenario names it, with its parameters.
///
/// ```ron
/// Oracle
/// CcUcb(alpha: 1.5, epsilon: 1e-5)
/// CcUcbKnownCost(alpha: 1.5)
/// CascadeUcb1(list_len: 3)
/// CascadeKlUcb(list_len: 3)
/// ThompsonSampling(known_cost: false)
/// Ucb1
/// RandomList(list_len: 2)
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum PolicySpec {
    /// UCR-T1 with the true θ and c (Theorem 1): zero pseudo-regret by construction.
    Oracle,
    /// CC-UCB (Algorithm 1) with unknown costs.
    CcUcb {
        /// Exploration parameter α of `u = sqrt(α·ln t / N)` (the paper uses 1.5).
        #[serde(default = "default_alpha")]
        alpha: f64,
        /// Floor ε of the cost's lower confidence bound.
        #[serde(default = "default_epsilon")]
        epsilon: f64,
    },
    /// CC-UCB with known mean costs: `L_i = c_i`.
    CcUcbKnownCost {
        /// Exploration parameter α.
        #[serde(default = "default_alpha")]
        alpha: f64,
    },
    /// CascadeUCB1 (Kveton et al., ICML 2015): the `list_len` channels of highest UCB1 index of
    /// θ, cost-oblivious.
    CascadeUcb1 {
        /// List length L.
        list_len: usize,
    },
    /// CascadeKL-UCB (Kveton et al., ICML 2015): as CascadeUCB1 with KL-UCB indices.
    CascadeKlUcb {
        /// List length L.
        list_len: usize,
    },
    /// Cost-aware Thompson sampling (not in the paper): Beta posteriors on θ and c, rank sampled
    /// θ/c and keep the channels whose sampled ratio exceeds 1.
    ThompsonSampling {
        /// Use the true mean costs instead of sampling them.
        #[serde(default)]
        known_cost: bool,
    },
    /// Classic UCB1 on one channel per slot, on the net reward `X − Y`.
    Ucb1,
    /// A uniformly random ordered list of `list_len` distinct channels (all K if omitted).
    RandomList {
        /// List length (default K).
        #[serde(default)]
        list_len: Option<usize>,
    },
}

/// One entry of the policy catalogue printed by `specprobe policies`.
#[derive(Clone, Debug)]
pub struct CatalogueEntry {
    /// The spec with every parameter at its default (list lengths at an example value).
    pub example: PolicySpec,
    /// What the policy does, one line.
    pub summary: &'static str,
}

impl PolicySpec {
    /// The label used when a scenario gives none.
    pub fn default_label(&self) -> &'static str {
        match self {
            PolicySpec::Oracle => "oracle",
            PolicySpec::CcUcb { .. } => "cc-ucb",
            PolicySpec::CcUcbKnownCost { .. } => "cc-ucb-known-cost",
            PolicySpec::CascadeUcb1 { .. } => "cascade-ucb1",
            PolicySpec::CascadeKlUcb { .. } => "cascade-kl-ucb",
            PolicySpec::ThompsonSampling { known_cost: false } => "cost-aware-ts",
            PolicySpec::ThompsonSampling { known_cost: true } => "cost-aware-ts-known-cost",
            PolicySpec::Ucb1 => "ucb1",
            PolicySpec::RandomList { .. } => "random",
        }
    }

    /// Every policy with its defaults, for `specprobe policies` and the README.
    pub fn catalogue() -> Vec<CatalogueEntry> {
        vec![
            CatalogueEntry {
                example: PolicySpec::Oracle,
                summary: "UCR-T1 (Theorem 1) with the true θ and c; zero pseudo-regret",
            },
            CatalogueEntry {
                example: PolicySpec::CcUcb {
                    alpha: default_alpha(),
                    epsilon: default_epsilon(),
                },
                summary: "CC-UCB (Algorithm 1), unknown costs: rank U/L, keep U/L > 1",
            },
            CatalogueEntry {
                example: PolicySpec::CcUcbKnownCost {
                    alpha: default_alpha(),
                },
                summary: "CC-UCB with known mean costs (L_i = c_i)",
            },
            CatalogueEntry {
                example: PolicySpec::CascadeUcb1 { list_len: 3 },
                summary: "CascadeUCB1 (Kveton et al. 2015): top-L channels by UCB1 index of θ, cost-oblivious",
            },
            CatalogueEntry {
                example: PolicySpec::CascadeKlUcb { list_len: 3 },
                summary: "CascadeKL-UCB (Kveton et al. 2015): top-L channels by KL-UCB index of θ, cost-oblivious",
            },
            CatalogueEntry {
                example: PolicySpec::ThompsonSampling { known_cost: false },
                summary: "cost-aware Thompson sampling (not in the paper): Beta posteriors, rank sampled θ/c > 1",
            },
            CatalogueEntry {
                example: PolicySpec::Ucb1,
                summary: "UCB1 on one channel per slot (net reward X − Y): sanity baseline",
            },
            CatalogueEntry {
                example: PolicySpec::RandomList { list_len: None },
                summary: "uniformly random ordered list of list_len channels (default all K): sanity baseline",
            },
        ]
    }

    /// Checks the parameters against an instance of `k` channels; on failure returns the
    /// parameter's name and the rule it breaks.
    pub fn check(&self, k: usize) -> Result<(), (&'static str, String)> {
        let positive = |name, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err((name, format!("must be a positive finite number (got {v})")))
            }
        };
        let length = |v: usize| {
            if (1..=k).contains(&v) {
                Ok(())
            } else {
                Err((
                    "list_len",
                    format!("must lie in 1..={k}, the number of channels (got {v})"),
                ))
            }
        };
        match *self {
            PolicySpec::CcUcb { alpha, epsilon } => {
                positive("alpha", alpha)?;
                positive("epsilon", epsilon)
            }
            PolicySpec::CcUcbKnownCost { alpha } => positive("alpha", alpha),
            PolicySpec::CascadeUcb1 { list_len } | PolicySpec::CascadeKlUcb { list_len } => {
                length(list_len)
            }
            PolicySpec::RandomList {
                list_len: Some(len),
            } => length(len),
            PolicySpec::Oracle
            | PolicySpec::ThompsonSampling { .. }
            | PolicySpec::Ucb1
            | PolicySpec::RandomList { list_len: None } => Ok(()),
        }
    }

    /// The spec in scenario syntax, e.g. `CcUcb(alpha: 1.5, epsilon: 0.00001)`.
    pub fn to_ron(&self) -> String {
        crate::ron_text::to_ron_line(self)
    }

    /// Builds the policy for an environment (parameters already checked).
    pub fn build(&self, env: &Environment) -> AnyPolicy {
        let k = env.len();
        match *self {
            PolicySpec::Oracle => AnyPolicy::Oracle(Oracle::new(env)),
            PolicySpec::CcUcb { alpha, epsilon } => {
                AnyPolicy::CcUcb(CcUcb::unknown_cost(k, alpha, epsilon))
            }
            PolicySpec::CcUcbKnownCost { alpha } => {
                AnyPolicy::CcUcb(CcUcb::known_cost(env.mean_cost().to_vec(), alpha))
            }
            PolicySpec::CascadeUcb1 { list_len } => {
                AnyPolicy::CascadeUcb1(CascadeUcb1::new(k, list_len))
            }
            PolicySpec::CascadeKlUcb { list_len } => {
                AnyPolicy::CascadeKlUcb(CascadeKlUcb::new(k, list_len))
            }
            PolicySpec::ThompsonSampling { known_cost } => AnyPolicy::Thompson(
                ThompsonSampling::new(k, known_cost.then(|| env.mean_cost().to_vec())),
            ),
            PolicySpec::Ucb1 => AnyPolicy::Ucb1(Ucb1::new(k)),
            PolicySpec::RandomList { list_len } => {
                AnyPolicy::Random(RandomList::new(k, list_len.unwrap_or(k)))
            }
        }
    }
}

/// A built policy of any kind; [`AnyPolicy::visit`] hands the concrete type to generic code.
#[derive(Clone, Debug)]
pub enum AnyPolicy {
    /// UCR-T1.
    Oracle(Oracle),
    /// CC-UCB, either cost knowledge.
    CcUcb(CcUcb),
    /// CascadeUCB1.
    CascadeUcb1(CascadeUcb1),
    /// CascadeKL-UCB.
    CascadeKlUcb(CascadeKlUcb),
    /// Cost-aware Thompson sampling.
    Thompson(ThompsonSampling),
    /// Single-channel UCB1.
    Ucb1(Ucb1),
    /// Uniformly random list.
    Random(RandomList),
}

/// Generic code that runs with a concrete policy type (monomorphised per policy).
pub trait PolicyVisitor {
    /// What the visit returns.
    type Output;
    /// Runs with the concrete policy.
    fn visit<P: Policy>(self, policy: P) -> Self::Output;
}

impl AnyPolicy {
    /// Dispatches once to the concrete policy type.
    pub fn visit<V: PolicyVisitor>(self, visitor: V) -> V::Output {
        match self {
            AnyPolicy::Oracle(p) => visitor.visit(p),
            AnyPolicy::CcUcb(p) => visitor.visit(p),
            AnyPolicy::CascadeUcb1(p) => visitor.visit(p),
            AnyPolicy::CascadeKlUcb(p) => visitor.visit(p),
            AnyPolicy::Thompson(p) => visitor.visit(p),
            AnyPolicy::Ucb1(p) => visitor.visit(p),
            AnyPolicy::Random(p) => visitor.visit(p),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_round_trips_through_ron_and_labels_are_distinct() {
        let mut labels = std::collections::BTreeSet::new();
        for entry in PolicySpec::catalogue() {
            let text = entry.example.to_ron();
            let back: PolicySpec = ron::from_str(&text).unwrap();
            assert_eq!(back, entry.example, "{text}");
            assert!(labels.insert(entry.example.default_label()));
        }
    }

    #[test]
    fn check_names_the_parameter() {
        let (name, rule) = PolicySpec::CascadeUcb1 { list_len: 7 }
            .check(6)
            .unwrap_err();
        assert_eq!(name, "list_len");
        assert!(rule.contains("1..=6"), "{rule}");
        let (name, _) = PolicySpec::CcUcb {
            alpha: 1.5,
            epsilon: 0.0,
        }
        .check(6)
        .unwrap_err();
        assert_eq!(name, "epsilon");
    }

    proptest::proptest! {
        /// The adaptive re-sort gives exactly the full sort, from any starting order, ties
        /// included.
        #[test]
        fn resort_equals_full_sort(
            keys in proptest::collection::vec(0u8..6, 1..300),
            seed in 0u64..1000,
        ) {
            use rand::seq::SliceRandom;
            let key: Vec<f64> = keys.iter().map(|&k| f64::from(k) * 0.5).collect();
            let mut order: Vec<usize> = (0..key.len()).collect();
            // Nearly sorted start, and a shuffled one.
            sort_by_key_desc(&mut order, &key);
            if seed % 2 == 0 {
                order.shuffle(&mut crate::rng::stream(seed, 0, 0));
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
