//! `summary.json` of a many-users run: what it holds (every field read back by `plot` and
//! `compare`), built from the statistics, and the lower bounds of the classic model.

use crate::engine::multi_user::runner::{MultiStats, TeamStats, reduced_benchmark};
use crate::engine::multi_user::slot_loop::Expected;
use crate::engine::recorder::Metric;
use crate::model::sharing::Shared;
use crate::model::theory::kl_bernoulli;
use crate::scenario::{MultiUserScenario, Units};
use crate::store::names::ResultKind;
use crate::util::stats::Moments;
use serde::{Deserialize, Serialize};

use super::METRICS;

pub use crate::report::regret::summary::Stat;

/// The statistics of `m`'s values (the one [`Stat`] of every summary: n, mean, standard
/// deviation, standard error, 95 % interval), `None` when it holds no value.
fn stat(m: &Moments) -> Option<Stat> {
    (m.count() > 0).then(|| {
        let ms = m.mean_std();
        Stat::of(m.count(), ms.mean, ms.std)
    })
}

/// The asymptotic lower bounds of the classic model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LowerBound {
    /// Besson & Kaufmann (2018), Theorem 6: any uniformly efficient decentralised policy has
    /// `liminf R_T / ln T ≥ M · Σ_{k ∈ M-worst} (μ*_M − μ_k) / kl(μ_k, μ*_M)`.
    pub decentralized: f64,
    /// Anantharam, Varaiya & Walrand (1987): the centralised multiple-play constant, the sum
    /// without the factor M.
    pub centralized: f64,
    /// Where the bounds hold (asymptotically, for uniformly efficient policies).
    pub caveat: String,
}

const CAVEAT: &str = "asymptotic (T → ∞), for uniformly efficient policies on i.i.d. Bernoulli channels with shared means and sensing; policies outside that class (e.g. Selfish, Musical Chairs with a fixed T0) are not covered, and no finite-T guarantee is implied";

/// The lower bounds where they apply: the classic model, M < K, i.i.d. channels, a strict gap,
/// and the bounds' own model of collisions and feedback: colliding users all lose the slot
/// (`AllLost`; under `NoCollision` users never interact, under `OneWinner` or `Capture` a
/// collision still pays one of them) and each user senses its channel (not `CollisionOnly` nor
/// `NoSensing`).
pub(crate) fn lower_bound(s: &MultiUserScenario, expected: Expected) -> Option<LowerBound> {
    let m = s.users;
    let k = s.env.len();
    let stationary =
        s.env.epochs().len() == 1 && s.env.channels().iter().all(|c| c.occupancy().is_iid());
    let their_model = matches!(
        s.collision,
        crate::multi::Collision::AllLost | crate::multi::Collision::SameChannel
    ) && s.feedback.senses();
    if expected != Expected::Classic || m >= k || !stationary || !their_model {
        return None;
    }
    let mut mu: Vec<f64> = s.env.epochs()[0].success.clone();
    mu.sort_by(|a, b| b.total_cmp(a));
    let star = mu[m - 1];
    let mut c = 0.0;
    for &x in &mu[m..] {
        if x < star {
            c += (star - x) / kl_bernoulli(x, star);
        }
    }
    c.is_finite().then_some(LowerBound {
        decentralized: m as f64 * c,
        centralized: c,
        caveat: CAVEAT.into(),
    })
}

/// What the regret is measured against.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Benchmark {
    /// Which benchmark, in words.
    pub name: String,
    /// Whether it is the exact optimum (`false`: a heuristic).
    pub exact: bool,
    /// Its expected reward per slot, all users together.
    pub expected_reward_per_slot: f64,
    /// Each user's list (channel indices from 0).
    pub lists: Vec<Vec<usize>>,
}

/// A system reward other than the sum.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SystemRewardSummary {
    /// `max_min` or `proportional_fairness`.
    pub kind: String,
    /// What it is, as a formula of the users' rewards `r_u`.
    pub definition: String,
    /// ε of proportional fairness.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epsilon: Option<f64>,
}

/// Besson & Kaufmann's decomposition of the classic pseudo-regret (Lemma 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decomposition {
    /// (a) sub-optimal selections.
    pub suboptimal_selections: Option<Stat>,
    /// (b) optimal channels left unused.
    pub optimal_unused: Option<Stat>,
    /// (c) collisions.
    pub collisions: Option<Stat>,
    /// The pseudo-regret they sum to.
    pub regret: Option<Stat>,
    /// Runs on which the three terms summed to the regret exactly.
    pub runs_summing_exactly: u64,
}

