//! Outputs of many-users scenarios: `summary.json` (`"kind": "multi-user"`), `curves.csv`
//! (system metrics over time), `runs.csv` (each run at the horizon), `users.csv` (per-user
//! reward, acknowledged transmissions, switches), `channels.csv` (selections, collisions,
//! probes), the charts (system regret with the lower bounds, collisions over time, per-user
//! reward) and `report.md`. The charts and the report are drawn from the summary and the curve
//! table alone, so that `plot` and `compare` redraw them from saved files.

mod charts;
mod check;
mod compare;
mod describe;
pub(crate) mod summary;
mod sweep;
mod tables;

pub(crate) use compare::render_compare;
pub(crate) use summary::{MultiUserSummary, Stat, summary};
pub(crate) use sweep::{SavedSweep, load_multi_user_sweep, render_sweep};
pub(crate) use tables::{CurveTable, runs_parts};

use crate::engine::multi_user::MultiUserResults;
use crate::engine::multi_user::runner::MultiStats;
use crate::engine::multi_user::slot_loop::SU_COLLISIONS;
use crate::engine::recorder::Metric;
use crate::report::format::sig;
use crate::report::plots::ChartOptions;
use crate::report::saved::SavedResults;
use crate::report::{Artifact, ReportError, parse_json};
use crate::scenario::MultiUserScenario;
use crate::scenario::Sweep;
use crate::store::folder::OutputDir;
use crate::store::names::{self, ResultKind, Swept};
use crate::util::math;
use std::fmt::Write;
use tables::{channels_csv, users_csv};

impl MultiUserResults {
    /// What `summary.json` holds: one summary, or one per cell of the scenario's sweep (as
    /// each cell's folder holds it).
    pub fn summaries(&self) -> Vec<MultiUserSummary> {
        let cells = Sweep::cells_or(self.scenario.sweep.as_deref(), &self.scenario);
        let runs = cells.iter().zip(&self.stats);
        runs.map(|(cell, st)| summary(cell, st)).collect()
    }
}

/// The metrics of `curves.csv` and `runs.csv`, in column order.
pub(crate) const METRICS: [(&str, usize); 11] = [
    ("pseudo_regret", Metric::PseudoRegret as usize),
    ("realized_regret", Metric::RealizedRegret as usize),
    ("reward", Metric::Reward as usize),
    ("idle_found", Metric::IdleFound as usize),
    ("su_collisions", SU_COLLISIONS),
    ("pu_collisions", Metric::PuCollisions as usize),
    ("cost", Metric::Cost as usize),
    ("probes", Metric::Probes as usize),
    // Appended (files written before had the eight above, and still read): the cost's
    // energy/delay split and the idle channels sensed busy, summed over users.
    ("energy", Metric::Energy as usize),
    ("delay", Metric::Delay as usize),
    ("missed_opportunities", Metric::MissedOpportunities as usize),
];

/// How many of [`METRICS`] files written before the energy/delay split held.
pub(crate) const METRICS_V2: usize = 8;

/// Positions in [`METRICS`] of the pseudo- and realised regret and of the users in collisions.
pub(crate) const PSEUDO: usize = 0;
/// See [`PSEUDO`].
pub(crate) const REALIZED: usize = 1;
/// See [`PSEUDO`].
pub(crate) const COLLISIONS: usize = 4;

fn cell(x: &Option<Stat>) -> String {
    x.as_ref().map_or("—".into(), |s| {
        format!("{} ± {}", sig(s.mean, 4), sig(s.std, 3))
    })
}

