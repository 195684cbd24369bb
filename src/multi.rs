//! Many secondary users on the same channels: the multi-player policies ([`Team`]), the
//! models of what users see of each other ([`Timing`], [`Collision`], [`Feedback`]) and the
//! registry of built-in teams ([`TeamSpec`]).
//!
//! Each slot every user writes an ordered list (one channel: the classic multi-player bandit;
//! several: a cascade); the engine probes the lists, resolves collisions between users and
//! reports to each user what its feedback level lets it see ([`Seen`]). A team is the M users'
//! policies together: decentralised policies are M independent players, the centralised
//! multiple-play learner is one coordinator.

mod centralized;
mod custom;
mod index;
mod mctopm_cascade;
mod mega;
mod musical_chairs;
mod rank_offset;
mod rho_rand;
mod selfish;
mod sic_mmab;
mod top_m;

pub(crate) use custom::CheckedTeam;
pub use custom::{CustomTeam, TeamFactory};
pub(crate) use index::IndexSpec;

use crate::model::channel::Environment;
use crate::util::rng::SimRng;
use serde::{Deserialize, Serialize};

/// How users sense each other within a slot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Timing {
    /// Every user makes probe `s` of its list at the same instant; a user probing a channel on
    /// which another user started transmitting at an earlier probe step senses it busy
    /// (carrier sensing).
    #[default]
    Synchronous,
    /// Users sense only the primary user: any two that transmit on one channel in a slot collide.
    Blind,
}

/// What happens when several users transmit on one channel.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
// `NoCollision` is the model's name in the literature and in scenario files.
#[allow(clippy::enum_variant_names)]
pub(crate) enum Collision {
    /// Nobody gets the reward.
    #[default]
    AllLost,
    /// One of them, drawn uniformly, gets it.
    OneWinner,
    /// The nearest to the receiver gets it (ties: the lower user index); `distances` has one
    /// entry per user.
    Capture {
        /// Each user's distance to the receiver.
        distances: Vec<f64>,
    },
    /// Every user gets its own copy of the channel: users never interact (a check: M users
    /// then behave as M independent single-user runs).
    NoCollision,
}

/// What a user observes (Besson & Kaufmann 2018, section 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Feedback {
    /// The usual opportunistic-spectrum-access model: a user senses each probed channel, and
    /// learns whether it collided only when it transmitted (sensed idle).
    #[default]
    SensingThenCollision,
    /// A user senses each probed channel and always learns whether another user chose the
    /// same channel.
    SensingAndCollision,
    /// No sensing: a user transmits on the first channel of its list and observes only its
    /// acknowledgement and whether another user chose the same channel; indices learn from
    /// the acknowledgement.
    CollisionOnly,
}

impl Feedback {
    /// Whether users sense channels (and may cascade).
    pub(crate) fn senses(self) -> bool {
        self != Feedback::CollisionOnly
    }
}

/// What one user saw in one slot, at the end of it (what its feedback level lets it see).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Seen {
    /// The channel the user transmitted on (sensed idle, or the first channel without sensing).
    pub transmitted: Option<usize>,
    /// The channel chosen last: the transmission's, else the last one probed.
    pub last: Option<usize>,
    /// What an index learns about `last`: the sensed state (with sensing), else the
    /// acknowledgement.
    pub sample: bool,
    /// The collision indicator, when the feedback level shows it.
    pub collision: Option<bool>,
    /// The acknowledgement: transmitted without a collision with another user.
    pub ack: bool,
}

