//! RandTopM and MCTopM (Besson & Kaufmann, "Multi-Player Bandits Revisited", ALT 2018,
//! Algorithms 1 and 2). User `j` keeps a chosen channel `A^j` and its estimated set `M̂^j(t)` of
//! the M channels of largest index (ties to the lower channel). The first channel is drawn
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

use super::index::{IndexKind, Indices};
#[cfg(test)]
use super::top;
use super::{Seen, Team};
use crate::util::rng::SimRng;
use rand::RngExt;

/// M RandTopM or MCTopM users.
#[derive(Clone, Debug)]
pub(crate) struct TopM {
    ix: Vec<Indices>,
    /// Each user's samples of its channel before last slot's sample (for `g(t − 1)`).
    before: Vec<(u64, u64)>,
    chosen: Vec<Option<usize>>,
    /// What each user learnt of a collision last slot (`None`: not observed).
    collided: Vec<Option<bool>>,
    seated: Vec<bool>,
    chair: bool,
    m: usize,
    /// Each user's M best channels when last computed (a hint for the next time).
    best: Vec<Vec<usize>>,
    candidates: Vec<usize>,
}

impl TopM {
    /// `k` channels, `users` users; `chair`: MCTopM, otherwise RandTopM.
    pub(crate) fn new(k: usize, users: usize, kind: IndexKind, chair: bool) -> TopM {
        TopM {
            ix: (0..users).map(|_| Indices::new(k, kind)).collect(),
            before: vec![(0, 0); users],
            chosen: vec![None; users],
            collided: vec![None; users],
            seated: vec![false; users],
            chair,
            m: users,
            best: vec![Vec::with_capacity(k); users],
            candidates: Vec::with_capacity(k),
        }
    }

    /// The next channel of user `u` before slot `t` (its indices at slot `t`).
    fn choose(&mut self, u: usize, t: u64, rng: &mut SimRng) -> usize {
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
        let best = &mut self.best[u];
        ix.top(self.m, best);
        let uniform = |set: &[usize], rng: &mut SimRng| set[rng.random_range(0..set.len())];
        self.seated[u] = false;
        if in_best || (collided && !self.chair) {
            return uniform(best, rng);
        }
        // g(t − 1): every channel's samples are as they were then, but `a`'s, sampled last slot.
        let kind = ix.kind();
        let (na, sa) = self.before[u];
        let ga = kind.value(na, sa, t - 1);
        self.candidates.clear();
        for &m in best.iter() {
            let (n, s) = ix.samples(m);
            if kind.value(n, s, t - 1) <= ga {
                self.candidates.push(m);
            }
        }
        let set = if self.candidates.is_empty() {
            &best[..]
        } else {
            &self.candidates[..]
        };
        uniform(set, rng)
    }
}

impl Team for TopM {
    fn plan(&mut self, t: u64, lists: &mut [Vec<usize>], rngs: &mut [SimRng]) {
        for (u, (list, rng)) in lists.iter_mut().zip(rngs).enumerate() {
            self.ix[u].start(t);
            let a = self.choose(u, t, rng);
            self.chosen[u] = Some(a);
            list.push(a);
        }
    }

    fn seen(&mut self, u: usize, seen: &Seen, _cost: f64, _rng: &mut SimRng) {
        if let Some(c) = seen.last {
            self.before[u] = self.ix[u].samples(c);
            self.ix[u].add(c, seen.sample);
        }
        self.collided[u] = seen.collision;
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

    /// A seated MCTopM user ignores a collision; RandTopM moves.
    #[test]
    fn the_chair_keeps_a_seated_user() {
        for chair in [false, true] {
            let mut team = TopM::new(4, 2, IndexKind::Ucb, chair);
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
            probe.start(201);
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