/// Per slot, summed over users: the reward and what it cost (energy and delay in the
/// scenario's units), and what sensing missed or hit (files written before the split lack
/// some columns: a dash).
fn per_slot_table(md: &mut String, summary: &MultiUserSummary) {
    let unit = |u: &str| {
        if u.is_empty() {
            String::new()
        } else {
            format!(" ({u})")
        }
    };
    let _ = writeln!(
        md,
        "\nPer slot, summed over users (mean over runs):\n\n| policy | reward | cost | energy{} | delay{} | PU collisions | missed opportunities |\n|---|---:|---:|---:|---:|---:|---:|",
        unit(&summary.units.energy),
        unit(&summary.units.delay)
    );
    let t = summary.horizon.max(1) as f64;
    for p in &summary.policies {
        let per = |name: &str| {
            p.at_horizon
                .get(name)
                .and_then(Option::as_ref)
                .map_or("—".to_string(), |s| sig(s.mean / t, 4))
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} |",
            p.name,
            per("reward"),
            per("cost"),
            per("energy"),
            per("delay"),
            per("pu_collisions"),
            per("missed_opportunities")
        );
    }
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
    if let Some(sr) = &summary.system_reward {
        let _ = writeln!(
            md,
            "System reward: {} per slot; the realised regret and the benchmark are its.\n",
            sr.definition
        );
    }
    if let Some(lb) = &summary.lower_bound {
        let _ = writeln!(
            md,
            "Lower bounds: decentralised {}·ln T = {} at T, centralised {}·ln T ({}).\n",
            sig(lb.decentralized, 4),
            sig(lb.decentralized * math::ln(summary.horizon as f64), 4),
            sig(lb.centralized, 4),
            lb.caveat
        );
    }
    let _ = writeln!(
        md,
        "At the horizon, mean ± standard deviation over runs:\n\n| policy | pseudo-regret | realised regret | collisions (users) | Jain |\n|---|---:|---:|---:|---:|"
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
    per_slot_table(&mut md, summary);
    jammers_table(&mut md, summary);
    if summary.policies.iter().any(|p| p.decomposition.is_some()) {
        // A jammed transmission is lost like a collided one: term (c) holds both.
        let c = if summary.jammers.is_some() {
            "collisions and jams"
        } else {
            "collisions"
        };
        let _ = writeln!(
            md,
            "\nRegret decomposition (Besson & Kaufmann 2018, Lemma 1): (a) sub-optimal selections + (b) optimal channels unused + (c) {c} = regret.\n\n| policy | (a) | (b) | (c) | regret | runs summing exactly |\n|---|---:|---:|---:|---:|---:|"
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
        let negative = |x: &Option<Stat>| x.as_ref().is_some_and(|s| s.mean < 0.0);
        if summary.policies.iter().any(|p| {
            p.decomposition
                .as_ref()
                .is_some_and(|d| negative(&d.optimal_unused) || negative(&d.collisions))
        }) {
            let _ = writeln!(
                md,
                "\n(b) is negative where several users chose one optimal channel in the same slot: its selections then exceed T (Lemma 1 counts user-slots), the surplus reappears in (c), and the three terms still sum to the regret exactly."
            );
        }
    }
    channel_table(&mut md, summary);
    crate::report::format::charts_section(&mut md, charts);
    md
}

/// The jammers, the benchmark they leave and what they did to each policy.
fn jammers_table(md: &mut String, summary: &MultiUserSummary) {
    let Some(j) = &summary.jammers else {
        return;
    };
    let _ = writeln!(md, "\nJammers ({}):\n", j.model);
    for d in &j.jammers {
        let _ = writeln!(md, "- {d}");
    }
    if let (Some(left), Some(v)) = (&j.channels_left, j.reduced_benchmark_per_slot) {
        let _ = writeln!(
            md,
            "\nChannels left to the users: {left:?}; their benchmark's expected reward: {} per slot (against {} without jammers).",
            sig(v, 6),
            sig(summary.benchmark.expected_reward_per_slot, 6)
        );
    }
    let _ = writeln!(
        md,
        "\n| policy | transmissions jammed | channel-slots jammed | regret vs the reduced benchmark |\n|---|---:|---:|---:|"
    );
    for p in &summary.policies {
        if let Some(x) = &p.jammed {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} |",
                p.name,
                cell(&x.transmissions_jammed),
                cell(&x.channel_slots_jammed),
                cell(&x.regret_vs_reduced_benchmark)
            );
        }
    }
}

/// Most channels and policies the report's channel table shows (`channels.csv` has them all).
const TABLE_CHANNELS: usize = 32;
const TABLE_POLICIES: usize = 12;

