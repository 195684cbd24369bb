//! How an index is defined where the literature leaves a choice: the index itself (UCB1 or
//! kl-UCB), the `t` of its `ln t`, and how ties between equal indices are broken. The
//! multi-player policies and the classic one-channel policies (`Ucb1`, `KlUcb`) share these
//! definitions, so that "the reference's definition" means one thing everywhere.
//!
//! Two conventions exist side by side ([`Convention`]):
//! - `Specprobe` (the default): `t` is the slot (counted from 1), as in the papers' analyses
//!   (Auer et al. 2002; Garivier & Cappé 2011; Besson & Kaufmann 2018), and ties go to the
//!   lower channel, so that a run is a pure function of its draws.
//! - `SMPyBandits`: the definitions of SMPyBandits 0.9.7's code, which the multi-player
//!   literature's figures come from. Its index policies count `t` in the observations they
//!   have received (`BasePolicy.getReward` increments `t`): a decentralised player's `t` is the
//!   number of slots before this one (`t − 1`), the centralised coordinator's the observations of
//!   all M users (`M·(t − 1)`). Ties are broken at random (`np.random.choice` over the arms of
//!   maximal index).
//!
//! A policy's `time` and `ties` parameters override its convention's choice of each.

use crate::util::math;
use serde::{Deserialize, Serialize};

/// Which index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum IndexKind {
    /// UCB1: `μ̂ + sqrt(2 ln t / N)` (Auer et al. 2002, as SMPyBandits' `UCB`).
    Ucb,
    /// kl-UCB: `max{q : N · kl(μ̂, q) ≤ ln t}` (Garivier & Cappé 2011 with c = 1 and no
    /// `ln ln t` term, the index Besson & Kaufmann's experiments use; the default).
    #[default]
    KlUcb,
    /// UCB-H: `μ̂ + sqrt(ln t / (2N))`, Hoeffding's bonus (with `time: Horizon`, `t` = T: the
    /// index of the DPE repository's MCTopM).
    UcbH,
}

impl IndexKind {
    /// The label suffix.
    pub(crate) fn label(self) -> &'static str {
        match self {
            IndexKind::Ucb => "ucb",
            IndexKind::KlUcb => "klucb",
            IndexKind::UcbH => "ucbh",
        }
    }

    /// The index of a channel with `n` samples summing to `s` (each in `[0, 1]`: ones and
    /// zeros of the idle indicator, or rescaled net rewards), at clock `t` (`ln t` with `t` at
    /// least 1: a clock of 0 reads as 1).
    pub(crate) fn value(self, n: u64, s: f64, t: u64) -> f64 {
        self.value_log(n, s, log_clock(t))
    }

    /// [`IndexKind::value`] with `ln t` given (the same bits: `log_t` is [`log_clock`]`(t)`).
    #[inline]
    pub(crate) fn value_log(self, n: u64, s: f64, log_t: f64) -> f64 {
        if n == 0 {
            return f64::INFINITY;
        }
        self.of_mean(s / n as f64, n, log_t)
    }

    /// The index of a channel with `n ≥ 1` samples of mean `mean` (in `[0, 1]`).
    #[inline]
    pub(crate) fn of_mean(self, mean: f64, n: u64, log_t: f64) -> f64 {
        let n = n as f64;
        match self {
            IndexKind::Ucb => mean + (2.0 * log_t / n).sqrt(),
            IndexKind::KlUcb => crate::model::kl_search::kl_upper(mean, n, log_t),
            IndexKind::UcbH => mean + (log_t / (2.0 * n)).sqrt(),
        }
    }
}

/// `ln t` as the indices take it: `ln max(t, 1)` (a clock of 0 has no samples to rank).
#[inline]
pub(crate) fn log_clock(t: u64) -> f64 {
    math::ln(t.max(1) as f64)
}

/// Whose definitions a policy follows where the literature leaves a choice (see the module
/// docs; each policy's documentation lists what its convention changes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Convention {
    /// specprobe's, which follow the papers (the default).
    #[default]
    Specprobe,
    /// SMPyBandits 0.9.7's code.
    SMPyBandits,
}

impl Convention {
    /// Whether this is the default (for `skip_serializing_if`: a scenario that does not name
    /// a convention writes back as it was).
    pub(crate) fn is_default(&self) -> bool {
        *self == Convention::Specprobe
    }

    /// The label suffix: empty, or `-smpy`.
    pub(crate) fn suffix(self) -> &'static str {
        match self {
            Convention::Specprobe => "",
            Convention::SMPyBandits => "-smpy",
        }
    }
}

