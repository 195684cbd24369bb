//! `MultiUser( ... )`: M secondary users on the same channels (see [`crate::multi`]). The
//! schema, its checks into a [`MultiUserScenario`], and the checked type.

use super::channels::{self, check_channels};
use super::check::{fits_reward, with_reward};
use super::checker::{CheckRaw, Checker};
use super::header::check_header;
use super::locate::FieldPath;
use super::overrides::{Overridable, OverrideError, Overrides, rehorizon};
use super::raw::RawMultiUser;
use super::sweep::{Sweep, check_sweep_of};
use super::{Header, Scenario, Source};
use crate::model::channel::Environment;
use crate::model::jamming::Jammers;
use crate::model::system_reward::SystemReward;
use crate::multi::{AnyTeam, CheckedTeam, Collision, CustomTeam, Feedback, TeamSpec, Timing};
use crate::policy::{AnyPolicy, Checked, CustomPolicy, ListFaults};
use crate::util::cancel::Cancel;
use crate::util::rng::SimRng;
use std::collections::BTreeSet;

/// Most users one scenario may have.
pub(crate) const MAX_USERS: u64 = 1024;

/// A checked many-users scenario.
#[derive(Clone, Debug)]
pub struct MultiUserScenario {
    /// Name, seed, horizon, runs, checkpoints, units and weights.
    pub(crate) header: Header,
    pub(crate) users: usize,
    pub(crate) timing: Timing,
    pub(crate) collision: Collision,
    pub(crate) feedback: Feedback,
    pub(crate) env: Environment,
    /// Per-user means (`user_theta`), row k channel k, column u user u.
    pub(crate) user_theta: Option<Vec<Vec<f64>>>,
    /// With per-user means, each user's channels (user 0's is `env`); else empty.
    pub(crate) user_envs: Vec<Environment>,
    pub(crate) policies: Vec<TeamEntry>,
    /// The policies see the channels under a relabelling drawn per run (`shuffle: true`).
    pub(crate) shuffle: bool,
    /// How the users' rewards of a slot combine.
    pub(crate) system_reward: SystemReward,
    /// Adversaries jamming the users' transmissions (empty: none).
    pub(crate) jammers: Jammers,
    /// A sweep: the scenario at each value of one field (its cells); the scenario itself is
    /// then the sweep's base and is not run.
    pub(crate) sweep: Option<Box<Sweep<MultiUserScenario>>>,
}

/// One policy with its label.
#[derive(Clone, Debug)]
pub(crate) struct TeamEntry {
    /// Unique label.
    pub label: String,
    /// The policy.
    pub kind: TeamKind,
}

/// A built-in multi-player policy or a user's.
#[derive(Clone, Debug)]
pub(crate) enum TeamKind {
    /// Named in the scenario.
    Builtin(TeamSpec),
    /// A user's team ([`crate::Simulation::custom_team`]).
    Custom(CustomTeam),
    /// A user's single-user policy run by every user on its own acknowledgements, as
    /// `Selfish` runs a built-in ([`crate::Simulation::custom_policy`] on a many-users
    /// scenario).
    Selfish(CustomPolicy),
}

/// What a user's code gets to report a broken list and stop the run.
#[derive(Clone, Debug, Default)]
pub(crate) struct Guard {
    /// Where the first fault goes.
    pub faults: ListFaults,
    /// Cancelled on a fault.
    pub cancel: Cancel,
}

impl TeamEntry {
    /// The policy in scenario syntax (a user's: its description).
    pub(crate) fn to_ron(&self) -> String {
        match &self.kind {
            TeamKind::Builtin(spec) => spec.to_ron(),
            TeamKind::Custom(c) => c.description().to_string(),
            TeamKind::Selfish(p) => format!("Selfish(policy: {})", p.description()),
        }
    }

    /// Whether every user lists one channel a slot, so that the classic closed forms apply
    /// (see [`TeamSpec::is_classic`]): a built-in's property, a user's declaration
    /// (`one_channel`, checked on every list).
    pub(crate) fn is_classic(&self) -> bool {
        match &self.kind {
            TeamKind::Builtin(spec) => spec.is_classic(),
            TeamKind::Custom(c) => c.lists_one_channel(),
            TeamKind::Selfish(p) => p.lists_one_channel(),
        }
    }

