//! The floor: CC-UCB (unknown costs, Bernoulli costs) written as one plain loop over plain
//! vectors, no traits, no enums, no recorder. It draws the same random numbers as specprobe's
//! engine (each channel's state and cost at slot t from its counter streams), so both compute
//! the same pseudo-regret bit for bit (checked by the integration test `floor_matches_engine`),
//! and the benchmark compares like with like.

use specprobe::crn::{self, Purpose, RunKey};

/// Cumulative pseudo-regret and net reward of one CC-UCB run.
pub(crate) fn cc_ucb(
    theta: &[f64],
    cost: &[f64],
    alpha: f64,
    eps: f64,
    horizon: u64,
    seed: u64,
) -> (f64, f64) {
    let k = theta.len();
    let key = RunKey::new(seed, 0, 0);
    let idle_key: Vec<u64> = (0..k).map(|i| key.channel(i, Purpose::Occupancy)).collect();
    let cost_key: Vec<u64> = (0..k).map(|i| key.channel(i, Purpose::Cost)).collect();
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
    let (mut regret, mut reward) = (0.0, 0.0);
    for t in 1..=horizon {
        list.clear();
        if t <= k as u64 {
            list.push(t as usize - 1);
        } else {
            let s = (alpha * (t as f64).ln()).sqrt();
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
        regret += best - value(&list);
        reward += net;
    }
    (regret, reward)
}
