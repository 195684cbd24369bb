//! Imperfect sensing: an energy detector that errs (`sensing: (false_alarm: 0.05,
//! missed_detection: 0.1)`; perfect by default).
//!
//! A probe reports the *sensed* state: an idle channel is sensed busy with probability
//! `false_alarm` (a missed opportunity), a busy channel is sensed idle with probability
//! `missed_detection`. The user stops at the first channel sensed idle and transmits; if that
//! channel was truly busy, the transmission collides with the primary user and earns nothing.
//! Policies learn from what they sense. The draws are keyed by (run, channel, slot), so two
//! policies probing the same channel in the same slot sense the same thing.

use crate::util::crn;
use serde::{Deserialize, Serialize};

/// Sensing error rates as a scenario writes them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SensingSpec {
    /// P(sensed busy | idle).
    #[serde(default)]
    pub false_alarm: f64,
    /// P(sensed idle | busy).
    #[serde(default)]
    pub missed_detection: f64,
}

/// Checked sensing error rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Sensing {
    spec: SensingSpec,
    false_alarm: u64,
    missed_detection: u64,
}

impl Default for Sensing {
    fn default() -> Self {
        Sensing::new(SensingSpec::default())
    }
}

impl Sensing {
    /// Rates checked to lie in [0, 1] by the caller.
    pub(crate) fn new(spec: SensingSpec) -> Sensing {
        Sensing {
            spec,
            false_alarm: crn::threshold(spec.false_alarm),
            missed_detection: crn::threshold(spec.missed_detection),
        }
    }

    /// The rates.
    pub(crate) fn spec(&self) -> SensingSpec {
        self.spec
    }

    /// Whether every probe reads the true state.
    pub(crate) fn is_perfect(&self) -> bool {
        self.spec.false_alarm == 0.0 && self.spec.missed_detection == 0.0
    }

    /// The state sensed in a slot whose sensing draw is `bits`.
    #[inline]
    pub(crate) fn sense(&self, idle: bool, bits: u64) -> bool {
        if idle {
            !crn::bernoulli(bits, self.false_alarm)
        } else {
            crn::bernoulli(bits, self.missed_detection)
        }
    }

    /// P(sensed idle) for a channel idle with probability `theta`: the probability that the
    /// cascade stops at it.
    pub(crate) fn stop_probability(&self, theta: f64) -> f64 {
        theta * (1.0 - self.spec.false_alarm) + (1.0 - theta) * self.spec.missed_detection
    }

    /// P(truly idle and sensed idle): the probability that stopping at it earns the reward.
    pub(crate) fn success_probability(&self, theta: f64) -> f64 {
        theta * (1.0 - self.spec.false_alarm)
    }

    /// The rates in scenario syntax.
    pub(crate) fn describe(&self) -> String {
        format!(
            "(false_alarm: {}, missed_detection: {})",
            self.spec.false_alarm, self.spec.missed_detection
        )
    }
}
