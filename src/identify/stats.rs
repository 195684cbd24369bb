//! Statistics of identification runs: exact moments, an hdrhistogram for quantiles, error and
//! cap counts, all merging exactly.

use super::episode::IdentifyOutcome;
use crate::stats::Moments;
use hdrhistogram::Histogram;

/// Significant figures of the samples histogram.
const HIST_SIGFIG: u8 = 3;

/// Statistics of one identification cell (instance, N, setting, algorithm) over its runs.
#[derive(Clone, Debug)]
pub struct IdentifyStats {
    /// Runs absorbed.
    pub runs: u64,
    /// Samples to stop (to the cap for capped runs).
    pub samples: Moments,
    /// The same samples, for quantiles (3 significant figures).
    pub histogram: Histogram<u64>,
    /// Runs whose answer was not the true top-K set.
    pub errors: u64,
    /// Runs stopped by the sample cap.
    pub capped: u64,
}

impl IdentifyStats {
    /// Empty statistics for runs of at most `cap` samples.
    pub fn new(cap: u64) -> IdentifyStats {
        IdentifyStats {
            runs: 0,
            samples: Moments::default(),
            histogram: Histogram::new_with_max(cap.max(2), HIST_SIGFIG)
                .expect("bounds are valid: max ≥ 2, 3 significant figures"),
            errors: 0,
            capped: 0,
        }
    }

    /// Folds one run in.
    pub fn absorb(&mut self, outcome: &IdentifyOutcome) {
        self.runs += 1;
        self.samples.add(outcome.samples as f64);
        self.histogram
            .record(outcome.samples)
            .expect("samples never exceed the cap, the histogram's maximum");
        self.errors += u64::from(!outcome.correct);
        self.capped += u64::from(outcome.capped);
    }

    /// Merges another group of runs (exact).
    pub fn merge(&mut self, other: &IdentifyStats) {
        self.runs += other.runs;
        self.samples.merge(&other.samples);
        self.histogram
            .add(&other.histogram)
            .expect("histograms share their bounds");
        self.errors += other.errors;
        self.capped += other.capped;
    }
}
