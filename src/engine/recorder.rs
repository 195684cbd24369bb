//! What one run records and how runs aggregate.
//!
//! A run keeps its cumulative metrics in registers and copies them into a preallocated row at
//! each checkpoint; it counts probes per slot and per channel in dense arrays. Nothing grows with
//! the horizon. At the end of the run, [`PolicyStats::absorb`] folds the record into streaming
//! statistics that merge exactly ([`crate::util::stats::Moments`], integer counts, an hdrhistogram), so
//! memory does not grow with the number of runs either, and any merge order gives the same bytes.

use crate::util::stats::{MeanStd, Moments};
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Number of recorded metrics: those of the curves ([`Metric::ALL`]) and the primary user's
/// returns ([`Metric::PuReturns`]), recorded per run for `runs.csv` under `reward: TimeLeft`.
pub(crate) const N_METRICS: usize = 11;

/// Number of metrics written in `curves.csv` ([`Metric::ALL`]).
pub(crate) const N_CURVES: usize = 10;

/// A cumulative metric recorded at every checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum Metric {
    /// Σ (E[r(I*)] − E[r(I_t)]).
    PseudoRegret = 0,
    /// Σ (r_t(benchmark) − r_t): the benchmark policy run on the same sample paths.
    RealizedRegret = 1,
    /// Σ r_t, the net reward.
    Reward = 2,
    /// Σ of bandit costs paid.
    Cost = 3,
    /// Σ energy spent.
    Energy = 4,
    /// Σ delay incurred.
    Delay = 5,
    /// Σ probes.
    Probes = 6,
    /// Slots in which the user transmitted on a truly idle channel.
    IdleFound = 7,
    /// Slots in which the user transmitted on a channel sensed idle but busy: a collision
    /// with the primary user, no reward.
    PuCollisions = 8,
    /// Probes that sensed an idle channel busy (missed opportunities).
    MissedOpportunities = 9,
    /// Transmissions the primary user's return interrupted (`reward: TimeLeft` only; 0
    /// otherwise): a column of `runs.csv` there, and no curve.
    PuReturns = 10,
}

impl Metric {
    /// The metrics of the curves, in column order (every metric but [`Metric::PuReturns`]).
    pub const ALL: [Metric; N_CURVES] = [
        Metric::PseudoRegret,
        Metric::RealizedRegret,
        Metric::Reward,
        Metric::Cost,
        Metric::Energy,
        Metric::Delay,
        Metric::Probes,
        Metric::IdleFound,
        Metric::PuCollisions,
        Metric::MissedOpportunities,
    ];

    /// Whether a run's value is a count of events (probes, slots), written as an integer in
    /// `runs.csv`; its mean over runs in `curves.csv` is not.
    pub fn is_count(self) -> bool {
        matches!(
            self,
            Metric::Probes
                | Metric::IdleFound
                | Metric::PuCollisions
                | Metric::MissedOpportunities
                | Metric::PuReturns
        )
    }

    /// Column stem in `curves.csv`.
    pub fn name(self) -> &'static str {
        match self {
            Metric::PseudoRegret => "pseudo_regret",
            Metric::RealizedRegret => "realized_regret",
            Metric::Reward => "reward",
            Metric::Cost => "cost",
            Metric::Energy => "energy",
            Metric::Delay => "delay",
            Metric::Probes => "probes",
            Metric::IdleFound => "idle_found",
            Metric::PuCollisions => "pu_collisions",
            Metric::MissedOpportunities => "missed_opportunities",
            Metric::PuReturns => "pu_returns",
        }
    }
}

/// The cumulative metrics of one run at one slot.
pub(crate) type Row = [f64; N_METRICS];

/// One run's record, reused from run to run.
#[derive(Clone, Debug)]
pub struct RunRecord {
    /// Cumulative metrics at each checkpoint.
    pub rows: Vec<Row>,
    /// `probes_per_slot[n]`: slots in which exactly `n` channels were probed.
    pub probes_per_slot: Vec<u64>,
    /// Probes of each channel.
    pub channel_probes: Vec<u64>,
    /// Slots whose transmission the primary user interrupted by returning (see
    /// [`crate::model::time_left`]; only counted under `reward: TimeLeft`).
    pub pu_returns: u64,
}

impl RunRecord {
    /// A record for `k` channels and `checkpoints` checkpoints.
    pub fn new(k: usize, checkpoints: usize) -> RunRecord {
        RunRecord {
            rows: vec![[0.0; N_METRICS]; checkpoints],
            probes_per_slot: vec![0; k + 1],
            channel_probes: vec![0; k],
            pu_returns: 0,
        }
    }

