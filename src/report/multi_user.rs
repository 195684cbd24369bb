//! Outputs of many-users scenarios: `summary.json` (`"kind": "multi-user"`), `curves.csv`
//! (system metrics over time), `runs.csv` (each run at the horizon), `users.csv` (per-user
//! reward, acknowledged transmissions, switches), `channels.csv` (selections, collisions,
//! probes), the charts (system regret with the lower bounds, collisions over time, per-user
//! reward) and `report.md`.

use crate::engine::multi_loop::{Expected, N_MULTI, SU_COLLISIONS};
use crate::engine::multi_runner::{MultiStats, TeamStats};
use crate::engine::recorder::Metric;
use crate::model::theory::kl_bernoulli;
use crate::report::format::sig;
use crate::report::plots::bars::{BarSeries, GroupedBars};
use crate::report::plots::lines::{Curve, LineChart, Reference};
use crate::report::plots::{Band, ChartOptions, render_chart};
use crate::report::{Artifact, Rendered, ReportError};
use crate::scenario::MultiUserScenario;
use crate::store::names;
use crate::util::stats::{Moments, ci95};
use plotters::style::RGBColor;
use serde::Serialize;
use std::fmt::Write;

/// The metrics of `curves.csv` and `runs.csv`, in column order.
pub(crate) const METRICS: [(&str, usize); 8] = [
    ("pseudo_regret", Metric::PseudoRegret as usize),
    ("realized_regret", Metric::RealizedRegret as usize),
    ("reward", Metric::Reward as usize),
    ("idle_found", Metric::IdleFound as usize),
    ("su_collisions", SU_COLLISIONS),
    ("pu_collisions", Metric::PuCollisions as usize),
    ("cost", Metric::Cost as usize),
    ("probes", Metric::Probes as usize),
];

/// A statistic over runs.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Stat {
    mean: f64,
    std: f64,
    ci95: Option<[f64; 2]>,
}

fn stat(m: &Moments) -> Option<Stat> {
    (m.count() > 0).then(|| {
        let ms = m.mean_std();
        Stat {
            mean: ms.mean,
            std: ms.std,
            ci95: ci95(m.count(), ms.mean, ms.std),
        }
    })
}

/// The asymptotic lower bounds of the classic model.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct LowerBound {
    /// Besson & Kaufmann (2018), Theorem 6: any uniformly efficient decentralised policy has
    /// `liminf R_T / ln T ≥ M · Σ_{k ∈ M-worst} (μ*_M − μ_k) / kl(μ_k, μ*_M)`.
    decentralized: f64,
    /// Anantharam, Varaiya & Walrand (1987): the centralised multiple-play constant, the sum
    /// without the factor M.
    centralized: f64,
    caveat: &'static str,
}

const CAVEAT: &str = "asymptotic (T → ∞), for uniformly efficient policies on i.i.d. Bernoulli channels with shared means and sensing; policies outside that class (e.g. Selfish, Musical Chairs with a fixed T0) are not covered, and no finite-T guarantee is implied";

/// The lower bounds where they apply: the classic model, M < K, i.i.d. channels, a strict gap.
pub(crate) fn lower_bound(s: &MultiUserScenario, stats: &MultiStats) -> Option<LowerBound> {
    let m = s.users;
    let k = s.env.len();
    let stationary =
        s.env.epochs().len() == 1 && s.env.channels().iter().all(|c| c.occupancy().is_iid());
    if stats.expected != Expected::Classic || m >= k || !stationary {
        return None;
    }
    let mut mu: Vec<f64> = s.env.epochs()[0].success.clone();
    mu.sort_by(|a, b| b.total_cmp(a));
    let star = mu[m - 1];
    let mut c = 0.0;
    for &x in &mu[m..] {
        if x < star {
            c += (star - x) / kl_bernoulli(x, star);
        }
    }
    c.is_finite().then_some(LowerBound {
        decentralized: m as f64 * c,
        centralized: c,
        caveat: CAVEAT,
    })
}