/// The M users' policies of one run of a `MultiUser` scenario: the built-in multi-player
/// policies implement it, and so can a user's own ([`CustomTeam`]).
///
/// Each slot the engine asks for every user's list ([`Team::plan`]), probes the lists step by
/// step (reporting each channel sensed busy, [`Team::busy`]), resolves collisions, and tells
/// each user what it saw at the end of the slot ([`Team::seen`]).
pub trait Team {
    /// Writes every user's list for slot `t` (`t` counts from 1; each list empty on entry);
    /// `rngs[u]` is user `u`'s stream: draw from it, never from a generator of your own, so
    /// that runs stay reproducible. Each user's list (with what [`Team::extend`] appends) holds
    /// distinct channel indices below K; a user's team that breaks this stops the run with a
    /// [`crate::ListFault`] naming the policy, the user, the slot and the list. An empty list
    /// stays silent for the slot.
    fn plan(&mut self, t: u64, lists: &mut [Vec<usize>], rngs: &mut [SimRng]);

    /// Appends the next entries of user `u`'s list when it wrote only a prefix (cascades);
    /// `false` when complete.
    fn extend(&mut self, u: usize, list: &mut Vec<usize>) -> bool {
        let _ = (u, list);
        false
    }

    /// User `u` probed `channel` and sensed it busy (made before the slot's end, in order).
    fn busy(&mut self, u: usize, channel: usize, cost: f64) {
        let _ = (u, channel, cost);
    }

    /// The end of the slot for user `u`: its transmission, collision and acknowledgement;
    /// `cost` is the cost of the transmission's probe.
    fn seen(&mut self, u: usize, seen: &Seen, cost: f64, rng: &mut SimRng);
}

/// A team that hands the engine its concrete type (the slot loop is generic over it).
pub(crate) trait TeamVisitor {
    /// What the visit returns.
    type Output;
    /// Runs with the concrete team.
    fn visit<T: Team>(self, team: T) -> Self::Output;
}

/// `Selfish(policy: …)`: every user runs a single-user policy on its own acknowledgements.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SelfishSpec {
    /// The single-user policy each user runs.
    pub policy: crate::policy::PolicySpec,
}

/// `MusicalChairs(t0: …)`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MusicalChairsSpec {
    /// Length of the random exploration phase.
    #[serde(default)]
    pub t0: musical_chairs::T0,
    /// Whose definitions (default specprobe's; see `musical_chairs`).
    #[serde(default, skip_serializing_if = "crate::policy::Convention::is_default")]
    pub convention: crate::policy::Convention,
}

/// A multi-player policy as a scenario names it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) enum TeamSpec {
    /// Each user runs a single-user policy on its acknowledgements (Besson & Kaufmann 2018).
    Selfish(SelfishSpec),
    /// One coordinator gives the M channels of largest index to the M users (the benchmark
    /// learner, Anantharam et al. 1987).
    CentralizedMultiplePlay(IndexSpec),
    /// rhoRand (Anandkumar et al. 2011): each user aims at the channel of its rank, drawn anew
    /// after each collision.
    RhoRand(IndexSpec),
    /// RandTopM (Besson & Kaufmann 2018, Algorithm 1).
    RandTopM(IndexSpec),
    /// MCTopM (Besson & Kaufmann 2018, Algorithm 2).
    McTopM(IndexSpec),
    /// Musical Chairs (Rosenski, Shamir & Szlak 2016).
    MusicalChairs(MusicalChairsSpec),
    /// MEGA (Avner & Mannor 2014).
    Mega(mega::MegaSpec),
    /// rhoRand's ranks for cascades: the user of rank r probes entries r, r + M, … of its
    /// single-user policy's list.
    RankOffset(SelfishSpec),
    /// MCTopM's chairs for cascades: each user sits on a channel of its single-user policy's
    /// list prefix of length M and probes the slice of the list that starts there.
    McTopMCascade(SelfishSpec),
    /// SIC-MMAB (Boursier & Perchet 2019).
    SicMmab(sic_mmab::SicMmabSpec),
}

