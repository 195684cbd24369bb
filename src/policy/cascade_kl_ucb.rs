//! CascadeKL-UCB, Algorithm 1 of Kveton, Szepesvári, Wen and Ashkan, "Cascading Bandits:
//! Learning to Rank in the Cascade Model" (ICML 2015), with the KL-UCB index of Garivier and
//! Cappé (COLT 2011):
//! `U_i = max{q ∈ [θ̂_i, 1] : N_i · d(θ̂_i; q) ≤ ln t + 3 ln ln t}`.
//!
//! The list is the `L` channels of largest `U_i`; costs are ignored. For `t < e` the
//! `ln ln t` term is negative or undefined; it is clamped at zero (`ln max(1, ln t)`), as common
//! implementations do. Initialisation as in [`super::CascadeUcb1`].

use super::{Estimates, Policy, initial_probe, top_by_key};
use crate::theory::kl_upper;
use rand::Rng;

/// CascadeKL-UCB with list length `L`.
#[derive(Clone, Debug)]
pub struct CascadeKlUcb {
    list_len: usize,
    est: Estimates,
    key: Vec<f64>,
}

impl CascadeKlUcb {
    /// `k` channels, lists of `list_len`.
    pub fn new(k: usize, list_len: usize) -> CascadeKlUcb {
        CascadeKlUcb {
            list_len,
            est: Estimates::new(k),
            key: vec![0.0; k],
        }
    }
}

/// The exploration budget `ln t + 3 ln ln t`, with `ln ln t` clamped at zero.
pub fn kl_budget(t: u64) -> f64 {
    let ln_t = (t as f64).ln();
    ln_t + 3.0 * ln_t.max(1.0).ln()
}

impl Policy for CascadeKlUcb {
    fn plan<R: Rng + ?Sized>(&mut self, t: u64, list: &mut Vec<usize>, _rng: &mut R) {
        let k = self.est.len();
        if let Some(i) = initial_probe(t, k) {
            list.push(i);
            return;
        }
        let budget = kl_budget(t);
        let (theta_hat, counts) = (self.est.theta_hat(), self.est.counts());
        for i in 0..k {
            self.key[i] = kl_upper(theta_hat[i], counts[i] as f64, budget);
        }
        top_by_key(list, &self.key, self.list_len);
    }

    #[inline]
    fn observe(&mut self, channel: usize, idle: bool, cost: f64) {
        self.est.observe(channel, idle, cost);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_clamps_log_log() {
        assert_eq!(kl_budget(2), 2f64.ln());
        let t = 1000f64;
        assert!((kl_budget(1000) - (t.ln() + 3.0 * t.ln().ln())).abs() < 1e-12);
    }

    #[test]
    fn prefers_the_more_often_idle_channel_at_equal_counts() {
        let mut p = CascadeKlUcb::new(2, 1);
        for idle in [true, true, false] {
            p.observe(0, idle, 0.0);
        }
        for idle in [true, false, false] {
            p.observe(1, idle, 0.0);
        }
        let mut list = Vec::new();
        p.plan(50, &mut list, &mut crate::rng::stream(0, 0, 0));
        assert_eq!(list, vec![0]);
    }
}
