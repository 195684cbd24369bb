//! Checks of saved regret results (`summary.json` with `curves.csv`): see [`crate::report::check`].

use crate::report::check::{Failure, fail, finite, list, require, stat};
use crate::report::regret::curves::CurveRow;
use crate::report::regret::summary::{ExperimentSummary, PolicySummary, RegretSummary};
use crate::store::names::ResultKind;
use std::collections::{BTreeMap, BTreeSet};

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
    if let Some(paired) = &p.paired {
        for (name, d) in [
            ("pseudo_regret", &paired.pseudo_regret),
            ("realized_regret", &paired.realized_regret),
        ] {
            let at = format!("{field}.paired.{name}");
            finite(d.mean, format!("{at}.mean"))?;
            for (what, x) in [("stderr", d.stderr), ("unpaired_stderr", d.unpaired_stderr)] {
                require(x.is_finite() && x >= 0.0, format!("{at}.{what}"), || {
                    format!("{x} is not a standard error (finite, not negative)")
                })?;
            }
            if let Some([lo, hi]) = d.ci95 {
                require(
                    lo.is_finite() && hi.is_finite() && lo <= d.mean && d.mean <= hi,
                    format!("{at}.ci95"),
                    || format!("[{lo}, {hi}] is not an interval around the mean {}", d.mean),
                )?;
            }
        }
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
    channels(e, field)?;
    list(&e.optimum.list, k, &format!("{field}optimum.list"))?;
    let (worst, best) = reward_bounds(e, field)?;
    let reward_in_range = |x: f64| x.is_finite() && x >= worst - 1e-9 && x <= best + 1e-9;
    require(
        reward_in_range(e.optimum.expected_reward),
        format!("{field}optimum.expected_reward"),
        || {
            format!(
                "{} is not an expected net reward of these channels (between {worst} and {best})",
                e.optimum.expected_reward
            )
        },
    )?;
    // A dynamic benchmark has segments covering the horizon; a stationary one has none.
    let dynamic = e.benchmark == crate::model::channel::BenchmarkKind::DynamicOracle;
    require(
        dynamic != e.segments.is_empty(),
        format!("{field}segments"),
        || {
            if dynamic {
                "is empty, but the benchmark is the dynamic oracle (one segment per epoch)".into()
            } else {
                "lists segments, but the benchmark is the stationary oracle".into()
            }
        },
    )?;
    if let Some(last) = e.segments.last() {
        require(last.last >= horizon, format!("{field}segments"), || {
            format!("end at slot {}, before the horizon {horizon}", last.last)
        })?;
    }
    let names: BTreeSet<&str> = e.policies.iter().map(|p| p.name.as_str()).collect();
    for (j, p) in e.policies.iter().enumerate() {
        if let Some(paired) = &p.paired {
            require(
                names.contains(paired.reference.as_str()),
                format!("{field}policies[{j}].paired.reference"),
                || format!("{:?} names no policy of this experiment", paired.reference),
            )?;
        }
    }
    let mut next = 1;
    for (s, seg) in e.segments.iter().enumerate() {
        let at = format!("{field}segments[{s}]");
        require(
            reward_in_range(seg.optimum.expected_reward),
            format!("{at}.optimum.expected_reward"),
            || {
                format!(
                    "{} is not an expected net reward",
                    seg.optimum.expected_reward
                )
            },
        )?;
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

/// The channels' rows: each a probability and non-negative mean costs.
fn channels(e: &ExperimentSummary, field: &str) -> Result<(), Failure> {
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
    Ok(())
}

/// The range of a list's expected net reward on these channels (and, under the time-left
/// reward, its rates checked).
fn reward_bounds(e: &ExperimentSummary, field: &str) -> Result<(f64, f64), Failure> {
    let k = e.channels.len();
    // A list's expected net reward lies between paying for every probe and finding an idle
    // channel for free.
    let worst = -e.channels.iter().map(|c| c.mean_cost).sum::<f64>();
    let best = match &e.time_left {
        None => 1.0,
        Some(tl) => {
            for (i, &r) in tl.rates.iter().chain([&tl.busy_rate, &tl.rate]).enumerate() {
                require(
                    r.is_finite() && r >= 0.0,
                    format!("{field}time_left"),
                    || format!("rate {i} ({r}) is not a rate"),
                )?;
            }
            require(
                tl.rates.len() == k,
                format!("{field}time_left.rates"),
                || format!("{} rates for {k} channels", tl.rates.len()),
            )?;
            tl.max_gain()
        }
    };
    Ok((worst, best))
}

/// One row of `curves.csv` (file line `line`) of results over `horizon` slots and `runs` runs:
/// its slot within the horizon, every run counted, every value finite with a non-negative
/// spread.
pub(crate) fn curve_row(
    row: &CurveRow,
    horizon: u64,
    runs: u64,
    line: usize,
) -> Result<(), Failure> {
    require(
        row.t >= 1 && row.t <= horizon,
        format!("line {line}: t"),
        || format!("{} is outside 1..={horizon}", row.t),
    )?;
    require(row.n == runs, format!("line {line}: n"), || {
        format!(
            "{} runs, but every checkpoint holds all {runs} runs of the summary",
            row.n
        )
    })?;
    for v in &row.values {
        require(
            v.mean.is_finite() && v.std.is_finite() && v.std >= 0.0,
            format!("line {line}"),
            || "holds a value that is not a finite number (or a negative spread)".into(),
        )?;
    }
    Ok(())
}

/// A regret summary, and (when given) its curves: every row names a policy of its experiment,
/// rows of one policy come in increasing slot order within the horizon, every policy has rows,
/// and every value is finite.
pub(crate) fn regret(s: &RegretSummary, rows: Option<&[CurveRow]>) -> Result<(), Failure> {
    s.kind
        .expect(ResultKind::Regret)
        .or_else(|why| fail("kind", why))?;
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
        curve_row(row, s.horizon, s.runs, line)?;
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
