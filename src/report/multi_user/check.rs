//! Checks of a saved many-users `summary.json` (see [`crate::report::check`]): every number a
//! chart or table reads is finite and in its range, every index names its own position, so
//! that a damaged or hand-edited folder is an error naming the field, never a misleading
//! chart.

use super::METRICS;
use super::summary::{ChannelSummary, Decomposition, MultiUserSummary, PolicySummary, Stat};
use super::tables::CurveTable;
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

/// Whether two means that are sums of the same runs' values agree: equal up to the rounding of
/// adding `terms` values of size `scale` (a relative 1e-9).
fn agree(a: f64, b: f64, scale: f64) -> bool {
    (a - b).abs() <= 1e-9 * scale.abs().max(a.abs()).max(b.abs()).max(1.0)
}

/// Each statistic of a policy counts its runs: `n` is the policy's runs (0 in summaries
/// written before it was recorded).
fn counts_its_runs(s: &Option<Stat>, runs: u64, field: &str) -> Result<(), Failure> {
    let Some(s) = s else { return Ok(()) };
    require(s.n == 0 || s.n == runs, format!("{field}.n"), || {
        format!("{} runs, the policy has {runs}", s.n)
    })
}

/// The model's names read back as the scenario's models (`timing: "Warp"` is none).
fn models(s: &MultiUserSummary) -> Result<(), Failure> {
    require(
        ron::from_str::<crate::multi::Timing>(&s.timing).is_ok(),
        "timing",
        || {
            format!(
                "{:?} is not a timing model (Synchronous or Blind)",
                s.timing
            )
        },
    )?;
    require(
        ron::from_str::<crate::multi::Collision>(&s.collision).is_ok(),
        "collision",
        || format!("{:?} is not a collision model", s.collision),
    )?;
    require(
        ron::from_str::<crate::multi::Feedback>(&s.feedback).is_ok(),
        "feedback",
        || format!("{:?} is not a feedback level", s.feedback),
    )
}

/// Checks what `plot` and `compare` read of a many-users summary, and what `merge` is about
/// to write: every value in its range and every value that the others determine equal to
/// them (per-user rewards summing to the system's, per-channel collisions to the users', the
/// decomposition's terms to the regret, each statistic over the policy's runs).
pub(crate) fn check(s: &MultiUserSummary) -> Result<(), Failure> {
    header(s)?;
    for (i, p) in s.policies.iter().enumerate() {
        policy(s, p, &format!("policies[{i}]"))?;
    }
    Ok(())
}

