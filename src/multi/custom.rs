//! A user's own many-users policy: a [`Team`] built by a factory for every run
//! ([`CustomTeam`]), and the check of its lists where they enter the engine ([`CheckedTeam`]).

use super::{Seen, Team};
use crate::model::channel::Environment;
use crate::policy::{ListFault, ListFaults, beyond_one_channel, first_offence};
use crate::util::cancel::Cancel;
use crate::util::rng::SimRng;
use std::sync::Arc;

/// Builds a team for one run: `(channels, users, horizon)`.
pub type TeamFactory = Arc<dyn Fn(&Environment, usize, u64) -> Box<dyn Team> + Send + Sync>;

/// A many-users policy written outside specprobe, added to a `MultiUser` scenario with
/// [`crate::Simulation::custom_team`]. Its factory builds a fresh [`Team`] for every run, on
/// any worker thread.
///
/// A team whose users list one channel each declares it with [`CustomTeam::one_channel`] and
/// is then measured as the built-in one-channel teams are (pseudo-regret, decomposition,
/// lower bounds), leaving their benchmark unchanged. Undeclared, it may list cascades: the
/// scenario is then measured against the cascade benchmark, with the realised regret (and the
/// pseudo-regret with one user).
///
/// ```
/// use specprobe::{CustomTeam, Seen, SimRng, Team};
///
/// /// Every user transmits on channel (its index mod K), forever.
/// struct Fixed {
///     k: usize,
/// }
///
/// impl Team for Fixed {
///     fn plan(&mut self, _t: u64, lists: &mut [Vec<usize>], _rngs: &mut [SimRng]) {
///         for (u, list) in lists.iter_mut().enumerate() {
///             list.push(u % self.k);
///         }
///     }
///     fn seen(&mut self, _u: usize, _seen: &Seen, _cost: f64, _rng: &mut SimRng) {}
/// }
///
/// let team = CustomTeam::new("Fixed", |env, _users, _horizon| Fixed { k: env.len() });
/// # let _ = team;
/// ```
#[derive(Clone)]
pub struct CustomTeam {
    description: String,
    factory: Option<TeamFactory>,
    /// Declared: every user lists at most one channel a slot (see [`CustomTeam::one_channel`]).
    one_channel: bool,
}

impl std::fmt::Debug for CustomTeam {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CustomTeam")
            .field("description", &self.description)
            .field("runnable", &self.factory.is_some())
            .field("one_channel", &self.one_channel)
            .finish()
    }
}

impl CustomTeam {
    /// A team built by `factory(channels, users, horizon)` for every run; `description`
    /// appears as its `policy` in `summary.json` and the report.
    pub fn new<T, F>(description: impl Into<String>, factory: F) -> CustomTeam
    where
        T: Team + 'static,
        F: Fn(&Environment, usize, u64) -> T + Send + Sync + 'static,
    {
        CustomTeam {
            description: description.into(),
            factory: Some(Arc::new(move |env: &Environment, users, horizon| {
                Box::new(factory(env, users, horizon)) as Box<dyn Team>
            })),
            one_channel: false,
        }
    }

    /// A team from a factory that already boxes (for bindings to other languages).
    pub fn from_factory(description: impl Into<String>, factory: TeamFactory) -> CustomTeam {
        CustomTeam {
            description: description.into(),
            factory: Some(factory),
            one_channel: false,
        }
    }

    /// A team known by its description only (rebuilt from partial results to merge them).
    pub(crate) fn placeholder(description: impl Into<String>, one_channel: bool) -> CustomTeam {
        CustomTeam {
            description: description.into(),
            factory: None,
            one_channel,
        }
    }

    /// Declares that every user lists at most one channel a slot (the classic multi-player
    /// bandit). The team is then measured as the built-in one-channel teams are: the M best
    /// channels as the benchmark, the pseudo-regret, its decomposition and the lower bounds;
    /// adding it changes nothing about the others. Every list is checked: a longer one stops
    /// the run with a [`crate::ListFault`] naming the team, the user and the slot. Without
    /// the declaration a team may list cascades, and the scenario's teams are then all
    /// measured against the cascade benchmark (disjoint UCR-T1 lists).
    pub fn one_channel(mut self) -> CustomTeam {
        self.one_channel = true;
        self
    }

    /// Whether it is declared to list at most one channel per user and slot.
    pub fn lists_one_channel(&self) -> bool {
        self.one_channel
    }

    /// What the outputs call it.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Whether it can be simulated (a placeholder cannot).
    pub(crate) fn runnable(&self) -> bool {
        self.factory.is_some()
    }

    /// The team of one run, if runnable.
    pub(crate) fn build(
        &self,
        env: &Environment,
        users: usize,
        horizon: u64,
    ) -> Option<Box<dyn Team>> {
        self.factory.as_ref().map(|f| f(env, users, horizon))
    }
}

/// A boxed team is a team.
impl<T: Team + ?Sized> Team for Box<T> {
    fn plan(&mut self, t: u64, lists: &mut [Vec<usize>], rngs: &mut [SimRng]) {
        (**self).plan(t, lists, rngs);
    }
    fn extend(&mut self, u: usize, list: &mut Vec<usize>) -> bool {
        (**self).extend(u, list)
    }
    fn busy(&mut self, u: usize, channel: usize, cost: f64) {
        (**self).busy(u, channel, cost);
    }
    fn seen(&mut self, u: usize, seen: &Seen, cost: f64, rng: &mut SimRng) {
        (**self).seen(u, seen, cost, rng);
    }
}

