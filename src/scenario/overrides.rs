//! Overrides of a scenario's runs, horizon, seed and users (the command line's `--runs`,
//! `--horizon`, `--seed`, `--users`, the library's setters, a shard's record): the one place
//! they are checked.

use crate::scenario::sweep::Sweep;
use crate::scenario::{MAX_HORIZON, MultiUserScenario, RegretScenario, Scenario};

/// Overrides of a scenario's number of runs, horizon and seed: the command line's `--runs`,
/// `--horizon`, `--seed`, the library's [`crate::Simulation`] setters, and what a shard's
/// `partial.json` records so that `merge` re-applies them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overrides {
    /// Runs per policy (or per identification cell).
    pub runs: Option<u64>,
    /// Slots per run (regret scenarios only).
    pub horizon: Option<u64>,
    /// Seed of every random stream.
    pub seed: Option<u64>,
    /// Secondary users (many-users scenarios only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub users: Option<u64>,
}

/// An override that cannot apply.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OverrideError {
    /// `--users` or `--horizon` breaks a rule of a policy's parameters (the rules the scenario
    /// check applies, applied again to the new values).
    #[error("{flag}: {rule}")]
    PolicyRule {
        /// The override (`--users` or `--horizon`).
        flag: &'static str,
        /// The policy's label, its parameter and the rule it breaks with the new value.
        rule: Box<str>,
    },
    /// `--horizon` for an identification scenario.
    #[error(
        "--horizon: identification scenarios have no horizon (runs stop when the algorithm does, or at `sample_cap`)"
    )]
    HorizonForIdentification,
    /// `--runs 0`.
    #[error("--runs: must be at least 1 run (got 0)")]
    ZeroRuns,
    /// `--users` for a scenario that is not a many-users one.
    #[error("--users: only many-users (`MultiUser`) scenarios have users")]
    UsersForSingleUser,
    /// `--users` outside 1..=1024 (the scenarios' own limit, [`MultiUserScenario`]'s).
    #[error("--users: must lie in 1..=1024 (got {0})")]
    UsersOutOfRange(u64),
    /// `--users` for a scenario that sweeps the number of users.
    #[error("--users: the scenario sweeps `users`; set the values in its `sweep` instead")]
    UsersAreSwept,
    /// `--users` for a scenario that sets a value per user.
    #[error(
        "--users: the scenario sets {0} for each of its users; change the number of users in the scenario file"
    )]
    UsersHavePerUserValues(&'static str),
    /// `--horizon 0`.
    #[error("--horizon: must be at least 1 slot (got 0)")]
    ZeroHorizon,
    /// `--horizon` beyond 2⁴⁰ slots.
    #[error("--horizon: at most {MAX_HORIZON} slots (2⁴⁰; got {0})")]
    HorizonTooLong(u64),
    /// `--horizon` for a scenario that sweeps the horizon.
    #[error("--horizon: the scenario sweeps `horizon`; set the values in its `sweep` instead")]
    HorizonIsSwept,
    /// `--horizon` longer than a trace that does not wrap.
    #[error(
        "--horizon: {horizon} slots, but channel {channel}'s trace holds {slots} (set `wrap: true` in the scenario or shorten the horizon)"
    )]
    TraceTooShort {
        /// The channel.
        channel: usize,
        /// Its trace's length.
        slots: u64,
        /// The horizon asked for.
        horizon: u64,
    },
    /// `--horizon` reaching so many piecewise boundaries that the benchmark's epochs exceed
    /// their bound.
    #[error(
        "--horizon: the piecewise segments before it start benchmark epochs of {entries} channel entries in all; at most {} are supported",
        crate::model::channel::MAX_EPOCH_ENTRIES
    )]
    TooManyEpochs {
        /// Channels × epochs.
        entries: u64,
    },
    /// `--horizon` reaching so many piecewise epochs that the time-left benchmark's programmes
    /// exceed their budget of work.
    #[error("--horizon: {0}")]
    ProgrammeWork(String),
}

// The message of `UsersOutOfRange` spells the limit out.
const _: () = assert!(crate::scenario::multi_user::MAX_USERS == 1024);

