//! `RankOffset(policy: P)`: rhoRand's ranks for cascades. Each user runs the single-user
//! policy P (CC-UCB, say) on its own observations, as Selfish does, and holds a rank
//! `r ∈ {1, …, M}`, drawn uniformly at the start and again after each collision it observes.
//! A user of rank r probes only the entries r, r + M, r + 2M, … of P's list: M users of
//! distinct ranks then probe disjoint interleaved parts of one ranking, which is how the
//! benchmark of disjoint lists shares the channels, and collide only while their rankings
//! disagree. With one user it is exactly P. (A design of this simulator, not a published
//! algorithm: the issue asked for a rank-offset cascade in rhoRand's style.)

use super::{Seen, SelfishSpec, Team, TeamBuiltin};
use crate::model::channel::Environment;
use crate::policy::{AnyPolicy, Policy, PolicySpec};
use crate::util::rng::SimRng;
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// `RankOffset(policy: …)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct RankOffsetSpec(pub SelfishSpec);

impl TeamBuiltin for RankOffsetSpec {
    const SUMMARY: &'static str =
        "cascades: the user of rank r probes entries r, r + M, … of its policy's list";
    type Team = RankOffset;

    fn example() -> Self {
        RankOffsetSpec(SelfishSpec {
            policy: PolicySpec::CcUcb(Default::default()),
        })
    }
    fn label(&self) -> String {
        format!("rank-offset-{}", self.0.policy.default_label())
    }
    fn params_ron(&self) -> String {
        self.0.policy_ron()
    }
    fn sees_costs(&self) -> bool {
        true
    }
    // Users of rank r > 1 skip the head of the list: not one channel each.
    fn is_classic(&self) -> bool {
        false
    }
    fn allows_user_means(&self) -> bool {
        true
    }
    fn check(&self, k: usize, _users: usize, _horizon: u64) -> Vec<(String, String)> {
        self.0.policy_check(k)
    }
    fn ns_per_user_slot(&self, k: u64, _users: u64) -> f64 {
        self.0.ns_per_slot(k)
    }
    fn build(&self, env: &Environment, users: usize, _h: u64, _r: &mut [SimRng]) -> RankOffset {
        RankOffset::new((0..users).map(|_| self.0.policy.build(env)).collect())
    }
}

/// M rank-offset cascade users.
#[derive(Debug)]
pub(crate) struct RankOffset {
    users: Vec<AnyPolicy>,
    rank: Vec<Option<usize>>,
    m: usize,
    full: Vec<usize>,
}

impl RankOffset {
    /// One policy per user.
    pub(crate) fn new(users: Vec<AnyPolicy>) -> RankOffset {
        let m = users.len();
        RankOffset {
            users,
            rank: vec![None; m],
            m,
            full: Vec::new(),
        }
    }
}

impl Team for RankOffset {
    fn plan(&mut self, t: u64, lists: &mut [Vec<usize>], rngs: &mut [SimRng]) {
        let m = self.m;
        for (u, (list, rng)) in lists.iter_mut().zip(rngs).enumerate() {
            // One user: P itself, draws and lazy lists included.
            if m == 1 {
                self.users[u].plan(t, list, rng);
                continue;
            }
            let r = *self.rank[u].get_or_insert_with(|| rng.random_range(0..m));
            let p = &mut self.users[u];
            self.full.clear();
            p.plan(t, &mut self.full, rng);
            while p.extend(&mut self.full) {}
            list.extend(self.full.iter().skip(r).step_by(m));
        }
    }

    fn extend(&mut self, u: usize, list: &mut Vec<usize>) -> bool {
        self.m == 1 && self.users[u].extend(list)
    }

    fn busy(&mut self, u: usize, channel: usize, cost: f64) {
        self.users[u].observe(channel, false, cost);
    }

    fn seen(&mut self, u: usize, seen: &Seen, cost: f64, rng: &mut SimRng) {
        if let Some(c) = seen.transmitted {
            self.users[u].observe(c, seen.ack, cost);
        }
        if seen.collision == Some(true) && self.m > 1 {
            self.rank[u] = Some(rng.random_range(0..self.m));
        }
    }
}
