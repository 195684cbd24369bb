//! `report.md`: the scenario, the optimum, the bounds and the summary table, readable on its own.
//! Built from the summary alone, so `specprobe plot` rewrites it without simulating.

use super::summary::{ExperimentSummary, Paired, PolicySummary, RegretSummary};
use crate::channel::BenchmarkKind;
use std::fmt::Write;

/// Formats `x` with about `digits` significant digits, without exponent for ordinary magnitudes.
pub(crate) fn sig(x: f64, digits: usize) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    if x == 0.0 {
        return "0".to_string();
    }
    let magnitude = x.abs().log10().floor() as i32;
    if !(-4..=9).contains(&magnitude) {
        return format!("{x:.*e}", digits.saturating_sub(1));
    }
    let decimals = (digits as i32 - 1 - magnitude).max(0) as usize;
    format!("{x:.decimals$}")
}

/// `1 run`, `3 runs`.
pub(crate) fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A statistic's 95 % confidence interval as `[lo, hi]`; `–` for a single run (no interval).
pub(crate) fn interval(ci95: Option<[f64; 2]>) -> String {
    match ci95 {
        Some([lo, hi]) => format!("[{}, {}]", sig(lo, 4), sig(hi, 4)),
        None => "–".to_string(),
    }
}

/// Runs of consecutive equal items, as `(first, last)` index pairs (inclusive).
pub(crate) fn runs<T: PartialEq>(items: &[T]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match out.last_mut() {
            Some((first, last)) if items[*first] == *item => *last = i,
            _ => out.push((i, i)),
        }
    }
    out
}

/// The "Charts" section of a report: each chart under its caption (nothing when there are none).
pub(crate) fn charts_section(out: &mut String, charts: &[(String, String)]) {
    if !charts.is_empty() {
        let _ = writeln!(out, "## Charts\n");
        for (caption, file) in charts {
            let _ = writeln!(out, "### {caption}\n\n![{caption}]({file})\n");
        }
    }
}

/// `a` or `a–b`.
pub(crate) fn span(first: usize, last: usize) -> String {
    if first == last {
        first.to_string()
    } else {
        format!("{first}–{last}")
    }
}

/// A channel list, abbreviated past 24 entries: `[3, 1, 4, …, 9] (320 channels)`.
pub(crate) fn list(items: &[usize]) -> String {
    const SHOWN: usize = 24;
    if items.len() <= SHOWN {
        return format!("{items:?}");
    }
    let head: Vec<String> = items[..SHOWN - 2].iter().map(|i| i.to_string()).collect();
    format!(
        "[{}, …, {}] ({} channels)",
        head.join(", "),
        items[items.len() - 1],
        items.len()
    )
}

fn unit(u: &str) -> String {
    if u.is_empty() {
        String::new()
    } else {
        format!(" [{u}]")
    }
}

/// The markdown report; `charts` lists (caption, file name) pairs to embed.
pub(crate) fn regret_report(s: &RegretSummary, charts: &[(String, String)]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", s.scenario);
    if !s.description.is_empty() {
        let _ = writeln!(out, "{}\n", s.description.trim());
    }
    let exps = s.body.experiments();
    let _ = writeln!(
        out,
        "Regret experiment: horizon T = {} slots, {} per policy, seed {}, {}.\n",
        s.horizon,
        count(s.runs, "run"),
        s.seed,
        count(exps.len() as u64, "configuration"),
    );
    if exps.len() > 1 {
        grid_table(&mut out, s);
    }
    for e in exps {
        experiment_section(&mut out, s, e, exps.len() > 1);
    }
    charts_section(&mut out, charts);
    let _ = writeln!(
        out,
        "---\nPseudo-regret: Σ_t (E[r(I*)] − E[r(I_t)]) from the exact expected reward of each list; \
         realised regret: Σ_t (r_t(benchmark) − r_t), the benchmark run on the same sample paths. \
         Intervals are 95 % confidence intervals of the mean across runs (Student's t with n − 1 \
         degrees of freedom; none for a single run); sd is the standard deviation across runs."
    );
    out
}

