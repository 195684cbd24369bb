//! Idle with probability θ in every slot, independently: the papers' setting (`theta: 0.8`).

use super::{Process, ProcessSpec, ProcessStats, SpecContext, SpecProblem, Step, probability};
use crate::util::crn;
use serde::{Deserialize, Serialize};

/// `Iid(theta: 0.8)`, the same as a channel's `theta: 0.8`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct IidSpec {
    /// Idle probability.
    pub(crate) theta: f64,
}

impl ProcessSpec for IidSpec {
    type Process = Iid;

    fn check(&self, _cx: &mut SpecContext<'_>) -> Result<Iid, Vec<SpecProblem>> {
        if probability(self.theta) {
            Ok(Iid::new(self.theta))
        } else {
            Err(vec![SpecProblem::at(
                &[Step::Field("theta")],
                format!(
                    "is the probability of being idle and must lie in [0, 1] (got {})",
                    self.theta
                ),
            )])
        }
    }
}

/// i.i.d. occupancy.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Iid {
    theta: f64,
    threshold: u64,
}

impl Iid {
    /// Idle with probability `theta` (checked to lie in [0, 1] by the caller).
    pub(crate) fn new(theta: f64) -> Iid {
        Iid {
            theta,
            threshold: crn::threshold(theta),
        }
    }
}

impl Process for Iid {
    type State = u64;

    fn start(&self, key: u64) -> u64 {
        key
    }

    /// The draw at position `slot` of the channel's counter stream: the same for every player.
    #[inline]
    fn idle(&self, key: &mut u64, slot: u64, _offset: f64) -> bool {
        crn::bernoulli(crn::bits(*key, slot), self.threshold)
    }

    fn theta_at(&self, _slot: u64) -> f64 {
        self.theta
    }

    fn stats(&self, _horizon: u64) -> ProcessStats {
        // Geometric periods: idle runs of mean 1/(1 − θ), busy runs of mean 1/θ.
        ProcessStats {
            theta: self.theta,
            mean_idle: (self.theta < 1.0).then(|| 1.0 / (1.0 - self.theta)),
            mean_busy: (self.theta > 0.0).then(|| 1.0 / self.theta),
            autocorrelation: Some(0.0),
        }
    }

    fn describe(&self) -> String {
        format!("i.i.d. θ = {}", self.theta)
    }

    fn is_iid(&self) -> bool {
        true
    }

    /// The same draws against another threshold: user u finds the channel idle when the
    /// primary user's draw for (run, channel, slot) falls below its θ.
    fn seen_idle(&self, theta: f64) -> Result<Iid, String> {
        Ok(Iid::new(theta))
    }
}
