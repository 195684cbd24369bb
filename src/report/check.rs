//! Saved results are read back by `plot` and `compare`, and nothing in them is trusted: a file
//! may be truncated, edited by hand or written by something else. These checks establish every
//! property the reports and charts rely on (counts that agree, channel indices in range, rows
//! that belong to a policy and come in slot order, finite numbers), so that a damaged folder
//! gives an error naming the file and the field rather than a panic or a misleading chart.

use super::curves::CurveRow;
use super::identification::IdentificationSummary;
use super::summary::{ExperimentSummary, PolicySummary, RegretSummary, Stat};
use super::sweep::SweepSummary;
use std::collections::{BTreeMap, BTreeSet};

/// A failed check: the field and what is wrong with it.
pub(crate) type Failure = String;

fn fail<T>(field: impl std::fmt::Display, message: impl std::fmt::Display) -> Result<T, Failure> {
    Err(format!("{field}: {message}"))
}

fn require(
    ok: bool,
    field: impl std::fmt::Display,
    message: impl FnOnce() -> String,
) -> Result<(), Failure> {
    if ok { Ok(()) } else { fail(field, message()) }
}

fn finite(x: f64, field: impl std::fmt::Display) -> Result<(), Failure> {
    require(x.is_finite(), field, || {
        format!("{x} is not a finite number")
    })
}

fn stat(s: &Stat, runs: u64, field: &str) -> Result<(), Failure> {
    require(s.n <= runs, format!("{field}.n"), || {
        format!("{} runs, more than the {runs} of the summary", s.n)
    })?;
    for (name, x) in [("mean", s.mean), ("std", s.std), ("stderr", s.stderr)] {
        finite(x, format!("{field}.{name}"))?;
    }
    require(s.std >= 0.0 && s.stderr >= 0.0, field, || {
        "has a negative spread".into()
    })?;
    if let Some([lo, hi]) = s.ci95 {
        require(
            lo.is_finite() && hi.is_finite() && lo <= hi,
            format!("{field}.ci95"),
            || format!("[{lo}, {hi}] is not an interval"),
        )?;
    }
    Ok(())
}

fn list(items: &[usize], k: usize, field: &str) -> Result<(), Failure> {
    let mut seen = BTreeSet::new();
    for (j, &i) in items.iter().enumerate() {
        require(i < k, format!("{field}[{j}]"), || {
            format!("channel {i}, but there are {k} channels")
        })?;
        require(seen.insert(i), format!("{field}[{j}]"), || {
            format!("channel {i} is listed twice")
        })?;
    }
    Ok(())
}

fn policy(p: &PolicySummary, k: usize, runs: u64, field: &str) -> Result<(), Failure> {
    stat(&p.pseudo_regret, runs, &format!("{field}.pseudo_regret"))?;
    stat(
        &p.realized_regret,
        runs,
        &format!("{field}.realized_regret"),
    )?;
    require(
        p.channel_probes.len() == k,
        format!("{field}.channel_probes"),
        || format!("{} entries for {k} channels", p.channel_probes.len()),
    )?;
    for (i, &x) in p.channel_probes.iter().enumerate() {
        require(
            x.is_finite() && x >= 0.0,
            format!("{field}.channel_probes[{i}]"),
            || format!("{x} is not a probe count"),
        )?;
    }
    for (i, d) in p.probe_distribution.iter().enumerate() {
        require(
            d[0] <= k as u64,
            format!("{field}.probe_distribution[{i}]"),
            || format!("{} probes in a slot, with {k} channels", d[0]),
        )?;
    }
    for (name, x) in [
        ("reward_per_slot", p.reward_per_slot),
        ("energy_per_slot", p.energy_per_slot),
        ("delay_per_slot", p.delay_per_slot),
        ("cost_per_slot", p.cost_per_slot),
        ("idle_found_per_slot", p.idle_found_per_slot),
        ("probes_per_slot.mean", p.probes_per_slot.mean),
    ] {
        finite(x, format!("{field}.{name}"))?;
    }
    Ok(())
}

