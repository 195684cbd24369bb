//! `summary.json` of a many-users run: what it holds (every field read back by `plot` and
//! `compare`), built from the statistics, and the lower bounds of the classic model.

use crate::engine::multi_loop::Expected;
use crate::engine::multi_runner::{MultiStats, TeamStats};
use crate::model::theory::kl_bernoulli;
use crate::scenario::MultiUserScenario;
use crate::util::stats::{Moments, ci95};
use serde::{Deserialize, Serialize};

use super::METRICS;

/// A statistic over runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Stat {
    pub(crate) mean: f64,
    pub(crate) std: f64,
    pub(crate) ci95: Option<[f64; 2]>,
}

fn stat(m: &Moments) -> Option<Stat> {
    (m.count() > 0).then(|| {
        let ms = m.mean_std();
        Stat {
            mean: ms.mean,
            std: ms.std,
            ci95: ci95(m.count(), ms.mean, ms.std),
        }
    })
}

/// The asymptotic lower bounds of the classic model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct LowerBound {
    /// Besson & Kaufmann (2018), Theorem 6: any uniformly efficient decentralised policy has
    /// `liminf R_T / ln T ≥ M · Σ_{k ∈ M-worst} (μ*_M − μ_k) / kl(μ_k, μ*_M)`.
    pub(crate) decentralized: f64,
    /// Anantharam, Varaiya & Walrand (1987): the centralised multiple-play constant, the sum
    /// without the factor M.
    pub(crate) centralized: f64,
    pub(crate) caveat: String,
}

const CAVEAT: &str = "asymptotic (T → ∞), for uniformly efficient policies on i.i.d. Bernoulli channels with shared means and sensing; policies outside that class (e.g. Selfish, Musical Chairs with a fixed T0) are not covered, and no finite-T guarantee is implied";

/// The lower bounds where they apply: the classic model, M < K, i.i.d. channels, a strict gap,
/// and the bounds' own model of collisions and feedback: colliding users all lose the slot
/// (`AllLost`; under `NoCollision` users never interact, under `OneWinner` or `Capture` a
/// collision still pays one of them) and each user senses its channel (not `CollisionOnly`).
pub(crate) fn lower_bound(s: &MultiUserScenario, stats: &MultiStats) -> Option<LowerBound> {
    let m = s.users;
    let k = s.env.len();
    let stationary =
        s.env.epochs().len() == 1 && s.env.channels().iter().all(|c| c.occupancy().is_iid());
    let their_model = s.collision == crate::multi::Collision::AllLost
        && s.feedback != crate::multi::Feedback::CollisionOnly;
    if stats.expected != Expected::Classic || m >= k || !stationary || !their_model {
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Benchmark {
    pub(crate) name: String,
    pub(crate) exact: bool,
    pub(crate) expected_reward_per_slot: f64,
    pub(crate) lists: Vec<Vec<usize>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Decomposition {
    pub(crate) suboptimal_selections: Option<Stat>,
    pub(crate) optimal_unused: Option<Stat>,
    pub(crate) collisions: Option<Stat>,
    pub(crate) regret: Option<Stat>,
    pub(crate) runs_summing_exactly: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct UserSummary {
    pub(crate) user: usize,
    pub(crate) reward: Option<Stat>,
    pub(crate) successes: Option<Stat>,
    pub(crate) switches: Option<Stat>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ChannelSummary {
    pub(crate) channel: usize,
    pub(crate) theta: f64,
    pub(crate) selections: Option<Stat>,
    pub(crate) collisions: Option<Stat>,
    pub(crate) probes_per_run: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct PolicySummary {
    pub(crate) name: String,
    pub(crate) policy: String,
    pub(crate) runs: u64,
    pub(crate) at_horizon: std::collections::BTreeMap<String, Option<Stat>>,
    pub(crate) decomposition: Option<Decomposition>,
    pub(crate) jain_fairness: Option<Stat>,
    pub(crate) users: Vec<UserSummary>,
    pub(crate) channels: Vec<ChannelSummary>,
}

/// What `summary.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct MultiUserSummary {
    pub(crate) kind: String,
    pub(crate) scenario: String,
    pub(crate) description: String,
    pub(crate) seed: u64,
    pub(crate) horizon: u64,
    pub(crate) runs: u64,
    pub(crate) users: usize,
    pub(crate) channels: usize,
    pub(crate) timing: String,
    pub(crate) collision: String,
    pub(crate) feedback: String,
    pub(crate) pseudo_regret: String,
    pub(crate) benchmark: Benchmark,
    pub(crate) lower_bound: Option<LowerBound>,
    /// Per-user means (row: channel, column: user), when the scenario sets them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) user_theta: Option<Vec<Vec<f64>>>,
    pub(crate) fairness: String,
    pub(crate) policies: Vec<PolicySummary>,
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

fn benchmark_name(s: &MultiUserScenario, stats: &MultiStats) -> String {
    let exact = stats.benchmarks.iter().all(|b| b.exact);
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
            (true, true) => format!("{what}, exact by dynamic programming"),
            (true, false) => format!("{what}, exact by enumeration"),
            (false, _) => format!(
                "{what}, greedy (heuristic: user 1 its optimum on every channel, user 2 on the rest, …)"
            ),
        };
    }
    match stats.expected {
        Expected::Single => "the single-user optimum (UCR-T1 list)".into(),
        Expected::Classic if s.collision == crate::multi::Collision::NoCollision => {
            "every user on the best channel (independent copies)".into()
        }
        Expected::Classic => format!("the min(M, K) = {} best channels, one per user", s.users.min(s.env.len())),
        Expected::None if exact => "the best assignment of disjoint UCR-T1 lists (exact, by enumeration)".into(),
        Expected::None => "disjoint UCR-T1 lists, heuristic (the better of greedy, user 1 the optimum on every channel, user 2 on the rest, …, and dealing, the channels ranked by s − c dealt round-robin, each user the optimum on its hand)".into(),
    }
}

/// The summary of a many-users run.
pub(crate) fn summary(s: &MultiUserScenario, stats: &MultiStats) -> MultiUserSummary {
    let b = &stats.benchmarks[0];
    MultiUserSummary {
        kind: "multi-user".into(),
        scenario: s.header.name.clone(),
        description: s.header.description.clone(),
        seed: s.header.seed,
        horizon: s.header.horizon,
        runs: s.header.runs,
        users: s.users,
        channels: s.env.len(),
        timing: format!("{:?}", s.timing),
        collision: crate::util::ron_text::to_ron_line(&s.collision),
        feedback: format!("{:?}", s.feedback),
        pseudo_regret: if s.user_theta.is_some() && s.users > 1 {
            "not computed: with per-user means the counts per channel do not give the expected reward; see realized_regret".into()
        } else {
            expected_note(stats.expected).into()
        },
        benchmark: Benchmark {
            name: benchmark_name(s, stats),
            exact: stats.benchmarks.iter().all(|b| b.exact),
            expected_reward_per_slot: b.expected_reward,
            lists: b.lists.clone(),
        },
        lower_bound: lower_bound(s, stats),
        user_theta: s.user_theta.clone(),
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
    }
}