    /// Whether it is a user's team or policy declared `one_channel` (what `partial.json` and
    /// the fingerprint record, so that shards agree on the benchmark).
    pub(crate) fn declares_one_channel(&self) -> bool {
        !matches!(self.kind, TeamKind::Builtin(_)) && self.is_classic()
    }

    /// Whether it can be simulated (a user's policy rebuilt from a partial cannot).
    pub(crate) fn runnable(&self) -> bool {
        match &self.kind {
            TeamKind::Builtin(_) => true,
            TeamKind::Custom(c) => c.runnable(),
            TeamKind::Selfish(p) => p.runnable(),
        }
    }

    /// The team of one run; a user's code is wrapped so that its lists are checked.
    pub(crate) fn build(
        &self,
        env: &Environment,
        users: usize,
        horizon: u64,
        system: SystemReward,
        rngs: &mut [SimRng],
        guard: &Guard,
    ) -> AnyTeam {
        match &self.kind {
            TeamKind::Builtin(spec) => spec.build(env, users, horizon, system, rngs),
            TeamKind::Custom(c) => {
                let inner = c
                    .build(env, users, horizon)
                    .expect("every team was checked runnable before the runs started");
                AnyTeam::Custom(CheckedTeam::new(
                    inner,
                    &self.label,
                    env.len(),
                    users,
                    c.lists_one_channel(),
                    guard.faults.clone(),
                    guard.cancel.clone(),
                ))
            }
            TeamKind::Selfish(p) => TeamSpec::selfish_of(env, rngs, &|seen_as, u| {
                let inner = p
                    .build(seen_as)
                    .expect("every policy was checked runnable before the runs started");
                AnyPolicy::Custom(Box::new(Checked::new(
                    inner,
                    &format!("{} (user {u})", self.label),
                    env.len(),
                    p.lists_one_channel(),
                    guard.faults.clone(),
                    guard.cancel.clone(),
                )))
            }),
        }
    }
}

impl MultiUserScenario {
    /// The scenario's name.
    pub fn name(&self) -> &str {
        &self.header.name
    }

    /// Number of users, M.
    pub fn users(&self) -> usize {
        self.users
    }

    /// Slots per run.
    pub fn horizon(&self) -> u64 {
        self.header.horizon
    }

    /// Runs per policy.
    pub fn runs(&self) -> u64 {
        self.header.runs
    }

    /// The policies' labels, in scenario order.
    pub fn policy_labels(&self) -> Vec<&str> {
        self.policies.iter().map(|p| p.label.as_str()).collect()
    }

    /// Each user's channels with per-user means, else the shared channels alone.
    /// Whether it sweeps a field (a sweep's cells are the scenarios that run).
    pub fn is_sweep(&self) -> bool {
        self.sweep.is_some()
    }

    /// Its sweep (field, values, cells), if it sweeps a field.
    pub fn sweep(&self) -> Option<&Sweep<MultiUserScenario>> {
        self.sweep.as_deref()
    }

    pub(crate) fn user_envs(&self) -> &[Environment] {
        if self.user_envs.is_empty() {
            std::slice::from_ref(&self.env)
        } else {
            &self.user_envs
        }
    }

    /// A hash (hex) of everything that determines the results.
    pub(crate) fn fingerprint(&self) -> String {
        use std::fmt::Write;
        let mut s = format!(
            "multi|{}|{}|{:?}|{:?}|{:?}|slot {:?}",
            self.header.fingerprint(),
            self.users,
            self.timing,
            self.collision,
            self.feedback,
            self.env.slot_duration()
        );
        super::describe_channels(&mut s, &self.env);
        if let Some(m) = &self.user_theta {
            let _ = write!(s, "|user_theta {m:?}");
        }
        if self.shuffle {
            s.push_str("|shuffle");
        }
        if !self.system_reward.is_linear() {
            let _ = write!(s, "|system_reward {:?}", self.system_reward);
        }
        for j in &self.jammers.list {
            let _ = write!(s, "|jammer {}", j.describe());
        }
        for p in &self.policies {
            let _ = write!(s, "|policy {}:{}", p.label, p.to_ron());
            // A user's declaration changes the benchmark, so shards must agree on it; the
            // built-ins' fingerprints (and so earlier partials) are unchanged.
            if p.declares_one_channel() {
                s.push_str(" one_channel");
            }
        }
        if let Some(sw) = &self.sweep {
            s.push_str(&sw.fingerprint_part(MultiUserScenario::fingerprint));
        }
        format!("{:016x}", crate::util::rng::label_hash(&[&s]))
    }
}

