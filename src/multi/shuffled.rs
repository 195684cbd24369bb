//! A team that sees the channels under a relabelling (`shuffle: true`): the reference codes of
//! the multi-player literature shuffle their arms at the start of every run (the DPE
//! repository's `FullSensingMultiPlayerMAB` shuffles its means in place), so a policy whose
//! behaviour depends on the channels' labels (which channels a communication phase sits on,
//! which M channels a leader starts from, how ties fall) meets them in a uniform order. The
//! engine draws one permutation per run, the same for every policy of that run.

use super::{Seen, Team};
use crate::util::rng::SimRng;
use rand::RngExt;

/// `inner` seeing channel `c` of the world as `to_team[c]`.
pub(crate) struct Shuffled {
    inner: Box<dyn Team>,
    to_world: Vec<usize>,
    to_team: Vec<usize>,
}

impl std::fmt::Debug for Shuffled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shuffled")
            .field("to_world", &self.to_world)
            .finish_non_exhaustive()
    }
}

impl Shuffled {
    /// `inner` on `k` channels under a uniform permutation drawn from `rng` (Fisher–Yates).
    pub(crate) fn new(inner: Box<dyn Team>, k: usize, rng: &mut SimRng) -> Shuffled {
        let mut to_world: Vec<usize> = (0..k).collect();
        for i in (1..k).rev() {
            let j = rng.random_range(0..=i);
            to_world.swap(i, j);
        }
        let mut to_team = vec![0; k];
        for (c, &w) in to_world.iter().enumerate() {
            to_team[w] = c;
        }
        Shuffled {
            inner,
            to_world,
            to_team,
        }
    }

    fn world(&self, list: &mut [usize]) {
        for c in list {
            // A label the team made up is checked by the world (or the custom team's guard)
            // as is: it maps outside the world's channels no differently.
            *c = self.to_world.get(*c).copied().unwrap_or(*c);
        }
    }
}

impl Team for Shuffled {
    fn plan(&mut self, t: u64, lists: &mut [Vec<usize>], rngs: &mut [SimRng]) {
        self.inner.plan(t, lists, rngs);
        for l in lists {
            self.world(l);
        }
    }

    fn extend(&mut self, u: usize, list: &mut Vec<usize>) -> bool {
        for c in list.iter_mut() {
            *c = self.to_team[*c];
        }
        let more = self.inner.extend(u, list);
        self.world(list);
        more
    }

    fn busy(&mut self, u: usize, channel: usize, cost: f64) {
        self.inner.busy(u, self.to_team[channel], cost);
    }

    fn seen(&mut self, u: usize, seen: &Seen, cost: f64, rng: &mut SimRng) {
        let mapped = Seen {
            transmitted: seen.transmitted.map(|c| self.to_team[c]),
            last: seen.last.map(|c| self.to_team[c]),
            ..*seen
        };
        self.inner.seen(u, &mapped, cost, rng);
    }
}

/// Boxes a concrete team (the visitor [`super::AnyTeam::visit`] calls), for [`Shuffled`].
pub(crate) struct Boxed;

impl super::TeamVisitor for Boxed {
    type Output = Box<dyn Team>;
    fn visit<T: Team + 'static>(self, team: T) -> Box<dyn Team> {
        Box::new(team)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Always lists channel 0 of what it sees, and remembers what it was told.
    #[derive(Default)]
    struct Zero {
        told: Vec<Option<usize>>,
    }

    impl Team for Zero {
        fn plan(&mut self, _t: u64, lists: &mut [Vec<usize>], _rngs: &mut [SimRng]) {
            for l in lists {
                l.push(0);
            }
        }
        fn seen(&mut self, _u: usize, seen: &Seen, _cost: f64, _rng: &mut SimRng) {
            self.told.push(seen.last);
        }
    }

    #[test]
    fn the_team_sees_its_own_labels_and_the_world_its_own() {
        let mut rng = crate::util::rng::stream(3, 4, 5);
        let mut shuffled = Shuffled::new(Box::new(Zero::default()), 6, &mut rng);
        let mut lists = vec![Vec::new(); 2];
        shuffled.plan(1, &mut lists, &mut []);
        let world = shuffled.to_world[0];
        assert_eq!(lists, vec![vec![world], vec![world]]);
        let seen = Seen {
            last: Some(world),
            ..Seen::default()
        };
        shuffled.seen(0, &seen, 0.0, &mut rng);
        let mut sorted = shuffled.to_world.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..6).collect::<Vec<_>>());
    }
}