    /// The values at the horizon.
    pub fn last(&self) -> &Row {
        self.rows
            .last()
            .expect("a record has at least one checkpoint")
    }

    /// Clears the counts for the next run.
    pub fn reset(&mut self) {
        self.rows.iter_mut().for_each(|r| *r = [0.0; N_METRICS]);
        self.probes_per_slot.iter_mut().for_each(|c| *c = 0);
        self.channel_probes.iter_mut().for_each(|c| *c = 0);
        self.pu_returns = 0;
    }
}

/// Statistics of one policy on one experiment over any number of runs.
#[derive(Clone, Debug)]
pub struct PolicyStats {
    /// Runs absorbed.
    pub runs: u64,
    /// Per checkpoint, per metric.
    pub curves: Vec<[Moments; N_METRICS]>,
    /// Probes per slot over all slots of all runs.
    pub probes: Histogram<u64>,
    /// Probes of each channel summed over runs.
    pub channel_probes: Vec<u64>,
    /// Slots whose transmission the primary user interrupted, summed over runs.
    pub pu_returns: u64,
    /// Every run's values at the horizon, by run index, for `runs.csv` and shards; empty when
    /// the runs were streamed to a [`crate::engine::pipeline::RunSink`] instead.
    pub finals: Vec<(u64, Row)>,
    /// The per-run differences to the reference policy at the horizon, pseudo-regret and
    /// realised regret ([`PAIRED`]), streamed run by run (empty for the reference itself and
    /// when the scenario has none).
    pub paired: [Moments; 2],
}

/// Adds one run's [`PAIRED`] differences `mine − reference` to `paired`.
pub(crate) fn add_differences(paired: &mut [Moments; 2], mine: &Row, reference: &Row) {
    for (m, metric) in paired.iter_mut().zip(PAIRED) {
        m.add(mine[metric as usize] - reference[metric as usize]);
    }
}

/// The metrics whose paired differences to the reference policy are kept.
pub(crate) const PAIRED: [Metric; 2] = [Metric::PseudoRegret, Metric::RealizedRegret];

/// Significant figures of the probe histogram: values up to 2048 are exact.
const HIST_SIGFIG: u8 = 3;

fn new_histogram(k: usize) -> Histogram<u64> {
    Histogram::new_with_max((k as u64).max(2), HIST_SIGFIG)
        .expect("bounds are valid: max ≥ 2, 3 significant figures")
}

impl PolicyStats {
    /// Empty statistics for `k` channels and `checkpoints` checkpoints.
    pub fn new(k: usize, checkpoints: usize) -> PolicyStats {
        PolicyStats {
            runs: 0,
            curves: vec![Default::default(); checkpoints],
            probes: new_histogram(k),
            channel_probes: vec![0; k],
            pu_returns: 0,
            finals: Vec::new(),
            paired: Default::default(),
        }
    }

    /// Folds in one run's differences to the reference policy's values `reference`.
    pub(crate) fn pair(&mut self, mine: &Row, reference: &Row) {
        add_differences(&mut self.paired, mine, reference);
    }

    /// Folds run `run` in.
    pub fn absorb(&mut self, run: u64, record: &RunRecord) {
        self.runs += 1;
        self.finals.push((run, *record.last()));
        for (acc, row) in self.curves.iter_mut().zip(&record.rows) {
            for (m, &x) in acc.iter_mut().zip(row) {
                m.add(x);
            }
        }
        for (n, &count) in record.probes_per_slot.iter().enumerate() {
            if count > 0 {
                self.probes
                    .record_n(n as u64, count)
                    .expect("probe counts never exceed K, the histogram's maximum");
            }
        }
        for (a, &b) in self.channel_probes.iter_mut().zip(&record.channel_probes) {
            *a += b;
        }
        self.pu_returns += record.pu_returns;
    }

    /// Merges statistics of other runs (exact: any grouping gives the same result).
    pub fn merge(&mut self, other: &PolicyStats) {
        self.runs += other.runs;
        for (a, b) in self.curves.iter_mut().zip(&other.curves) {
            for (x, y) in a.iter_mut().zip(b) {
                x.merge(y);
            }
        }
        self.probes
            .add(&other.probes)
            .expect("histograms share their bounds");
        for (a, &b) in self.channel_probes.iter_mut().zip(&other.channel_probes) {
            *a += b;
        }
        self.pu_returns += other.pu_returns;
        for (a, b) in self.paired.iter_mut().zip(&other.paired) {
            a.merge(b);
        }
        // Kept in run order, whatever order the runs finished in (other's runs mostly follow).
        let sorted = match (self.finals.last(), other.finals.first()) {
            (Some((a, _)), Some((b, _))) => a < b,
            _ => true,
        };
        self.finals.extend_from_slice(&other.finals);
        if !sorted {
            self.finals.sort_unstable_by_key(|(run, _)| *run);
        }
    }