/// The summary's own fields: sizes, models, the benchmark, the lower bound and the users' view.
fn header(s: &MultiUserSummary) -> Result<(), Failure> {
    let (k, m, t) = (s.channels, s.users, s.horizon as f64);
    require(k >= 1, "channels", || "must be at least 1".into())?;
    require(m >= 1, "users", || "must be at least 1".into())?;
    require(s.horizon >= 1, "horizon", || {
        "must be at least 1 slot".into()
    })?;
    require(s.runs >= 1, "runs", || "must be at least 1".into())?;
    models(s)?;
    finite(
        s.benchmark.expected_reward_per_slot,
        "benchmark.expected_reward_per_slot",
    )?;
    let lists = s.benchmark.lists.len();
    require((1..=m).contains(&lists), "benchmark.lists", || {
        format!("{lists} lists: at least one, and at most one per user ({m} users)")
    })?;
    for (i, l) in s.benchmark.lists.iter().enumerate() {
        list(l, k, &format!("benchmark.lists[{i}]"))?;
    }
    if let Some(b) = &s.lower_bound {
        let log_t = crate::util::math::ln(t.max(2.0));
        for (name, x) in [
            ("decentralized", b.decentralized),
            ("centralized", b.centralized),
        ] {
            require(
                x.is_finite() && x >= 0.0 && (x * log_t).is_finite(),
                format!("lower_bound.{name}"),
                || format!("{x} is not a bound (finite at ln T, not negative)"),
            )?;
        }
        require(
            agree(b.decentralized, m as f64 * b.centralized, b.decentralized),
            "lower_bound.decentralized",
            || {
                format!(
                    "{} is not M = {m} times the centralised bound {}",
                    b.decentralized, b.centralized
                )
            },
        )?;
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
    Ok(())
}

/// One policy's results: its statistics over its runs, in their ranges, and the sums that
/// other fields determine.
fn policy(s: &MultiUserSummary, p: &PolicySummary, at: &str) -> Result<(), Failure> {
    let (k, m, t) = (s.channels, s.users, s.horizon as f64);
    let user_slots = t * m as f64;
    require(p.runs == s.runs, format!("{at}.runs"), || {
        format!("{} runs, the summary declares {}", p.runs, s.runs)
    })?;
    for (name, st) in &p.at_horizon {
        counts_its_runs(st, p.runs, &format!("{at}.at_horizon.{name}"))?;
    }
    if let Some(d) = &p.decomposition {
        decomposition(d, p.runs, at)?;
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
        channel(ch, c, at, user_slots)?;
    }
    for (name, stat_) in &p.at_horizon {
        require(
            METRICS.iter().any(|&(n, _)| n == name),
            format!("{at}.at_horizon.{name}"),
            || "is not a many-users metric".into(),
        )?;
        let range = match name.as_str() {
            // Not "reward": a net reward falls below 0 where probes cost more than they
            // earn, and under `TimeLeft` a rate above 1 pays more than 1 a slot.
            "idle_found" | "su_collisions" | "pu_collisions" => Some((0.0, user_slots)),
            "probes" | "missed_opportunities" => Some((0.0, user_slots * k as f64)),
            "energy" | "delay" => Some((0.0, f64::INFINITY)),
            _ => None,
        };
        stat(stat_, &format!("{at}.at_horizon.{name}"), range)?;
    }
    let total = |name: &str| {
        p.at_horizon
            .get(name)
            .and_then(|x| x.as_ref())
            .map(|x| x.mean)
    };
    let users: Option<f64> = p.users.iter().map(|u| u.reward.map(|r| r.mean)).sum();
    if let (Some(system), Some(users)) = (total("reward"), users) {
        require(
            agree(system, users, t * m as f64),
            format!("{at}.users"),
            || format!("rewards sum to {users}, the system's is {system}"),
        )?;
    }
    let on_channels: Option<f64> = p
        .channels
        .iter()
        .map(|c| c.collisions.map(|x| x.mean))
        .sum();
    if let (Some(collided), Some(on_channels)) = (total("su_collisions"), on_channels) {
        require(
            agree(collided, on_channels, t * m as f64),
            format!("{at}.channels"),
            || format!("collisions sum to {on_channels}, the users' at the horizon to {collided}"),
        )?;
    }
    Ok(())
}

/// The regret's decomposition: each term a statistic, and the regret their sum.
fn decomposition(d: &Decomposition, runs: u64, at: &str) -> Result<(), Failure> {
    for (name, x) in [
        ("suboptimal_selections", &d.suboptimal_selections),
        ("optimal_unused", &d.optimal_unused),
        ("collisions", &d.collisions),
        ("regret", &d.regret),
    ] {
        stat(x, &format!("{at}.decomposition.{name}"), None)?;
    }
    require(
        d.runs_summing_exactly <= runs,
        format!("{at}.decomposition.runs_summing_exactly"),
        || format!("{} of {} runs", d.runs_summing_exactly, runs),
    )?;
    if let (Some(a), Some(b), Some(c), Some(r)) = (
        d.suboptimal_selections,
        d.optimal_unused,
        d.collisions,
        d.regret,
    ) {
        let sum = a.mean + b.mean + c.mean;
        let scale = a.mean.abs() + b.mean.abs() + c.mean.abs();
        require(
            agree(sum, r.mean, scale),
            format!("{at}.decomposition.regret"),
            || format!("{} is not the sum of its three terms, {sum}", r.mean),
        )?;
    }
    Ok(())
}

/// One channel's row: its own index, a probability, and collisions within its selections.
fn channel(ch: &ChannelSummary, c: usize, at: &str, user_slots: f64) -> Result<(), Failure> {
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
    if let (Some(sel), Some(col)) = (ch.selections, ch.collisions) {
        require(
            col.mean <= sel.mean * (1.0 + 1e-12),
            format!("{at}.collisions"),
            || {
                format!(
                    "{} collisions, more than the {} selections of the channel",
                    col.mean, sel.mean
                )
            },
        )?;
    }
    require(
        ch.probes_per_run.is_finite() && ch.probes_per_run >= 0.0,
        format!("{at}.probes_per_run"),
        || format!("{} is not a probe count", ch.probes_per_run),
    )?;
    Ok(())
}

/// Checks the curve table against its summary: slots within the horizon ending at it, spreads
/// not negative, counts within the runs, and each policy's last row the summary's values at
/// the horizon (a final curve that disagrees with the summary is a damaged folder).
pub(crate) fn curves(s: &MultiUserSummary, table: &CurveTable) -> Result<(), Failure> {
    for ((label, rows), p) in table.policies.iter().zip(&s.policies) {
        let at = format!("policy {label:?}");
        for (t, points) in rows {
            require(*t >= 1 && *t <= s.horizon, format!("{at}, t = {t}"), || {
                format!("lies outside the horizon 1..={}", s.horizon)
            })?;
            for (m, point) in points.iter().enumerate() {
                let Some(point) = point else { continue };
                require(
                    point.std >= 0.0,
                    format!("{at}, t = {t}, {}_std", METRICS[m].0),
                    || format!("{} is not a standard deviation", point.std),
                )?;
                require(point.n <= p.runs, format!("{at}, t = {t}, n"), || {
                    format!("{} runs, the policy has {}", point.n, p.runs)
                })?;
            }
        }
        let Some((t, last)) = rows.last() else {
            return Err(format!("{at}: no rows"));
        };
        require(*t == s.horizon, format!("{at}, t = {t}"), || {
            format!("the last row is not the horizon {}", s.horizon)
        })?;
        for (m, (name, _)) in METRICS.iter().enumerate() {
            let want = p.at_horizon.get(*name).and_then(|x| x.as_ref());
            if let (Some(point), Some(want)) = (last[m], want) {
                require(
                    agree(point.mean, want.mean, want.mean),
                    format!("{at}, t = {t}, {name}_mean"),
                    || {
                        format!(
                            "{} at the horizon, summary.json says {}",
                            point.mean, want.mean
                        )
                    },
                )?;
            }
        }
    }
    Ok(())
}