#[derive(Clone, Debug, Serialize)]
struct Benchmark {
    name: String,
    exact: bool,
    expected_reward_per_slot: f64,
    lists: Vec<Vec<usize>>,
}

#[derive(Clone, Debug, Serialize)]
struct Decomposition {
    suboptimal_selections: Option<Stat>,
    optimal_unused: Option<Stat>,
    collisions: Option<Stat>,
    regret: Option<Stat>,
    runs_summing_exactly: u64,
}

#[derive(Clone, Debug, Serialize)]
struct UserSummary {
    user: usize,
    reward: Option<Stat>,
    successes: Option<Stat>,
    switches: Option<Stat>,
}

#[derive(Clone, Debug, Serialize)]
struct ChannelSummary {
    channel: usize,
    theta: f64,
    selections: Option<Stat>,
    collisions: Option<Stat>,
    probes_per_run: f64,
}

#[derive(Clone, Debug, Serialize)]
struct PolicySummary {
    name: String,
    policy: String,
    runs: u64,
    at_horizon: std::collections::BTreeMap<&'static str, Option<Stat>>,
    decomposition: Option<Decomposition>,
    jain_fairness: Option<Stat>,
    users: Vec<UserSummary>,
    channels: Vec<ChannelSummary>,
}

/// What `summary.json` holds.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct MultiUserSummary {
    kind: &'static str,
    scenario: String,
    description: String,
    seed: u64,
    horizon: u64,
    runs: u64,
    users: usize,
    channels: usize,
    timing: String,
    collision: String,
    feedback: String,
    pseudo_regret: &'static str,
    benchmark: Benchmark,
    lower_bound: Option<LowerBound>,
    fairness: &'static str,
    policies: Vec<PolicySummary>,
}

fn expected_note(e: Expected) -> &'static str {
    match e {
        Expected::Single => "exact: one user, the single-user expected reward of its list per slot",
        Expected::Classic => {
            "exact: one channel per user and perfect sensing, Σ_k s_k·(users rewarded on k) per slot from the per-channel counts"
        }
        Expected::None => {
            "not computed: no closed form for several users' cascades or for sensing errors; see realized_regret"
        }
    }
}

fn benchmark_name(s: &MultiUserScenario, stats: &MultiStats) -> String {
    let exact = stats.benchmarks.iter().all(|b| b.exact);
    match stats.expected {
        Expected::Single => "the single-user optimum (UCR-T1 list)".into(),
        Expected::Classic if s.collision == crate::multi::Collision::NoCollision => {
            "every user on the best channel (independent copies)".into()
        }
        Expected::Classic => format!("the min(M, K) = {} best channels, one per user", s.users.min(s.env.len())),
        Expected::None if exact => "the best assignment of disjoint UCR-T1 lists (exact, by enumeration)".into(),
        Expected::None => "disjoint UCR-T1 lists, greedy (heuristic: user 1 the optimum on every channel, user 2 on the rest, …)".into(),
    }
}

/// The summary of a many-users run.
pub(crate) fn summary(s: &MultiUserScenario, stats: &MultiStats) -> MultiUserSummary {
    let b = &stats.benchmarks[0];
    MultiUserSummary {
        kind: "multi-user",
        scenario: s.name.clone(),
        description: s.description.clone(),
        seed: s.seed,
        horizon: s.horizon,
        runs: s.runs,
        users: s.users,
        channels: s.env.len(),
        timing: format!("{:?}", s.timing),
        collision: crate::util::ron_text::to_ron_line(&s.collision),
        feedback: format!("{:?}", s.feedback),
        pseudo_regret: expected_note(stats.expected),
        benchmark: Benchmark {
            name: benchmark_name(s, stats),
            exact: stats.benchmarks.iter().all(|b| b.exact),
            expected_reward_per_slot: b.expected_reward,
            lists: b.lists.clone(),
        },
        lower_bound: lower_bound(s, stats),
        fairness: "Jain's index (Σx)²/(M·Σx²) of the users' acknowledged transmissions on idle channels, per run: 1 = equal shares, 1/M = one user took all (1 when nobody transmitted)",
        policies: s
            .policies
            .iter()
            .zip(&stats.stats)
            .map(|(p, st)| policy_summary(s, &p.label, &p.spec.to_ron(), st, stats.expected))
            .collect(),
    }
}

