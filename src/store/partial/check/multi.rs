//! The checks of a many-users shard's body against the re-checked scenario: every policy's
//! statistics over exactly the shard's runs, the per-user and per-channel vectors of the
//! scenario's sizes, each shard's own run indices in order, and the horizon's moments against
//! the per-run rows.

use super::{Blame, shard_runs};
use crate::engine::multi_user::runner::{TeamStats, expected_kind, jain_bounds};
use crate::engine::multi_user::slot_loop::{Expected, N_MULTI};
use crate::engine::recorder::Metric;
use crate::scenario::MultiUserScenario;
use crate::store::partial::{MergeError, PartialBody};
use crate::util::stats::Moments;

/// Checks a many-users body.
pub(super) fn check_multi_body(
    blame: &Blame,
    at: &str,
    s: &MultiUserScenario,
    body: &PartialBody,
    runs: u64,
) -> Result<(), MergeError> {
    let PartialBody::MultiUser { checkpoints, stats } = body else {
        return Err(blame.at(at, "is not a many-users scenario's statistics"));
    };
    let want = s.header.checkpoints.slots(s.header.horizon);
    blame.require(*checkpoints == want, format!("{at}.checkpoints"), || {
        "differ from the scenario's".into()
    })?;
    blame.require(
        stats.len() == s.policies.len(),
        format!("{at}.stats"),
        || {
            format!(
                "holds {} policies, the scenario {}",
                stats.len(),
                s.policies.len()
            )
        },
    )?;
    let expected = expected_kind(s);
    for (p, st) in stats.iter().enumerate() {
        check_team(
            blame,
            &format!("body.stats[{p}]"),
            s,
            st,
            runs,
            &want,
            expected,
        )?;
    }
    Ok(())
}

/// Values a metric has per run: every run, or none (a pseudo-regret without a closed form).
fn counted(metric: usize, expected: Expected, runs: u64) -> u64 {
    if metric == Metric::PseudoRegret as usize && expected == Expected::None {
        0
    } else {
        runs
    }
}

fn check_team(
    blame: &Blame,
    field: &str,
    s: &MultiUserScenario,
    st: &TeamStats,
    runs: u64,
    checkpoints: &[u64],
    expected: Expected,
) -> Result<(), MergeError> {
    blame.require(st.runs == runs, format!("{field}.runs"), || {
        format!("says {} runs, the shard holds {runs}", st.runs)
    })?;
    blame.require(
        st.curves.len() == checkpoints.len(),
        format!("{field}.curves"),
        || {
            format!(
                "holds {} checkpoints, the scenario {} (truncated?)",
                st.curves.len(),
                checkpoints.len()
            )
        },
    )?;
    let sound = |m: &Moments, n: u64| m.is_sound() && m.count() == n;
    for (c, row) in st.curves.iter().enumerate() {
        for (m, moments) in row.iter().enumerate() {
            let n = counted(m, expected, runs);
            blame.require(sound(moments, n), format!("{field}.curves[{c}][{m}]"), || {
                format!(
                    "holds {} values (the shard has {n} runs' values) or sums that are not finite",
                    moments.count()
                )
            })?;
        }
    }
    let (users, k) = (s.users, s.env.len());
    for (name, v, len) in [
        ("user_reward", &st.user_reward, users),
        ("user_success", &st.user_success, users),
        ("switches", &st.switches, users),
        ("selections", &st.selections, k),
        ("collisions", &st.collisions, k),
    ] {
        blame.require(v.len() == len, format!("{field}.{name}"), || {
            format!("holds {} entries, the scenario {len}", v.len())
        })?;
        for (i, m) in v.iter().enumerate() {
            blame.require(sound(m, runs), format!("{field}.{name}[{i}]"), || {
                format!("holds {} values (the shard has {runs} runs)", m.count())
            })?;
        }
    }
    blame.require(
        sound(&st.jain, runs) && jain_bounds(&st.jain, users),
        format!("{field}.jain"),
        || "is not one index in [1/M, 1] per run".into(),
    )?;
    let classic = if expected == Expected::Classic {
        runs
    } else {
        0
    };
    for (i, m) in st.decomposition.iter().enumerate() {
        blame.require(
            sound(m, classic),
            format!("{field}.decomposition[{i}]"),
            || format!("holds {} values, the shard {classic}", m.count()),
        )?;
    }
    let user_slots = runs
        .saturating_mul(s.header.horizon)
        .saturating_mul(s.users as u64);
    blame.require(
        st.pu_returns <= user_slots && (st.pu_returns == 0 || s.env.time_left().is_some()),
        format!("{field}.pu_returns"),
        || {
            format!(
                "counts {} interrupted transmissions: at most one per user-slot ({user_slots}), and only under `reward: TimeLeft`",
                st.pu_returns
            )
        },
    )?;
    for (name, n) in [
        ("decomposition_exact", st.decomposition_exact),
        ("regret_above_first_term", st.regret_above_first_term),
    ] {
        blame.require(n <= classic, format!("{field}.{name}"), || {
            format!("counts {n} runs of {classic}")
        })?;
    }
    blame.require(
        st.channel_probes.len() == k,
        format!("{field}.channel_probes"),
        || {
            format!(
                "{} channel counts for {k} channels",
                st.channel_probes.len()
            )
        },
    )?;
    check_finals(blame, field, st, runs, expected)
}

/// One row per run, in the shard's run order, finite where the metric has a value, that the
/// last checkpoint and the probe counts summarise exactly.
fn check_finals(
    blame: &Blame,
    field: &str,
    st: &TeamStats,
    runs: u64,
    expected: Expected,
) -> Result<(), MergeError> {
    blame.require(
        st.finals.len() as u64 == runs,
        format!("{field}.finals"),
        || format!("holds {} runs, the shard {runs}", st.finals.len()),
    )?;
    for (i, ((run, row), want)) in st
        .finals
        .iter()
        .zip(shard_runs(blame.shard, runs))
        .enumerate()
    {
        blame.require(*run == want, format!("{field}.finals[{i}]"), || {
            format!(
                "is run {run}, but shard {} holds run {want} there (another shard's data?)",
                blame.shard
            )
        })?;
        let ok = (0..N_MULTI).all(|m| row[m].is_finite() == (counted(m, expected, 1) == 1));
        blame.require(ok, format!("{field}.finals[{i}]"), || {
            "holds a value that is not finite, or one where the metric has none".into()
        })?;
    }
    if let Some(last) = st.curves.last() {
        for (m, moments) in last.iter().enumerate() {
            let mut from_rows = Moments::default();
            for (_, row) in &st.finals {
                if row[m].is_finite() {
                    from_rows.add(row[m]);
                }
            }
            blame.require(
                moments.totals() == from_rows.totals(),
                format!("{field}.curves[{}][{m}]", st.curves.len() - 1),
                || "disagrees with the per-run rows at the horizon (edited?)".into(),
            )?;
        }
    }
    let probes: f64 = st
        .finals
        .iter()
        .map(|(_, r)| r[Metric::Probes as usize])
        .sum();
    let counted: u64 = st.channel_probes.iter().sum();
    blame.require(
        probes == counted as f64,
        format!("{field}.channel_probes"),
        || format!("add up to {counted} probes, the per-run rows to {probes}"),
    )
}