impl Scenario {
    /// Applies overrides of the number of runs, the horizon and the seed; the one place that
    /// checks them (a horizon means nothing to an identification scenario).
    pub fn with_overrides(self, o: &Overrides) -> Result<Scenario, OverrideError> {
        if o.runs == Some(0) {
            return Err(OverrideError::ZeroRuns);
        }
        if o.horizon == Some(0) {
            return Err(OverrideError::ZeroHorizon);
        }
        if let Some(h) = o.horizon.filter(|&h| h > MAX_HORIZON) {
            return Err(OverrideError::HorizonTooLong(h));
        }
        if let Some(m) = o.users {
            if !matches!(self, Scenario::MultiUser(_)) {
                return Err(OverrideError::UsersForSingleUser);
            }
            if !(1..=crate::scenario::multi_user::MAX_USERS).contains(&m) {
                return Err(OverrideError::UsersOutOfRange(m));
            }
        }
        Ok(match self {
            Scenario::Regret(s) => Scenario::Regret(s.with_overrides(o)?),
            Scenario::Sweep(mut s) => {
                s.sweep = s.sweep.with_overrides(o, RegretScenario::with_overrides)?;
                Scenario::Sweep(s)
            }
            Scenario::Identification(s) => {
                if o.horizon.is_some() {
                    return Err(OverrideError::HorizonForIdentification);
                }
                Scenario::Identification(s.try_map_all(&|mut s| {
                    s.runs = o.runs.unwrap_or(s.runs);
                    s.seed = o.seed.unwrap_or(s.seed);
                    Ok::<_, OverrideError>(s)
                })?)
            }
            Scenario::MultiUser(s) => Scenario::MultiUser(s.with_overrides(o)?),
        })
    }
}

impl<S> Sweep<S> {
    /// Applies overrides to every cell (`apply`), refusing one that sets the swept field.
    fn with_overrides(
        self,
        o: &Overrides,
        apply: impl Fn(S, &Overrides) -> Result<S, OverrideError>,
    ) -> Result<Sweep<S>, OverrideError> {
        if o.horizon.is_some() && self.field == "horizon" {
            return Err(OverrideError::HorizonIsSwept);
        }
        if o.users.is_some() && self.field == "users" {
            return Err(OverrideError::UsersAreSwept);
        }
        self.try_map_cells(|c| apply(c, o))
    }
}

impl MultiUserScenario {
    /// Applies overrides to the scenario and to each cell of its sweep.
    fn with_overrides(mut self, o: &Overrides) -> Result<MultiUserScenario, OverrideError> {
        if let Some(sw) = self.sweep.take() {
            let sw = sw.with_overrides(o, MultiUserScenario::with_overrides)?;
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

impl RegretScenario {
    /// Applies overrides (already checked to be non-zero); a horizon longer than a trace that
    /// does not wrap is refused.
    fn with_overrides(mut self, o: &Overrides) -> Result<RegretScenario, OverrideError> {
        self.header.runs = o.runs.unwrap_or(self.header.runs);
        self.header.seed = o.seed.unwrap_or(self.header.seed);
        if let Some(h) = o.horizon {
            self.header.horizon = h;
            for e in &mut self.experiments {
                rehorizon(&mut e.env, h)?;
            }
        }
        Ok(self)
    }
}

/// Moves `env` to horizon `h`, refusing one longer than a trace that does not wrap.
fn rehorizon(env: &mut crate::model::channel::Environment, h: u64) -> Result<(), OverrideError> {
    for (i, ch) in env.channels().iter().enumerate() {
        if let Some(slots) = ch.occupancy().slots()
            && slots < h
        {
            return Err(OverrideError::TraceTooShort {
                channel: i,
                slots,
                horizon: h,
            });
        }
    }
    let k = env.len() as u64;
    let epochs = crate::model::channel::Environment::epoch_entries(
        env.channels().iter().map(|c| c.occupancy()),
        k,
        h,
    );
    if epochs > crate::model::channel::MAX_EPOCH_ENTRIES {
        return Err(OverrideError::TooManyEpochs { entries: epochs });
    }
    if env.time_left().is_some() {
        let count = crate::model::channel::Environment::epoch_count(
            env.channels().iter().map(|c| c.occupancy()),
            h,
        );
        if let Some(rule) = crate::model::time_left::too_much_work(env.len(), count) {
            return Err(OverrideError::ProgrammeWork(rule));
        }
    }
    env.set_horizon(h);
    Ok(())
}