fn policy_summary(
    s: &MultiUserScenario,
    label: &str,
    spec: &str,
    st: &TeamStats,
    expected: Expected,
) -> PolicySummary {
    let last = st.curves.last();
    let at_horizon = METRICS
        .iter()
        .map(|&(name, i)| (name, last.and_then(|c| stat(&c[i]))))
        .collect();
    let decomposition = (expected == Expected::Classic
        && s.collision != crate::multi::Collision::NoCollision)
        .then(|| Decomposition {
            suboptimal_selections: stat(&st.decomposition[0]),
            optimal_unused: stat(&st.decomposition[1]),
            collisions: stat(&st.decomposition[2]),
            regret: stat(&st.decomposition[3]),
            runs_summing_exactly: st.decomposition_exact,
        });
    PolicySummary {
        name: label.to_string(),
        policy: spec.to_string(),
        runs: st.runs,
        at_horizon,
        decomposition,
        jain_fairness: stat(&st.jain),
        users: (0..s.users)
            .map(|u| UserSummary {
                user: u,
                reward: stat(&st.user_reward[u]),
                successes: stat(&st.user_success[u]),
                switches: stat(&st.switches[u]),
            })
            .collect(),
        channels: (0..s.env.len())
            .map(|k| ChannelSummary {
                channel: k,
                theta: s.env.theta()[k],
                selections: stat(&st.selections[k]),
                collisions: stat(&st.collisions[k]),
                probes_per_run: st.channel_probes[k] as f64 / st.runs.max(1) as f64,
            })
            .collect(),
    }
}

fn csv_bytes(
    header: &[String],
    rows: impl Iterator<Item = Vec<String>>,
) -> Result<Vec<u8>, ReportError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header)?;
    for r in rows {
        w.write_record(&r)?;
    }
    w.into_inner()
        .map_err(|e| ReportError::Csv(csv::Error::from(e.into_error())))
}

fn num(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        String::new()
    }
}

/// `curves.csv`: per policy and checkpoint, each metric's mean and standard deviation.
fn curves(s: &MultiUserScenario, stats: &MultiStats) -> Result<Vec<u8>, ReportError> {
    let mut header = vec!["policy".to_string(), "t".to_string()];
    for (name, _) in METRICS {
        header.push(format!("{name}_mean"));
        header.push(format!("{name}_std"));
    }
    let rows = s.policies.iter().zip(&stats.stats).flat_map(|(p, st)| {
        stats.checkpoints.iter().zip(&st.curves).map(|(&t, c)| {
            let mut r = vec![p.label.clone(), t.to_string()];
            for (_, i) in METRICS {
                match c[i].count() {
                    0 => r.extend([String::new(), String::new()]),
                    _ => {
                        let ms = c[i].mean_std();
                        r.extend([num(ms.mean), num(ms.std)]);
                    }
                }
            }
            r
        })
    });
    csv_bytes(&header, rows)
}

/// The header line of a many-users `runs.csv`.
pub(crate) fn runs_header() -> Result<Vec<u8>, ReportError> {
    let mut header = vec!["policy".to_string(), "run".to_string()];
    header.extend(METRICS.iter().map(|(n, _)| n.to_string()));
    csv_bytes(&header, std::iter::empty())
}

