//! CUCB (Chen, Wang & Yuan, "Combinatorial Multi-Armed Bandit: General Framework and
//! Applications", ICML 2013) on the matching of users to channels: the centralised baseline of
//! BEACON's paper (`ShenGroup/MPMAB_BEACON`, `strategy_CUCB.py`). One coordinator holds every
//! user's samples of every channel, ranks the (user, channel) pairs by
//! `μ̂_uk + sqrt(3 ln t / (2 N_uk))` and assigns each slot the matching of largest system
//! reward on those indices (the oracle of [`crate::model::system_reward`]). Its first K slots
//! sample every pair once: user u on channel `(u + t − 1) mod K`, without collisions.
//!
//! `convention: Reference`: the reference's first K slots put every user on channel t − 1
//! together (its environment does not apply collisions to CUCB; here they collide, and still
//! learn what they sensed), its oracle is the linear assignment whatever the system reward,
//! and `t` counts the slots before this one.

use crate::util::math;
use super::{CodeConvention, Seen, Team, TeamBuiltin};
use crate::model::channel::Environment;
use crate::model::matching::Scaled;
use crate::model::system_reward::SystemReward;
use crate::util::rng::SimRng;
use serde::{Deserialize, Serialize};

/// `Cucb(convention: …)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CucbSpec {
    /// The paper's definitions (default) or the BEACON repository's.
    #[serde(default, skip_serializing_if = "CodeConvention::is_default")]
    pub convention: CodeConvention,
}

impl TeamBuiltin for CucbSpec {
    const SUMMARY: &'static str =
        "CUCB: a coordinator assigns the matching of per-user UCB indices (users may see different means)";
    type Team = Cucb;

    fn example() -> Self {
        CucbSpec::default()
    }
    fn label(&self) -> String {
        format!("cucb{}", self.convention.suffix())
    }
    fn is_classic(&self) -> bool {
        true
    }
    fn allows_user_means(&self) -> bool {
        true
    }
    fn ns_per_user_slot(&self, k: u64, users: u64) -> f64 {
        // A matching of M × (K + M) per slot.
        let n = (k + users) as f64;
        super::USER_SLOT_NS + 2.0 * n * n
    }
    fn build(&self, env: &Environment, users: usize, h: u64, r: &mut [SimRng]) -> Cucb {
        self.build_for(env, users, h, SystemReward::Linear, r)
    }
    fn build_for(
        &self,
        env: &Environment,
        users: usize,
        _h: u64,
        system: SystemReward,
        _r: &mut [SimRng],
    ) -> Cucb {
        let reference = self.convention == CodeConvention::Reference;
        Cucb {
            n: vec![vec![0; env.len()]; users],
            s: vec![vec![0; env.len()]; users],
            index: vec![vec![0.0; env.len()]; users],
            k: env.len(),
            oracle: if reference {
                SystemReward::Linear
            } else {
                system
            },
            reference,
            scaled: Scaled::default(),
        }
    }
}

/// The coordinator of M users.
#[derive(Clone, Debug)]
pub(crate) struct Cucb {
    n: Vec<Vec<u64>>,
    s: Vec<Vec<u64>>,
    /// Scratch: the indices of the slot.
    index: Vec<Vec<f64>>,
    k: usize,
    oracle: SystemReward,
    reference: bool,
    /// The oracle's scratch.
    scaled: Scaled,
}

impl Team for Cucb {
    fn plan(&mut self, t: u64, lists: &mut [Vec<usize>], _rngs: &mut [SimRng]) {
        let k = self.k;
        if t <= k as u64 {
            for (u, list) in lists.iter_mut().enumerate() {
                let c = if self.reference {
                    t as usize - 1
                } else {
                    (u + t as usize - 1) % k
                };
                list.push(c);
            }
            return;
        }
        let clock = if self.reference { t - 1 } else { t };
        let log_t = math::ln(clock as f64);
        for ((index, n), s) in self.index.iter_mut().zip(&self.n).zip(&self.s) {
            for ((x, &n), &s) in index.iter_mut().zip(n).zip(s) {
                *x = if n == 0 {
                    // Never sampled (more users than channels at the start): first.
                    2.0 + log_t
                } else {
                    s as f64 / n as f64 + (3.0 * log_t / (2.0 * n as f64)).sqrt()
                };
            }
        }
        if lists.len() <= k {
            // Every index is positive and every user can have a channel of its own: the
            // oracle's matching on the M × K indices (on their logarithms for max-min), no
            // silent columns, the weights' buffers reused.
            let index = &self.index;
            let log = self.oracle == SystemReward::MaxMin;
            let col = self.scaled.max_weight(lists.len(), k, |u, c| {
                if log { math::ln(index[u][c].max(1e-300)) } else { index[u][c] }
            });
            for (list, c) in lists.iter_mut().zip(col) {
                list.push(c);
            }
        } else {
            for (list, c) in lists.iter_mut().zip(self.oracle.assign(&self.index, k)) {
                if let Some(c) = c {
                    list.push(c);
                }
            }
        }
    }

    fn seen(&mut self, u: usize, seen: &Seen, _cost: f64, _rng: &mut SimRng) {
        // The coordinator learns what the user sensed, collision or not.
        if let Some(c) = seen.last {
            self.n[u][c] += 1;
            self.s[u][c] += u64::from(seen.sample);
        }
    }
}
