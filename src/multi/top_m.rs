//! RandTopM and MCTopM (Besson & Kaufmann, "Multi-Player Bandits Revisited", ALT 2018,
//! Algorithms 1 and 2). User `j` keeps a chosen channel `A^j` and its estimated set `M̂^j(t)` of
//! the M channels of largest index (ties at random from the user's stream, unless `ties` says
//! otherwise: [`IndexSpec::rules`]). The first channel is drawn
//! uniformly among all K. Then, before each slot:
//!
//! RandTopM: if `A^j ∉ M̂^j(t)`, it moves to a uniform channel of `M̂^j(t)` after a collision,
//! otherwise to a uniform channel of `M̂^j(t) ∩ {m : g_m(t−1) ≤ g_{A^j}(t−1)}` (the channels that
//! looked no better than `A^j` last slot); if `A^j ∈ M̂^j(t)` it moves to a uniform channel of
//! `M̂^j(t)` after a collision and stays otherwise.
//!
//! MCTopM adds a chair `s^j`: if `A^j ∉ M̂^j(t)` it moves as RandTopM does without a collision
//! and stands up (`s = false`); if it collided while standing, it moves to a uniform channel of
//! `M̂^j(t)`; otherwise it stays and sits (`s = true`), so that a seated user ignores
//! collisions. Under `SensingThenCollision` a user learns of a collision only when it
//! transmitted: a slot in which it sensed its channel busy tells it nothing, so it then stays
//! without sitting down (sitting on no information would seat two users on one channel for
//! good); a collision not observed counts as none (the paper's `C^j(t) = 0`). The intersection is never empty in the paper's analysis; should it be (ties of
//! infinite indices), the move is uniform on `M̂^j(t)`.
//!
//! `convention: SMPyBandits` follows SMPyBandits 0.9.7's `oneRandTopM` instead, which differs
//! from the paper's algorithms in three places besides the index's clock
//! ([`crate::policy::Rules`]) and ties. Its M best are the last M of `np.argsort(index)`:
//! numpy's baseline sort keeps equal values in index order, so among equal indices the higher
//! channel ranks higher (`Ties::HigherChannel`; numpy's SIMD sorts on AVX2 and AVX-512
//! machines, since numpy 1.25, order them otherwise and data-dependently, which moves MCTopM's
//! regret: the cross-check script runs SMPyBandits with the baseline sort). The differences:
//! - *Start*: the user's first K slots play its index policy's own choice, the channel of
//!   largest index with ties at random: every channel once, in a uniform order (the unsampled
//!   ones have an infinite index), whatever the collisions; the paper draws one uniform channel
//!   and starts its rules at once. The last of those K slots counts: a transmission there
//!   without collision seats an MCTopM user.
//! - *A collision while standing* moves the user at once to a uniform channel of `M̂^j(t)`
//!   (`handleCollision`), even when `A^j` has left `M̂^j(t)`, where the paper moves it within the
//!   channels that looked no better than `A^j` (for RandTopM the two agree).
//! - *Sitting*: an MCTopM user sits after every transmission seen without collision
//!   (`getReward`), then stands again before the next slot if its channel has left
//!   `M̂^j(t)`; the paper's user sits when it stays. The slots in which they differ end with
//!   the same chair.
//!
//! A slot without collision information (a channel sensed busy under `SensingThenCollision`,
//! a model SMPyBandits does not have) leaves the chair as it was under both conventions.

use super::index::{IndexSpec, Indices};
#[cfg(test)]
use super::top;
use super::{Seen, Team, TeamBuiltin};
use crate::model::channel::Environment;
use crate::policy::{Convention, Ties};
use crate::util::rng::SimRng;
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// `RandTopM(index: …, …)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct RandTopMSpec(pub IndexSpec);

/// `McTopM(index: …, …)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct McTopMSpec(pub IndexSpec);

impl TeamBuiltin for RandTopMSpec {
    const SUMMARY: &'static str = "RandTopM: stay in one's M best, move after a collision";
    type Team = TopM;
    fn sees_costs(&self) -> bool {
        self.0.sees_costs()
    }