/// One user's results at the horizon.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UserSummary {
    /// The user (from 0).
    pub user: usize,
    /// Its net reward.
    pub reward: Option<Stat>,
    /// Its acknowledged transmissions.
    pub successes: Option<Stat>,
    /// How often it changed channel.
    pub switches: Option<Stat>,
}

/// One channel's results at the horizon.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChannelSummary {
    /// The channel (from 0).
    pub channel: usize,
    /// Its idle probability.
    pub theta: f64,
    /// User-slots that chose it.
    pub selections: Option<Stat>,
    /// User-slots that collided on it.
    pub collisions: Option<Stat>,
    /// Probes of it per run.
    pub probes_per_run: f64,
}

/// One policy's (team's) results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicySummary {
    /// Its label.
    pub name: String,
    /// Its scenario syntax (a user's: its description).
    pub policy: String,
    /// Runs.
    pub runs: u64,
    /// Each metric at the horizon, summed over users (`None` where not computed).
    pub at_horizon: std::collections::BTreeMap<String, Option<Stat>>,
    /// The decomposition, in the classic model.
    pub decomposition: Option<Decomposition>,
    /// Jain's fairness index of the users' acknowledged transmissions.
    pub jain_fairness: Option<Stat>,
    /// Per user.
    pub users: Vec<UserSummary>,
    /// Per channel.
    pub channels: Vec<ChannelSummary>,
    /// Under `reward: TimeLeft`, user-slots per slot whose transmission the primary user's
    /// return interrupted (interference to the primary user, beside `pu_collisions`); absent
    /// otherwise.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::report::regret::summary::stat_or_mean"
    )]
    pub pu_returns_per_slot: Option<Stat>,
    /// With jammers: what they did to this policy's runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jammed: Option<PolicyJams>,
}

/// What the jammers did to one policy's runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicyJams {
    /// User-slots per run whose transmission a jammer destroyed.
    pub transmissions_jammed: Option<Stat>,
    /// Channel-slots per run the jammers held.
    pub channel_slots_jammed: Option<Stat>,
    /// The pseudo-regret at the horizon against the benchmark of the channels the jammers
    /// leave (`None` where either is not computed).
    pub regret_vs_reduced_benchmark: Option<Stat>,
}

/// The jammers of a scenario and the benchmark they leave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JammersSummary {
    /// Each jammer in scenario terms (behaviour, budget, rate).
    pub jammers: Vec<String>,
    /// The model, in words.
    pub model: String,
    /// Where the jammers hold the same channels in every slot: the channels left to the users.
    pub channels_left: Option<Vec<usize>>,
    /// Their benchmark's expected reward per slot (first epoch), the reduced benchmark the
    /// regret against it is measured from (for coordinated jammers on J channels, the top-M
    /// of the K − J others).
    pub reduced_benchmark_per_slot: Option<f64>,
}

/// What a many-users `summary.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MultiUserSummary {
    /// Always `"multi-user"`.
    pub kind: ResultKind,
    /// Scenario name.
    pub scenario: String,
    /// Scenario description.
    pub description: String,
    /// Seed.
    pub seed: u64,
    /// Slots per run.
    pub horizon: u64,
    /// Runs per policy.
    pub runs: u64,
    /// Units of energy and delay (as the scenario names them; absent in files written
    /// before).
    #[serde(default)]
    pub units: Units,
    /// Users M.
    pub users: usize,
    /// Channels K.
    pub channels: usize,
    /// The timing model.
    pub timing: String,
    /// The collision model.
    pub collision: String,
    /// The feedback level.
    pub feedback: String,
    /// How the pseudo-regret is computed (or why it is not).
    pub pseudo_regret: String,
    /// What the regret is measured against.
    pub benchmark: Benchmark,
    /// The jammers, when the scenario has some.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jammers: Option<JammersSummary>,
    /// The lower bounds, where they apply.
    pub lower_bound: Option<LowerBound>,
    /// Per-user means (row: channel, column: user), when the scenario sets them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_theta: Option<Vec<Vec<f64>>>,
    /// A system reward other than the sum, when the scenario sets one: the realised regret
    /// and the benchmark are its.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_reward: Option<SystemRewardSummary>,
    /// What the fairness index measures.
    pub fairness: String,
    /// Per policy, in scenario order.
    pub policies: Vec<PolicySummary>,
}