/// The rows of one policy, runs as given: `runs.csv` is the header followed by these rows for
/// every policy in scenario order, so rows written as the runs finish make the same bytes.
pub(crate) fn write_runs<W: std::io::Write>(
    w: &mut csv::Writer<W>,
    policy: &str,
    rows: &[(u64, [f64; N_MULTI])],
) -> Result<(), csv::Error> {
    for (run, row) in rows {
        w.write_field(policy)?;
        w.write_field(run.to_string())?;
        for &(_, i) in &METRICS {
            w.write_field(num(row[i]))?;
        }
        w.write_record(None::<&[u8]>)?;
    }
    Ok(())
}

/// `runs.csv`: each run's values at the horizon (Selfish fails on a few runs only: the
/// distribution matters).
fn runs(s: &MultiUserScenario, stats: &MultiStats) -> Result<Vec<u8>, ReportError> {
    let mut w = csv::Writer::from_writer(runs_header()?);
    for (p, st) in s.policies.iter().zip(&stats.stats) {
        write_runs(&mut w, &p.label, &st.finals)?;
    }
    w.into_inner()
        .map_err(|e| ReportError::Csv(csv::Error::from(e.into_error())))
}

fn stat_cells(x: &Option<Stat>) -> [String; 2] {
    match x {
        Some(s) => [num(s.mean), num(s.std)],
        None => [String::new(), String::new()],
    }
}

fn users_csv(summary: &MultiUserSummary) -> Result<Vec<u8>, ReportError> {
    let header: Vec<String> = [
        "policy",
        "user",
        "reward_mean",
        "reward_std",
        "successes_mean",
        "successes_std",
        "switches_mean",
        "switches_std",
    ]
    .map(String::from)
    .to_vec();
    let rows = summary.policies.iter().flat_map(|p| {
        p.users.iter().map(|u| {
            let mut r = vec![p.name.clone(), u.user.to_string()];
            for x in [&u.reward, &u.successes, &u.switches] {
                r.extend(stat_cells(x));
            }
            r
        })
    });
    csv_bytes(&header, rows)
}

fn channels_csv(summary: &MultiUserSummary) -> Result<Vec<u8>, ReportError> {
    let header: Vec<String> = [
        "policy",
        "channel",
        "theta",
        "selections_mean",
        "selections_std",
        "collisions_mean",
        "collisions_std",
        "probes_per_run",
    ]
    .map(String::from)
    .to_vec();
    let rows = summary.policies.iter().flat_map(|p| {
        p.channels.iter().map(|c| {
            let mut r = vec![p.name.clone(), c.channel.to_string(), num(c.theta)];
            r.extend(stat_cells(&c.selections));
            r.extend(stat_cells(&c.collisions));
            r.push(num(c.probes_per_run));
            r
        })
    });
    csv_bytes(&header, rows)
}

fn spread(m: &Moments, band: Band) -> f64 {
    let ms = m.mean_std();
    match band {
        Band::Sd => ms.std,
        Band::Se => m.stderr(),
        Band::Ci95 => ci95(m.count(), ms.mean, ms.std).map_or(0.0, |[lo, hi]| (hi - lo) / 2.0),
    }
}

fn metric_curves(
    s: &MultiUserScenario,
    stats: &MultiStats,
    metric: usize,
    band: Band,
) -> Vec<Curve> {
    s.policies
        .iter()
        .zip(&stats.stats)
        .map(|(p, st)| Curve {
            label: p.label.clone(),
            points: stats
                .checkpoints
                .iter()
                .zip(&st.curves)
                .filter(|(_, c)| c[metric].count() > 0)
                .map(|(&t, c)| (t as f64, c[metric].mean(), spread(&c[metric], band)))
                .collect(),
        })
        .collect()
}

