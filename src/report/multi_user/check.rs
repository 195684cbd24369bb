//! Checks of a saved many-users `summary.json` (see [`crate::report::check`]): every number a
//! chart or table reads is finite and in its range, every index names its own position, so
//! that a damaged or hand-edited folder is an error naming the field, never a misleading
//! chart.

use super::METRICS;
use super::summary::{MultiUserSummary, Stat};
use crate::report::check::{Failure, finite, list, require};

/// A statistic over runs: finite mean, a spread that is finite and not negative, an
/// interval around the mean; within `[lo, hi]` where the quantity has a range.
fn stat(s: &Option<Stat>, field: &str, range: Option<(f64, f64)>) -> Result<(), Failure> {
    let Some(s) = s else { return Ok(()) };
    finite(s.mean, format!("{field}.mean"))?;
    require(
        s.std.is_finite() && s.std >= 0.0,
        format!("{field}.std"),
        || {
            format!(
                "{} is not a standard deviation (finite, not negative)",
                s.std
            )
        },
    )?;
    require(
        s.stderr.is_finite() && s.stderr >= 0.0,
        format!("{field}.stderr"),
        || {
            format!(
                "{} is not a standard error (finite, not negative)",
                s.stderr
            )
        },
    )?;
    if let Some([lo, hi]) = s.ci95 {
        require(
            lo.is_finite() && hi.is_finite() && lo <= s.mean && s.mean <= hi,
            format!("{field}.ci95"),
            || format!("[{lo}, {hi}] is not an interval around the mean {}", s.mean),
        )?;
    }
    if let Some((lo, hi)) = range {
        // A margin of rounding: the means are exact sums divided once.
        let eps = 1e-9 * hi.abs().max(1.0);
        require(
            s.mean >= lo - eps && s.mean <= hi + eps,
            format!("{field}.mean"),
            || format!("{} lies outside [{lo}, {hi}]", s.mean),
        )?;
    }
    Ok(())
}

/// Checks what `plot` and `compare` read of a many-users summary.
pub(crate) fn check(s: &MultiUserSummary) -> Result<(), Failure> {
    let (k, m, t) = (s.channels, s.users, s.horizon as f64);
    require(k >= 1, "channels", || "must be at least 1".into())?;
    require(m >= 1, "users", || "must be at least 1".into())?;
    require(s.horizon >= 1, "horizon", || {
        "must be at least 1 slot".into()
    })?;
    finite(
        s.benchmark.expected_reward_per_slot,
        "benchmark.expected_reward_per_slot",
    )?;
    for (i, l) in s.benchmark.lists.iter().enumerate() {
        list(l, k, &format!("benchmark.lists[{i}]"))?;
    }
    if let Some(b) = &s.lower_bound {
        for (name, x) in [
            ("decentralized", b.decentralized),
            ("centralized", b.centralized),
        ] {
            require(
                x.is_finite() && x >= 0.0,
                format!("lower_bound.{name}"),
                || format!("{x} is not a bound (finite, not negative)"),
            )?;
        }
    }
    if let Some(theta) = &s.user_theta {
        require(theta.len() == k, "user_theta", || {
            format!("{} rows for {k} channels", theta.len())
        })?;
        for (c, row) in theta.iter().enumerate() {
            require(row.len() == m, format!("user_theta[{c}]"), || {
                format!("{} entries for {m} users", row.len())
            })?;
            for (u, &x) in row.iter().enumerate() {
                require(
                    (0.0..=1.0).contains(&x),
                    format!("user_theta[{c}][{u}]"),
                    || format!("{x} is not a probability"),
                )?;
            }
        }
    }
    let user_slots = t * m as f64;
    for (i, p) in s.policies.iter().enumerate() {
        let at = format!("policies[{i}]");
        require(
            p.runs >= 1 && p.runs <= s.runs,
            format!("{at}.runs"),
            || format!("{} runs, the summary declares {}", p.runs, s.runs),
        )?;
        for (name, stat_) in &p.at_horizon {
            require(
                METRICS.iter().any(|&(n, _)| n == name),
                format!("{at}.at_horizon.{name}"),
                || "is not a many-users metric".into(),
            )?;
            let range = match name.as_str() {
                "reward" | "idle_found" | "su_collisions" | "pu_collisions" => {
                    Some((0.0, user_slots))
                }
                "probes" | "missed_opportunities" => Some((0.0, user_slots * k as f64)),
                "energy" | "delay" => Some((0.0, f64::INFINITY)),
                _ => None,
            };
            stat(stat_, &format!("{at}.at_horizon.{name}"), range)?;
        }
        if let Some(d) = &p.decomposition {
            for (name, x) in [
                ("suboptimal_selections", &d.suboptimal_selections),
                ("optimal_unused", &d.optimal_unused),
                ("collisions", &d.collisions),
                ("regret", &d.regret),
            ] {
                stat(x, &format!("{at}.decomposition.{name}"), None)?;
            }
            require(
                d.runs_summing_exactly <= p.runs,
                format!("{at}.decomposition.runs_summing_exactly"),
                || format!("{} of {} runs", d.runs_summing_exactly, p.runs),
            )?;
        }
        stat(
            &p.jain_fairness,
            &format!("{at}.jain_fairness"),
            Some((1.0 / m as f64, 1.0)),
        )?;
        for (u, us) in p.users.iter().enumerate() {
            let at = format!("{at}.users[{u}]");
            require(us.user == u, format!("{at}.user"), || {
                format!("{} where user {u} belongs", us.user)
            })?;
            stat(&us.reward, &format!("{at}.reward"), None)?;
            stat(&us.successes, &format!("{at}.successes"), Some((0.0, t)))?;
            stat(&us.switches, &format!("{at}.switches"), Some((0.0, t)))?;
        }
        for (c, ch) in p.channels.iter().enumerate() {
            let at = format!("{at}.channels[{c}]");
            require(ch.channel == c, format!("{at}.channel"), || {
                format!("{} where channel {c} belongs", ch.channel)
            })?;
            require(
                (0.0..=1.0).contains(&ch.theta),
                format!("{at}.theta"),
                || format!("{} is not a probability", ch.theta),
            )?;
            stat(
                &ch.selections,
                &format!("{at}.selections"),
                Some((0.0, user_slots)),
            )?;
            stat(
                &ch.collisions,
                &format!("{at}.collisions"),
                Some((0.0, user_slots)),
            )?;
            require(
                ch.probes_per_run.is_finite() && ch.probes_per_run >= 0.0,
                format!("{at}.probes_per_run"),
                || format!("{} is not a probe count", ch.probes_per_run),
            )?;
        }
    }
    Ok(())
}
