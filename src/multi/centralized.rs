//! Centralised multiple play (Anantharam, Varaiya & Walrand 1987; SMPyBandits'
//! `CentralizedMultiplePlay`): one coordinator sees every user's samples and gives the M
//! channels of largest index to the M users, user `u` the `u`-th best (ties to the lower
//! channel). The users never collide: it is the learner the decentralised policies are
//! measured against. With more users than channels, users `K..M` stay silent.

use super::index::{IndexKind, Indices};
use super::{Seen, Team};
use crate::util::rng::SimRng;

/// The coordinator.
#[derive(Clone, Debug)]
pub(crate) struct Centralized {
    ix: Indices,
    users: usize,
    best: Vec<usize>,
}

impl Centralized {
    /// `k` channels, `users` users.
    pub(crate) fn new(k: usize, users: usize, kind: IndexKind) -> Centralized {
        Centralized {
            ix: Indices::new(k, kind),
            users,
            best: Vec::with_capacity(k),
        }
    }
}

impl Team for Centralized {
    fn plan(&mut self, t: u64, lists: &mut [Vec<usize>], _rngs: &mut [SimRng]) {
        self.ix.start(t);
        self.ix.top(self.users, &mut self.best);
        for (list, &c) in lists.iter_mut().zip(&self.best) {
            list.push(c);
        }
    }

    fn seen(&mut self, _u: usize, seen: &Seen, _cost: f64, _rng: &mut SimRng) {
        if let Some(c) = seen.last {
            self.ix.add(c, seen.sample);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_get_distinct_channels_and_extra_users_stay_silent() {
        let mut c = Centralized::new(3, 5, IndexKind::Ucb);
        let mut lists = vec![Vec::new(); 5];
        let mut rngs: Vec<SimRng> = (0..5).map(|u| crate::util::rng::stream(1, u, 0)).collect();
        c.plan(1, &mut lists, &mut rngs);
        assert_eq!(lists, [vec![0], vec![1], vec![2], vec![], vec![]]);
    }
}