fn expected_note(e: Expected) -> &'static str {
    match e {
        Expected::Single => "exact: one user, the single-user expected reward of its list per slot",
        Expected::Classic => {
            "exact: one channel per user and perfect sensing, Σ_k s_k·(users rewarded on k) per slot from the per-channel counts"
        }
        Expected::None => {
            "not computed: no closed form for several users' cascades or for sensing errors; see realized_regret"
        }
    }
}

/// The benchmark of `s` in words, given how its pseudo-regret is computed and its benchmarks.
pub(crate) fn benchmark_name(
    s: &MultiUserScenario,
    expected: Expected,
    benchmarks: &[Shared],
) -> String {
    let exact = benchmarks.iter().all(|b| b.exact);
    if !s.system_reward.is_linear() {
        return format!(
            "the assignment of distinct channels of largest expected {} (max-weight matching)",
            s.system_reward.describe()
        );
    }
    if s.user_theta.is_some() && s.users > 1 {
        let single = s.policies.iter().all(|p| p.is_classic());
        let what = match (single, s.collision == crate::multi::Collision::NoCollision) {
            (_, true) => {
                "every user its own optimum on every channel (per-user means, independent copies)"
            }
            (true, false) => {
                "the best assignment of at most one channel to each user (per-user means)"
            }
            (false, false) => {
                "the best assignment of disjoint UCR-T1 lists to the users (per-user means)"
            }
        };
        if s.collision == crate::multi::Collision::NoCollision {
            return what.to_string();
        }
        return match (exact, single) {
            (true, true) => format!("{what}, exact by max-weight matching (Kuhn–Munkres)"),
            (true, false) => format!("{what}, exact by enumeration"),
            (false, _) => format!(
                "{what}, greedy (heuristic: user 0 its optimum on every channel, user 1 on the rest, …)"
            ),
        };
    }
    // Under `reward: TimeLeft` a user's best list is the time-left programme's.
    let (list, lists) = match s.env.time_left() {
        None => ("UCR-T1 list", "UCR-T1 lists"),
        Some(_) => (
            "time-left optimal list, by dynamic programme",
            "time-left optimal lists, each the dynamic programme's",
        ),
    };
    match expected {
        Expected::Single => format!("the single-user optimum ({list})"),
        Expected::Classic if s.collision == crate::multi::Collision::NoCollision => {
            "every user on the best channel (independent copies)".into()
        }
        Expected::Classic => format!(
            "the min(M, K) = {} best channels, one per user",
            s.users.min(s.env.len())
        ),
        Expected::None if exact => {
            format!("the best assignment of disjoint {lists} (exact, by enumeration)")
        }
        Expected::None => format!(
            "disjoint {lists}, heuristic (the better of greedy, user 0 the optimum on every channel, user 1 on the rest, …, and dealing, the channels ranked by s − c dealt round-robin, each user the optimum on its hand)"
        ),
    }
}

/// The summary of a many-users run.
pub(crate) fn summary(s: &MultiUserScenario, stats: &MultiStats) -> MultiUserSummary {
    let b = &stats.benchmarks[0];
    MultiUserSummary {
        kind: ResultKind::MultiUser,
        scenario: s.header.name.clone(),
        description: s.header.description.clone(),
        seed: s.header.seed,
        horizon: s.header.horizon,
        runs: s.header.runs,
        units: s.header.units.clone(),
        users: s.users,
        channels: s.env.len(),
        timing: format!("{:?}", s.timing),
        collision: crate::util::ron_text::to_ron_line(&s.collision),
        feedback: format!("{:?}", s.feedback),
        pseudo_regret: if !s.system_reward.is_linear() {
            format!(
                "not computed: the system reward {} has no closed form here; realized_regret is its own, Σ_t f(benchmark's rewards) − f(users' rewards)",
                s.system_reward.describe()
            )
        } else if s.user_theta.is_some() && s.users > 1 {
            "not computed: with per-user means the counts per channel do not give the expected reward; see realized_regret".into()
        } else {
            expected_note(stats.expected).to_string()
        },
        benchmark: Benchmark {
            name: benchmark_name(s, stats.expected, &stats.benchmarks),
            exact: stats.benchmarks.iter().all(|b| b.exact),
            expected_reward_per_slot: b.expected_reward,
            lists: b.lists.clone(),
        },
        jammers: jammers_summary(s, stats.expected),
        lower_bound: lower_bound(s, stats.expected),
        user_theta: s.user_theta.clone(),
        system_reward: (!s.system_reward.is_linear()).then(|| SystemRewardSummary {
            kind: s.system_reward.name().into(),
            definition: s.system_reward.describe(),
            epsilon: match s.system_reward {
                crate::model::system_reward::SystemReward::ProportionalFairness { epsilon } => {
                    Some(epsilon)
                }
                _ => None,
            },
        }),
        fairness: "Jain's index (Σx)²/(M·Σx²) of the users' acknowledged transmissions on idle channels, per run: 1 = equal shares, 1/M = one user took all (1 when nobody transmitted)".into(),
        policies: s
            .policies
            .iter()
            .zip(&stats.stats)
            .map(|(p, st)| policy_summary(s, &p.label, &p.to_ron(), st, stats.expected))
            .collect(),
    }
}

