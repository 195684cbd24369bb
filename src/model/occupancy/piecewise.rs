//! i.i.d. slots whose idle probability changes at given slots (`Piecewise([(until: 50000,
//! theta: 0.8), (theta: 0.3)])`): drift through the day, or an abrupt change, for testing how
//! policies for switching bandits cope. Segment `j` covers the slots after the previous
//! segment's `until` up to its own `until` (inclusive); the last segment has none and runs to
//! the horizon. Slot draws come from the channel's counter stream, as for [`super::Iid`].

use super::{Process, ProcessSpec, ProcessStats, SpecContext, SpecProblem, Step, probability};
use crate::util::crn;
use serde::{Deserialize, Serialize};

/// `Piecewise([(until: 50000, theta: 0.8), (theta: 0.3)])`: the segments in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct PiecewiseSpec(pub(crate) Vec<SegmentSpec>);

/// One segment as a scenario writes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SegmentSpec {
    /// Last slot of the segment (left out for the last segment).
    #[serde(default)]
    pub(crate) until: Option<u64>,
    /// Idle probability during the segment.
    pub(crate) theta: f64,
}

impl ProcessSpec for PiecewiseSpec {
    type Process = Piecewise;

    fn check(&self, _cx: &mut SpecContext<'_>) -> Result<Piecewise, Vec<SpecProblem>> {
        let segments = &self.0;
        if segments.is_empty() {
            return Err(vec![SpecProblem::at(
                &[],
                "must list at least one segment, e.g. [(theta: 0.5)]",
            )]);
        }
        let mut problems = Vec::new();
        let mut previous = 0u64;
        let last = segments.len() - 1;
        for (j, s) in segments.iter().enumerate() {
            let at = |field| [Step::Index(j), Step::Field(field)];
            if !probability(s.theta) {
                problems.push(SpecProblem::at(
                    &at("theta"),
                    format!(
                        "is the probability of being idle and must lie in [0, 1] (got {})",
                        s.theta
                    ),
                ));
            }
            match (s.until, j == last) {
                (Some(_), true) => problems.push(SpecProblem::at(
                    &at("until"),
                    "the last segment runs to the horizon and takes no `until`",
                )),
                (None, false) => problems.push(SpecProblem::at(
                    &at("until"),
                    "every segment but the last needs `until` (its last slot)",
                )),
                (Some(u), false) => {
                    if u <= previous {
                        problems.push(SpecProblem::at(
                            &at("until"),
                            format!(
                                "must be after the previous segment's last slot {previous} (got {u})"
                            ),
                        ));
                    }
                    previous = u;
                }
                (None, true) => {}
            }
        }
        if problems.is_empty() {
            Ok(Piecewise::new(
                segments
                    .iter()
                    .map(|s| Segment::new(s.until, s.theta))
                    .collect(),
            ))
        } else {
            Err(problems)
        }
    }
}

/// One segment.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Segment {
    /// Last slot of the segment (`None` for the last segment).
    pub until: Option<u64>,
    /// Idle probability during the segment.
    pub theta: f64,
    threshold: u64,
}

impl Segment {
    /// A segment idle with probability `theta` up to slot `until` (checked by the caller:
    /// θ in [0, 1], `until` increasing, only the last one `None`).
    pub(crate) fn new(until: Option<u64>, theta: f64) -> Segment {
        Segment {
            until,
            theta,
            threshold: crn::threshold(theta),
        }
    }
}

/// Piecewise-stationary i.i.d. occupancy.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Piecewise {
    segments: Vec<Segment>,
}

/// One player's position: the channel key and the current segment.
#[derive(Clone, Debug)]
pub(crate) struct PiecewiseState {
    key: u64,
    segment: usize,
}

impl Piecewise {
    /// The segments, in order.
    pub(crate) fn new(segments: Vec<Segment>) -> Piecewise {
        Piecewise { segments }
    }

    fn segment_of(&self, slot: u64, from: usize) -> usize {
        let mut j = from;
        while self.segments[j].until.is_some_and(|u| slot > u) {
            j += 1;
        }
        j
    }
}

impl Process for Piecewise {
    type State = PiecewiseState;

    fn start(&self, key: u64) -> PiecewiseState {
        PiecewiseState { key, segment: 0 }
    }

    #[inline]
    fn idle(&self, s: &mut PiecewiseState, slot: u64, _offset: f64) -> bool {
        s.segment = self.segment_of(slot, s.segment);
        crn::bernoulli(crn::bits(s.key, slot), self.segments[s.segment].threshold)
    }

    fn theta_at(&self, slot: u64) -> f64 {
        // A binary search: the benchmark asks at every boundary, and a scan from the first
        // segment made that quadratic in the segments (200 000 of them took minutes).
        let slot = slot.max(1);
        let j = self
            .segments
            .partition_point(|s| s.until.is_some_and(|u| slot > u));
        self.segments[j.min(self.segments.len() - 1)].theta
    }

    /// θ is the time average over the horizon.
    fn stats(&self, horizon: u64) -> ProcessStats {
        let mut covered = 0u64;
        let mut weighted = 0.0;
        for s in &self.segments {
            let end = s.until.unwrap_or(horizon).min(horizon);
            if end > covered {
                weighted += s.theta * (end - covered) as f64;
                covered = end;
            }
        }
        ProcessStats {
            theta: weighted / horizon.max(1) as f64,
            mean_idle: None,
            mean_busy: None,
            autocorrelation: Some(0.0),
        }
    }

    fn describe(&self) -> String {
        let parts: Vec<String> = self
            .segments
            .iter()
            .map(|s| match s.until {
                Some(u) => format!("(until: {u}, theta: {})", s.theta),
                None => format!("(theta: {})", s.theta),
            })
            .collect();
        format!("Piecewise([{}])", parts.join(", "))
    }

    fn boundaries(&self) -> Vec<u64> {
        self.segments.iter().filter_map(|s| s.until).collect()
    }

    fn is_dynamic(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_switch_after_their_last_slot() {
        let p = Piecewise::new(vec![
            Segment::new(Some(100), 1.0),
            Segment::new(Some(200), 0.0),
            Segment::new(None, 1.0),
        ]);
        let mut s = p.start(7);
        let states: Vec<bool> = (1..=300).map(|t| p.idle(&mut s, t, 0.0)).collect();
        assert!(states[..100].iter().all(|&x| x));
        assert!(states[100..200].iter().all(|&x| !x));
        assert!(states[200..].iter().all(|&x| x));
        assert_eq!(p.theta_at(100), 1.0);
        assert_eq!(p.theta_at(101), 0.0);
        assert_eq!(p.stats(300).theta, 2.0 / 3.0);
        assert_eq!(p.boundaries(), vec![100, 200]);
    }
}