fn grid_table(out: &mut String, s: &RegretSummary) {
    let exps = s.body.experiments();
    let policies: Vec<&str> = exps[0].policies.iter().map(|p| p.name.as_str()).collect();
    let _ = writeln!(
        out,
        "## Final pseudo-regret per configuration (mean [95 % interval])\n"
    );
    let mut head = "| configuration | K | UCR-T1 length |".to_string();
    let mut rule = "|---|---:|---:|".to_string();
    for p in &policies {
        let _ = write!(head, " {p} |");
        rule.push_str("---:|");
        if exps.iter().any(|e| e.reference.contains_key(*p)) {
            let _ = write!(head, " {p} (paper) |");
            rule.push_str("---:|");
        }
    }
    let _ = writeln!(out, "{head}\n{rule}");
    for e in exps {
        let mut row = format!(
            "| {} | {} | {} |",
            e.label.as_deref().unwrap_or(""),
            e.channels.len(),
            e.optimum.list.len()
        );
        for p in &policies {
            if let Some(ps) = e.policies.iter().find(|x| x.name == *p) {
                let _ = write!(
                    row,
                    " {} {} |",
                    sig(ps.pseudo_regret.mean, 4),
                    interval(ps.pseudo_regret.ci95)
                );
            }
            if exps.iter().any(|x| x.reference.contains_key(*p)) {
                match e.reference.get(*p) {
                    Some(v) => {
                        let _ = write!(row, " {} |", sig(*v, 4));
                    }
                    None => row.push_str(" |"),
                }
            }
        }
        let _ = writeln!(out, "{row}");
    }
    out.push('\n');
}

fn experiment_section(out: &mut String, s: &RegretSummary, e: &ExperimentSummary, grid: bool) {
    let title = e.label.as_deref().unwrap_or("Instance");
    let _ = writeln!(out, "## {title}\n");
    let mut position = vec![None; e.channels.len()];
    for (p, &i) in e.optimum.list.iter().enumerate() {
        position[i] = Some(p + 1);
    }
    let _ = writeln!(
        out,
        "| channel | θ (idle) | c (mean cost) | θ/c | energy/probe{} | delay/probe{} | UCR-T1 position |\n|---:|---:|---:|---:|---:|---:|---:|",
        unit(&s.units.energy),
        unit(&s.units.delay)
    );
    // Identical consecutive channels (a `count` in the scenario) share one row.
    for (first, last) in runs(&e.channels) {
        let c = &e.channels[first];
        let ratio = if c.mean_cost > 0.0 {
            sig(c.theta / c.mean_cost, 4)
        } else {
            "∞".to_string()
        };
        let pos = match (position[first], position[last]) {
            (Some(a), Some(b)) if a == b => a.to_string(),
            (Some(a), Some(b)) => format!("{}–{}", a.min(b), a.max(b)),
            _ => "–".to_string(),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {ratio} | {} | {} | {pos} |",
            span(first, last),
            sig(c.theta, 4),
            sig(c.mean_cost, 4),
            sig(c.mean_energy, 4),
            sig(c.mean_delay, 4)
        );
    }
    process_notes(out, e);
    benchmark_paragraph(out, e);
    let b = &e.bounds;
    if b.assumptions_hold {
        if let (Some(t2), Some(t3)) = (&b.theorem2, &b.theorem3) {
            let _ = writeln!(
                out,
                "Bounds at T = {}: Theorem 2 upper bound (CC-UCB, α = {}) {} · ln T = {}; \
                 Theorem 3 lower bound (α-consistent policies) {} · ln T = {}.\n",
                s.horizon,
                t2.alpha.unwrap_or(1.5),
                sig(t2.coefficient, 4),
                sig(t2.at_horizon, 4),
                sig(t3.coefficient, 4),
                sig(t3.at_horizon, 4)
            );
        }
    } else {
        let _ = writeln!(
            out,
            "Theorems 2 and 3 do not apply: {}.\n",
            b.violations.join("; ")
        );
    }
    if !grid {
        out.push_str("### Results at the horizon\n\n");
    }
    let (head, rule) = result_columns(s);
    let _ = writeln!(out, "| policy | {head} |\n|---|{rule}|");
    for p in &e.policies {
        policy_row(out, p);
    }
    out.push('\n');
    sensing_table(out, e);
    paired_table(out, e);
}