impl CheckRaw for RawMultiUser {
    fn check(self, source: &Source, ck: &mut Checker) -> Option<Scenario> {
        check_multi_user(self, source, ck).map(Into::into)
    }
}

/// Checks a raw many-users scenario (every broken rule reported), with its sweep's cells.
pub(crate) fn check_multi_user(
    mut raw: RawMultiUser,
    source: &Source,
    ck: &mut Checker,
) -> Option<MultiUserScenario> {
    let Some(spec) = raw.sweep.take() else {
        return check_one(raw, source, ck);
    };
    let (base, sweep) = check_sweep_of(
        raw,
        spec,
        source,
        ck,
        check_one,
        |_, _, _, _, _| true,
        |_, _, _| true,
    );
    let mut base = base?;
    base.sweep = sweep.map(Box::new);
    Some(base)
}

/// Checks one many-users scenario (a sweep's base or cell).
fn check_one(raw: RawMultiUser, source: &Source, ck: &mut Checker) -> Option<MultiUserScenario> {
    let root = FieldPath::default();
    let header = check_header(&raw.header(), source, &root, ck);
    ck.require(
        (1..=MAX_USERS).contains(&raw.users),
        &root.field("users"),
        format!(
            "must lie in 1..={MAX_USERS} (the number of secondary users; got {})",
            raw.users
        ),
    );
    if let Collision::Capture { distances } = &raw.collision {
        let at = root.field("collision").field("distances");
        ck.require(
            distances.len() as u64 == raw.users,
            &at,
            format!(
                "needs one distance per user: {} users, {} distances",
                raw.users,
                distances.len()
            ),
        );
        for (u, d) in distances.iter().enumerate() {
            ck.require(
                d.is_finite() && *d >= 0.0,
                &at.index(u),
                format!("must be a finite distance ≥ 0 (got {d})"),
            );
        }
    }
    let raw_header = raw.header();
    let cx = channels::Context::of(&raw_header, source);
    if raw.channels.is_empty() {
        ck.fail(&root.field("channels"), "the channel list is empty");
    }
    let env = if fits_reward(
        raw.reward.as_ref(),
        channels::channel_count(&raw.channels),
        &root,
        ck,
    ) {
        check_channels(&raw.channels, &root.field("channels"), &cx, ck)
    } else {
        None
    };
    if raw.policies.is_empty() {
        ck.fail(&root.field("policies"), "must list at least one policy");
    }
    let k = channels::channel_count(&raw.channels) as usize;
    let mut seen = BTreeSet::new();
    let mut policies = Vec::new();
    for (i, p) in raw.policies.iter().enumerate() {
        let at = root.field("policies").index(i);
        let label = p.label.clone().unwrap_or_else(|| p.policy.label());
        let label_path = if p.label.is_some() {
            at.field("label")
        } else {
            at.field("policy")
        };
        ck.label(&mut seen, &label, &label_path, "policy");
        if p.policy.needs_collision_indicator() && !raw.feedback.shows_collisions() {
            ck.fail(
                &at.field("policy"),
                format!(
                    "needs the collision indicator in every slot, `feedback: SensingAndCollision` or `CollisionOnly` (it communicates through collisions or estimates from the slots without one; the scenario has {:?})",
                    raw.feedback
                ),
            );
        }
        for (param, rule) in p.policy.check(k.max(1), raw.users as usize, raw.horizon) {
            let mut path = at.field("policy");
            for part in param.split('.') {
                path = path.field(part);
            }
            ck.fail(&path, rule);
        }
        policies.push(TeamEntry {
            label,
            kind: TeamKind::Builtin(p.policy.clone()),
        });
    }
    let env = with_reward(env?, raw.reward.as_ref(), raw.weights.delay, &root, ck)?;
    check_system_reward(&raw, &env, &policies, &root, ck);
    if raw.user_theta.is_some() && env.time_left().is_some() {
        // The per-user benchmark ranks lists by the unit reward.
        ck.fail(
            &root.field("user_theta"),
            "does not combine with `reward: TimeLeft` (the per-user-means benchmark is the unit reward's); drop one of them",
        );
        return None;
    }
    let user_envs = match &raw.user_theta {
        Some(m) => check_user_theta(m, &env, raw.users, &policies, &root, ck)?,
        None => Vec::new(),
    };
    let jammers = check_jammers(&raw, &env, &root, ck)?;
    Some(MultiUserScenario {
        header,
        users: raw.users as usize,
        timing: raw.timing,
        collision: raw.collision,
        feedback: raw.feedback,
        env,
        user_theta: raw.user_theta,
        user_envs,
        policies,
        shuffle: raw.shuffle,
        system_reward: raw.system_reward,
        jammers,
        sweep: None,
    })
}

