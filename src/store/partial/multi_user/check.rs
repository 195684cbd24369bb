//! The checks of a many-users shard's body against the re-checked scenario: every policy's
//! statistics over exactly the shard's runs, the per-user and per-channel vectors of the
//! scenario's sizes, each shard's own run indices in order, the horizon's moments against
//! the per-run rows, and the links between fields that a forger who re-seals the checksum
//! must keep (per-user and per-channel vectors against the rows, every checkpoint's counts
//! within what its slots allow, the benchmark's reward the same for every policy in a run).

use super::MultiUserBody;
use crate::engine::multi_user::runner::{TeamStats, expected_kind, jain_bounds};
use crate::engine::multi_user::slot_loop::{Expected, N_MULTI, SU_COLLISIONS};
use crate::engine::recorder::Metric;
use crate::scenario::MultiUserScenario;
use crate::store::partial::blame::Blame;
use crate::store::partial::{MergeError, PartialBody};
use crate::util::stats::{ExactSum, Moments};

/// Checks a many-users body.
pub(super) fn check_multi_body(
    blame: &Blame,
    at: &str,
    s: &MultiUserScenario,
    body: &PartialBody,
    runs: u64,
) -> Result<(), MergeError> {
    let PartialBody::MultiUser(MultiUserBody { checkpoints, stats }) = body else {
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
        let field = format!("{at}.stats[{p}]");
        check_team(blame, &field, s, st, runs, &want, expected)?;
        check_links(blame, &field, s, st, &want, expected)?;
    }
    check_benchmark(blame, stats)
}

/// Relative slack for sums of the same values added in another order (10⁻⁹ of their size).
fn close(a: f64, b: f64, size: f64) -> bool {
    (a - b).abs() <= 1e-9 * (size + 1.0)
}

/// The metrics that count events (per run: non-decreasing over checkpoints) and the most a
/// run can count in `t` slots, with M users and K channels.
fn counts(t: f64, m: f64, k: f64) -> [(usize, f64); 5] {
    [
        (Metric::Probes as usize, t * m * k),
        (Metric::MissedOpportunities as usize, t * m * k),
        (Metric::IdleFound as usize, t * m),
        (Metric::PuCollisions as usize, t * m),
        (SU_COLLISIONS, t * m),
    ]
}

/// The links between one policy's fields (see the module docs).
fn check_links(
    blame: &Blame,
    field: &str,
    s: &MultiUserScenario,
    st: &TeamStats,
    checkpoints: &[u64],
    expected: Expected,
) -> Result<(), MergeError> {
    let (t, m, k) = (s.header.horizon as f64, s.users as f64, s.env.len() as f64);
    // Every checkpoint's counts lie within what its slots allow, and grow.
    for (c, (row, &slots)) in st.curves.iter().zip(checkpoints).enumerate() {
        for (metric, most) in counts(slots as f64, m, k) {
            let grew = c == 0 || st.curves[c - 1][metric].totals().1 <= row[metric].totals().1;
            blame.require(
                row[metric].within(0.0, most) && grew,
                format!("{field}.curves[{c}][{metric}]"),
                || {
                    format!(
                        "is not a count of at most {most} per run after {slots} slots, no smaller than the checkpoint before"
                    )
                },
            )?;
        }
    }
    let rows = |metric: usize| {
        let mut sum = ExactSum::default();
        for (_, row) in &st.finals {
            sum.add(row[metric]);
        }
        sum.value()
    };
    let total = |v: &[Moments]| {
        let mut sum = ExactSum::default();
        for x in v {
            sum.add(x.totals().1);
        }
        sum.value()
    };
    // Per user: acknowledged transmissions add up to the rows' idle slots found, rewards to
    // their reward; switches at most one a slot.
    let found = rows(Metric::IdleFound as usize);
    blame.require(
        total(&st.user_success) == found && st.user_success.iter().all(|x| x.within(0.0, t)),
        format!("{field}.user_success"),
        || format!("does not add up to the per-run rows' {found} idle slots found (edited?)"),
    )?;
    let reward = rows(Metric::Reward as usize);
    let size: f64 = st.user_reward.iter().map(|x| x.totals().1.abs()).sum();
    blame.require(
        close(total(&st.user_reward), reward, size + reward.abs()),
        format!("{field}.user_reward"),
        || format!("does not add up to the per-run rows' reward {reward} (edited?)"),
    )?;
    for (u, x) in st.switches.iter().enumerate() {
        blame.require(
            x.within(0.0, (t - 1.0).max(0.0)),
            format!("{field}.switches[{u}]"),
            || "is not a count of at most one switch a slot".into(),
        )?;
    }
    // Per channel: a user that chose a channel probed it, one that collided on it chose it;
    // the users colliding add up to the rows' count.
    for c in 0..s.env.len() {
        let (chose, collided) = (st.selections[c].totals().1, st.collisions[c].totals().1);
        blame.require(
            st.selections[c].within(0.0, t * m) && chose <= st.channel_probes[c] as f64,
            format!("{field}.selections[{c}]"),
            || {
                format!(
                    "counts {chose} choices, more than the channel's {} probes",
                    st.channel_probes[c]
                )
            },
        )?;
        blame.require(
            st.collisions[c].within(0.0, t * m) && collided <= chose,
            format!("{field}.collisions[{c}]"),
            || format!("counts {collided} users colliding, more than the {chose} that chose it"),
        )?;
    }
    let collided = rows(SU_COLLISIONS);
    blame.require(
        total(&st.collisions) == collided,
        format!("{field}.collisions"),
        || format!("does not add up to the per-run rows' {collided} users colliding (edited?)"),
    )?;
    if expected == Expected::Classic && s.collision != crate::multi::Collision::NoCollision {
        // The decomposition's regret is each run's pseudo-regret, its terms sum to it.
        let mut regret = Moments::default();
        for (_, row) in &st.finals {
            regret.add(row[Metric::PseudoRegret as usize]);
        }
        let d: Vec<f64> = st.decomposition.iter().map(|x| x.totals().1).collect();
        let size: f64 = d.iter().map(|x| x.abs()).sum();
        blame.require(
            st.decomposition[3].totals() == regret.totals()
                && close(d[0] + d[1] + d[2], d[3], size),
            format!("{field}.decomposition"),
            || "does not sum to the per-run rows' pseudo-regret (edited?)".into(),
        )?;
    }
    Ok(())
}