/// The `t` of an index's `ln t`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Clock {
    /// The slot, counted from 1.
    #[default]
    Slots,
    /// The samples the index's owner has received so far (a user's slots before this one; the
    /// coordinator's, every user's).
    Samples,
    /// The run's horizon T, whatever the slot: a fixed confidence level (UCB-H).
    Horizon,
}

/// How ties between equal indices are broken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Ties {
    /// To the lower channel: a run is a function of its draws alone.
    #[default]
    LowerChannel,
    /// To the higher channel: SMPyBandits' M best, the last M of `np.argsort(index)`, whose
    /// sort keeps equal values in index order (numpy's baseline sort; see `top_m`).
    HigherChannel,
    /// Uniformly at random among the tied channels, from the user's stream.
    Random,
}

/// The rules an index follows, resolved from a convention and its overrides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Rules {
    /// Whose definitions the rest of the policy follows.
    pub convention: Convention,
    /// The `t` of `ln t`.
    pub clock: Clock,
    /// Ties.
    pub ties: Ties,
    /// The run's horizon, for `Clock::Horizon` (0 until [`Rules::at_horizon`] sets it).
    pub horizon: u64,
}

impl Rules {
    /// `convention`'s rules with `time` and `ties` overriding its choice where given.
    pub(crate) fn new(convention: Convention, time: Option<Clock>, ties: Option<Ties>) -> Rules {
        let (clock, tie) = match convention {
            Convention::Specprobe => (Clock::Slots, Ties::LowerChannel),
            Convention::SMPyBandits => (Clock::Samples, Ties::Random),
        };
        Rules {
            convention,
            clock: time.unwrap_or(clock),
            ties: ties.unwrap_or(tie),
            horizon: 0,
        }
    }

    /// The rules of a run of `horizon` slots (what `Clock::Horizon` reads; the other clocks
    /// ignore it, and the defaults stay the defaults).
    pub(crate) fn at_horizon(mut self, horizon: u64) -> Rules {
        if self.clock == Clock::Horizon {
            self.horizon = horizon;
        }
        self
    }

    /// Whether every rule is specprobe's default (the policies' fast paths).
    pub(crate) fn is_default(&self) -> bool {
        *self == Rules::default()
    }

    /// The clock of slot `t` for an owner with `samples` samples so far.
    #[inline]
    pub(crate) fn clock(&self, t: u64, samples: u64) -> u64 {
        match self.clock {
            Clock::Slots => t,
            Clock::Samples => samples,
            Clock::Horizon => self.horizon,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conventions_resolve_with_overrides() {
        let r = Rules::new(Convention::SMPyBandits, None, None);
        assert_eq!((r.clock, r.ties), (Clock::Samples, Ties::Random));
        let r = Rules::new(Convention::SMPyBandits, Some(Clock::Slots), None);
        assert_eq!((r.clock, r.ties), (Clock::Slots, Ties::Random));
        assert!(Rules::new(Convention::Specprobe, None, None).is_default());
        let r = Rules::new(Convention::Specprobe, None, Some(Ties::Random));
        assert!(!r.is_default());
        assert_eq!(r.clock(10, 4), 10);
        assert_eq!(
            Rules::new(Convention::SMPyBandits, None, None).clock(10, 4),
            4
        );
        let h = Rules::new(Convention::Specprobe, Some(Clock::Horizon), None).at_horizon(5000);
        assert_eq!((h.clock(10, 4), h.clock(4000, 3999)), (5000, 5000));
        assert!(Rules::default().at_horizon(5000).is_default());
    }

    /// UCB-H is Hoeffding's bonus: UCB1's with a quarter of its level.
    #[test]
    fn ucb_h_is_the_mean_plus_hoeffdings_bonus() {
        let (n, s, t) = (8u64, 3.0, 1000u64);
        let bonus = (math::ln(t as f64) / (2.0 * n as f64)).sqrt();
        assert_eq!(IndexKind::UcbH.value(n, s, t), 3.0 / 8.0 + bonus);
        assert!(IndexKind::UcbH.value(n, s, t) < IndexKind::Ucb.value(n, s, t));
    }

    /// A clock of 0 or 1 gives `ln t = 0`: the index is the mean (UCB1's bonus and kl-UCB's
    /// divergence budget vanish), as SMPyBandits' `log(1) = 0` gives, and a channel never
    /// sampled is infinite.
    #[test]
    fn the_first_clocks_give_the_mean() {
        for kind in [IndexKind::Ucb, IndexKind::KlUcb, IndexKind::UcbH] {
            assert_eq!(kind.value(4, 1.0, 0), 0.25);
            assert_eq!(kind.value(4, 1.0, 1), 0.25);
            assert!(kind.value(0, 0.0, 5).is_infinite());
        }
    }
}
