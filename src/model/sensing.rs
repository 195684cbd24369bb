//! Imperfect sensing: an energy detector that errs (`sensing: (false_alarm: 0.05,
//! missed_detection: 0.1)`; perfect by default).
//!
//! A probe reports the *sensed* state: an idle channel is sensed busy with probability
//! `false_alarm` (a missed opportunity), a busy channel is sensed idle with probability
//! `missed_detection`. The user stops at the first channel sensed idle and transmits; if that
//! channel was truly busy, the transmission collides with the primary user and earns nothing.
//! Policies learn from what they sense. The draws are keyed by (run, channel, slot), so two
//! policies probing the same channel in the same slot sense the same thing.

use crate::model::detector::{EnergyDetector, EnergyDetectorSpec};
use crate::util::crn;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A channel's `sensing` as a scenario writes it: error rates, or a detector model that gives
/// them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "is neither error rates `(false_alarm: p, missed_detection: q)` nor `EnergyDetector(..)` with only its fields: snr_db, sample_rate, duration or samples, target_pd or threshold, fading"
)]
pub enum RawSensing {
    /// A detector model.
    Model(SensingModel),
    /// Error rates given directly.
    Rates(SensingSpec),
}

impl Default for RawSensing {
    fn default() -> Self {
        RawSensing::Rates(SensingSpec::default())
    }
}

/// Detector models that give a probe's error rates from its physics.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum SensingModel {
    /// An energy detector (see [`crate::sensing::EnergyDetectorSpec`]).
    EnergyDetector(EnergyDetectorSpec),
}

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
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Sensing {
    spec: SensingSpec,
    /// The detector the rates come from, if the scenario gave one (behind a pointer: only
    /// descriptions read it, and a channel stays small in the hot loop's cache).
    detector: Option<Arc<EnergyDetector>>,
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
            detector: None,
            false_alarm: crn::threshold(spec.false_alarm),
            missed_detection: crn::threshold(spec.missed_detection),
        }
    }

    /// The rates of an energy detector (P_fa, 1 − P_d), remembering it for descriptions.
    pub(crate) fn of_detector(detector: EnergyDetector) -> Sensing {
        Sensing {
            detector: Some(Arc::new(detector)),
            ..Sensing::new(SensingSpec {
                false_alarm: detector.pfa(),
                missed_detection: 1.0 - detector.pd(),
            })
        }
    }

    /// The detector the rates come from, if any.
    pub(crate) fn detector(&self) -> Option<&EnergyDetector> {
        self.detector.as_deref()
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

    /// The sensing in scenario syntax (a detector as written, else the rates).
    pub(crate) fn describe(&self) -> String {
        if let Some(d) = &self.detector {
            return format!(
                "EnergyDetector{}",
                crate::util::ron_text::to_ron_line(d.spec())
            );
        }
        format!(
            "(false_alarm: {}, missed_detection: {})",
            self.spec.false_alarm, self.spec.missed_detection
        )
    }
}
