//! The identification half of `runs.csv`: one row per (instance, N, setting, algorithm, run).

use crate::engine::identification::runner::IdentifyCell;
use crate::scenario::IdentificationScenario;

/// `runs.csv` of an identification scenario.
pub(crate) fn identification(
    s: &IdentificationScenario,
    cells: &[IdentifyCell],
) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "instance",
        "n",
        "k",
        "setting",
        "algorithm",
        "run",
        "samples",
        "correct",
        "capped",
    ])?;
    for c in cells {
        let inst = &s.instances[c.instance];
        let arms = &inst.points[c.point];
        for (run, o) in &c.stats.outcomes {
            w.write_record([
                inst.label.clone(),
                arms.len().to_string(),
                arms.k().to_string(),
                c.setting.name().to_string(),
                c.name.clone(),
                run.to_string(),
                o.samples.to_string(),
                o.correct.to_string(),
                o.capped.to_string(),
            ])?;
        }
    }
    w.into_inner().map_err(|e| e.into_error().into())
}