/// A built team of any kind.
#[derive(Debug)]
pub(crate) enum AnyTeam {
    /// Selfish.
    Selfish(selfish::Selfish),
    /// Centralised multiple play.
    Centralized(centralized::Centralized),
    /// rhoRand.
    RhoRand(rho_rand::RhoRand),
    /// RandTopM and MCTopM.
    TopM(top_m::TopM),
    /// Musical Chairs.
    MusicalChairs(musical_chairs::MusicalChairs),
    /// MEGA.
    Mega(mega::Mega),
    /// Rank-offset cascades.
    RankOffset(rank_offset::RankOffset),
    /// MCTopM-style cascades.
    McTopMCascade(mctopm_cascade::McTopMCascade),
    /// SIC-MMAB.
    SicMmab(sic_mmab::SicMmab),
    /// A user's team, its lists checked.
    Custom(CheckedTeam),
}

impl AnyTeam {
    /// Hands the concrete team to `visitor`.
    pub(crate) fn visit<V: TeamVisitor>(self, visitor: V) -> V::Output {
        match self {
            AnyTeam::Selfish(t) => visitor.visit(t),
            AnyTeam::Centralized(t) => visitor.visit(t),
            AnyTeam::RhoRand(t) => visitor.visit(t),
            AnyTeam::TopM(t) => visitor.visit(t),
            AnyTeam::MusicalChairs(t) => visitor.visit(t),
            AnyTeam::Mega(t) => visitor.visit(t),
            AnyTeam::RankOffset(t) => visitor.visit(t),
            AnyTeam::McTopMCascade(t) => visitor.visit(t),
            AnyTeam::SicMmab(t) => visitor.visit(t),
            AnyTeam::Custom(t) => visitor.visit(t),
        }
    }
}

impl TeamSpec {
    /// The default label in outputs.
    pub(crate) fn label(&self) -> String {
        match self {
            TeamSpec::Selfish(s) => format!("selfish-{}", s.policy.default_label()),
            TeamSpec::CentralizedMultiplePlay(i) => format!("centralized-{}", i.label()),
            TeamSpec::RhoRand(i) => format!("rhorand-{}", i.label()),
            TeamSpec::RandTopM(i) => format!("randtopm-{}", i.label()),
            TeamSpec::McTopM(i) => format!("mctopm-{}", i.label()),
            TeamSpec::MusicalChairs(m) => format!("musical-chairs{}", m.convention.suffix()),
            TeamSpec::Mega(m) => format!("mega{}", m.convention.suffix()),
            TeamSpec::SicMmab(_) => "sic-mmab".into(),
            TeamSpec::RankOffset(s) => format!("rank-offset-{}", s.policy.default_label()),
            TeamSpec::McTopMCascade(s) => {
                format!("mctopm-cascade-{}", s.policy.default_label())
            }
        }
    }

    /// The policy in scenario syntax.
    pub(crate) fn to_ron(&self) -> String {
        match self {
            TeamSpec::Selfish(s) => format!("Selfish(policy: {})", s.policy.to_ron()),
            TeamSpec::RankOffset(s) => format!("RankOffset(policy: {})", s.policy.to_ron()),
            TeamSpec::McTopMCascade(s) => {
                format!("McTopMCascade(policy: {})", s.policy.to_ron())
            }
            TeamSpec::CentralizedMultiplePlay(i) => format!("CentralizedMultiplePlay{}", ron(i)),
            TeamSpec::RhoRand(i) => format!("RhoRand{}", ron(i)),
            TeamSpec::RandTopM(i) => format!("RandTopM{}", ron(i)),
            TeamSpec::McTopM(i) => format!("McTopM{}", ron(i)),
            TeamSpec::MusicalChairs(m) => format!("MusicalChairs{}", ron(m)),
            TeamSpec::Mega(m) => format!("Mega{}", ron(m)),
            TeamSpec::SicMmab(m) => format!("SicMmab{}", ron(m)),
        }
    }