/// In each run the benchmark's realised reward (a policy's reward plus its realised regret)
/// is the same for every policy: the benchmark plays the same lists on the same paths. A run
/// of another seed, or another run's row, pasted into one policy breaks it.
fn check_benchmark(blame: &Blame, stats: &[TeamStats]) -> Result<(), MergeError> {
    let Some(first) = stats.first() else {
        return Ok(());
    };
    let bench =
        |row: &[f64; N_MULTI]| row[Metric::RealizedRegret as usize] + row[Metric::Reward as usize];
    for (p, st) in stats.iter().enumerate().skip(1) {
        for (i, ((_, a), (_, b))) in first.finals.iter().zip(&st.finals).enumerate() {
            let size = a[Metric::Reward as usize].abs()
                + b[Metric::Reward as usize].abs()
                + bench(a).abs();
            blame.require(
                close(bench(a), bench(b), size),
                format!("body.stats[{p}].finals[{i}]"),
                || {
                    format!(
                        "gives the benchmark a reward of {} in this run, policy 0's row {} (another run's or another seed's data?)",
                        bench(b),
                        bench(a)
                    )
                },
            )?;
        }
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

/// Moments that are sound and hold exactly `n` values.
fn sound(m: &Moments, n: u64) -> bool {
    m.is_sound() && m.count() == n
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
    check_curves(blame, field, st, runs, checkpoints, expected)?;
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
    check_returns_and_jams(blame, field, s, st, runs)?;
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

/// The curves: one row per checkpoint, each metric's moments over the runs that have it.
fn check_curves(
    blame: &Blame,
    field: &str,
    st: &TeamStats,
    runs: u64,
    checkpoints: &[u64],
    expected: Expected,
) -> Result<(), MergeError> {
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
    Ok(())
}

/// The primary user's interruptions (per run and in total) and the jammers' counts.
fn check_returns_and_jams(
    blame: &Blame,
    field: &str,
    s: &MultiUserScenario,
    st: &TeamStats,
    runs: u64,
) -> Result<(), MergeError> {
    let (users, k) = (s.users, s.env.len());
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
    let per_run: f64 = st
        .finals
        .iter()
        .map(|(_, r)| r[Metric::PuReturns as usize])
        .sum();
    blame.require(
        per_run == st.pu_returns as f64,
        format!("{field}.pu_returns"),
        || {
            format!(
                "counts {} interrupted transmissions, the per-run rows {per_run}",
                st.pu_returns
            )
        },
    )?;
    blame.require(
        st.jams.is_some() != s.jammers.list.is_empty(),
        format!("{field}.jams"),
        || "must be present exactly when the scenario has jammers".into(),
    )?;
    if let Some(j) = &st.jams {
        // Per run: at most one jammed transmission per user-slot, one jam per channel-slot.
        let horizon = s.header.horizon as f64;
        for (name, m, n, hi) in [
            ("jammed", &j.jammed, runs, horizon * users as f64),
            ("jam_slots", &j.jam_slots, runs, horizon * k as f64),
        ] {
            blame.require(
                sound(m, n) && m.within(0.0, hi),
                format!("{field}.jams.{name}"),
                || format!("is not one count per run, each in [0, {hi}]"),
            )?;
        }
        blame.require(
            j.reduced_regret.is_sound() && j.reduced_regret.count() <= runs,
            format!("{field}.jams.reduced_regret"),
            || {
                format!(
                    "holds {} values, more than the shard's {runs} runs",
                    j.reduced_regret.count()
                )
            },
        )?;
    }
    Ok(())
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
    for (i, (run, row)) in st.finals.iter().enumerate() {
        blame.holds_run(&format!("{field}.finals[{i}]"), i, *run)?;
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
