//! The per-channel indices the multi-player policies rank channels by: UCB1 and kl-UCB on the
//! samples a user (or the coordinator) has of each channel.
//!
//! UCB1: `μ̂ + sqrt(2 ln t / N)` (Auer et al. 2002, as SMPyBandits' `UCB`); kl-UCB:
//! `max{q : N · kl(μ̂, q) ≤ ln t}` (Garivier & Cappé 2011 with c = 1 and no `ln ln t` term,
//! the index Besson & Kaufmann's experiments use). A channel never sampled has index +∞.

use crate::model::theory::kl_upper;
use serde::{Deserialize, Serialize};

/// Which index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum IndexKind {
    /// UCB1.
    Ucb,
    /// kl-UCB (the default, as in Besson & Kaufmann's experiments).
    #[default]
    KlUcb,
}

impl IndexKind {
    /// The label suffix.
    pub(crate) fn label(self) -> &'static str {
        match self {
            IndexKind::Ucb => "ucb",
            IndexKind::KlUcb => "klucb",
        }
    }
}

/// `(index: Ucb)` or `(index: KlUcb)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct IndexSpec {
    /// The index (default kl-UCB).
    #[serde(default)]
    pub index: IndexKind,
}

/// Samples of each channel and their indices.
#[derive(Clone, Debug)]
pub(crate) struct Indices {
    kind: IndexKind,
    n: Vec<u64>,
    s: Vec<u64>,
    /// The indices at the last [`Indices::update`].
    pub value: Vec<f64>,
}

impl Indices {
    /// `k` channels, nothing seen.
    pub(crate) fn new(k: usize, kind: IndexKind) -> Indices {
        Indices {
            kind,
            n: vec![0; k],
            s: vec![0; k],
            value: vec![f64::INFINITY; k],
        }
    }

    /// One sample of `channel`.
    #[inline]
    pub(crate) fn add(&mut self, channel: usize, one: bool) {
        self.n[channel] += 1;
        self.s[channel] += u64::from(one);
    }

    /// Every channel's index at slot `t`.
    pub(crate) fn update(&mut self, t: u64) {
        let log_t = (t.max(1) as f64).ln();
        for ((v, &n), &s) in self.value.iter_mut().zip(&self.n).zip(&self.s) {
            *v = if n == 0 {
                f64::INFINITY
            } else {
                let n = n as f64;
                let mean = s as f64 / n;
                match self.kind {
                    IndexKind::Ucb => mean + (2.0 * log_t / n).sqrt(),
                    IndexKind::KlUcb => kl_upper(mean, n, log_t),
                }
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unseen_channels_come_first_and_indices_exceed_means() {
        for kind in [IndexKind::Ucb, IndexKind::KlUcb] {
            let mut ix = Indices::new(3, kind);
            for _ in 0..10 {
                ix.add(0, true);
                ix.add(1, false);
            }
            ix.update(20);
            assert!(ix.value[2].is_infinite());
            assert!(ix.value[0] >= 1.0 - 1e-12, "{kind:?}");
            assert!(ix.value[1] > 0.0 && ix.value[1] < ix.value[0]);
        }
        // kl-UCB is tighter than UCB1 for a mean near 0.
        let mut u = Indices::new(1, IndexKind::Ucb);
        let mut k = Indices::new(1, IndexKind::KlUcb);
        for _ in 0..100 {
            u.add(0, false);
            k.add(0, false);
        }
        u.update(1000);
        k.update(1000);
        assert!(k.value[0] < u.value[0]);
    }
}