    /// Whether every user's list holds one channel (the classic multi-player bandit), so that
    /// the system's expected reward, the M-best benchmark and the regret decomposition apply.
    pub(crate) fn is_classic(&self) -> bool {
        match self {
            TeamSpec::Selfish(s) => s.policy.single_channel(),
            // Users of rank r > 1 skip the head of the list: not one channel each.
            TeamSpec::RankOffset(_) | TeamSpec::McTopMCascade(_) => false,
            _ => true,
        }
    }

    /// Whether each user learns only from its own observations, so that users may see
    /// different means (`user_theta`).
    pub(crate) fn allows_user_means(&self) -> bool {
        matches!(
            self,
            TeamSpec::Selfish(_) | TeamSpec::RankOffset(_) | TeamSpec::McTopMCascade(_)
        )
    }

    /// The feedback level the policy needs, if it needs one.
    pub(crate) fn needs_feedback(&self) -> Option<Feedback> {
        matches!(self, TeamSpec::SicMmab(_)).then_some(Feedback::SensingAndCollision)
    }

    /// The rules the parameters break for `k` channels and `users` users, horizon `horizon`.
    pub(crate) fn check(&self, k: usize, horizon: u64) -> Vec<(String, String)> {
        match self {
            TeamSpec::Selfish(s) | TeamSpec::RankOffset(s) | TeamSpec::McTopMCascade(s) => s
                .policy
                .check(k)
                .into_iter()
                .map(|e| (format!("policy.{}", e.param), e.rule))
                .collect(),
            TeamSpec::MusicalChairs(m) => {
                m.t0.check(horizon)
                    .err()
                    .map(|rule| ("t0".to_string(), rule))
                    .into_iter()
                    .collect()
            }
            TeamSpec::Mega(m) => m.check(),
            _ => Vec::new(),
        }
    }

    /// The team of `users` users on `env`'s channels, for a run of `horizon` slots; `rngs`
    /// are the users' streams (Selfish draws its relabellings from them first).
    pub(crate) fn build(
        &self,
        env: &Environment,
        users: usize,
        horizon: u64,
        rngs: &mut [SimRng],
    ) -> AnyTeam {
        let k = env.len();
        match self {
            TeamSpec::Selfish(s) => {
                AnyTeam::Selfish(selfish::Selfish::new(env, rngs, &|e, _| s.policy.build(e)))
            }
            TeamSpec::CentralizedMultiplePlay(i) => {
                AnyTeam::Centralized(centralized::Centralized::new(k, users, *i))
            }
            TeamSpec::RhoRand(i) => AnyTeam::RhoRand(rho_rand::RhoRand::new(k, users, *i)),
            TeamSpec::RandTopM(i) => AnyTeam::TopM(top_m::TopM::new(k, users, *i, false)),
            TeamSpec::McTopM(i) => AnyTeam::TopM(top_m::TopM::new(k, users, *i, true)),
            TeamSpec::MusicalChairs(m) => AnyTeam::MusicalChairs(
                musical_chairs::MusicalChairs::new(k, users, m.t0.slots(k, horizon), m.convention),
            ),
            TeamSpec::Mega(m) => AnyTeam::Mega(mega::Mega::new(k, users, m)),
            TeamSpec::SicMmab(m) => AnyTeam::SicMmab(sic_mmab::SicMmab::new(k, users, horizon, m)),
            TeamSpec::RankOffset(s) => AnyTeam::RankOffset(rank_offset::RankOffset::new(
                (0..users).map(|_| s.policy.build(env)).collect(),
            )),
            TeamSpec::McTopMCascade(s) => {
                AnyTeam::McTopMCascade(mctopm_cascade::McTopMCascade::new(
                    (0..users).map(|_| s.policy.build(env)).collect(),
                ))
            }
        }
    }
}

impl TeamSpec {
    /// Selfish users, user `u`'s policy `build(channels as it sees them, u)`.
    pub(crate) fn selfish_of(
        env: &Environment,
        rngs: &mut [SimRng],
        build: &dyn Fn(&Environment, usize) -> crate::policy::AnyPolicy,
    ) -> AnyTeam {
        AnyTeam::Selfish(selfish::Selfish::new(env, rngs, build))
    }