fn experiment(e: &ExperimentSummary, horizon: u64, runs: u64, field: &str) -> Result<(), Failure> {
    let k = e.channels.len();
    require(k >= 1, format!("{field}channels"), || "is empty".into())?;
    require(!e.policies.is_empty(), format!("{field}policies"), || {
        "is empty".into()
    })?;
    for (i, c) in e.channels.iter().enumerate() {
        require(
            (0.0..=1.0).contains(&c.theta),
            format!("{field}channels[{i}].theta"),
            || format!("{} is not a probability", c.theta),
        )?;
        for (name, x) in [
            ("mean_cost", c.mean_cost),
            ("mean_energy", c.mean_energy),
            ("mean_delay", c.mean_delay),
        ] {
            require(
                x.is_finite() && x >= 0.0,
                format!("{field}channels[{i}].{name}"),
                || format!("{x} is not a non-negative number"),
            )?;
        }
    }
    list(&e.optimum.list, k, &format!("{field}optimum.list"))?;
    finite(
        e.optimum.expected_reward,
        format!("{field}optimum.expected_reward"),
    )?;
    let mut next = 1;
    for (s, seg) in e.segments.iter().enumerate() {
        let at = format!("{field}segments[{s}]");
        require(
            seg.first == next && seg.first <= seg.last && seg.last <= horizon,
            &at,
            || {
                format!(
                    "slots {}..={} do not continue the segments before within the horizon {horizon}",
                    seg.first, seg.last
                )
            },
        )?;
        next = seg.last.saturating_add(1);
        list(&seg.optimum.list, k, &format!("{at}.optimum.list"))?;
    }
    let mut names = BTreeSet::new();
    for (j, p) in e.policies.iter().enumerate() {
        let at = format!("{field}policies[{j}]");
        require(names.insert(p.name.as_str()), format!("{at}.name"), || {
            format!("{:?} appears twice", p.name)
        })?;
        policy(p, k, runs, &at)?;
    }
    Ok(())
}

/// A regret summary, and (when given) its curves: every row names a policy of its experiment,
/// rows of one policy come in increasing slot order within the horizon, every policy has rows,
/// and every value is finite.
pub(crate) fn regret(s: &RegretSummary, rows: Option<&[CurveRow]>) -> Result<(), Failure> {
    require(s.kind == "regret", "kind", || {
        format!("{:?}, expected \"regret\"", s.kind)
    })?;
    require(s.horizon >= 1, "horizon", || "must be at least 1".into())?;
    require(s.runs >= 1, "runs", || "must be at least 1".into())?;
    let exps = s.experiments();
    require(!exps.is_empty(), "experiments", || "is empty".into())?;
    let grid = exps.len() > 1 || exps[0].label.is_some();
    let mut labels = BTreeSet::new();
    for (i, e) in exps.iter().enumerate() {
        let field = if grid {
            format!("experiments[{i}].")
        } else {
            String::new()
        };
        if grid {
            let label = e.label.as_deref().unwrap_or("");
            require(labels.insert(label), format!("{field}label"), || {
                format!("{label:?} is missing or appears twice")
            })?;
        }
        experiment(e, s.horizon, s.runs, &field)?;
    }
    let Some(rows) = rows else { return Ok(()) };
    // Rows name the experiment by its label (a single list: the scenario's name).
    let policies: BTreeMap<&str, BTreeSet<&str>> = exps
        .iter()
        .map(|e| {
            (
                e.label.as_deref().unwrap_or(&s.scenario),
                e.policies.iter().map(|p| p.name.as_str()).collect(),
            )
        })
        .collect();
    let mut last: BTreeMap<(&str, &str), u64> = BTreeMap::new();
    for (r, row) in rows.iter().enumerate() {
        let line = r + 2;
        let known = policies
            .get(row.experiment.as_str())
            .is_some_and(|ps| ps.contains(row.policy.as_str()));
        require(known, format!("line {line}"), || {
            format!(
                "policy {:?} of experiment {:?} is not in summary.json",
                row.policy, row.experiment
            )
        })?;
        require(
            row.t >= 1 && row.t <= s.horizon,
            format!("line {line}: t"),
            || format!("{} is outside 1..={}", row.t, s.horizon),
        )?;
        require(row.n <= s.runs, format!("line {line}: n"), || {
            format!("{} runs, more than the {} of the summary", row.n, s.runs)
        })?;
        for v in &row.values {
            require(
                v.mean.is_finite() && v.std.is_finite() && v.std >= 0.0,
                format!("line {line}"),
                || "holds a value that is not a finite number (or a negative spread)".into(),
            )?;
        }
        let key = (row.experiment.as_str(), row.policy.as_str());
        if let Some(&before) = last.get(&key) {
            require(row.t > before, format!("line {line}: t"), || {
                format!(
                    "{} after {before}: rows of a policy must come in increasing slot order",
                    row.t
                )
            })?;
        }
        last.insert(key, row.t);
    }
    for (experiment, ps) in &policies {
        for p in ps {
            require(last.contains_key(&(*experiment, *p)), "rows", || {
                format!("none for policy {p:?} of experiment {experiment:?}")
            })?;
        }
    }
    Ok(())
}

