//! `report.md`: the scenario, the optimum, the bounds and the summary table, readable on its own.
//! Built from the summary alone, so `specprobe plot` rewrites it without simulating.

use crate::model::channel::BenchmarkKind;
use crate::report::format::unit_suffix;
use crate::report::format::{charts_section, count, interval, list, runs, sig, span};
use crate::report::regret::summary::{ExperimentSummary, Paired, PolicySummary, RegretSummary};
use std::fmt::Write;

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
        unit_suffix(&s.units.energy),
        unit_suffix(&s.units.delay)
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

/// The per-policy result columns (after the policy's name), with the energy and delay units.
pub(crate) const RESULT_HEAD: &str = "pseudo-regret | 95 % interval | sd | realised regret | 95 % interval | reward/slot | energy/slot{energy} | delay/slot{delay} | probes/slot (mean, p50, p99, max)";
pub(crate) const RESULT_RULE: &str = "---:|---|---:|---:|---|---:|---:|---:|---";

fn result_columns(s: &RegretSummary) -> (String, &'static str) {
    (
        RESULT_HEAD
            .replace("{energy}", &unit_suffix(&s.units.energy))
            .replace("{delay}", &unit_suffix(&s.units.delay)),
        RESULT_RULE,
    )
}

pub(crate) fn policy_row(out: &mut String, p: &PolicySummary) {
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