    fn example() -> Self {
        RandTopMSpec::default()
    }
    fn label(&self) -> String {
        format!("randtopm-{}", self.0.label())
    }
    fn is_classic(&self) -> bool {
        true
    }
    fn ns_per_user_slot(&self, k: u64, _users: u64) -> f64 {
        self.0.ns_per_slot(k)
    }
    fn build(&self, env: &Environment, users: usize, _h: u64, _r: &mut [SimRng]) -> TopM {
        TopM::new(env.len(), users, self.0, false, env.horizon())
    }
}

impl TeamBuiltin for McTopMSpec {
    const SUMMARY: &'static str =
        "MCTopM: RandTopM with a chair (a seated user ignores collisions)";
    type Team = TopM;
    fn sees_costs(&self) -> bool {
        self.0.sees_costs()
    }

    fn example() -> Self {
        McTopMSpec::default()
    }
    fn label(&self) -> String {
        format!("mctopm-{}", self.0.label())
    }
    fn is_classic(&self) -> bool {
        true
    }
    fn ns_per_user_slot(&self, k: u64, _users: u64) -> f64 {
        self.0.ns_per_slot(k)
    }
    fn build(&self, env: &Environment, users: usize, _h: u64, _r: &mut [SimRng]) -> TopM {
        TopM::new(env.len(), users, self.0, true, env.horizon())
    }
}

/// M RandTopM or MCTopM users.
#[derive(Clone, Debug)]
pub(crate) struct TopM {
    ix: Vec<Indices>,
    /// The index and what it averages (each sample: [`IndexSpec::sample`]).
    spec: IndexSpec,
    /// Each user's samples of its channel before last slot's sample (for `g(t − 1)`).
    before: Vec<(u64, f64)>,
    /// Each user's clock at its previous slot (the `t − 1` of `g(t − 1)`).
    clock_before: Vec<u64>,
    chosen: Vec<Option<usize>>,
    /// What each user learnt of a collision last slot (`None`: not observed).
    collided: Vec<Option<bool>>,
    seated: Vec<bool>,
    /// Slots each user has planned (SMPyBandits' convention starts with K slots of its index
    /// policy's own choice).
    plans: Vec<u64>,
    chair: bool,
    /// SMPyBandits' definitions (see the module docs).
    reference: bool,
    /// Its first K slots draw uniformly among the channels not sampled yet (the index
    /// policy's own choice, ties at random), whatever the rule for the M best.
    random_start: bool,
    /// Scratch: channels not sampled yet.
    unsampled: Vec<usize>,
    m: usize,
    /// Each user's M best channels when last computed (a hint for the next time).
    best: Vec<Vec<usize>>,
    candidates: Vec<usize>,
}

impl TopM {
    /// `k` channels, `users` users; `chair`: MCTopM, otherwise RandTopM.
    pub(crate) fn new(k: usize, users: usize, spec: IndexSpec, chair: bool, horizon: u64) -> TopM {
        let reference = spec.convention == Convention::SMPyBandits;
        let mut rules = spec.rules(horizon);
        // SMPyBandits' M best are the last M of `np.argsort(index)`, equal indices in index
        // order: the higher channel first (see the module docs).
        if reference && spec.ties.is_none() {
            rules.ties = Ties::HigherChannel;
        }
        TopM {
            spec,
            ix: (0..users)
                .map(|_| Indices::new(k, spec.index, rules))
                .collect(),
            before: vec![(0, 0.0); users],
            clock_before: vec![0; users],
            chosen: vec![None; users],
            collided: vec![None; users],
            seated: vec![false; users],
            plans: vec![0; users],
            chair,
            reference,
            random_start: reference && spec.ties.is_none(),
            m: users,
            best: vec![Vec::with_capacity(k); users],
            candidates: Vec::with_capacity(k),
            unsampled: Vec::with_capacity(k),
        }
    }

    /// The next channel of user `u` before slot `t` (its indices at slot `t`), as the paper
    /// defines it.
    fn choose(&mut self, u: usize, rng: &mut SimRng) -> usize {
        let ix = &mut self.ix[u];
        let k = ix.len();
        let Some(a) = self.chosen[u] else {
            return rng.random_range(0..k);
        };
        let observed = self.collided[u];
        let collided = observed == Some(true);
        let in_best = ix.in_top(a, self.m);
        let stays = if self.chair {
            !collided || self.seated[u]
        } else {
            !collided
        };
        if in_best && stays {
            // A user sits only after a transmission it saw succeed: a slot without collision
            // information (the channel sensed busy) leaves the chair as it was.
            if observed.is_some() {
                self.seated[u] = true;
            }
            return a;
        }
        ix.top(self.m, &mut self.best[u]);
        self.seated[u] = false;
        if in_best || (collided && !self.chair) {
            return uniform(&self.best[u], rng);
        }
        self.move_down(u, rng)
    }

