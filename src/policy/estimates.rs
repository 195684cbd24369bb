//! Per-channel sample statistics shared by the UCB-type policies.
//!
//! Everything a slot's index needs from a channel changes only when that channel is probed, so
//! it is cached here at observation time (`θ̂`, `ĉ`, `1/√N`): planning a slot then costs one
//! multiply-add per channel for the exploration term, whose `√(α ln t)` factor is common to all
//! channels.

/// Counts, sums and cached derived values for K channels.
#[derive(Clone, Debug)]
pub(crate) struct Estimates {
    /// Per channel, the sums a probe updates together (one bounds check for all of them).
    sums: Vec<Sums>,
    theta_hat: Vec<f64>,
    cost_hat: Vec<f64>,
    inv_sqrt_n: Vec<f64>,
}

/// One channel's probes, idle findings and summed costs.
#[derive(Clone, Copy, Debug)]
struct Sums {
    n: u64,
    idle: u64,
    cost: f64,
    /// What the next probe makes `θ̂` (indexed by what it finds: busy, idle) and `1/√N`: the same divisions
    /// and square root, computed one probe ahead so that the next slot's index waits for a
    /// select after a probe, not for them (they are the slot loop's longest chain).
    next_theta: [f64; 2],
    next_inv_sqrt_n: f64,
}

impl Sums {
    /// No probe yet: the first makes `θ̂` 0 or 1 and `1/√N` 1.
    fn new() -> Sums {
        let mut s = Sums {
            n: 0,
            idle: 0,
            cost: 0.0,
            next_theta: [0.0; 2],
            next_inv_sqrt_n: 0.0,
        };
        s.look_ahead();
        s
    }

    /// Computes the next probe's `θ̂` and `1/√N` from the sums so far.
    #[inline]
    fn look_ahead(&mut self) {
        let nf = (self.n + 1) as f64;
        self.next_theta = [self.idle as f64 / nf, (self.idle + 1) as f64 / nf];
        self.next_inv_sqrt_n = 1.0 / nf.sqrt();
    }
}

impl Estimates {
    /// No observations yet (`1/√N` is infinite until the first probe).
    pub(crate) fn new(k: usize) -> Estimates {
        Estimates {
            sums: vec![Sums::new(); k],
            theta_hat: vec![0.0; k],
            cost_hat: vec![0.0; k],
            inv_sqrt_n: vec![f64::INFINITY; k],
        }
    }

    /// Records one probe of channel `i`.
    #[inline]
    pub(crate) fn observe(&mut self, i: usize, idle: bool, cost: f64) {
        let s = &mut self.sums[i];
        // `idle / n` and `1/√n`, as computed at the previous probe.
        self.theta_hat[i] = s.next_theta[usize::from(idle)];
        self.inv_sqrt_n[i] = s.next_inv_sqrt_n;
        s.n += 1;
        s.idle += u64::from(idle);
        s.cost += cost;
        self.cost_hat[i] = s.cost / s.n as f64;
        s.look_ahead();
    }

    /// Number of channels.
    pub(crate) fn len(&self) -> usize {
        self.sums.len()
    }

    /// Probes of channel `i` so far, `N_i`.
    #[inline]
    pub(crate) fn count(&self, i: usize) -> u64 {
        self.sums[i].n
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
        assert_eq!((e.count(0), e.count(1)), (0, 3));
        assert!((e.theta_hat()[1] - 2.0 / 3.0).abs() < 1e-15);
        assert!((e.cost_hat()[1] - 0.25).abs() < 1e-15);
        assert!((e.inv_sqrt_n()[1] - 1.0 / 3f64.sqrt()).abs() < 1e-15);
        assert!(e.inv_sqrt_n()[0].is_infinite());
    }
}