/// A user's team whose lists are checked (the rule of [`Team::plan`]): the first list that
/// breaks it is recorded with the policy's label, the user, the slot and the list, the run is
/// cancelled and the team is asked for nothing more.
pub(crate) struct CheckedTeam {
    inner: Box<dyn Team>,
    label: String,
    /// Declared: at most one channel per user and slot.
    one_channel: bool,
    /// Per user and channel, the last slot it was listed in (0: never).
    listed_in: Vec<u64>,
    k: usize,
    slot: u64,
    failed: bool,
    faults: ListFaults,
    cancel: Cancel,
}

impl std::fmt::Debug for CheckedTeam {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckedTeam")
            .field("label", &self.label)
            .finish()
    }
}

impl CheckedTeam {
    /// `inner`, labelled `label`, for `users` users on `k` channels.
    pub(crate) fn new(
        inner: Box<dyn Team>,
        label: &str,
        k: usize,
        users: usize,
        one_channel: bool,
        faults: ListFaults,
        cancel: Cancel,
    ) -> CheckedTeam {
        CheckedTeam {
            inner,
            label: label.to_string(),
            one_channel,
            listed_in: vec![0; k * users],
            k,
            slot: 0,
            failed: false,
            faults,
            cancel,
        }
    }

    /// Checks user `u`'s `list[from..]`; on the first offending entry records the fault, keeps
    /// the valid prefix and stops the team.
    fn check(&mut self, u: usize, list: &mut Vec<usize>, from: usize) {
        let k = self.k;
        let listed_in = &mut self.listed_in[u * k..(u + 1) * k];
        let fault = first_offence(listed_in, self.slot, list, from)
            .map(|j| (j, false))
            .or_else(|| beyond_one_channel(self.one_channel, list).map(|j| (j, true)));
        if let Some((j, one_channel)) = fault {
            self.faults.record(
                ListFault {
                    label: format!("{} (user {u})", self.label),
                    slot: self.slot,
                    list: list[..=j].to_vec(),
                    channels: k,
                    one_channel,
                },
                &self.cancel,
            );
            self.failed = true;
            list.truncate(j);
        }
    }
}

impl Team for CheckedTeam {
    fn plan(&mut self, t: u64, lists: &mut [Vec<usize>], rngs: &mut [SimRng]) {
        self.slot = t;
        if self.failed {
            return;
        }
        self.inner.plan(t, lists, rngs);
        for (u, list) in lists.iter_mut().enumerate() {
            if self.failed {
                list.clear();
            } else {
                self.check(u, list, 0);
            }
        }
    }

    fn extend(&mut self, u: usize, list: &mut Vec<usize>) -> bool {
        // A one-channel team's lists are complete after `plan` (as a built-in one's are).
        if self.failed || self.one_channel {
            return false;
        }
        let from = list.len();
        let more = self.inner.extend(u, list);
        self.check(u, list, from);
        more && !self.failed
    }

    fn busy(&mut self, u: usize, channel: usize, cost: f64) {
        if !self.failed {
            self.inner.busy(u, channel, cost);
        }
    }

    fn seen(&mut self, u: usize, seen: &Seen, cost: f64, rng: &mut SimRng) {
        if !self.failed {
            self.inner.seen(u, seen, cost, rng);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// User 1 lists channel 0 twice at slot 3.
    struct Bad;

    impl Team for Bad {
        fn plan(&mut self, t: u64, lists: &mut [Vec<usize>], _rngs: &mut [SimRng]) {
            lists[0].push(0);
            lists[1].push(1);
            if t == 3 {
                lists[1].push(1);
            }
        }
        fn seen(&mut self, _u: usize, _seen: &Seen, _cost: f64, _rng: &mut SimRng) {}
    }

    /// The fault names the policy, the user, the slot and the list; the team then lists nothing.
    #[test]
    fn a_duplicate_is_a_fault_naming_the_user_and_slot() {
        let faults = ListFaults::default();
        let cancel = Cancel::new();
        let mut team = CheckedTeam::new(
            Box::new(Bad),
            "mine",
            2,
            2,
            false,
            faults.clone(),
            cancel.clone(),
        );
        let mut rngs: Vec<SimRng> = (0..2).map(|u| crate::util::rng::stream(1, u, 0)).collect();
        let mut lists = vec![Vec::new(); 2];
        for t in 1..=4 {
            lists.iter_mut().for_each(Vec::clear);
            team.plan(t, &mut lists, &mut rngs);
            if t < 3 {
                assert_eq!(lists, vec![vec![0], vec![1]]);
            }
        }
        assert!(lists.iter().all(Vec::is_empty));
        assert!(cancel.is_cancelled());
        let fault = faults.take().expect("a fault");
        assert_eq!(
            fault.to_string(),
            "policy \"mine (user 1)\" at slot 3 listed [1, 1]: channels must be distinct indices below 2"
        );
    }
}
