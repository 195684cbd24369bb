//! `McTopMCascade(policy: P)`: MCTopM's chairs (Besson & Kaufmann 2018, Algorithm 2) for
//! cascades. Each user runs the single-user policy P (CC-UCB, say) on its own observations, as
//! Selfish does; its estimated set `M̂` is the prefix of P's list of length `min(M, |list|)`,
//! the channels the M users' lists should start with. The user keeps a chair `A`, a channel of
//! that prefix, and a flag `s` (seated), and before each slot, as MCTopM does:
//!
//! - if `A ∉ M̂` it moves to a uniform channel of `M̂` that ranked no better than `A` in its
//!   previous slot's list (the cascade's `g_m(t−1) ≤ g_A(t−1)`; a channel absent from that list
//!   ranked below every entry), or of `M̂` should there be none, and stands up;
//! - if it observed a collision while standing, it moves to a uniform channel of `M̂`;
//! - otherwise it stays, and sits once it has seen its chair's collision indicator say none
//!   (its last channel was the chair: under `SensingThenCollision`, it transmitted there).
//!
//! Only the chair's indicator counts, as in MCTopM: sitting after a success further down the
//! slice would seat two users on one chair for good whenever it was busy.
//!
//! A user whose chair is at position p of P's list probes `A` first and then P's entries
//! p + M, p + 2M, … (rank-offset's interleaving, see `RankOffset`): M seated users on distinct
//! chairs probe disjoint slices of one ranking, as the disjoint-lists benchmark does, and a
//! seated user ignores the collisions that carrier sensing and other users' exploration cause.
//! The first chair is uniform on `M̂` (MCTopM draws it on all K channels; a cascade's first
//! list already knows which channels are worth probing). An empty list probes nothing and
//! keeps the chair. One user: exactly P, lazy lists included. (A design of this simulator
//! after MCTopM, not a published algorithm; the issue asked for an MCTopM-style cascade.)

use super::{Seen, SelfishSpec, Team, TeamBuiltin};
use crate::model::channel::Environment;
use crate::policy::{AnyPolicy, Policy, PolicySpec};
use crate::util::rng::SimRng;
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// `McTopMCascade(policy: …)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct McTopMCascadeSpec(pub SelfishSpec);

impl TeamBuiltin for McTopMCascadeSpec {
    const SUMMARY: &'static str =
        "cascades: MCTopM's chairs on a channel of the list's M-prefix, then its slice";
    type Team = McTopMCascade;

    fn example() -> Self {
        McTopMCascadeSpec(SelfishSpec {
            policy: PolicySpec::CcUcb(Default::default()),
        })
    }
    fn label(&self) -> String {
        format!("mctopm-cascade-{}", self.0.policy.default_label())
    }
    fn params_ron(&self) -> String {
        self.0.policy_ron()
    }
    fn sees_costs(&self) -> bool {
        true
    }
    // Users probe slices of a list: not one channel each.
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
    fn build(&self, env: &Environment, users: usize, _h: u64, _r: &mut [SimRng]) -> McTopMCascade {
        McTopMCascade::new((0..users).map(|_| self.0.policy.build(env)).collect())
    }
}

/// M MCTopM-style cascade users.
#[derive(Debug)]
pub(crate) struct McTopMCascade {
    users: Vec<AnyPolicy>,
    m: usize,
    chair: Vec<Option<usize>>,
    seated: Vec<bool>,
    /// What each user learnt of a collision on its chair last slot (`None`: not observed).
    collided: Vec<Option<bool>>,
    /// Each user's full list of the previous slot.
    previous: Vec<Vec<usize>>,
    full: Vec<usize>,
    candidates: Vec<usize>,
}

impl McTopMCascade {
    /// One policy per user.
    pub(crate) fn new(users: Vec<AnyPolicy>) -> McTopMCascade {
        let m = users.len();
        McTopMCascade {
            users,
            m,
            chair: vec![None; m],
            seated: vec![false; m],
            collided: vec![None; m],
            previous: vec![Vec::new(); m],
            full: Vec::new(),
            candidates: Vec::new(),
        }
    }

    /// User `u`'s chair for this slot, given P's full list in `self.full` (non-empty).
    fn choose(&mut self, u: usize, rng: &mut SimRng) -> usize {
        let prefix = &self.full[..self.m.min(self.full.len())];
        let uniform = |set: &[usize], rng: &mut SimRng| set[rng.random_range(0..set.len())];
        let Some(a) = self.chair[u] else {
            return uniform(prefix, rng);
        };
        let observed = self.collided[u];
        let in_prefix = prefix.contains(&a);
        if in_prefix && (observed != Some(true) || self.seated[u]) {
            if observed.is_some() {
                self.seated[u] = true;
            }
            return a;
        }
        self.seated[u] = false;
        if in_prefix {
            return uniform(prefix, rng);
        }
        let previous = &self.previous[u];
        let rank = |c: usize| previous.iter().position(|&x| x == c).unwrap_or(usize::MAX);
        let ra = rank(a);
        self.candidates.clear();
        self.candidates
            .extend(prefix.iter().copied().filter(|&c| rank(c) >= ra));
        if self.candidates.is_empty() {
            uniform(prefix, rng)
        } else {
            uniform(&self.candidates, rng)
        }
    }
}