/// Each channel's idle probability and how often each policy's users chose it (mean
/// user-slots per run), so that a reader sees where the users went without opening
/// `channels.csv`.
fn channel_table(md: &mut String, summary: &MultiUserSummary) {
    if summary.channels > TABLE_CHANNELS || summary.policies.len() > TABLE_POLICIES {
        let _ = writeln!(
            md,
            "\nChannels: {} channels and {} policies, too many for a table here; see `channels.csv`.",
            summary.channels,
            summary.policies.len()
        );
        return;
    }
    let Some(first) = summary.policies.first() else {
        return;
    };
    let _ = writeln!(
        md,
        "\nChannels: idle probability θ and, per policy, the user-slots that chose each channel (mean over runs; collisions in `channels.csv`).\n"
    );
    let mut header = String::from("| channel | θ |");
    let mut rule = String::from("|---:|---:|");
    for p in &summary.policies {
        let _ = write!(header, " {} |", p.name);
        rule.push_str("---:|");
    }
    let _ = writeln!(md, "{header}\n{rule}");
    for (c, ch) in first.channels.iter().enumerate() {
        let _ = write!(md, "| {} | {} |", ch.channel, sig(ch.theta, 4));
        for p in &summary.policies {
            let chosen = p
                .channels
                .get(c)
                .and_then(|x| x.selections.as_ref())
                .map_or("—".to_string(), |s| sig(s.mean, 4));
            let _ = write!(md, " {chosen} |");
        }
        md.push('\n');
    }
    md.push('\n');
}

/// Every output of a many-users scenario, rendered.
pub(crate) fn render(
    s: &MultiUserScenario,
    stats: &MultiStats,
    opts: &ChartOptions,
) -> Result<Vec<Artifact>, ReportError> {
    let summary = summary(s, stats);
    let table = CurveTable::of(s, stats);
    // The checks `plot` makes of saved files, made of what is about to be written: merged
    // shards whose values cannot be true together (forged past their checksum) are refused
    // here by the same rules, before anything is replaced.
    check::check(&summary).map_err(|message| ReportError::Unreadable {
        file: names::SUMMARY,
        message,
    })?;
    check::curves(&summary, &table).map_err(|message| ReportError::Unreadable {
        file: names::CURVES,
        message,
    })?;
    let json = serde_json::to_vec_pretty(&summary).map_err(|error| ReportError::Json {
        file: names::SUMMARY,
        error,
    })?;
    let mut files = vec![
        Artifact::new(names::SUMMARY, json),
        Artifact::new(names::CURVES, table.to_csv()?),
        if stats.streamed {
            Artifact::staged(names::RUNS)
        } else {
            Artifact::new(names::RUNS, tables::runs(s, stats)?)
        },
        Artifact::new(names::USERS, users_csv(&summary)?),
        Artifact::new(names::CHANNELS, channels_csv(&summary)?),
    ];
    files.extend(render_report(&summary, &table, opts)?);
    Ok(files)
}

/// The charts and `report.md` of many-users results, from their summary and curves alone (what
/// `plot` redraws from saved files).
pub(crate) fn render_report(
    summary: &MultiUserSummary,
    table: &CurveTable,
    opts: &ChartOptions,
) -> Result<Vec<Artifact>, ReportError> {
    let rendered = charts::charts(summary, table, opts)?;
    let files =
        crate::report::charts_and_report(rendered, opts, |embedded| markdown(summary, embedded));
    Ok(files)
}