fn policy_summary(
    s: &MultiUserScenario,
    label: &str,
    spec: &str,
    st: &TeamStats,
    expected: Expected,
) -> PolicySummary {
    let last = st.curves.last();
    let at_horizon = METRICS
        .iter()
        .map(|&(name, i)| (name.to_string(), last.and_then(|c| stat(&c[i]))))
        .collect();
    let decomposition = (expected == Expected::Classic
        && s.collision != crate::multi::Collision::NoCollision)
        .then(|| Decomposition {
            suboptimal_selections: stat(&st.decomposition[0]),
            optimal_unused: stat(&st.decomposition[1]),
            collisions: stat(&st.decomposition[2]),
            regret: stat(&st.decomposition[3]),
            runs_summing_exactly: st.decomposition_exact,
        });
    PolicySummary {
        name: label.to_string(),
        policy: spec.to_string(),
        runs: st.runs,
        at_horizon,
        decomposition,
        jain_fairness: stat(&st.jain),
        users: (0..s.users)
            .map(|u| UserSummary {
                user: u,
                reward: stat(&st.user_reward[u]),
                successes: stat(&st.user_success[u]),
                switches: stat(&st.switches[u]),
            })
            .collect(),
        channels: (0..s.env.len())
            .map(|k| ChannelSummary {
                channel: k,
                theta: s.env.theta()[k],
                selections: stat(&st.selections[k]),
                collisions: stat(&st.collisions[k]),
                probes_per_run: st.channel_probes[k] as f64 / st.runs.max(1) as f64,
            })
            .collect(),
        pu_returns_per_slot: s.env.time_left().and_then(|_| {
            let returns = &st.curves.last()?[Metric::PuReturns as usize];
            stat(returns).map(|r| r.scaled(s.header.horizon.max(1) as f64))
        }),
        jammed: st.jams.as_ref().map(|j| PolicyJams {
            transmissions_jammed: stat(&j.jammed),
            channel_slots_jammed: stat(&j.jam_slots),
            regret_vs_reduced_benchmark: stat(&j.reduced_regret),
        }),
    }
}

/// The jammers of `s`, with the channels they leave where that set is fixed.
fn jammers_summary(s: &MultiUserScenario, expected: Expected) -> Option<JammersSummary> {
    if s.jammers.list.is_empty() {
        return None;
    }
    let k = s.env.len();
    let held = s.jammers.fixed_set(k, s.header.horizon);
    let left = held
        .as_ref()
        .map(|held| (0..k).filter(|c| !held.contains(c)).collect::<Vec<_>>());
    let per_slot = held
        .zip(reduced_benchmark(s, expected))
        .map(|(held, r)| r.value(0, &held));
    Some(JammersSummary {
        jammers: s.jammers.list.iter().map(|j| j.describe()).collect(),
        model: "a jammer destroys every transmission on the channels it holds in a slot (heard as a collision where the feedback shows collisions); it does not change what users sense, earns nothing and is not one of the M users; the benchmark stays the jammer-free one, and the reduced benchmark is, slot by slot, the same rule's on the channels left".into(),
        channels_left: left,
        reduced_benchmark_per_slot: per_slot,
    })
}
