//! Statistics of identification runs: exact moments, every run's outcome (for exact quantiles
//! and `runs.csv`), error and cap counts, all merging exactly.

use super::episode::IdentifyOutcome;
use crate::util::stats::Moments;

/// Statistics of one identification cell (instance, N, setting, algorithm) over its runs.
#[derive(Clone, Debug, Default)]
pub(crate) struct IdentifyStats {
    /// Runs absorbed.
    pub runs: u64,
    /// Samples to stop (to the cap for capped runs).
    pub samples: Moments,
    /// Runs whose answer was not the true top-K set.
    pub errors: u64,
    /// Runs stopped by the sample cap.
    pub capped: u64,
    /// Every run's outcome, by run index.
    pub outcomes: Vec<(u64, IdentifyOutcome)>,
}

impl IdentifyStats {
    /// Empty statistics.
    pub(crate) fn new() -> IdentifyStats {
        IdentifyStats::default()
    }

    /// Folds run `run` in.
    pub(crate) fn absorb(&mut self, run: u64, outcome: &IdentifyOutcome) {
        self.runs += 1;
        self.samples.add(outcome.samples as f64);
        self.errors += u64::from(!outcome.correct);
        self.capped += u64::from(outcome.capped);
        self.outcomes.push((run, *outcome));
    }

    /// Merges another group of runs (exact; outcomes kept in run order).
    pub(crate) fn merge(&mut self, other: &IdentifyStats) {
        self.runs += other.runs;
        self.samples.merge(&other.samples);
        self.errors += other.errors;
        self.capped += other.capped;
        self.outcomes.extend_from_slice(&other.outcomes);
        self.outcomes.sort_unstable_by_key(|(run, _)| *run);
    }

    /// The exact median of the samples (the mean of the two middle values for an even number
    /// of runs) and the exact maximum; `(0, 0)` without runs.
    pub(crate) fn median_and_max(&self) -> (f64, f64) {
        let mut s: Vec<u64> = self.outcomes.iter().map(|(_, o)| o.samples).collect();
        if s.is_empty() {
            return (0.0, 0.0);
        }
        s.sort_unstable();
        let n = s.len();
        let median = if n % 2 == 1 {
            s[n / 2] as f64
        } else {
            (s[n / 2 - 1] as f64 + s[n / 2] as f64) / 2.0
        };
        (median, s[n - 1] as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Quantiles are exact (the 3-digit histogram they replace reported 200 063 with a cap of
    /// 200 000).
    #[test]
    fn median_and_max_are_exact() {
        let mut a = IdentifyStats::new();
        let mut b = IdentifyStats::new();
        for (run, samples) in [(0, 200_000), (1, 199_999), (2, 12_345), (3, 7)] {
            let o = IdentifyOutcome {
                samples,
                capped: samples == 200_000,
                correct: true,
            };
            if run % 2 == 0 {
                a.absorb(run, &o)
            } else {
                b.absorb(run, &o)
            }
        }
        a.merge(&b);
        assert_eq!(
            a.median_and_max(),
            ((12_345.0 + 199_999.0) / 2.0, 200_000.0)
        );
        assert_eq!(
            a.outcomes.iter().map(|(r, _)| *r).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
    }
}