/// Under the channel table, the processes that are not the papers' i.i.d. slots and the
/// sensing error rates.
fn process_notes(out: &mut String, e: &ExperimentSummary) {
    let notes: Vec<String> = runs(&e.channels)
        .into_iter()
        .filter_map(|(first, last)| {
            let c = &e.channels[first];
            let mut parts = Vec::new();
            if !c.occupancy.is_empty() && !c.occupancy.starts_with("i.i.d.") {
                let mut facts = Vec::new();
                if let Some(m) = c.mean_idle {
                    facts.push(format!("mean idle {} slots", sig(m, 4)));
                }
                if let Some(m) = c.mean_busy {
                    facts.push(format!("mean busy {} slots", sig(m, 4)));
                }
                if let Some(r) = c.autocorrelation {
                    facts.push(format!("lag-1 autocorrelation {}", sig(r, 3)));
                }
                parts.push(format!("`{}` ({})", c.occupancy, facts.join(", ")));
            }
            if let Some(sensing) = &c.sensing {
                parts.push(format!(
                    "sensing: false alarm {}, missed detection {}",
                    sensing.false_alarm, sensing.missed_detection
                ));
            }
            (!parts.is_empty())
                .then(|| format!("- channel {}: {}", span(first, last), parts.join("; ")))
        })
        .collect();
    if !notes.is_empty() {
        let _ = writeln!(out, "\n{}", notes.join("\n"));
    }
    if let Some(d) = e.slot_duration {
        let _ = writeln!(
            out,
            "\nSlot duration {d} (delay units): each probe happens after the delays of the probes before it, and a probe that would start after the slot ends is not made."
        );
    }
}

/// What regret is measured against, and the benchmark's lists.
fn benchmark_paragraph(out: &mut String, e: &ExperimentSummary) {
    match e.benchmark {
        BenchmarkKind::StationaryOracle => {
            let _ = writeln!(
                out,
                "\nBenchmark: the **stationary oracle**, probing {} in this order (the optimal list for each channel's long-run θ{}); expected net reward {} per slot. Realised regret compares each policy with this oracle run on the same sample paths.\n",
                list(&e.optimum.list),
                if e.channels.iter().any(|c| c.sensing.is_some()) {
                    " and sensing error rates"
                } else {
                    ", UCR-T1 of Theorem 1"
                },
                sig(e.optimum.expected_reward, 6)
            );
        }
        BenchmarkKind::DynamicOracle => {
            let _ = writeln!(
                out,
                "\nBenchmark: the **dynamic oracle**, which knows the current segment (dynamic regret). Realised regret compares each policy with it run on the same sample paths.\n\n| slots | optimal list | expected net reward per slot |\n|---|---|---:|"
            );
            for seg in &e.segments {
                let _ = writeln!(
                    out,
                    "| {}–{} | {} | {} |",
                    seg.first,
                    seg.last,
                    list(&seg.optimum.list),
                    sig(seg.optimum.expected_reward, 6)
                );
            }
            out.push('\n');
        }
    }
}

/// Collisions with the primary user and missed opportunities, when sensing errs.
fn sensing_table(out: &mut String, e: &ExperimentSummary) {
    if !e.channels.iter().any(|c| c.sensing.is_some()) {
        return;
    }
    let _ = writeln!(
        out,
        "Imperfect sensing, per slot: PU collisions (transmitting on a channel sensed idle but busy: no reward) and missed opportunities (idle channels sensed busy).\n\n| policy | PU collisions/slot | missed opportunities/slot | successful transmissions/slot |\n|---|---:|---:|---:|"
    );
    for p in &e.policies {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            p.name,
            sig(p.pu_collisions_per_slot, 4),
            sig(p.missed_opportunities_per_slot, 4),
            sig(p.idle_found_per_slot, 4)
        );
    }
    out.push('\n');
}

