//! Selfish (Besson & Kaufmann 2018, section 5): every user runs a single-user policy as if it
//! were alone, on its own observations; the channel it transmitted on counts as idle only when
//! the transmission was acknowledged (a collision with another user reads as busy). With one
//! user it is exactly the single-user policy; a built-in cascade policy gives selfish cascades.
//!
//! The built-in policies break ties by channel index and start with the same round-robin, so M
//! copies of one would choose alike forever and always collide. SMPyBandits breaks ties at
//! random; here user `u ≥ 1` sees the channels under a uniform relabelling drawn from its own
//! stream at the start of the run (user 0 sees them as labelled, so that one user is exactly
//! the single-user policy): the same symmetry breaking, with every policy unchanged.

use super::{Seen, Team};
use crate::policy::{AnyPolicy, Policy};
use crate::util::rng::SimRng;
use rand::seq::SliceRandom;

/// M single-user policies.
#[derive(Debug)]
pub(crate) struct Selfish {
    users: Vec<AnyPolicy>,
    k: usize,
    /// Per user, its label of each channel and back (`None`: not drawn yet; user 0: identity).
    labels: Vec<Option<(Vec<usize>, Vec<usize>)>>,
}

impl Selfish {
    /// One policy per user, on `k` channels.
    pub(crate) fn new(users: Vec<AnyPolicy>, k: usize) -> Selfish {
        let n = users.len();
        Selfish {
            users,
            k,
            labels: vec![None; n],
        }
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
            if u > 0 && self.labels[u].is_none() {
                let k = self.k;
                let mut to: Vec<usize> = (0..k).collect();
                to.shuffle(rng);
                let mut back = vec![0; k];
                for (mine, &c) in to.iter().enumerate() {
                    back[c] = mine;
                }
                self.labels[u] = Some((to, back));
            }
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