/// Checks the jammers against the channels and the horizon (see [`crate::model::jamming`]).
fn check_jammers(
    raw: &RawMultiUser,
    env: &Environment,
    root: &FieldPath,
    ck: &mut Checker,
) -> Option<Jammers> {
    // The first epoch's expected net rewards rank the channels for `Coordinated(count: J)`.
    let e = &env.epochs()[0];
    let value: Vec<f64> = e
        .success
        .iter()
        .zip(env.mean_cost())
        .map(|(s, c)| s - c)
        .collect();
    let mut list = Vec::new();
    let mut held = 0;
    for (j, spec) in raw.jammers.iter().enumerate() {
        match spec.check(&value, raw.horizon) {
            Ok(jammer) => {
                held += jammer.count();
                list.push(jammer);
            }
            Err(problems) => {
                for (fields, rule) in problems {
                    let mut at = root.field("jammers").index(j);
                    for f in fields {
                        at = at.field(f);
                    }
                    ck.fail(&at, rule);
                }
            }
        }
    }
    if list.len() < raw.jammers.len() {
        return None;
    }
    let jammers = Jammers { list };
    if let Some(set) = jammers.fixed_set(env.len(), raw.horizon)
        && !set.is_empty()
        && set.len() >= env.len()
    {
        ck.fail(
            &root.field("jammers"),
            format!(
                "hold all K = {} channels in every slot ({held} jammers): nothing is left to the users; leave at least one channel free",
                env.len()
            ),
        );
        return None;
    }
    Some(jammers)
}

/// A system reward other than the sum combines rewards of 0 or 1: one channel per user (the
/// classic model), probes without cost, the unit reward.
fn check_system_reward(
    raw: &RawMultiUser,
    env: &Environment,
    policies: &[TeamEntry],
    root: &FieldPath,
    ck: &mut Checker,
) {
    let system = raw.system_reward;
    let at = root.field("system_reward");
    if let Some(rule) = system.check() {
        ck.fail(&at, rule);
    }
    if system.is_linear() {
        return;
    }
    let name = system.name();
    if env.time_left().is_some() {
        ck.fail(
            &at,
            format!("{name} combines rewards of 0 or 1; `reward: TimeLeft` pays by the time left: drop one of them"),
        );
    }
    if let Some((i, _)) = env
        .channels()
        .iter()
        .enumerate()
        .find(|(_, c)| c.cost().support() != (0.0, 0.0))
    {
        ck.fail(
            &at,
            format!("{name} combines rewards of 0 or 1: every probe must be free (`cost: Constant(0.0)`), and channel {i}'s is not"),
        );
    }
    for (p, entry) in policies.iter().enumerate() {
        if !entry.is_classic() {
            ck.fail(
                &root.field("policies").index(p).field("policy"),
                format!("probes cascades; {name} is defined for one channel per user and slot (the classic model)"),
            );
        }
    }
}