/// Each policy's final regret minus the reference's, run by run.
fn paired_table(out: &mut String, e: &ExperimentSummary) {
    let rows: Vec<(&str, &Paired)> = e
        .policies
        .iter()
        .filter_map(|p| p.paired.as_ref().map(|d| (p.name.as_str(), d)))
        .collect();
    let Some((_, first)) = rows.first() else {
        return;
    };
    let _ = writeln!(
        out,
        "Paired differences to **{}** (final regret minus {}'s in the same run, on the same sample paths; the unpaired s.e. is what comparing the two means would give, and (unpaired/paired)² is how many times more runs that would need):\n\n| policy | pseudo-regret difference | s.e. (paired) | s.e. (unpaired) | realised-regret difference | s.e. (paired) | s.e. (unpaired) |\n|---|---:|---:|---:|---:|---:|---:|",
        first.reference, first.reference
    );
    for (name, d) in rows {
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} | {} |",
            sig(d.pseudo_regret.mean, 4),
            sig(d.pseudo_regret.stderr, 3),
            sig(d.pseudo_regret.unpaired_stderr, 3),
            sig(d.realized_regret.mean, 4),
            sig(d.realized_regret.stderr, 3),
            sig(d.realized_regret.unpaired_stderr, 3)
        );
    }
    out.push('\n');
}

/// The report of `specprobe compare`: one combined table and the shared-axis charts.
pub(crate) fn compare_report(
    sources: &[(String, &RegretSummary)],
    charts: &[(String, String)],
) -> String {
    let mut out = String::from("# Comparison\n\n");
    for (label, s) in sources {
        let _ = writeln!(
            out,
            "- **{label}**: scenario `{}`, T = {}, {}, seed {}{}",
            s.scenario,
            s.horizon,
            count(s.runs, "run"),
            s.seed,
            if s.description.is_empty() {
                String::new()
            } else {
                format!(" — {}", s.description.trim())
            }
        );
    }
    let _ = writeln!(
        out,
        "\n## Results at the horizon\n\n| source | configuration | E[r*] | policy | {} |\n|---|---|---:|---|{}|",
        RESULT_HEAD.replace("{energy}", "").replace("{delay}", ""),
        RESULT_RULE
    );
    for (label, s) in sources {
        for e in s.body.experiments() {
            for p in &e.policies {
                let _ = write!(
                    out,
                    "| {label} | {} | {} ",
                    e.label.as_deref().unwrap_or("–"),
                    sig(e.optimum.expected_reward, 4)
                );
                policy_row(&mut out, p);
            }
        }
    }
    out.push('\n');
    charts_section(&mut out, charts);
    out
}

/// The per-policy result columns (after the policy's name), with the energy and delay units.
const RESULT_HEAD: &str = "pseudo-regret | 95 % interval | sd | realised regret | 95 % interval | reward/slot | energy/slot{energy} | delay/slot{delay} | probes/slot (mean, p50, p99, max)";
const RESULT_RULE: &str = "---:|---|---:|---:|---|---:|---:|---:|---";

fn result_columns(s: &RegretSummary) -> (String, &'static str) {
    (
        RESULT_HEAD
            .replace("{energy}", &unit(&s.units.energy))
            .replace("{delay}", &unit(&s.units.delay)),
        RESULT_RULE,
    )
}

fn policy_row(out: &mut String, p: &PolicySummary) {
    let _ = writeln!(
        out,
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {}, {}, {}, {} |",
        p.name,
        sig(p.pseudo_regret.mean, 4),
        interval(p.pseudo_regret.ci95),
        sig(p.pseudo_regret.std, 3),
        sig(p.realized_regret.mean, 4),
        interval(p.realized_regret.ci95),
        sig(p.reward_per_slot, 4),
        sig(p.energy_per_slot, 4),
        sig(p.delay_per_slot, 4),
        sig(p.probes_per_slot.mean, 3),
        p.probes_per_slot.p50,
        p.probes_per_slot.p99,
        p.probes_per_slot.max
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_and_lists_abbreviate() {
        assert_eq!(runs(&[1, 1, 2, 1]), vec![(0, 1), (2, 2), (3, 3)]);
        assert_eq!(span(3, 3), "3");
        assert_eq!(span(3, 7), "3–7");
        assert_eq!(list(&[1, 2]), "[1, 2]");
        let long: Vec<usize> = (0..100).collect();
        assert!(list(&long).ends_with(", …, 99] (100 channels)"));
    }

    #[test]
    fn sig_formats_magnitudes() {
        assert_eq!(sig(1445.3, 4), "1445");
        assert_eq!(sig(0.291_512, 4), "0.2915");
        assert_eq!(sig(12.345, 3), "12.3");
        assert_eq!(sig(0.0, 4), "0");
        assert_eq!(sig(1.5e-7, 2), "1.5e-7");
    }
}
