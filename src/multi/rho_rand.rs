//! rhoRand (Anandkumar, Michael, Tang & Swami, JSAC 2011): user `u` holds a rank
//! `r_u ∈ {1, …, M}` and transmits on the channel of rank `r_u` by its own index; after a
//! collision it draws a new rank uniformly. The first rank is drawn uniformly too (as
//! SMPyBandits' `rhoRand` and Besson & Kaufmann describe it); equal indices are ordered at
//! random from the user's stream unless `ties` says otherwise. With more users than channels a
//! rank above K aims at the channel of rank `((r − 1) mod K) + 1`. Under SMPyBandits'
//! convention the index counts time in the user's samples and equal indices are ordered at
//! random (`choiceWithRank`: uniform among the channels whose index equals the r-th largest).

use super::index::{IndexSpec, Indices};
use super::{Seen, Team, TeamBuiltin};
use crate::model::channel::Environment;
use crate::util::rng::SimRng;
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// `RhoRand(index: …, …)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct RhoRandSpec(pub IndexSpec);

impl TeamBuiltin for RhoRandSpec {
    const SUMMARY: &'static str =
        "rhoRand: the channel of one's rank, a new rank after a collision";
    type Team = RhoRand;
    fn sees_costs(&self) -> bool {
        self.0.sees_costs()
    }

    fn example() -> Self {
        RhoRandSpec::default()
    }
    fn label(&self) -> String {
        format!("rhorand-{}", self.0.label())
    }
    fn is_classic(&self) -> bool {
        true
    }
    fn ns_per_user_slot(&self, k: u64, _users: u64) -> f64 {
        self.0.ns_per_slot(k)
    }
    fn build(&self, env: &Environment, users: usize, _h: u64, _r: &mut [SimRng]) -> RhoRand {
        RhoRand::new(env.len(), users, self.0, env.horizon())
    }
}

/// M rhoRand users.
#[derive(Clone, Debug)]
pub(crate) struct RhoRand {
    ix: Vec<Indices>,
    /// The index and what it averages (each sample: [`IndexSpec::sample`]).
    spec: IndexSpec,
    /// Each user's rank minus one (`None` before its first draw).
    rank: Vec<Option<usize>>,
    m: usize,
    best: Vec<usize>,
    /// Each user's channel of last slot.
    aim: Vec<Option<usize>>,
}

impl RhoRand {
    /// `k` channels, `users` users.
    pub(crate) fn new(k: usize, users: usize, spec: IndexSpec, horizon: u64) -> RhoRand {
        RhoRand {
            spec,
            ix: (0..users)
                .map(|_| Indices::new(k, spec.index, spec.rules(horizon)))
                .collect(),
            rank: vec![None; users],
            m: users,
            best: Vec::with_capacity(k),
            aim: vec![None; users],
        }
    }
}

impl Team for RhoRand {
    fn plan(&mut self, t: u64, lists: &mut [Vec<usize>], rngs: &mut [SimRng]) {
        for (u, list) in lists.iter_mut().enumerate() {
            let m = self.m;
            let rank = *self.rank[u].get_or_insert_with(|| rngs[u].random_range(0..m));
            let ix = &mut self.ix[u];
            ix.start(t, &mut rngs[u]);
            let k = ix.len();
            let r = rank % m.min(k);
            // Last slot's channel when it still has rank r (comparisons only), else the full
            // ranking.
            let c = match self.aim[u] {
                Some(c) if ix.count_above(c, r + 1) == r => c,
                _ => {
                    ix.top(r + 1, &mut self.best);
                    self.best[r]
                }
            };
            self.aim[u] = Some(c);
            list.push(c);
        }
    }

    fn seen(&mut self, u: usize, seen: &Seen, cost: f64, rng: &mut SimRng) {
        if let Some(c) = seen.last {
            self.ix[u].add(c, self.spec.sample(seen.sample, cost));
        }
        if seen.collision == Some(true) {
            self.rank[u] = Some(rng.random_range(0..self.m));
        }
    }
}
