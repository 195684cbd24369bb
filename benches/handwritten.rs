//! The floors: CC-UCB (unknown costs, Bernoulli costs) and classic UCB1 (constant costs), each
//! written as one plain loop over plain vectors, no traits, no enums, no recorder. They draw the
//! same random numbers as specprobe's engine (each channel's state and cost at slot t from its
//! counter streams), so both compute the same pseudo-regret, reward and realised regret bit for
//! bit (checked by `tests/it/floor.rs` and by the benches), and the benchmarks compare like
//! with like.

// Each bench and test that includes this file uses some of its floors.
#![allow(dead_code)]

/// The common random numbers of specprobe's engine, restated (see `src/util/crn.rs`): each
/// (run, channel) key, and the draw at slot `t` of a key's counter stream, SplitMix64 at
/// position `t`.
use specprobe::math;

mod crn {
    const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

    pub(super) fn splitmix64(x: u64) -> u64 {
        let mut z = x.wrapping_add(GAMMA);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// The key of run `run` of the experiment of domain `domain`.
    pub(super) fn run_key(seed: u64, domain: u64, run: u64) -> u64 {
        splitmix64(splitmix64(splitmix64(seed ^ 0x6372_6e5f_6b65_7973) ^ domain) ^ run)
    }

    /// Channel `channel`'s key for `purpose` (1 occupancy, 2 cost).
    pub(super) fn channel(run_key: u64, channel: usize, purpose: u64) -> u64 {
        splitmix64(run_key ^ splitmix64((channel as u64) << 3 | purpose))
    }

    pub(super) fn bits(key: u64, t: u64) -> u64 {
        splitmix64(key.wrapping_add(t.wrapping_mul(GAMMA)))
    }

    pub(super) fn threshold(p: f64) -> u64 {
        if p >= 1.0 {
            u64::MAX
        } else if p <= 0.0 {
            0
        } else {
            (p * 18_446_744_073_709_551_616.0) as u64
        }
    }

    pub(super) fn bernoulli(bits: u64, threshold: u64) -> bool {
        threshold == u64::MAX || bits < threshold
    }
}

/// What one run ends with: cumulative pseudo-regret, net reward and realised regret (the
/// oracle's reward on the same paths minus the policy's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Outcome {
    pub(crate) pseudo_regret: f64,
    pub(crate) reward: f64,
    pub(crate) realized_regret: f64,
}

/// One CC-UCB run, the oracle's realised reward on the same paths beside it (reusing the
/// policy's draws of a channel in the same slot, drawing the rest).
pub(crate) fn cc_ucb(
    theta: &[f64],
    cost: &[f64],
    alpha: f64,
    eps: f64,
    horizon: u64,
    seed: u64,
) -> Outcome {
    let k = theta.len();
    let key = crn::run_key(seed, 0, 0);
    let idle_key: Vec<u64> = (0..k).map(|i| crn::channel(key, i, 1)).collect();
    let cost_key: Vec<u64> = (0..k).map(|i| crn::channel(key, i, 2)).collect();
    let idle: Vec<u64> = theta.iter().map(|&p| crn::threshold(p)).collect();
    let pay: Vec<u64> = cost.iter().map(|&p| crn::threshold(p)).collect();
    // UCR-T1 and its expected reward.
    let mut opt: Vec<usize> = (0..k).filter(|&i| theta[i] > cost[i]).collect();
    opt.sort_by(|&a, &b| {
        (theta[b] * cost[a])
            .total_cmp(&(theta[a] * cost[b]))
            .then(a.cmp(&b))
    });
    let value = |list: &[usize]| {
        let (mut reach, mut total) = (1.0, 0.0);
        for &i in list {
            total += (theta[i] - cost[i]) * reach;
            reach *= 1.0 - theta[i];
            if reach < f64::MIN_POSITIVE {
                break;
            }
        }
        total
    };
    let best = value(&opt);
    let (mut n, mut idles, mut paid) = (vec![0u64; k], vec![0u64; k], vec![0.0f64; k]);
    let (mut th, mut ch, mut inv) = (vec![0.0; k], vec![0.0; k], vec![f64::INFINITY; k]);
    let mut key = vec![0.0f64; k];
    let mut list: Vec<usize> = Vec::with_capacity(k);
    // This slot's draws of each channel the policy probed: (slot, idle, cost).
    let mut seen = vec![(0u64, false, 0.0f64); k];
    let (mut regret, mut reward, mut oracle) = (0.0, 0.0, 0.0);
    for t in 1..=horizon {
        list.clear();
        if t <= k as u64 {
            list.push(t as usize - 1);
        } else {
            let s = (alpha * math::ln(t as f64)).sqrt();
            for i in 0..k {
                let u = s * inv[i];
                let ratio = (th[i] + u) / (ch[i] - u).max(eps);
                if ratio > 1.0 {
                    key[i] = ratio;
                    list.push(i);
                }
            }
            list.sort_unstable_by(|&a, &b| key[b].total_cmp(&key[a]).then(a.cmp(&b)));
        }
        let mut net = 0.0;
        for &i in &list {
            let x = crn::bernoulli(crn::bits(idle_key[i], t), idle[i]);
            let y = if crn::bernoulli(crn::bits(cost_key[i], t), pay[i]) {
                1.0
            } else {
                0.0
            };
            seen[i] = (t, x, y);
            n[i] += 1;
            idles[i] += u64::from(x);
            paid[i] += y;
            let nf = n[i] as f64;
            th[i] = idles[i] as f64 / nf;
            ch[i] = paid[i] / nf;
            inv[i] = 1.0 / nf.sqrt();
            net -= y;
            if x {
                net += 1.0;
                break;
            }
        }
        let mut spent = 0.0;
        let mut found = false;
        for &i in &opt {
            let (x, y) = match seen[i] {
                (slot, x, y) if slot == t => (x, y),
                _ => (
                    crn::bernoulli(crn::bits(idle_key[i], t), idle[i]),
                    if crn::bernoulli(crn::bits(cost_key[i], t), pay[i]) {
                        1.0
                    } else {
                        0.0
                    },
                ),
            };
            spent += y;
            if x {
                found = true;
                break;
            }
        }
        oracle += (if found { 1.0 } else { 0.0 }) - spent;
        regret += best - value(&list);
        reward += net;
    }
    Outcome {
        pseudo_regret: regret,
        reward,
        realized_regret: oracle - reward,
    }
}