impl Team for McTopMCascade {
    fn plan(&mut self, t: u64, lists: &mut [Vec<usize>], rngs: &mut [SimRng]) {
        let m = self.m;
        for (u, (list, rng)) in lists.iter_mut().zip(rngs).enumerate() {
            if m == 1 {
                self.users[u].plan(t, list, rng);
                continue;
            }
            let p = &mut self.users[u];
            self.full.clear();
            p.plan(t, &mut self.full, rng);
            while p.extend(&mut self.full) {}
            if !self.full.is_empty() {
                let a = self.choose(u, rng);
                self.chair[u] = Some(a);
                let at = self.full.iter().position(|&c| c == a).unwrap_or(0);
                list.push(a);
                list.extend(self.full.iter().skip(at + m).step_by(m));
            }
            self.previous[u].clone_from(&self.full);
        }
    }

    fn extend(&mut self, u: usize, list: &mut Vec<usize>) -> bool {
        self.m == 1 && self.users[u].extend(list)
    }

    fn busy(&mut self, u: usize, channel: usize, cost: f64) {
        self.users[u].observe(channel, false, cost);
    }

    fn seen(&mut self, u: usize, seen: &Seen, cost: f64, _rng: &mut SimRng) {
        if let Some(c) = seen.transmitted {
            self.users[u].observe(c, seen.ack, cost);
        }
        // MCTopM's collision indicator is its chair's: a collision further down the slice, or
        // a success there, says nothing about whether another user sits on the same chair.
        self.collided[u] = if seen.last.is_some() && seen.last == self.chair[u] {
            seen.collision
        } else {
            None
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::channel::{Channel, Environment};
    use crate::model::cost::CostModel;
    use crate::model::law::{Law, LawSpec};
    use crate::policy::PolicySpec;

    fn team(users: usize) -> McTopMCascade {
        let env = Environment::new(
            [0.9, 0.8, 0.7, 0.2]
                .iter()
                .map(|&th| {
                    Channel::new(
                        th,
                        CostModel::Plain(Law::new(&LawSpec::Constant(0.1)).unwrap()),
                    )
                })
                .collect(),
        );
        let spec = PolicySpec::CcUcb(Default::default());
        McTopMCascade::new((0..users).map(|_| spec.build(&env)).collect())
    }

    /// A seated user keeps its chair through a collision; a standing one moves within the
    /// prefix; a chair that left the prefix moves to a channel of the prefix.
    #[test]
    fn chairs_follow_mctopm() {
        let mut t = team(2);
        let mut rng = crate::util::rng::stream(3, 0, 0);
        t.full = vec![2, 0, 1, 3];
        t.previous[0] = vec![2, 0, 1, 3];
        t.chair[0] = Some(0);
        t.seated[0] = true;
        t.collided[0] = Some(true);
        for _ in 0..20 {
            assert_eq!(t.choose(0, &mut rng), 0);
        }
        let mut moved = false;
        for _ in 0..40 {
            t.seated[0] = false;
            t.collided[0] = Some(true);
            let c = t.choose(0, &mut rng);
            assert!(c == 2 || c == 0, "{c}");
            moved |= c == 2;
        }
        assert!(moved);
        // Chair 1 left the prefix {2, 0}; last slot it ranked second, 2 and 0 below it: the
        // move is uniform on both.
        t.previous[0] = vec![3, 1, 2, 0];
        let mut got = std::collections::BTreeSet::new();
        for _ in 0..40 {
            t.chair[0] = Some(1);
            t.collided[0] = Some(false);
            got.insert(t.choose(0, &mut rng));
            assert!(!t.seated[0]);
        }
        assert_eq!(got.into_iter().collect::<Vec<_>>(), vec![0, 2]);
        // Chair 2 left the prefix {0, 1}; last slot 0 ranked above it and 1 below: 1 only.
        t.full = vec![0, 1, 3, 2];
        t.previous[0] = vec![0, 2, 1, 3];
        for _ in 0..20 {
            t.chair[0] = Some(2);
            assert_eq!(t.choose(0, &mut rng), 1);
        }
    }

    /// Two seated users on distinct chairs probe disjoint interleaved slices of one ranking.
    #[test]
    fn seated_users_probe_disjoint_slices() {
        let mut t = team(2);
        let mut rngs: Vec<SimRng> = (0..2).map(|u| crate::util::rng::stream(5, u, 0)).collect();
        let mut lists = vec![Vec::new(); 2];
        // Both users' CC-UCB get the same feedback, so their rankings agree.
        for slot in 1..=300u64 {
            lists.iter_mut().for_each(Vec::clear);
            t.plan(slot, &mut lists, &mut rngs);
            for (u, rng) in rngs.iter_mut().enumerate() {
                let c = t.previous[0].first().copied();
                let s = Seen {
                    transmitted: c,
                    last: c,
                    sample: true,
                    collision: Some(false),
                    ack: true,
                };
                t.seen(u, &s, 0.1, rng);
            }
        }
        lists.iter_mut().for_each(Vec::clear);
        t.plan(301, &mut lists, &mut rngs);
        assert_eq!(t.previous[0], t.previous[1]);
        let full = t.previous[0].clone();
        assert!(full.len() >= 3, "{full:?}");
        t.chair = vec![Some(full[0]), Some(full[1])];
        t.seated = vec![true, true];
        lists.iter_mut().for_each(Vec::clear);
        t.plan(301, &mut lists, &mut rngs);
        assert_eq!(lists[0][0], full[0]);
        assert_eq!(lists[1][0], full[1]);
        for &c in &lists[0] {
            assert!(!lists[1].contains(&c), "{lists:?}");
        }
    }
}
