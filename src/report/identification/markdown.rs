//! The text of an identification report.

use crate::report::format::sig;
use crate::report::identification::charts::{by_setting, distinct};
use crate::report::identification::summary::IdentificationSummary;
use std::fmt::Write;

/// `report.md` of an identification scenario.
pub(crate) fn markdown(s: &IdentificationSummary, charts: &[(String, String)]) -> String {
    let mut out = format!("# {}\n\n", s.scenario);
    if !s.description.is_empty() {
        let _ = writeln!(out, "{}\n", s.description.trim());
    }
    let _ = writeln!(
        out,
        "Best-K identification: confidence ν = {}, {} per cell, seed {}, sample cap {} per run; \
         faithful setting ε = {} (δ chosen so that each algorithm's guaranteed error is at most ν), \
         heuristic setting ε = 0, δ = ν.\n",
        s.confidence,
        crate::report::format::count(s.runs, "run"),
        s.seed,
        s.sample_cap,
        s.faithful_epsilon
    );
    let r = &s.results;
    for instance in distinct(r.iter().map(|c| c.instance.clone())) {
        let family = r
            .iter()
            .find(|c| c.instance == instance)
            .map(|c| c.family.clone())
            .unwrap_or_default();
        let _ = writeln!(out, "## {instance}\n\nFamily: {family}.\n");
        let sets = distinct(
            r.iter()
                .filter(|c| c.instance == instance && !c.top_set.is_empty())
                .map(|c| (c.n, c.k, c.top_set.clone())),
        );
        if !sets.is_empty() {
            let _ = writeln!(
                out,
                "The true top-K set of each size (arms counted from 0, as in `means[i]`):\n\n| N | K | top-K set |\n|---:|---:|---|"
            );
            for (n, k, set) in &sets {
                let _ = writeln!(out, "| {n} | {k} | {} |", arm_set(set));
            }
            out.push('\n');
        }
        for (setting, cells) in by_setting(r, &instance) {
            let sizes = distinct(cells.iter().map(|c| (c.n, c.k)));
            let _ = writeln!(
                out,
                "### {setting}: mean samples to stop [95 % interval] (errors / capped runs when any)\n"
            );
            let mut head = "| algorithm |".to_string();
            let mut rule = "|---|".to_string();
            for (n, k) in &sizes {
                let _ = write!(head, " N = {n}, K = {k} |");
                rule.push_str("---:|");
            }
            let _ = writeln!(out, "{head}\n{rule}");
            for a in distinct(cells.iter().map(|c| c.algorithm.clone())) {
                let mut row = format!("| {a} |");
                for (n, k) in &sizes {
                    match cells
                        .iter()
                        .find(|c| c.algorithm == a && c.n == *n && c.k == *k)
                    {
                        Some(c) => {
                            let _ = write!(
                                row,
                                " {} {}",
                                sig(c.samples.mean, 4),
                                crate::report::format::interval(c.samples.ci95)
                            );
                            if c.errors > 0 || c.capped > 0 {
                                let _ = write!(row, " ({} / {})", c.errors, c.capped);
                            }
                            row.push_str(" |");
                        }
                        None => row.push_str(" – |"),
                    }
                }
                let _ = writeln!(out, "{row}");
            }
            out.push('\n');
        }
    }
    crate::report::format::charts_section(&mut out, charts);
    let _ = writeln!(
        out,
        "---\nSamples include the initial sample of every arm. A capped run is stopped at the cap and \
         its answer (the current empirical top-K set) is checked as it stands."
    );
    out
}

/// Most pieces (single arms or ranges) written out before the rest is summarised.
const MAX_PIECES: usize = 16;

/// A set of arms, ascending, with runs of three or more written as ranges: `{0, 1}`,
/// `{0–249}`, `{2, 5–9, 12}`; a long scattered set is cut after [`MAX_PIECES`] pieces.
pub(crate) fn arm_set(set: &[usize]) -> String {
    let mut pieces: Vec<String> = Vec::new();
    let mut i = 0;
    while i < set.len() {
        let mut j = i;
        while j + 1 < set.len() && set[j + 1] == set[j] + 1 {
            j += 1;
        }
        if j - i >= 2 {
            pieces.push(format!("{}–{}", set[i], set[j]));
        } else {
            pieces.extend(set[i..=j].iter().map(|a| a.to_string()));
        }
        i = j + 1;
    }
    if pieces.len() > MAX_PIECES {
        let shown = pieces[..MAX_PIECES].join(", ");
        return format!("{{{shown}, …}} ({} arms)", set.len());
    }
    format!("{{{}}}", pieces.join(", "))
}

#[cfg(test)]
mod tests {
    use super::arm_set;

    #[test]
    fn arm_sets_are_short() {
        assert_eq!(arm_set(&[0, 1]), "{0, 1}");
        assert_eq!(arm_set(&(0..250).collect::<Vec<_>>()), "{0–249}");
        assert_eq!(arm_set(&[2, 5, 6, 7, 8, 9, 12]), "{2, 5–9, 12}");
        let scattered: Vec<usize> = (0..40).map(|i| 2 * i).collect();
        assert_eq!(
            arm_set(&scattered),
            "{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, …} (40 arms)"
        );
    }
}
