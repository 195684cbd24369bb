//! Per-channel sample statistics shared by the UCB-type policies.
//!
//! Everything a slot's index needs from a channel changes only when that channel is probed, so
//! it is cached here at observation time (`θ̂`, `ĉ`, `1/√N`): planning a slot then costs one
//! multiply-add per channel for the exploration term, whose `√(α ln t)` factor is common to all
//! channels.

/// Counts, sums and cached derived values for K channels.
#[derive(Clone, Debug)]
pub(crate) struct Estimates {
    n: Vec<u64>,
    idle: Vec<u64>,
    cost_sum: Vec<f64>,
    theta_hat: Vec<f64>,
    cost_hat: Vec<f64>,
    inv_sqrt_n: Vec<f64>,
}

impl Estimates {
    /// No observations yet (`1/√N` is infinite until the first probe).
    pub(crate) fn new(k: usize) -> Estimates {
        Estimates {
            n: vec![0; k],
            idle: vec![0; k],
            cost_sum: vec![0.0; k],
            theta_hat: vec![0.0; k],
            cost_hat: vec![0.0; k],
            inv_sqrt_n: vec![f64::INFINITY; k],
        }
    }

    /// Records one probe of channel `i`.
    #[inline]
    pub(crate) fn observe(&mut self, i: usize, idle: bool, cost: f64) {
        let n = self.n[i] + 1;
        self.n[i] = n;
        self.idle[i] += u64::from(idle);
        self.cost_sum[i] += cost;
        let nf = n as f64;
        self.theta_hat[i] = self.idle[i] as f64 / nf;
        self.cost_hat[i] = self.cost_sum[i] / nf;
        self.inv_sqrt_n[i] = 1.0 / nf.sqrt();
    }

    /// Number of channels.
    pub(crate) fn len(&self) -> usize {
        self.n.len()
    }

    /// Probes of each channel so far, `N_i`.
    pub(crate) fn counts(&self) -> &[u64] {
        &self.n
    }

    /// Sample means of the idle indicator, `θ̂_i`.
    pub(crate) fn theta_hat(&self) -> &[f64] {
        &self.theta_hat
    }

    /// Sample means of the cost, `ĉ_i`.
    pub(crate) fn cost_hat(&self) -> &[f64] {
        &self.cost_hat
    }

    /// `1/√N_i` (infinite for a channel never probed).
    pub(crate) fn inv_sqrt_n(&self) -> &[f64] {
        &self.inv_sqrt_n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caches_follow_the_sums() {
        let mut e = Estimates::new(2);
        e.observe(1, true, 0.5);
        e.observe(1, false, 0.25);
        e.observe(1, true, 0.0);
        assert_eq!(e.counts(), &[0, 3]);
        assert!((e.theta_hat()[1] - 2.0 / 3.0).abs() < 1e-15);
        assert!((e.cost_hat()[1] - 0.25).abs() < 1e-15);
        assert!((e.inv_sqrt_n()[1] - 1.0 / 3f64.sqrt()).abs() < 1e-15);
        assert!(e.inv_sqrt_n()[0].is_infinite());
    }
}
