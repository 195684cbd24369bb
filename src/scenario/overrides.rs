//! Overrides of a scenario's runs, horizon, seed and users (the command line's `--runs`,
//! `--horizon`, `--seed`, `--users`, the library's setters, a shard's record): the one place
//! they are checked.

use crate::scenario::{MAX_HORIZON, Scenario};

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
    /// `--users` outside 1..=1024 (the scenarios' own limit, [`crate::scenario::MultiUserScenario`]'s).
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
    /// `--runs` or `--seed` for a scenario that sweeps that field: every cell would get the
    /// one value, silently.
    #[error("--{0}: the scenario sweeps `{0}`; set the values in its `sweep` instead")]
    FieldIsSwept(&'static str),
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

/// How one kind of scenario takes overrides, implemented in the kind's own file (the checks
/// common to every kind are [`Scenario::with_overrides`]'s).
pub(crate) trait Overridable: Sized {
    /// Whether `--users` applies (many-users scenarios).
    const TAKES_USERS: bool = false;
    /// The scenario with the overrides applied, or why they cannot be.
    fn with_overrides(self, o: &Overrides) -> Result<Self, OverrideError>;
}

/// Whether `s`'s kind takes `--users`.
fn takes_users<S: Overridable>(_: &S) -> bool {
    S::TAKES_USERS
}

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
        if o.users.is_some() && !crate::scenario::each_kind!(&self, s => takes_users(s)) {
            return Err(OverrideError::UsersForSingleUser);
        }
        Ok(crate::scenario::map_kind!(self, s => s.with_overrides(o)?))
    }
}

/// Moves `env` to horizon `h`, refusing one longer than a trace that does not wrap.
pub(crate) fn rehorizon(
    env: &mut crate::model::channel::Environment,
    h: u64,
) -> Result<(), OverrideError> {
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