fn charts(
    s: &MultiUserScenario,
    stats: &MultiStats,
    summary: &MultiUserSummary,
    opts: &ChartOptions,
) -> Result<Vec<Rendered>, ReportError> {
    let mut out = Vec::new();
    if opts.formats.is_empty() {
        return Ok(out);
    }
    let pseudo = stats.expected != Expected::None;
    let (metric, what) = if pseudo {
        (Metric::PseudoRegret as usize, "system pseudo-regret")
    } else {
        (Metric::RealizedRegret as usize, "system realised regret")
    };
    let mut references = Vec::new();
    let mut notes = vec![format!(
        "M = {} users, K = {} channels; benchmark: {}",
        s.users,
        s.env.len(),
        summary.benchmark.name
    )];
    if let Some(lb) = &summary.lower_bound {
        let dense: Vec<f64> = (1..=200)
            .map(|i| s.horizon as f64 * i as f64 / 200.0)
            .collect();
        for (label, c, color) in [
            (
                format!(
                    "decentralised lower bound {}·ln t (asymptotic)",
                    sig(lb.decentralized, 4)
                ),
                lb.decentralized,
                RGBColor(0, 0, 0),
            ),
            (
                format!(
                    "centralised lower bound {}·ln t (asymptotic)",
                    sig(lb.centralized, 4)
                ),
                lb.centralized,
                RGBColor(120, 120, 120),
            ),
        ] {
            references.push(Reference {
                label,
                points: dense.iter().map(|&t| (t, c * t.ln())).collect(),
                color,
                dash: (8, 5),
            });
        }
        notes.push("lower bounds: asymptotic, for uniformly efficient policies only".into());
    }
    let line = |title: String, y: &str, curves: Vec<Curve>, references, notes| LineChart {
        title,
        x_label: "slot t".into(),
        y_label: y.into(),
        log_x: false,
        log_y: false,
        error_bars: false,
        curves,
        band: Some(opts.band.describe().into()),
        references,
        notes,
        y_range_from: 0.0,
        y_from_zero: true,
        verticals: None,
    };
    let chart = line(
        format!("{} — {what}", s.name),
        what,
        metric_curves(s, stats, metric, opts.band),
        references,
        notes,
    );
    out.push(Rendered {
        caption: format!(
            "The {what} of every policy, with the asymptotic lower bounds where they apply"
        ),
        stem: "regret".into(),
        files: render_chart(&chart, "regret", opts)?,
    });
    let chart = line(
        format!("{} — collisions between users", s.name),
        "users in collisions (cumulative)",
        metric_curves(s, stats, SU_COLLISIONS, opts.band),
        Vec::new(),
        Vec::new(),
    );
    out.push(Rendered {
        caption: "Users involved in collisions with other users, cumulative".into(),
        stem: "collisions".into(),
        files: render_chart(&chart, "collisions", opts)?,
    });
    let chart = GroupedBars {
        title: format!("{} — reward per user over the run", s.name),
        x_label: "policy".into(),
        y_label: "net reward per user".into(),
        groups: summary.policies.iter().map(|p| p.name.clone()).collect(),
        series: (0..s.users.min(16))
            .map(|u| BarSeries {
                label: format!("user {}", u + 1),
                values: summary
                    .policies
                    .iter()
                    .map(|p| p.users[u].reward.as_ref().map(|r| (r.mean, r.std)))
                    .collect(),
            })
            .collect(),
        points: Vec::new(),
        log_y: false,
        notes: vec![
            "whiskers: standard deviation over runs".into(),
            "fairness (Jain's index) in report.md".into(),
        ],
    };
    out.push(Rendered {
        caption: "Each user's net reward over the run (fairness between users)".into(),
        stem: "users".into(),
        files: render_chart(&chart, "users", opts)?,
    });
    Ok(out)
}

fn cell(x: &Option<Stat>) -> String {
    x.as_ref().map_or("—".into(), |s| {
        format!("{} ± {}", sig(s.mean, 4), sig(s.std, 3))
    })
}

