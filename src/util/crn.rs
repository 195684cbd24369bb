//! Common random numbers: the channels' randomness, keyed so that every policy of a run sees the
//! same spectrum.
//!
//! Each (run, channel) owns keys, separate from the policy's stream, for its occupancy path, its
//! probing costs and its sensing errors. A draw for slot `t` comes from a counter-based
//! generator keyed by (key, t): SplitMix64 evaluated at position `t` (Steele, Lea and Flood,
//! "Fast splittable pseudorandom number generators", OOPSLA 2014), whose output at any position
//! costs one mix and needs no state. Channel `i`'s state and cost at slot `t` are therefore the
//! same whichever policy probes it, whenever, and however often the channel was probed before:
//! differences between policies are paired. A sequential stream would not do for i.i.d.
//! channels: the value drawn would depend on how many earlier probes consumed the stream.

use crate::util::rng::splitmix64;

/// Golden-ratio increment of SplitMix64.
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// What a key draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub(crate) enum Purpose {
    /// The occupancy path (idle/busy).
    Occupancy = 1,
    /// Probing costs (energy, delay).
    Cost = 2,
    /// Sensing errors.
    Sensing = 3,
    /// Probing delays (when a channel has separate energy and delay laws).
    Delay = 4,
}

/// The key of one run of one experiment, from which each channel's keys derive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RunKey(u64);

impl RunKey {
    /// Run `run` of the experiment with random-stream domain `domain`, scenario seed `seed`.
    /// Distinct from the policy's stream ([`crate::util::rng::stream`]) for the same triple.
    pub(crate) fn new(seed: u64, domain: u64, run: u64) -> RunKey {
        RunKey(splitmix64(
            splitmix64(splitmix64(seed ^ 0x6372_6e5f_6b65_7973) ^ domain) ^ run,
        ))
    }

    /// Channel `channel`'s key for `purpose`.
    #[inline]
    pub(crate) fn channel(self, channel: usize, purpose: Purpose) -> u64 {
        splitmix64(self.0 ^ splitmix64((channel as u64) << 3 | purpose as u64))
    }
}

/// The 64 random bits at position `t` of the stream keyed by `key`.
#[inline]
pub(crate) fn bits(key: u64, t: u64) -> u64 {
    splitmix64(key.wrapping_add(t.wrapping_mul(GAMMA)))
}

/// The threshold that turns 64 random bits into a Bernoulli(p) draw (`bits < threshold`),
/// exact for p = 0 and saturating for p = 1 (see [`bernoulli`]).
#[inline]
pub(crate) fn threshold(p: f64) -> u64 {
    if p >= 1.0 {
        u64::MAX
    } else if p <= 0.0 {
        0
    } else {
        (p * 18_446_744_073_709_551_616.0) as u64
    }
}

/// A Bernoulli draw from random bits and a [`threshold`]: p = 1 always succeeds.
#[inline]
pub(crate) fn bernoulli(bits: u64, threshold: u64) -> bool {
    threshold == u64::MAX || bits < threshold
}

/// A SplitMix64 generator started at position `t` of `key`'s stream: the generator a law draws
/// from for one (channel, slot), whatever number of values it needs.
#[derive(Clone, Debug)]
pub(crate) struct Counter {
    state: u64,
}

impl Counter {
    /// The generator for position `t` of `key` (its outputs are unrelated to `bits(key, t + 1)`
    /// because the start is mixed first).
    #[inline]
    pub(crate) fn at(key: u64, t: u64) -> Counter {
        Counter {
            state: bits(key, t),
        }
    }
}

impl rand::TryRng for Counter {
    type Error = std::convert::Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok((self.next() >> 32) as u32)
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(self.next())
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dst.chunks_mut(8) {
            let bytes = self.next().to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
        Ok(())
    }
}

impl Counter {
    #[inline]
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        splitmix64(self.state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn draws_depend_on_key_and_position_only() {
        let k = RunKey::new(1, 2, 3);
        assert_eq!(k, RunKey::new(1, 2, 3));
        assert_ne!(k, RunKey::new(1, 2, 4));
        let a = k.channel(0, Purpose::Cost);
        assert_ne!(a, k.channel(1, Purpose::Cost));
        assert_ne!(a, k.channel(0, Purpose::Sensing));
        assert_eq!(bits(a, 77), bits(a, 77));
        let mut c = Counter::at(a, 5);
        let mut d = Counter::at(a, 5);
        assert_eq!(c.random::<u64>(), d.random::<u64>());
    }

    /// Uniformity of the counter stream: 100 000 draws into 10 bins, each bin's count has mean
    /// 10 000 and sd ≈ 95; ±500 is over five sd. Bernoulli thresholds hit their rate within
    /// five binomial sd.
    #[test]
    fn uniform_and_bernoulli_rates() {
        let key = RunKey::new(9, 0, 0).channel(3, Purpose::Occupancy);
        let mut bins = [0i64; 10];
        let mut hits = 0u64;
        let thr = threshold(0.3);
        for t in 0..100_000 {
            bins[((bits(key, t) >> 11) as f64 / (1u64 << 53) as f64 * 10.0) as usize] += 1;
            hits += u64::from(bernoulli(bits(key, t + 1_000_000), thr));
        }
        assert!(bins.iter().all(|&b| (b - 10_000).abs() < 500), "{bins:?}");
        assert!((hits as f64 - 30_000.0).abs() < 5.0 * (100_000.0f64 * 0.21).sqrt());
        assert!(bernoulli(0, threshold(1.0)) && bernoulli(u64::MAX, threshold(1.0)));
        assert!(!bernoulli(0, threshold(0.0)));
    }
}
