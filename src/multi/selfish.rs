//! Selfish (Besson & Kaufmann 2018, section 5): every user runs a single-user policy as if it
//! were alone, on its own observations; the channel it transmitted on counts as idle only when
//! the transmission was acknowledged (a collision with another user reads as busy). With one
//! user it is exactly the single-user policy; a built-in cascade policy gives selfish cascades.
//!
//! The built-in policies break ties by channel index and start with the same round-robin, so M
//! copies of one would choose alike forever and always collide. SMPyBandits breaks ties at
//! random; here user `u ≥ 1` sees the channels under a uniform relabelling drawn from its own
//! stream at the start of the run (user 0 sees them as labelled, so that one user is exactly
//! the single-user policy), and with two users or more an index policy (`Ucb1`, `KlUcb`)
//! whose scenario leaves `ties` unset breaks them at random from the user's stream: a
//! relabelling alone still let two users lock on one channel, their indices equal and their
//! labels ordering the tie alike, in 3 runs of 1 000 (K = 6, M = 2) and 23 (M = 4), each lock
//! costing thousands of regret. `ties: LowerChannel` keeps the old rule. Each
//! user's policy is built on the channels as it sees them, so that what it is told of them
//! (the known costs of `CcUcbKnownCost`, a user's policy's mean costs) matches its labels.

use super::{Seen, Team, TeamBuiltin};
use crate::model::channel::Environment;
use crate::policy::{AnyPolicy, Policy, PolicySpec};
use crate::util::rng::SimRng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

/// `Selfish(policy: …)`: every user runs a single-user policy on its own acknowledgements.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SelfishSpec {
    /// The single-user policy each user runs.
    pub policy: PolicySpec,
}

impl SelfishSpec {
    /// One user's slot: its single-user policy's measured cost at `k` channels (Thompson
    /// sampling at 256 channels: 29 µs a user-slot measured, 32 µs from the policy's cost), and
    /// the many-users loop's.
    pub(crate) fn ns_per_slot(&self, k: u64) -> f64 {
        super::USER_SLOT_NS + self.policy.seconds_per_slot(k) * 1e9
    }

    /// `(policy: P)` in scenario syntax.
    pub(crate) fn policy_ron(&self) -> String {
        format!("(policy: {})", self.policy.to_ron())
    }

    /// The single-user policy's broken rules, as `policy.<param>`.
    pub(crate) fn policy_check(&self, k: usize) -> Vec<(String, String)> {
        self.policy
            .check(k)
            .into_iter()
            .map(|e| (format!("policy.{}", e.param), e.rule))
            .collect()
    }
}

impl TeamBuiltin for SelfishSpec {
    const SUMMARY: &'static str =
        "each user runs a single-user built-in (cascades too) on its acknowledgements";
    type Team = Selfish;

    fn example() -> Self {
        SelfishSpec {
            policy: PolicySpec::Ucb1(Default::default()),
        }
    }
    fn label(&self) -> String {
        format!("selfish-{}", self.policy.default_label())
    }
    fn params_ron(&self) -> String {
        self.policy_ron()
    }
    fn is_classic(&self) -> bool {
        self.policy.single_channel()
    }
    fn allows_user_means(&self) -> bool {
        true
    }
    fn sees_costs(&self) -> bool {
        !self.policy.learns_idle_only()
    }
    fn check(&self, k: usize, _users: usize, _horizon: u64) -> Vec<(String, String)> {
        self.policy_check(k)
    }
    fn ns_per_user_slot(&self, k: u64, _users: u64) -> f64 {
        self.ns_per_slot(k)
    }
    fn build(&self, env: &Environment, users: usize, _h: u64, rngs: &mut [SimRng]) -> Selfish {
        // Alone, a user is exactly the single-user policy; among others, its index breaks
        // the ties the scenario leaves open at random (`Builtin::among_users`).
        let policy = if users > 1 {
            self.policy.among_users()
        } else {
            self.policy.clone()
        };
        Selfish::new(env, rngs, &|e, _| policy.build(e))
    }
}

/// M single-user policies.
#[derive(Debug)]
pub(crate) struct Selfish {
    users: Vec<AnyPolicy>,
    /// Per user, its label of each channel and back (`None`: user 0, who sees them as labelled).
    labels: Vec<Option<(Vec<usize>, Vec<usize>)>>,
}

