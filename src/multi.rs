//! Many secondary users on the same channels: the multi-player policies ([`Team`]), the
//! models of what users see of each other ([`Timing`], [`Collision`], [`Feedback`]) and the
//! registry of built-in teams ([`TeamSpec`]).
//!
//! Each slot every user writes an ordered list (one channel: the classic multi-player bandit;
//! several: a cascade); the engine probes the lists, resolves collisions between users and
//! reports to each user what its feedback level lets it see ([`Seen`]). A team is the M users'
//! policies together: decentralised policies are M independent players, the centralised
//! multiple-play learner is one coordinator.

mod custom;
mod index;
mod shuffled;
#[macro_use]
mod registry_macro;

pub(crate) use custom::CheckedTeam;
pub use custom::{CustomTeam, TeamFactory};
pub(crate) use shuffled::{Boxed, Shuffled};

use crate::model::channel::Environment;
use crate::model::system_reward::SystemReward;
use crate::util::rng::SimRng;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

// The registry of built-in many-users policies: one line per file, naming each policy as
// scenarios write it and the type of its scenario entry (a [`TeamBuiltin`]). From it come the
// `TeamSpec` a scenario names (with its RON and JSON parser), the catalogue `specprobe
// policies` prints, the labels, the checks, and `AnyTeam`, whose `visit` hands the concrete
// type to the slot loop once per run. A new many-users policy is its file plus its line here.
builtin_teams! {
    selfish::{Selfish(SelfishSpec)},
    centralized::{CentralizedMultiplePlay(CentralizedSpec)},
    rho_rand::{RhoRand(RhoRandSpec)},
    top_m::{RandTopM(RandTopMSpec), McTopM(McTopMSpec)},
    musical_chairs::{MusicalChairs(MusicalChairsSpec)},
    mega::{Mega(MegaSpec)},
    rank_offset::{RankOffset(RankOffsetSpec)},
    mctopm_cascade::{McTopMCascade(McTopMCascadeSpec)},
    sic_mmab::{SicMmab(SicMmabSpec)},
    dpe::{Dpe(DpeSpec)},
    got::{GameOfThrones(GotSpec)},
    beacon::{Beacon(BeaconSpec)},
    cucb::{Cucb(CucbSpec)},
}

/// The scenario entry of a built-in many-users policy: its parameters, checked and turned
/// into the team.
///
/// A new many-users policy is one file that defines the team and a type implementing this
/// trait, plus one line in the registry above; the scenario parser, `specprobe policies`,
/// labels, checks and the engine's static dispatch all come from there. What the engine and
/// the checks must know of a policy (whether its lists hold one channel, whether it allows
/// per-user means, which feedback it needs) has no default: each policy says.
pub(crate) trait TeamBuiltin:
    Clone + std::fmt::Debug + PartialEq + Serialize + DeserializeOwned
{
    /// What the policy does, one line for `specprobe policies`.
    const SUMMARY: &'static str;
    /// The team it builds.
    type Team: Team;

    /// The spec shown by `specprobe policies` (every parameter at its default).
    fn example() -> Self;

    /// The label used when a scenario gives none.
    fn label(&self) -> String;

    /// The parameters in scenario syntax, `(name: value, …)`.
    fn params_ron(&self) -> String {
        crate::util::ron_text::to_ron_line(self)
    }

    /// Whether every user's list holds one channel (the classic multi-player bandit), so that
    /// the system's expected reward, the M-best benchmark and the regret decomposition apply
    /// (and the slot loop's one-probe-per-user path).
    fn is_classic(&self) -> bool;

    /// Whether each user learns only from its own observations, so that users may see
    /// different means (`user_theta`). Default: no (a team that shares anything says so by
    /// default; a selfish team opts in).
    fn allows_user_means(&self) -> bool {
        false
    }

    /// Whether the policy's statistics include the probing costs, so that it can rank channels
    /// by net reward as the benchmark does. Default: no (most many-users policies learn the
    /// idle probability alone: a cost-aware team says so).
    fn sees_costs(&self) -> bool {
        false
    }

    /// Whether the policy reads the collision indicator in every slot (communication
    /// through collisions, estimates from the slots without one), which
    /// `feedback: SensingAndCollision` and `CollisionOnly` give and `SensingThenCollision`
    /// does not (default: no).
    fn needs_collision_indicator(&self) -> bool {
        false
    }

    /// The rules the parameters break for `k` channels, `users` users and horizon `horizon`,
    /// as (parameter, rule) (default: a team without parameters breaks none). Checked when the
    /// scenario is, and again when `--users` or `--horizon` override it.
    fn check(&self, k: usize, users: usize, horizon: u64) -> Vec<(String, String)> {
        let _ = (k, users, horizon);
        Vec::new()
    }

    /// Nanoseconds of CPU one user-slot costs with `k` channels and `users` users, for the
    /// duration estimate (see [`USER_SLOT_NS`]; default: that constant, for teams whose users
    /// do no per-channel work).
    fn ns_per_user_slot(&self, k: u64, users: u64) -> f64 {
        let _ = (k, users);
        USER_SLOT_NS
    }

    /// The team of `users` users on `env`'s channels, for a run of `horizon` slots; `rngs`
    /// are the users' streams.
    fn build(
        &self,
        env: &Environment,
        users: usize,
        horizon: u64,
        rngs: &mut [SimRng],
    ) -> Self::Team;

    /// [`TeamBuiltin::build`] for a scenario whose users' rewards combine by `system` (a
    /// policy that learns the system reward's optimum, BEACON's leader or CUCB, overrides it;
    /// the others ignore it).
    fn build_for(
        &self,
        env: &Environment,
        users: usize,
        horizon: u64,
        system: SystemReward,
        rngs: &mut [SimRng],
    ) -> Self::Team {
        let _ = system;
        self.build(env, users, horizon, rngs)
    }
}