/// An identification summary: sizes, counts and sample statistics that make sense.
pub(crate) fn identification(s: &IdentificationSummary) -> Result<(), Failure> {
    require(s.kind == "identification", "kind", || {
        format!("{:?}, expected \"identification\"", s.kind)
    })?;
    require(s.runs >= 1, "runs", || "must be at least 1".into())?;
    require(!s.results.is_empty(), "results", || "is empty".into())?;
    for (i, c) in s.results.iter().enumerate() {
        let field = format!("results[{i}]");
        require(c.n >= 2 && c.k >= 1 && c.k < c.n, &field, || {
            format!("K = {} of N = {} arms is not a top-K problem", c.k, c.n)
        })?;
        require(
            c.runs <= s.runs && c.errors <= c.runs && c.capped <= c.runs,
            &field,
            || {
                format!(
                    "{} runs with {} errors and {} capped, the scenario {} runs",
                    c.runs, c.errors, c.capped, s.runs
                )
            },
        )?;
        let x = &c.samples;
        for (name, v) in [
            ("mean", x.mean),
            ("std", x.std),
            ("stderr", x.stderr),
            ("p50", x.p50),
            ("max", x.max),
            ("complexity", c.complexity),
        ] {
            require(
                v.is_finite() && v >= 0.0,
                format!("{field}.samples.{name}"),
                || format!("{v} is not a non-negative number"),
            )?;
        }
        require(
            x.mean <= x.max && x.p50 <= x.max,
            format!("{field}.samples"),
            || "mean or median above the maximum".into(),
        )?;
    }
    Ok(())
}

/// A sweep's summary: values, one cell per value (each a sound regret summary), and a table
/// whose rows name listed values and policies.
pub(crate) fn sweep(s: &SweepSummary) -> Result<(), Failure> {
    require(s.kind == "sweep", "kind", || {
        format!("{:?}, expected \"sweep\"", s.kind)
    })?;
    require(!s.values.is_empty(), "values", || "is empty".into())?;
    for (i, v) in s.values.iter().enumerate() {
        finite(*v, format!("values[{i}]"))?;
        require(!s.values[..i].contains(v), format!("values[{i}]"), || {
            format!("{v} is listed twice")
        })?;
    }
    require(s.cells.len() == s.values.len(), "cells", || {
        format!("{} cells for {} values", s.cells.len(), s.values.len())
    })?;
    for (i, c) in s.cells.iter().enumerate() {
        regret(c, None).map_err(|e| format!("cells[{i}].{e}"))?;
    }
    require(!s.table.is_empty(), "table", || "is empty".into())?;
    for (i, r) in s.table.iter().enumerate() {
        let field = format!("table[{i}]");
        let Some(cell) = s.values.iter().position(|v| *v == r.value) else {
            return fail(&field, format!("value {} is not among the values", r.value));
        };
        let known =
            s.cells[cell].experiments().iter().any(|e| {
                e.label == r.configuration && e.policies.iter().any(|p| p.name == r.policy)
            }) || (r.configuration.is_none()
                && s.cells[cell]
                    .experiments()
                    .iter()
                    .any(|e| e.policies.iter().any(|p| p.name == r.policy)));
        require(known, &field, || {
            format!(
                "policy {:?} is not in the cell of value {}",
                r.policy, r.value
            )
        })?;
        let runs = s.cells[cell].runs;
        stat(&r.pseudo_regret, runs, &format!("{field}.pseudo_regret"))?;
        stat(
            &r.realized_regret,
            runs,
            &format!("{field}.realized_regret"),
        )?;
        stat(
            &r.reward_per_slot,
            runs,
            &format!("{field}.reward_per_slot"),
        )?;
    }
    Ok(())
}