impl Selfish {
    /// One policy per user, `build(channels as user u sees them, u)`; user `u ≥ 1` draws its
    /// relabelling first from its stream `rngs[u]`.
    pub(crate) fn new(
        env: &Environment,
        rngs: &mut [SimRng],
        build: &dyn Fn(&Environment, usize) -> AnyPolicy,
    ) -> Selfish {
        let k = env.len();
        let mut users = Vec::with_capacity(rngs.len());
        let mut labels = Vec::with_capacity(rngs.len());
        for (u, rng) in rngs.iter_mut().enumerate() {
            if u == 0 {
                users.push(build(env, u));
                labels.push(None);
                continue;
            }
            let mut to: Vec<usize> = (0..k).collect();
            to.shuffle(rng);
            let mut back = vec![0; k];
            for (mine, &c) in to.iter().enumerate() {
                back[c] = mine;
            }
            users.push(build(&env.relabelled(&to), u));
            labels.push(Some((to, back)));
        }
        Selfish { users, labels }
    }

    /// Channel `c` as user `u`'s policy knows it.
    fn theirs(&self, u: usize, c: usize) -> usize {
        self.labels[u].as_ref().map_or(c, |(_, back)| back[c])
    }

    /// Maps user `u`'s entries `from..` of `list` to channels.
    fn ours(&self, u: usize, list: &mut [usize], from: usize) {
        if let Some((to, _)) = &self.labels[u] {
            for c in &mut list[from..] {
                *c = to[*c];
            }
        }
    }
}

impl Team for Selfish {
    fn plan(&mut self, t: u64, lists: &mut [Vec<usize>], rngs: &mut [SimRng]) {
        for (u, (list, rng)) in lists.iter_mut().zip(rngs).enumerate() {
            self.users[u].plan(t, list, rng);
            self.ours(u, list, 0);
        }
    }

    fn extend(&mut self, u: usize, list: &mut Vec<usize>) -> bool {
        let from = list.len();
        let more = self.users[u].extend(list);
        self.ours(u, list, from);
        more
    }

    fn busy(&mut self, u: usize, channel: usize, cost: f64) {
        let c = self.theirs(u, channel);
        self.users[u].observe(c, false, cost);
    }

    fn seen(&mut self, u: usize, seen: &Seen, cost: f64, _rng: &mut SimRng) {
        if let Some(c) = seen.transmitted {
            let c = self.theirs(u, c);
            self.users[u].observe(c, seen.ack, cost);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::channel::Channel;
    use crate::model::cost::CostModel;
    use crate::model::law::{Law, LawSpec};
    use crate::policy::PolicySpec;
    use std::cell::RefCell;

    /// Each user's policy is built on the channels as that user labels them: what it is told of
    /// channel i (its cost) is that of the channel its label i stands for.
    #[test]
    fn each_user_is_told_of_the_channels_under_its_own_labels() {
        let env = Environment::new(
            [0.1, 0.2, 0.3, 0.4, 0.5]
                .iter()
                .enumerate()
                .map(|(i, &c)| {
                    Channel::new(
                        0.5 + 0.1 * i as f64,
                        CostModel::Plain(Law::new(&LawSpec::Constant(c)).unwrap()),
                    )
                })
                .collect(),
        );
        let mut rngs: Vec<SimRng> = (0..3).map(|u| crate::util::rng::stream(4, u, 0)).collect();
        let told = RefCell::new(Vec::new());
        let team = Selfish::new(&env, &mut rngs, &|seen_as, _u| {
            told.borrow_mut().push(seen_as.mean_cost().to_vec());
            PolicySpec::CcUcbKnownCost(Default::default()).build(seen_as)
        });
        let told = told.into_inner();
        assert_eq!(told[0], env.mean_cost());
        for (u, told) in told.iter().enumerate().skip(1) {
            let (to, _) = team.labels[u].as_ref().unwrap();
            for (mine, &c) in to.iter().enumerate() {
                assert_eq!(told[mine], env.mean_cost()[c], "user {u}, label {mine}");
                assert_eq!(team.theirs(u, c), mine);
            }
        }
    }
}