    /// Mean and standard deviation of `metric` at checkpoint `i`.
    pub fn at(&self, i: usize, metric: Metric) -> MeanStd {
        self.curves[i][metric as usize].mean_std()
    }

    /// The moments of `metric` at the last checkpoint (the horizon).
    pub fn final_moments(&self, metric: Metric) -> &crate::util::stats::Moments {
        &self.curves[self.curves.len() - 1][metric as usize]
    }

    /// Mean and standard deviation of `metric` at the last checkpoint (the horizon).
    pub fn final_value(&self, metric: Metric) -> MeanStd {
        self.at(self.curves.len() - 1, metric)
    }

    /// The probe histogram as (value, count) pairs, for partial results.
    pub fn probe_counts(&self) -> Vec<(u64, u64)> {
        self.probes
            .iter_recorded()
            .map(|v| (v.value_iterated_to(), v.count_at_value()))
            .collect()
    }

    /// Rebuilds statistics from their serialised parts (see [`PartialStats`]).
    pub fn from_parts(parts: PartialStats, k: usize) -> Result<PolicyStats, String> {
        let mut probes = new_histogram(k);
        for (value, count) in parts.probes {
            probes
                .record_n(value, count)
                .map_err(|e| format!("probe histogram value {value}: {e}"))?;
        }
        if parts.channel_probes.len() != k {
            return Err(format!(
                "{} channel counts for {k} channels",
                parts.channel_probes.len()
            ));
        }
        Ok(PolicyStats {
            runs: parts.runs,
            curves: parts.curves,
            probes,
            channel_probes: parts.channel_probes,
            pu_returns: parts.pu_returns,
            finals: parts.finals,
            // Rebuilt from the finals by `RegretStats::pair_finals` once the reference is known.
            paired: Default::default(),
        })
    }

    /// The serialisable parts of these statistics.
    pub fn to_parts(&self) -> PartialStats {
        PartialStats {
            runs: self.runs,
            curves: self.curves.clone(),
            probes: self.probe_counts(),
            channel_probes: self.channel_probes.clone(),
            pu_returns: self.pu_returns,
            finals: self.finals.clone(),
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// [`PolicyStats`] in a form that serialises exactly (for sharded runs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartialStats {
    /// Runs absorbed.
    pub runs: u64,
    /// Per checkpoint, per metric, the exact moments.
    pub curves: Vec<[Moments; N_METRICS]>,
    /// (probes per slot, number of slots).
    pub probes: Vec<(u64, u64)>,
    /// Probes of each channel.
    pub channel_probes: Vec<u64>,
    /// Slots whose transmission the primary user interrupted (absent when none: partials
    /// without `reward: TimeLeft` are as before).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pu_returns: u64,
    /// Every run's values at the horizon, by run index.
    pub finals: Vec<(u64, Row)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absorb_and_merge_agree() {
        let mut a = PolicyStats::new(3, 2);
        let mut b = PolicyStats::new(3, 2);
        let mut whole = PolicyStats::new(3, 2);
        let mut rec = RunRecord::new(3, 2);
        for run in 0..5 {
            rec.reset();
            rec.rows[0][0] = run as f64 * 0.1;
            rec.rows[1][0] = run as f64 * 0.3 + 1.0;
            rec.probes_per_slot[run % 4] += 7;
            rec.channel_probes[run % 3] += 2;
            if run < 2 {
                a.absorb(run as u64, &rec)
            } else {
                b.absorb(run as u64, &rec)
            }
            whole.absorb(run as u64, &rec);
        }
        b.merge(&a);
        assert_eq!(b.runs, 5);
        assert_eq!(
            b.final_value(Metric::PseudoRegret),
            whole.final_value(Metric::PseudoRegret)
        );
        assert_eq!(b.probe_counts(), whole.probe_counts());
        assert_eq!(b.channel_probes, whole.channel_probes);
        assert_eq!(b.finals, whole.finals);
        let back = PolicyStats::from_parts(whole.to_parts(), 3).unwrap();
        assert_eq!(back.probe_counts(), whole.probe_counts());
    }
}
