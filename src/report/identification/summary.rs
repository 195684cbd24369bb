//! What an identification scenario's `summary.json` and `identification.csv` hold.

use crate::engine::identification::runner::IdentifyCell;
use crate::report::format::{float, whole};
use crate::scenario::IdentificationScenario;
use crate::store::names::ResultKind;
use serde::{Deserialize, Serialize};

/// The whole summary of an identification scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IdentificationSummary {
    /// Scenario name.
    pub scenario: String,
    /// Always `"identification"`.
    pub kind: ResultKind,
    /// Scenario description.
    pub description: String,
    /// Runs per cell.
    pub runs: u64,
    /// Seed.
    pub seed: u64,
    /// Required error probability ν.
    pub confidence: f64,
    /// ε of the faithful setting.
    pub faithful_epsilon: f64,
    /// Per-run sample cap.
    pub sample_cap: u64,
    /// One entry per (instance, N, setting, algorithm).
    pub results: Vec<CellSummary>,
}

/// Samples to stop over the runs of a cell.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleStats {
    /// Mean.
    pub mean: f64,
    /// Standard deviation across runs.
    pub std: f64,
    /// Standard error of the mean.
    pub stderr: f64,
    /// 95 % confidence interval of the mean (Student's t; `null` for one run).
    #[serde(default)]
    pub ci95: Option<[f64; 2]>,
    /// Median (exact; the mean of the two middle runs for an even number).
    pub p50: f64,
    /// Largest (exact).
    pub max: f64,
}

/// One (instance, N, setting, algorithm) cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellSummary {
    /// Instance label.
    pub instance: String,
    /// Instance family.
    pub family: String,
    /// `faithful` or `heuristic`.
    pub setting: String,
    /// Algorithm name.
    pub algorithm: String,
    /// Number of arms N.
    pub n: usize,
    /// Size of the set to identify, K.
    pub k: usize,
    /// The instance's complexity H = Σ Δ⁻².
    pub complexity: f64,
    /// The true top-K set: the arms' indices from 0 (as in `means[i]`), ascending.
    #[serde(default)]
    pub top_set: Vec<usize>,
    /// ε used.
    pub epsilon: f64,
    /// δ used.
    pub delta: f64,
    /// Runs.
    pub runs: u64,
    /// Samples to stop.
    pub samples: SampleStats,
    /// Runs that returned a wrong set.
    pub errors: u64,
    /// Runs stopped by the sample cap.
    pub capped: u64,
}

/// Builds the summary.
pub(crate) fn summary(s: &IdentificationScenario, cells: &[IdentifyCell]) -> IdentificationSummary {
    let results = cells
        .iter()
        .map(|c| {
            let inst = &s.instances[c.instance];
            let arms = &inst.points[c.point];
            let st = &c.stats;
            let ms = st.samples.mean_std();
            let (median, max) = st.median_and_max();
            CellSummary {
                instance: inst.label.clone(),
                family: inst.family.clone(),
                setting: c.setting.name().to_string(),
                algorithm: c.name.clone(),
                n: arms.len(),
                k: arms.k(),
                complexity: arms.complexity(),
                top_set: arms.top_set(),
                epsilon: c.params.epsilon,
                delta: c.params.delta,
                runs: st.runs,
                samples: SampleStats {
                    mean: ms.mean,
                    std: ms.std,
                    stderr: st.samples.stderr(),
                    ci95: crate::util::stats::ci95(st.runs, ms.mean, ms.std),
                    p50: median,
                    max,
                },
                errors: st.errors,
                capped: st.capped,
            }
        })
        .collect();
    IdentificationSummary {
        scenario: s.name.clone(),
        kind: ResultKind::Identification,
        description: s.description.clone(),
        runs: s.runs,
        seed: s.seed,
        confidence: s.confidence,
        faithful_epsilon: s.faithful_epsilon,
        sample_cap: s.sample_cap,
        results,
    }
}

/// `identification.csv`: one row per cell, header first.
pub(crate) fn to_csv(summary: &IdentificationSummary) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "instance",
        "setting",
        "algorithm",
        "n",
        "k",
        "runs",
        "samples_mean",
        "samples_std",
        "samples_stderr",
        "samples_ci95_lo",
        "samples_ci95_hi",
        "samples_p50",
        "samples_max",
        "errors",
        "capped",
        "epsilon",
        "delta",
        "complexity",
    ])?;
    for c in &summary.results {
        w.write_record([
            c.instance.clone(),
            c.setting.clone(),
            c.algorithm.clone(),
            c.n.to_string(),
            c.k.to_string(),
            c.runs.to_string(),
            float(c.samples.mean),
            float(c.samples.std),
            float(c.samples.stderr),
            c.samples.ci95.map_or(String::new(), |[lo, _]| float(lo)),
            c.samples.ci95.map_or(String::new(), |[_, hi]| float(hi)),
            whole(c.samples.p50),
            whole(c.samples.max),
            c.errors.to_string(),
            c.capped.to_string(),
            float(c.epsilon),
            float(c.delta),
            float(c.complexity),
        ])?;
    }
    w.into_inner().map_err(|e| e.into_error().into())
}
