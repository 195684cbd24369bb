//! What `specprobe validate` prints for a regret sweep.

use crate::report::describe::Describe;
use crate::report::format::{list, sig};
use crate::scenario::SweepScenario;
use std::fmt::Write;

/// A sweep: its values, then the first cell in full and each cell's optimum.
fn describe_sweep(s: &SweepScenario) -> String {
    let sw = &s.sweep;
    let mut out = format!(
        "{} is valid: a sweep of `{}` over {} values {:?}; each cell is a regret scenario:\n\n",
        s.source.display(),
        sw.field,
        sw.values.len(),
        sw.values
    );
    if let Some(first) = sw.cells.first() {
        let _ = writeln!(out, "cell `{}`:", sw.cell_label(sw.values[0]));
        out.push_str(&first.describe());
    }
    let _ = writeln!(out, "\ncells:");
    for (v, cell) in sw.points() {
        for e in &cell.experiments {
            let opt = e.env.optimum();
            let _ = writeln!(
                out,
                "  {:<28} {} channels, horizon {}: optimum {} with E[r*] = {}",
                sw.cell_label(v),
                e.env.len(),
                cell.header.horizon,
                list(&opt.list),
                sig(opt.expected_reward, 6)
            );
        }
    }
    out
}

impl Describe for SweepScenario {
    fn describe(&self) -> String {
        describe_sweep(self)
    }
}
