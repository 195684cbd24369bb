//! `RankOffset(policy: P)`: rhoRand's ranks for cascades. Each user runs the single-user
//! policy P (CC-UCB, say) on its own observations, as Selfish does, and holds a rank
//! `r ∈ {1, …, M}`, drawn uniformly at the start and again after each collision it observes.
//! A user of rank r probes only the entries r, r + M, r + 2M, … of P's list: M users of
//! distinct ranks then probe disjoint interleaved parts of one ranking, which is how the
//! benchmark of disjoint lists shares the channels, and collide only while their rankings
//! disagree. With one user it is exactly P. (A design of this simulator, not a published
//! algorithm: the issue asked for a rank-offset cascade in rhoRand's style.)

use super::{Seen, Team};
use crate::policy::{AnyPolicy, Policy};
use crate::util::rng::SimRng;
use rand::RngExt;

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