/// Saved many-users results read back and checked: the summary and the curve table, which
/// must name the same policies in the same order and hold every user and channel the summary
/// declares. Errors name the file at fault.
fn parse_saved(
    json: &[u8],
    curves: &[u8],
) -> Result<(MultiUserSummary, CurveTable), (&'static str, String)> {
    let bad = |file: &'static str, message: String| (file, message);
    let summary: MultiUserSummary = parse_json(json)
        .map_err(|e| bad(names::SUMMARY, format!("not a many-users summary: {e}")))?;
    if let Err(why) = summary.kind.expect(ResultKind::MultiUser) {
        return Err(bad(names::SUMMARY, format!("kind: {why}")));
    }
    for (i, p) in summary.policies.iter().enumerate() {
        for (what, n, want) in [
            ("users", p.users.len(), summary.users),
            ("channels", p.channels.len(), summary.channels),
        ] {
            if n != want {
                return Err(bad(
                    names::SUMMARY,
                    format!("policies[{i}].{what}: {n} entries, the summary declares {want}"),
                ));
            }
        }
    }
    check::check(&summary).map_err(|e| bad(names::SUMMARY, e))?;
    let table = CurveTable::from_csv(curves).map_err(|e| bad(names::CURVES, e))?;
    let labels: Vec<&str> = table.policies.iter().map(|(l, _)| l.as_str()).collect();
    let want: Vec<&str> = summary.policies.iter().map(|p| p.name.as_str()).collect();
    if labels != want {
        return Err(bad(
            names::CURVES,
            format!("holds the policies {labels:?}, summary.json {want:?}"),
        ));
    }
    check::curves(&summary, &table).map_err(|e| bad(names::CURVES, e))?;
    Ok((summary, table))
}

/// Reads saved many-users results from `dir` (see [`parse_saved`]).
pub(crate) fn load_multi_user(
    dir: &std::path::Path,
) -> Result<(MultiUserSummary, CurveTable), ReportError> {
    let folder = OutputDir::existing(dir);
    let (json, curves) = (folder.read(names::SUMMARY)?, folder.read(names::CURVES)?);
    parse_saved(&json, &curves).map_err(|(file, message)| ReportError::Saved {
        dir: dir.to_path_buf(),
        file,
        message,
    })
}

/// Reads many-users results back from their rendered files (a scenario `compare` ran).
pub(crate) fn multi_from_files(
    files: &[Artifact],
) -> Result<(MultiUserSummary, CurveTable), ReportError> {
    let file = |name| crate::report::rendered(files, name);
    parse_saved(file(names::SUMMARY)?, file(names::CURVES)?)
        .map_err(|(file, message)| ReportError::Unreadable { file, message })
}

impl SavedResults for (MultiUserSummary, CurveTable) {
    fn scenario(&self) -> &str {
        &self.0.scenario
    }

    fn kind(&self) -> ResultKind {
        ResultKind::MultiUser
    }

    fn render(&self, charts: &ChartOptions) -> Result<Vec<Artifact>, ReportError> {
        render_report(&self.0, &self.1, charts)
    }
}

impl SavedResults for SavedSweep {
    fn scenario(&self) -> &str {
        SavedSweep::scenario(self)
    }

    fn kind(&self) -> ResultKind {
        ResultKind::Sweep(Swept::MultiUser)
    }

    fn render(&self, charts: &ChartOptions) -> Result<Vec<Artifact>, ReportError> {
        SavedSweep::render(self, charts)
    }

    fn subfolders(&self) -> Vec<&str> {
        self.cells
            .iter()
            .map(|(folder, _, _)| folder.as_str())
            .collect()
    }
}

impl crate::report::kind::ReportKind for MultiUserScenario {
    type Stats = Vec<MultiStats>;
    fn render(
        &self,
        stats: &Vec<MultiStats>,
        charts: &ChartOptions,
    ) -> Result<Vec<Artifact>, ReportError> {
        match &self.sweep {
            None => render(self, &stats[0], charts),
            Some(sw) => render_sweep(self, sw, stats, charts),
        }
    }
    fn load(found: ResultKind, dir: &std::path::Path) -> Option<crate::report::kind::Loaded> {
        use crate::report::saved::SavedResults;
        Some(match found {
            ResultKind::MultiUser => {
                load_multi_user(dir).map(|s| Box::new(s) as Box<dyn SavedResults>)
            }
            ResultKind::Sweep(crate::store::names::Swept::MultiUser) => {
                load_multi_user_sweep(dir).map(|s| Box::new(s) as Box<dyn SavedResults>)
            }
            _ => return None,
        })
    }
}