/// Checks `user_theta` against the channels and the policies; each user's channels.
fn check_user_theta(
    m: &[Vec<f64>],
    env: &Environment,
    users: u64,
    policies: &[TeamEntry],
    root: &FieldPath,
    ck: &mut Checker,
) -> Option<Vec<Environment>> {
    let at = root.field("user_theta");
    let k = env.len();
    let before = ck.problems.len();
    ck.require(
        m.len() == k,
        &at,
        format!(
            "needs one row per channel: K = {k} channels (after `count`), {} rows",
            m.len()
        ),
    );
    for (i, row) in m.iter().enumerate() {
        let at = at.index(i);
        ck.require(
            row.len() as u64 == users,
            &at,
            format!(
                "needs one value per user: M = {users} users, {} values",
                row.len()
            ),
        );
        for (u, &x) in row.iter().enumerate() {
            ck.require(
                x.is_finite() && (0.0..=1.0).contains(&x),
                &at.index(u),
                format!("must be a probability in [0, 1] (got {x})"),
            );
        }
        if let Some(c) = env.channels().get(i) {
            let own = env.theta()[i];
            if let Some(&first) = row.first()
                && (first - own).abs() > 1e-12 * own.max(1e-300)
            {
                ck.fail(
                    &at.index(0),
                    format!(
                        "user 0's value must repeat channel {i}'s own long-run idle probability, {own} (user 0 sees the channels as declared; got {first})",
                    ),
                );
            }
            // Each user's value must make a process of the channel's kind.
            for (u, &x) in row.iter().enumerate().skip(1) {
                if x.is_finite()
                    && (0.0..=1.0).contains(&x)
                    && let Err(why) = c.occupancy().seen_idle(x)
                {
                    ck.fail(
                        &at.index(u),
                        format!(
                            "channel {i} ({}) cannot be seen idle a fraction {x} of the time by user {u}: {why}; per-user means apply to i.i.d. and Markov channels",
                            c.occupancy().describe()
                        ),
                    );
                    break;
                }
            }
        }
    }
    for (p, entry) in policies.iter().enumerate() {
        if let TeamKind::Builtin(spec) = &entry.kind
            && !spec.allows_user_means()
        {
            ck.fail(
                &root.field("policies").index(p).field("policy"),
                "assumes every user sees the same means; with `user_theta` use Selfish, RankOffset, McTopMCascade or a policy of your own",
            );
        }
    }
    if ck.problems.len() > before {
        return None;
    }
    let mut envs = vec![env.clone()];
    for u in 1..users as usize {
        let theta: Vec<f64> = m.iter().map(|row| row[u]).collect();
        // Checked above, channel by channel.
        envs.push(env.with_idle(&theta).ok()?);
    }
    Some(envs)
}

// The message of `UsersOutOfRange` spells the limit out.
const _: () = assert!(MAX_USERS == 1024);

impl Overridable for MultiUserScenario {
    const TAKES_USERS: bool = true;

    /// Applies overrides to the scenario and to each cell of its sweep.
    fn with_overrides(mut self, o: &Overrides) -> Result<MultiUserScenario, OverrideError> {
        if let Some(m) = o.users.filter(|m| !(1..=MAX_USERS).contains(m)) {
            return Err(OverrideError::UsersOutOfRange(m));
        }
        if let Some(sw) = self.sweep.take() {
            let sw = sw.with_overrides(o, Overridable::with_overrides)?;
            self.sweep = Some(Box::new(sw));
        }
        self.header.runs = o.runs.unwrap_or(self.header.runs);
        self.header.seed = o.seed.unwrap_or(self.header.seed);
        if let Some(m) = o.users {
            // Values given per user belong to the file's users: another count needs the file.
            if self.user_theta.is_some() {
                return Err(OverrideError::UsersHavePerUserValues("`user_theta`"));
            }
            if matches!(self.collision, crate::multi::Collision::Capture { .. }) {
                return Err(OverrideError::UsersHavePerUserValues("`Capture` distances"));
            }
            self.users = m as usize;
        }
        if let Some(h) = o.horizon {
            rehorizon(&mut self.env, h)?;
            for env in &mut self.user_envs {
                rehorizon(env, h)?;
            }
            self.header.horizon = h;
        }
        if o.users.is_some() || o.horizon.is_some() {
            self.check_policies_again(if o.users.is_some() {
                "--users"
            } else {
                "--horizon"
            })?;
        }
        Ok(self)
    }
}

impl MultiUserScenario {
    /// The built-in policies' parameter rules for the overridden users and horizon (a policy
    /// may need fewer users than channels, or a phase shorter than the horizon).
    fn check_policies_again(&self, flag: &'static str) -> Result<(), OverrideError> {
        if self.sweep.is_some() {
            // Each cell was checked on its own.
            return Ok(());
        }
        for p in &self.policies {
            if let crate::scenario::multi_user::TeamKind::Builtin(spec) = &p.kind
                && let Some((param, rule)) = spec
                    .check(self.env.len(), self.users, self.header.horizon)
                    .into_iter()
                    .next()
            {
                return Err(OverrideError::PolicyRule {
                    flag,
                    rule: format!("policy `{}`'s `{param}` {rule}", p.label).into(),
                });
            }
        }
        Ok(())
    }
}