/// Whose definitions a policy after 2018 follows where its paper and its authors' code
/// differ (each policy's documentation lists what `Reference` changes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum CodeConvention {
    /// The paper's (the default).
    #[default]
    Paper,
    /// The authors' reference code's.
    Reference,
}

impl CodeConvention {
    /// Whether it is the default (left out when a spec is written back).
    pub(crate) fn is_default(&self) -> bool {
        *self == CodeConvention::Paper
    }

    /// The label suffix: `-ref` under the reference code's convention.
    pub(crate) fn suffix(self) -> &'static str {
        match self {
            CodeConvention::Paper => "",
            CodeConvention::Reference => "-ref",
        }
    }
}

/// CPU of one user-slot of the many-users loop whatever the team (probing, collisions,
/// feedback, records), in nanoseconds.
pub(crate) const USER_SLOT_NS: f64 = 150.0;

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
    /// The multi-player bandit's collision: users who end on the same channel all lose,
    /// whatever each sensed (with per-user means one may sense the primary user where
    /// another does not; `AllLost` then pays the one that transmitted alone). The model of
    /// the reference codes for users who see channels differently (BEACON, Game of Thrones,
    /// CUCB); with shared means and perfect sensing it is `AllLost`.
    SameChannel,
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
    /// No sensing and no collision indicator: a user transmits on the first channel of its
    /// list and observes only its reward, the acknowledgement, so that a collision and a busy
    /// channel both read as a zero (a radio without an acknowledgement channel's collision
    /// report). The model of the no-sensing multi-player bandits: Lugosi & Mehrabian 2018,
    /// Boursier & Perchet's SIC-MMAB2, Shi et al.'s EC-SIC (AISTATS 2020), Bubeck, Budzinski
    /// & Sellke (COLT 2021), Trinh & Combes' randomized Selfish KL-UCB (arXiv 2102.10200):
    /// `CollisionOnly` shows the collision indicator, which these papers' users never see.
    NoSensing,
}

impl Feedback {
    /// Whether users sense channels (and may cascade).
    pub(crate) fn senses(self) -> bool {
        !matches!(self, Feedback::CollisionOnly | Feedback::NoSensing)
    }

    /// Whether users see the collision indicator in every slot (what a team that
    /// communicates through collisions needs).
    pub(crate) fn shows_collisions(self) -> bool {
        matches!(
            self,
            Feedback::SensingAndCollision | Feedback::CollisionOnly
        )
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
    fn visit<T: Team + 'static>(self, team: T) -> Self::Output;
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
