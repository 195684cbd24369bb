//! What the eager, structure-of-arrays Markov walk issue 47 proposes costs on this machine,
//! measured apart from everything else: every copy's every channel computed block by block,
//! branch-free, channel by channel across 4 096 copies, for the bench's chains (K = 9,
//! idle_to_busy 0.1 + 0.02c, busy_to_idle 0.3: blocks of 2 slots for c ≤ 5, of 1 for c ≥ 6).
//!
//! Each block is computed from the same counter draws as `src/model/occupancy/markov.rs`
//! (draw n of block j: SplitMix64 of `bits(key, j) + n·γ`; gaps by the certified thresholds
//! `(1 − r)^k`; the lanes that fall inside the 1e-12 band are only counted here, where the
//! library would redo them with the reference logarithm). A block of ≤ 2 slots holds at most two
//! events, so its five draws are made unconditionally and its states selected without branches.
//!
//! The library's lazy walk queries only the channels a slot probes (2.6 a step in the bench,
//! the agent's and the benchmark's): this measures whether computing all nine eagerly, in a
//! loop the compiler may vectorise, is cheaper. Build and run, at three instruction sets:
//!
//!     rustc -O --edition 2024 scripts/experiments/eager_blocks.rs -o /tmp/eager && /tmp/eager
//!     rustc -O --edition 2024 -C target-cpu=x86-64-v3 scripts/experiments/eager_blocks.rs -o /tmp/eager3 && /tmp/eager3
//!     rustc -O --edition 2024 -C target-cpu=x86-64-v4 scripts/experiments/eager_blocks.rs -o /tmp/eager4 && /tmp/eager4
//!
//! It prints ns of CPU per copy-slot (all nine channels), the lanes in the band, and a checksum
//! of the masks (the same at every instruction set).

use std::time::Instant;

const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// The library's `splitmix64` (`src/util/rng.rs`).
#[inline(always)]
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(GAMMA);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A chain's block length (1 or 2), its certified thresholds `(1 − r)^k` widened by the band,
/// and its events' idle threshold.
struct Chain {
    block: u64,
    lo: [f64; 2],
    hi: [f64; 2],
    event: u64,
}

/// `1 − u` for the draw `x`, as `rand` makes a uniform f64 and the walk turns it into (0, 1].
#[inline(always)]
fn unit(x: u64) -> f64 {
    1.0 - (x >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Block `j`'s states (bit s: slot j·B + 1 + s) after the state `before`, and whether a gap
/// fell in the band.
#[inline(always)]
fn block(c: &Chain, key: u64, j: u64, before: u64) -> (u64, u64) {
    let s0 = splitmix64(key.wrapping_add(j.wrapping_mul(GAMMA)));
    let draw = |n: u64| splitmix64(s0.wrapping_add(n.wrapping_mul(GAMMA)));
    let (u1, v1, u2, v2) = (unit(draw(1)), draw(2), unit(draw(3)), draw(4));
    let two = c.block >> 1;
    // The first gap: 1 + the thresholds at or above u (both counted only in a 2-slot block).
    let s1 = u64::from(u1 <= c.lo[0]) + u64::from(u1 <= c.lo[1]) * two;
    let m1 = u64::from(u1 <= c.hi[0]) + u64::from(u1 <= c.hi[1]) * two;
    let g1 = 1 + s1;
    let (v1, v2) = (u64::from(v1 < c.event), u64::from(v2 < c.event));
    // A second event needs the first at slot 1 and a gap of 1.
    let s2 = u64::from(u2 <= c.lo[0]);
    let m2 = u64::from(u2 <= c.hi[0]);
    let e1 = g1 <= c.block;
    let e2 = g1 == 1 && s2 == 0 && c.block == 2;
    let first = if g1 == 1 { v1 } else { before };
    let second = if e2 {
        v2
    } else if e1 {
        v1
    } else {
        before
    };
    let band = u64::from(s1 != m1) | (u64::from(s2 != m2) & u64::from(g1 == 1));
    (first | (second << 1), band)
}

fn run(n: usize, slots: u64, chains: &[Chain], keys: &[u64], masks: &mut [u64]) -> u64 {
    let mut band = 0;
    for t in 1..=slots {
        for (c, ch) in chains.iter().enumerate() {
            let last = ch.block - 1;
            if (t - 1) & last != 0 {
                continue;
            }
            let j = (t - 1) / ch.block;
            let rows = c * n..(c + 1) * n;
            for (m, &key) in masks[rows.clone()].iter_mut().zip(&keys[rows]) {
                let (states, b) = block(ch, key, j, (*m >> last) & 1);
                *m = states;
                band += b;
            }
        }
    }
    band
}

fn main() {
    let (n, slots) = (4096usize, 2000u64);
    let chains: Vec<Chain> = (0..9)
        .map(|c| {
            let (a, b) = (0.1 + 0.02 * c as f64, 0.3);
            let r: f64 = a + b;
            let block = if 1.0 / r >= 2.0 { 2 } else { 1 };
            let (t1, t2) = (1.0 - r, (1.0 - r) * (1.0 - r));
            Chain {
                block,
                lo: [t1 * (1.0 - 1e-12), t2 * (1.0 - 1e-12)],
                hi: [t1 * (1.0 + 1e-12), t2 * (1.0 + 1e-12)],
                event: (b / r * 18_446_744_073_709_551_616.0) as u64,
            }
        })
        .collect();
    let keys: Vec<u64> = (0..9 * n as u64).map(|i| splitmix64(i * 7 + 3)).collect();
    let mut masks = vec![0u64; 9 * n];
    for _ in 0..5 {
        let start = Instant::now();
        let band = run(n, slots, &chains, &keys, &mut masks);
        let ns = start.elapsed().as_secs_f64() / (n as f64 * slots as f64) * 1e9;
        let sum = masks.iter().fold(0u64, |a, &m| a.wrapping_mul(31).wrapping_add(m));
        println!("{ns:.1} ns per copy-slot (9 channels), {band} lanes in the band, checksum {sum}");
    }
}