    /// The next channel of user `u` under SMPyBandits' convention (see the module docs).
    fn choose_reference(&mut self, u: usize, rng: &mut SimRng) -> usize {
        let ix = &mut self.ix[u];
        let k = ix.len();
        if self.plans[u] <= k as u64 {
            // The index policy's own choice: the channel of largest index, ties at random
            // (`IndexPolicy.choice`): a uniform channel among those not sampled yet.
            if self.random_start {
                self.unsampled.clear();
                self.unsampled
                    .extend((0..k).filter(|&i| ix.samples(i).0 == 0));
                if !self.unsampled.is_empty() {
                    return uniform(&self.unsampled, rng);
                }
            }
            ix.top(1, &mut self.best[u]);
            return self.best[u][0];
        }
        let mut a = self.chosen[u].unwrap_or(0);
        if self.collided[u] == Some(true) && !(self.chair && self.seated[u]) {
            ix.top(self.m, &mut self.best[u]);
            a = uniform(&self.best[u], rng);
        }
        if ix.in_top(a, self.m) {
            return a;
        }
        ix.top(self.m, &mut self.best[u]);
        self.seated[u] = false;
        self.move_down(u, rng)
    }

    /// A uniform channel of user `u`'s M best (in `best[u]`) whose index at its previous slot
    /// was at most that of the channel it sampled then (its chosen one), or of all M best when
    /// there is none.
    fn move_down(&mut self, u: usize, rng: &mut SimRng) -> usize {
        let ix = &self.ix[u];
        // g(t − 1): every channel's samples are as they were then, but `a`'s, sampled last slot.
        let kind = ix.kind();
        let clock = self.clock_before[u];
        let (na, sa) = self.before[u];
        let ga = kind.value(na, sa, clock);
        self.candidates.clear();
        for &m in &self.best[u] {
            let (n, s) = ix.samples(m);
            if kind.value(n, s, clock) <= ga {
                self.candidates.push(m);
            }
        }
        let set = if self.candidates.is_empty() {
            &self.best[u][..]
        } else {
            &self.candidates[..]
        };
        uniform(set, rng)
    }
}

/// A uniform element of a non-empty set.
fn uniform(set: &[usize], rng: &mut SimRng) -> usize {
    set[rng.random_range(0..set.len())]
}

impl Team for TopM {
    fn plan(&mut self, t: u64, lists: &mut [Vec<usize>], rngs: &mut [SimRng]) {
        for (u, (list, rng)) in lists.iter_mut().zip(rngs).enumerate() {
            self.clock_before[u] = self.ix[u].clock();
            self.ix[u].start(t, rng);
            self.plans[u] += 1;
            let a = if self.reference {
                self.choose_reference(u, rng)
            } else {
                self.choose(u, rng)
            };
            self.chosen[u] = Some(a);
            list.push(a);
        }
    }