/// One classic UCB1 run (Auer et al. 2002: the channel of largest θ̂ + sqrt(2 ln t / N) on the
/// idle indicator, each channel once first) with the same cost `cost` for every probe, run
/// `run` of `seed`, the oracle's realised reward on the same paths beside it. Written with the
/// two latency tricks specprobe uses (each probe's next θ̂ and 1/√N, and the next slot's
/// sqrt(2 ln t), computed one step ahead), so that it is the floor for the same work.
pub(crate) fn ucb1(theta: &[f64], cost: f64, horizon: u64, seed: u64, run: u64) -> Outcome {
    let k = theta.len();
    let key = crn::run_key(seed, 0, run);
    let idle_key: Vec<u64> = (0..k).map(|i| crn::channel(key, i, 1)).collect();
    let idle: Vec<u64> = theta.iter().map(|&p| crn::threshold(p)).collect();
    // UCR-T1 (with equal costs: the channels worth probing by decreasing θ) and the expected
    // reward of each one-channel list.
    let mut opt: Vec<usize> = (0..k).filter(|&i| theta[i] > cost).collect();
    opt.sort_by(|&a, &b| theta[b].total_cmp(&theta[a]).then(a.cmp(&b)));
    let value: Vec<f64> = theta.iter().map(|&p| p - cost).collect();
    let best = {
        let (mut reach, mut total) = (1.0, 0.0);
        for &i in &opt {
            total += value[i] * reach;
            reach *= 1.0 - theta[i];
        }
        total
    };
    let level = |t: u64| (2.0 * math::ln(t as f64)).sqrt();
    let (mut n, mut idles) = (vec![0u64; k], vec![0u64; k]);
    let (mut th, mut inv) = (vec![0.0f64; k], vec![f64::INFINITY; k]);
    // Per channel, the next probe's θ̂ (found busy, found idle) and 1/√N.
    let mut next = vec![[0.0, 1.0, 1.0]; k];
    let mut s_next = level(k as u64 + 1);
    let (mut regret, mut reward, mut oracle) = (0.0, 0.0, 0.0);
    for t in 1..=horizon {
        let i = if t <= k as u64 {
            t as usize - 1
        } else {
            let s = s_next;
            let (mut b, mut bi) = (0, f64::NEG_INFINITY);
            for j in 0..k {
                let x = th[j] + s * inv[j];
                if x > bi {
                    (b, bi) = (j, x);
                }
            }
            s_next = level(t + 1);
            b
        };
        let x = crn::bernoulli(crn::bits(idle_key[i], t), idle[i]);
        let ahead = next[i];
        th[i] = ahead[usize::from(x)];
        inv[i] = ahead[2];
        n[i] += 1;
        idles[i] += u64::from(x);
        let nf = (n[i] + 1) as f64;
        next[i] = [
            idles[i] as f64 / nf,
            (idles[i] + 1) as f64 / nf,
            1.0 / nf.sqrt(),
        ];
        let mut spent = 0.0;
        let mut found = false;
        for &j in &opt {
            let xj = if j == i {
                x
            } else {
                crn::bernoulli(crn::bits(idle_key[j], t), idle[j])
            };
            spent += cost;
            if xj {
                found = true;
                break;
            }
        }
        oracle += (if found { 1.0 } else { 0.0 }) - spent;
        regret += best - value[i];
        reward += (if x { 1.0 } else { 0.0 }) - cost;
    }
    Outcome {
        pseudo_regret: regret,
        reward,
        realized_regret: oracle - reward,
    }
}
