//! Per-run random streams.
//!
//! Randomness is never global: every Monte Carlo run owns one generator derived from the scenario
//! seed, the run index and a *domain* (a hash of the experiment and policy labels). A run's
//! outcome therefore depends on nothing else: not on the thread that ran it, not on how many
//! threads there were, not on which other policies the scenario lists, not on the shard it ran in.
//!
//! The generator is [`Pcg64Mcg`]: portable (same output on every platform, unlike `SmallRng` or
//! `StdRng`), 128 bits of state, and about one multiplication per output.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// The generator each run uses.
pub type SimRng = Pcg64Mcg;

/// SplitMix64's finaliser: a bijection on `u64` that spreads every input bit over every output
/// bit, so that neighbouring keys (run 7 and run 8) give unrelated states.
pub(crate) const fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A stable 64-bit hash of a sequence of labels (FNV-1a with a separator byte between parts).
///
/// `std`'s `DefaultHasher` is explicitly allowed to change between Rust releases, which would
/// silently change every result; FNV-1a is fixed forever.
pub(crate) fn label_hash(parts: &[&str]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h = OFFSET;
    for part in parts {
        for &b in part.as_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(PRIME);
        }
        // 0xff never occurs in UTF-8, so ("ab", "c") and ("a", "bc") hash differently.
        h = (h ^ 0xff).wrapping_mul(PRIME);
    }
    h
}

/// The generator of run `run` in `domain`, for a scenario seeded with `seed`.
///
/// # Example
/// ```
/// use rand::RngExt;
/// let mut a = specprobe::stream(2018, 7, 3);
/// let mut b = specprobe::stream(2018, 7, 3);
/// assert_eq!(a.random::<u64>(), b.random::<u64>());
/// ```
pub fn stream(seed: u64, domain: u64, run: u64) -> SimRng {
    let key = splitmix64(splitmix64(splitmix64(seed) ^ domain) ^ run);
    let lo = splitmix64(key ^ 0x5851_f42d_4c95_7f2d);
    let hi = splitmix64(key ^ 0x1405_7b7e_f767_814f);
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&lo.to_le_bytes());
    bytes[8..].copy_from_slice(&hi.to_le_bytes());
    Pcg64Mcg::from_seed(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let first = |seed, domain, run| stream(seed, domain, run).random::<u64>();
        assert_eq!(first(1, 2, 3), first(1, 2, 3));
        assert_ne!(first(1, 2, 3), first(1, 2, 4));
        assert_ne!(first(1, 2, 3), first(1, 3, 3));
        assert_ne!(first(1, 2, 3), first(2, 2, 3));
    }

    /// Pins the exact output for a seed: a change here changes every published result, so it
    /// must be deliberate (the rand book calls these value-stability tests).
    #[test]
    fn value_stability() {
        let mut rng = stream(2018, label_hash(&["paper-fig1a", "cc-ucb"]), 0);
        let got: Vec<u64> = (0..3).map(|_| rng.random::<u64>()).collect();
        assert_eq!(got, PINNED.to_vec());
    }
    const PINNED: [u64; 3] = [
        2252711792278737409,
        714437515964396041,
        13961702998288379473,
    ];

    #[test]
    fn label_hash_separates_parts() {
        assert_ne!(label_hash(&["ab", "c"]), label_hash(&["a", "bc"]));
        assert_eq!(label_hash(&["x"]), label_hash(&["x"]));
    }
}