fn markdown(summary: &MultiUserSummary, charts: &[(String, String)]) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# {} (many users)\n", summary.scenario);
    if !summary.description.is_empty() {
        let _ = writeln!(md, "{}\n", summary.description);
    }
    let _ = writeln!(
        md,
        "M = {} users, K = {} channels, T = {}, {} runs, seed {}. Timing `{}`, collisions `{}`, feedback `{}`.\n",
        summary.users,
        summary.channels,
        summary.horizon,
        summary.runs,
        summary.seed,
        summary.timing,
        summary.collision,
        summary.feedback
    );
    let _ = writeln!(
        md,
        "Benchmark: {} ({} per slot). Pseudo-regret: {}.\n",
        summary.benchmark.name,
        sig(summary.benchmark.expected_reward_per_slot, 6),
        summary.pseudo_regret
    );
    if let Some(lb) = &summary.lower_bound {
        let _ = writeln!(
            md,
            "Lower bounds: decentralised {}·ln T = {} at T, centralised {}·ln T ({}).\n",
            sig(lb.decentralized, 4),
            sig(lb.decentralized * (summary.horizon as f64).ln(), 4),
            sig(lb.centralized, 4),
            lb.caveat
        );
    }
    let _ = writeln!(
        md,
        "| policy | pseudo-regret | realised regret | collisions (users) | Jain |\n|---|---:|---:|---:|---:|"
    );
    for p in &summary.policies {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            p.name,
            cell(&p.at_horizon["pseudo_regret"]),
            cell(&p.at_horizon["realized_regret"]),
            cell(&p.at_horizon["su_collisions"]),
            cell(&p.jain_fairness)
        );
    }
    if summary.policies.iter().any(|p| p.decomposition.is_some()) {
        let _ = writeln!(
            md,
            "\nRegret decomposition (Besson & Kaufmann 2018, Lemma 1): (a) sub-optimal selections + (b) optimal channels unused + (c) collisions = regret.\n\n| policy | (a) | (b) | (c) | regret | runs summing exactly |\n|---|---:|---:|---:|---:|---:|"
        );
        for p in &summary.policies {
            if let Some(d) = &p.decomposition {
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} | {} | {}/{} |",
                    p.name,
                    cell(&d.suboptimal_selections),
                    cell(&d.optimal_unused),
                    cell(&d.collisions),
                    cell(&d.regret),
                    d.runs_summing_exactly,
                    p.runs
                );
            }
        }
    }
    crate::report::format::charts_section(&mut md, charts);
    md
}

/// Every output of a many-users scenario, rendered.
pub(crate) fn render(
    s: &MultiUserScenario,
    stats: &MultiStats,
    opts: &ChartOptions,
) -> Result<Vec<Artifact>, ReportError> {
    let summary = summary(s, stats);
    let json = serde_json::to_vec_pretty(&summary).map_err(|error| ReportError::Json {
        file: names::SUMMARY,
        error,
    })?;
    let mut files = vec![
        Artifact::new(names::SUMMARY, json),
        Artifact::new(names::CURVES, curves(s, stats)?),
        if stats.streamed {
            Artifact::staged(names::RUNS)
        } else {
            Artifact::new(names::RUNS, runs(s, stats)?)
        },
        Artifact::new("users.csv", users_csv(&summary)?),
        Artifact::new("channels.csv", channels_csv(&summary)?),
    ];
    let rendered = charts(s, stats, &summary, opts)?;
    let md = markdown(&summary, &crate::report::embedded(&rendered, opts));
    files.extend(rendered.into_iter().flat_map(|r| r.files));
    files.push(Artifact::new(names::REPORT, md.into_bytes()));
    Ok(files)
}

/// What `specprobe validate` prints for a many-users scenario.
pub(crate) fn describe(s: &MultiUserScenario) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "many users: {:?}: M = {} users, K = {} channels, T = {}, {} runs, seed {}",
        s.name,
        s.users,
        s.env.len(),
        s.horizon,
        s.runs,
        s.seed
    );
    let _ = writeln!(
        out,
        "timing {:?}, collisions {}, feedback {:?}",
        s.timing,
        crate::util::ron_text::to_ron_line(&s.collision),
        s.feedback
    );
    for p in &s.policies {
        let _ = writeln!(out, "  {}: {}", p.label, p.spec.to_ron());
    }
    out
}