    fn seen(&mut self, u: usize, seen: &Seen, cost: f64, _rng: &mut SimRng) {
        if let Some(c) = seen.last {
            self.before[u] = self.ix[u].samples(c);
            self.ix[u].add(c, self.spec.sample(seen.sample, cost));
        }
        self.collided[u] = seen.collision;
        // SMPyBandits' getReward: a transmission seen without collision seats the user, from
        // the last of its first K slots on.
        if self.reference
            && self.chair
            && seen.collision == Some(false)
            && self.plans[u] >= self.ix[u].len() as u64
        {
            self.seated[u] = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(c: usize, collision: bool) -> Seen {
        Seen {
            transmitted: Some(c),
            last: Some(c),
            sample: true,
            collision: Some(collision),
            ack: !collision,
        }
    }

    /// Under SMPyBandits' convention a user's first K slots visit every channel once, whatever
    /// the collisions, in an order that differs between users and runs; a transmission
    /// without collision in the K-th slot seats an MCTopM user, one in an earlier slot does not.
    #[test]
    fn the_reference_start_visits_every_channel_once() {
        let spec = IndexSpec {
            convention: Convention::SMPyBandits,
            ..IndexSpec::default()
        };
        let k = 5;
        let mut orders = std::collections::BTreeSet::new();
        for seed in 0..20 {
            let mut team = TopM::new(k, 3, spec, true, 100);
            let mut rngs: Vec<SimRng> = (0..3)
                .map(|u| crate::util::rng::stream(seed, u, 0))
                .collect();
            let mut lists = vec![Vec::new(); 3];
            let mut visited = vec![Vec::new(); 3];
            for t in 1..=k as u64 {
                lists.iter_mut().for_each(Vec::clear);
                team.plan(t, &mut lists, &mut rngs);
                for u in 0..3 {
                    let c = lists[u][0];
                    visited[u].push(c);
                    // Collisions in every slot but the last; then none.
                    let s = seen(c, t < k as u64);
                    team.seen(u, &s, 0.0, &mut rngs[u]);
                    assert_eq!(team.seated[u], t == k as u64, "slot {t}");
                }
            }
            for v in visited {
                let mut sorted = v.clone();
                sorted.sort_unstable();
                assert_eq!(sorted, (0..k).collect::<Vec<_>>());
                orders.insert(v);
            }
        }
        assert!(orders.len() > 30, "{} distinct orders", orders.len());
    }

    /// SMPyBandits' M best take the higher channel among equal indices (its stable argsort),
    /// unless `ties` says otherwise; specprobe's break them at random (issue 50, item 17).
    #[test]
    fn the_reference_m_best_prefer_the_higher_channel() {
        let smpy = IndexSpec {
            convention: Convention::SMPyBandits,
            ..IndexSpec::default()
        };
        let rule = |spec: IndexSpec| TopM::new(4, 2, spec, true, 100).ix[0].rules().ties;
        assert_eq!(rule(smpy), Ties::HigherChannel);
        assert_eq!(rule(IndexSpec::default()), Ties::Random);
        let random = IndexSpec {
            ties: Some(Ties::Random),
            ..smpy
        };
        assert_eq!(rule(random), Ties::Random);
        // Every channel seen once and idle: four equal indices, the M = 2 best are 3 and 2.
        let mut team = TopM::new(4, 2, smpy, true, 100);
        for c in 0..4 {
            team.ix[0].add(c, 1.0);
        }
        team.ix[0].start(5, &mut crate::util::rng::stream(1, 0, 0));
        let mut best = Vec::new();
        team.ix[0].top(2, &mut best);
        assert_eq!(best, [3, 2]);
    }

    /// A seated MCTopM user ignores a collision; RandTopM moves.
    #[test]
    fn the_chair_keeps_a_seated_user() {
        for chair in [false, true] {
            let spec = IndexSpec {
                index: crate::policy::IndexKind::Ucb,
                ..IndexSpec::default()
            };
            let mut team = TopM::new(4, 2, spec, chair, 100);
            let mut rngs: Vec<SimRng> = (0..2).map(|u| crate::util::rng::stream(7, u, 0)).collect();
            let mut lists = vec![Vec::new(); 2];
            // Channel 0 and 1 look best; user 0 settles on one of them without collisions.
            for t in 1..=200u64 {
                lists.iter_mut().for_each(Vec::clear);
                team.plan(t, &mut lists, &mut rngs);
                for u in 0..2 {
                    let c = lists[u][0];
                    let s = Seen {
                        sample: c < 2,
                        ..seen(c, false)
                    };
                    team.seen(u, &s, 0.0, &mut rngs[u]);
                }
            }
            // User 0 on its best channel, seated, just collided.
            let mut probe = team.ix[0].clone();
            probe.start(201, &mut rngs[0]);
            let values: Vec<f64> = (0..4).map(|i| probe.value(i)).collect();
            let mut best = Vec::new();
            top(&values, 1, &mut best);
            let a = best[0];
            let mut moved = false;
            for _ in 0..20 {
                team.chosen[0] = Some(a);
                team.seated[0] = true;
                team.collided[0] = Some(true);
                lists.iter_mut().for_each(Vec::clear);
                team.plan(201, &mut lists, &mut rngs);
                moved |= lists[0][0] != a;
            }
            assert_eq!(moved, !chair, "chair {chair}");
        }
    }
}