    /// Every built-in multi-player policy with its defaults and a one-line summary, for
    /// `specprobe policies` (each printed as [`TeamSpec::to_ron`] writes it, so that it reads
    /// back).
    pub(crate) fn catalogue() -> Vec<(TeamSpec, &'static str)> {
        let selfish = || SelfishSpec {
            policy: crate::policy::PolicySpec::Ucb1(Default::default()),
        };
        let cascade = || SelfishSpec {
            policy: crate::policy::PolicySpec::CcUcb(Default::default()),
        };
        vec![
            (
                TeamSpec::Selfish(selfish()),
                "each user runs a single-user built-in (cascades too) on its acknowledgements",
            ),
            (
                TeamSpec::CentralizedMultiplePlay(IndexSpec::default()),
                "one coordinator gives the M channels of largest index to the users",
            ),
            (
                TeamSpec::RhoRand(IndexSpec::default()),
                "rhoRand: the channel of one's rank, a new rank after a collision",
            ),
            (
                TeamSpec::RandTopM(IndexSpec::default()),
                "RandTopM: stay in one's M best, move after a collision",
            ),
            (
                TeamSpec::McTopM(IndexSpec::default()),
                "MCTopM: RandTopM with a chair (a seated user ignores collisions)",
            ),
            (
                TeamSpec::MusicalChairs(MusicalChairsSpec::default()),
                "T0 slots uniform, estimate M, then sit on a free chair",
            ),
            (
                TeamSpec::Mega(mega::MegaSpec::default()),
                "MEGA: ε-greedy with persistence and unavailability after collisions",
            ),
            (
                TeamSpec::SicMmab(sic_mmab::SicMmabSpec::default()),
                "SIC-MMAB: communication through collisions (feedback: SensingAndCollision)",
            ),
            (
                TeamSpec::RankOffset(cascade()),
                "cascades: the user of rank r probes entries r, r + M, … of its policy's list",
            ),
            (
                TeamSpec::McTopMCascade(cascade()),
                "cascades: MCTopM's chairs on a channel of the list's M-prefix, then its slice",
            ),
        ]
    }
}

/// A parameter struct in scenario syntax, `(name: value, …)`.
fn ron<T: Serialize + std::fmt::Debug>(params: &T) -> String {
    crate::util::ron_text::to_ron_line(params)
}

/// The M channels of largest `index` (ties to the lower channel), best first, into `out`.
pub(crate) fn top(index: &[f64], m: usize, out: &mut Vec<usize>) {
    use crate::util::ranking::Ranked;
    out.clear();
    out.extend(0..index.len());
    let m = m.min(index.len());
    let key = |&a: &usize| {
        std::cmp::Reverse(Ranked {
            value: index[a],
            arm: a,
        })
    };
    if m < out.len() && m > 0 {
        out.select_nth_unstable_by_key(m - 1, key);
    }
    out.truncate(m);
    out.sort_unstable_by_key(key);
}

/// The M channels of largest `index`, equal indices ordered by `tie` (smaller first, then
/// the lower channel), best first, into `out`: [`top`] under the other tie rules (`tie` the
/// slot's random order, or the reversed channel index).
pub(crate) fn top_by(index: &[f64], tie: impl Fn(usize) -> u64, m: usize, out: &mut Vec<usize>) {
    out.clear();
    out.extend(0..index.len());
    let m = m.min(index.len());
    let cmp = |&a: &usize, &b: &usize| {
        index[b]
            .total_cmp(&index[a])
            .then((tie(a), a).cmp(&(tie(b), b)))
    };
    if m < out.len() && m > 0 {
        out.select_nth_unstable_by(m - 1, cmp);
    }
    out.truncate(m);
    out.sort_unstable_by(cmp);
}
