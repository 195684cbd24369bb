//! Centralised multiple play (Anantharam, Varaiya & Walrand 1987; SMPyBandits'
//! `CentralizedMultiplePlay`): one coordinator sees every user's samples and gives the M
//! channels of largest index to the M users, user `u` the `u`-th best (ties to the lower
//! channel). The users never collide: it is the learner the decentralised policies are
//! measured against. With more users than channels, users `K..M` stay silent.
//!
//! Under `ties: Random` (SMPyBandits' convention) the M channels are SMPyBandits'
//! `choiceMultiple`: drawn uniformly among the channels whose index is at least the M-th
//! largest, as many as there are users. With ties at the M-th value this can leave out a
//! channel ranked strictly above them (`[∞, 5, 5]`, M = 2, drops `∞` with probability 1/3), which
//! happens in the first slots when M > K/2. The coordinator's clock under `time: Samples` is
//! every user's samples, `M·(t − 1)`, as the reference's one policy receives them all.

use super::index::{IndexSpec, Indices};
use super::{Seen, Team, TeamBuiltin};
use crate::model::channel::Environment;
use crate::policy::Ties;
use crate::util::rng::SimRng;
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// `CentralizedMultiplePlay(index: …, …)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct CentralizedSpec(pub IndexSpec);

impl TeamBuiltin for CentralizedSpec {
    const SUMMARY: &'static str =
        "one coordinator gives the M channels of largest index to the users";
    type Team = Centralized;
    fn sees_costs(&self) -> bool {
        self.0.sees_costs()
    }

    fn example() -> Self {
        CentralizedSpec::default()
    }
    fn label(&self) -> String {
        format!("centralized-{}", self.0.label())
    }
    fn is_classic(&self) -> bool {
        true
    }
    fn ns_per_user_slot(&self, k: u64, users: u64) -> f64 {
        // The coordinator computes the indices once a slot for all users.
        let per_slot = self.0.ns_per_slot(k) - super::USER_SLOT_NS;
        super::USER_SLOT_NS + per_slot / users.max(1) as f64
    }
    fn build(&self, env: &Environment, users: usize, _h: u64, _r: &mut [SimRng]) -> Centralized {
        Centralized::new(env.len(), users, self.0, env.horizon())
    }
}

/// The coordinator.
#[derive(Clone, Debug)]
pub(crate) struct Centralized {
    // Boxed: the team enum's variants stay of similar size.
    ix: Box<Indices>,
    /// The index and what it averages (each sample: [`IndexSpec::sample`]).
    spec: IndexSpec,
    users: usize,
    best: Vec<usize>,
    /// Scratch of the reference's draw: every index, and the candidates.
    values: Vec<f64>,
}

impl Centralized {
    /// `k` channels, `users` users.
    pub(crate) fn new(k: usize, users: usize, spec: IndexSpec, horizon: u64) -> Centralized {
        Centralized {
            spec,
            ix: Box::new(Indices::new(k, spec.index, spec.rules_or(horizon, Ties::LowerChannel))),
            users,
            best: Vec::with_capacity(k),
            values: Vec::with_capacity(k),
        }
    }

    /// SMPyBandits' `choiceMultiple`: `m` channels drawn uniformly among those whose index is
    /// at least the `m`-th largest, then ordered by index (ties to the lower channel).
    fn draw_top(&mut self, m: usize, rng: &mut SimRng) {
        let k = self.ix.len();
        self.values.clear();
        for i in 0..k {
            let v = self.ix.value(i);
            self.values.push(v);
        }
        let m = m.min(k);
        super::top(&self.values, m, &mut self.best);
        let Some(&last) = self.best.last() else {
            return;
        };
        let threshold = self.values[last];
        let values = &self.values;
        self.best.clear();
        self.best.extend((0..k).filter(|&i| values[i] >= threshold));
        for i in 0..m {
            let j = rng.random_range(i..self.best.len());
            self.best.swap(i, j);
        }
        self.best.truncate(m);
        self.best
            .sort_unstable_by(|&a, &b| values[b].total_cmp(&values[a]).then(a.cmp(&b)));
    }
}

impl Team for Centralized {
    fn plan(&mut self, t: u64, lists: &mut [Vec<usize>], rngs: &mut [SimRng]) {
        // One coordinator: its draws come from the first user's stream.
        let Some(rng) = rngs.first_mut() else {
            return;
        };
        self.ix.start(t, rng);
        if self.ix.rules().ties == Ties::Random {
            self.draw_top(self.users, rng);
        } else {
            self.ix.top(self.users, &mut self.best);
        }
        for (list, &c) in lists.iter_mut().zip(&self.best) {
            list.push(c);
        }
    }

    fn seen(&mut self, _u: usize, seen: &Seen, cost: f64, _rng: &mut SimRng) {
        if let Some(c) = seen.last {
            self.ix.add(c, self.spec.sample(seen.sample, cost));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_get_distinct_channels_and_extra_users_stay_silent() {
        let spec = IndexSpec {
            index: crate::policy::IndexKind::Ucb,
            ..IndexSpec::default()
        };
        let mut c = Centralized::new(3, 5, spec, 100);
        let mut lists = vec![Vec::new(); 5];
        let mut rngs: Vec<SimRng> = (0..5).map(|u| crate::util::rng::stream(1, u, 0)).collect();
        c.plan(1, &mut lists, &mut rngs);
        assert_eq!(lists, [vec![0], vec![1], vec![2], vec![], vec![]]);
    }

    /// SMPyBandits' `choiceMultiple`: with every channel unseen (all infinite), the M
    /// channels are a uniform M-subset; with indices [∞, 5, 5] and M = 2, the three
    /// candidates (index at least the second largest) are kept 2/3 of the time each, `∞`
    /// included: 3000 draws, 5 standard deviations either side of 2000.
    #[test]
    fn the_reference_draw_is_uniform_among_the_candidates() {
        let spec = IndexSpec {
            convention: crate::policy::Convention::SMPyBandits,
            ..IndexSpec::default()
        };
        let mut c = Centralized::new(3, 2, spec, 100);
        let mut rngs: Vec<SimRng> = (0..2).map(|u| crate::util::rng::stream(2, u, 0)).collect();
        let mut lists = vec![Vec::new(); 2];
        let mut kept = [0u32; 3];
        for t in 1..=3000u64 {
            lists.iter_mut().for_each(Vec::clear);
            c.plan(t, &mut lists, &mut rngs);
            assert_ne!(lists[0], lists[1]);
            for l in &lists {
                kept[l[0]] += 1;
            }
        }
        let sd = (3000.0f64 * (2.0 / 3.0) * (1.0 / 3.0)).sqrt();
        for &n in &kept {
            assert!((f64::from(n) - 2000.0).abs() < 5.0 * sd, "{kept:?}");
        }
        // Channels 1 and 2 alike, channel 0 unseen: indices [∞, g, g].
        let mut c = Centralized::new(3, 2, spec, 100);
        for ch in [1, 2] {
            c.ix.add(ch, 1.0);
        }
        let mut kept = [0u32; 3];
        for t in 3..3003u64 {
            lists.iter_mut().for_each(Vec::clear);
            c.plan(t, &mut lists, &mut rngs);
            for l in &lists {
                kept[l[0]] += 1;
            }
        }
        for &n in &kept {
            assert!((f64::from(n) - 2000.0).abs() < 5.0 * sd, "{kept:?}");
        }
    }
}
