//! What `merge` checks before it trusts a shard: the file alone (format, checksum, shard
//! bounds, run count), the shards together (same scenario, version and split, every shard once)
//! and every body against the re-checked scenario. Each failure names the file, shard and field.

use crate::engine::recorder::PartialStats;
use crate::engine::shard::Shard;
use crate::scenario::{IdentificationScenario, RegretScenario, Scenario};
use crate::store::names;
use crate::store::partial::*;
use crate::util::stats::Moments;
use serde::Deserialize;

mod multi;
use std::path::{Path, PathBuf};

/// Why partial results cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// Nothing to merge.
    #[error("merge needs at least one folder holding a partial.json")]
    Empty,
    /// A file could not be read or parsed.
    #[error("{}: {message}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// Partials of different scenarios, settings or shard counts.
    #[error("{} does not belong with {}: {what}", path.display(), first.display())]
    Mismatch {
        /// The odd one.
        path: PathBuf,
        /// The first partial.
        first: PathBuf,
        /// What differs.
        what: String,
    },
    /// A shard is missing or given twice.
    #[error("{0}")]
    Coverage(String),
    /// A field of a partial is damaged or inconsistent.
    #[error("{} (shard {shard}): {field}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Its shard, as it says.
        shard: Shard,
        /// The field, e.g. `body.stats[0][1].finals`.
        field: String,
        /// What is wrong.
        message: String,
    },
}

/// Builds [`MergeError::Invalid`] for one partial.
struct Blame<'a> {
    path: &'a Path,
    shard: Shard,
}

impl Blame<'_> {
    fn at(&self, field: impl Into<String>, message: impl Into<String>) -> MergeError {
        MergeError::Invalid {
            path: self.path.to_path_buf(),
            shard: self.shard,
            field: field.into(),
            message: message.into(),
        }
    }

    /// `Ok` when `ok`, else the error at `field`.
    fn require(
        &self,
        ok: bool,
        field: impl Into<String>,
        message: impl FnOnce() -> String,
    ) -> Result<(), MergeError> {
        if ok {
            Ok(())
        } else {
            Err(self.at(field, message()))
        }
    }
}

/// Reads `partial.json` from `dir` (or `dir` itself when it is the file) and checks what can be
/// checked alone: format, checksum, shard bounds and run count.
pub(crate) fn read(dir: &Path) -> Result<(PathBuf, Partial), MergeError> {
    let path = if dir.is_dir() {
        dir.join(names::PARTIAL)
    } else {
        dir.to_path_buf()
    };
    let unreadable = |message: String| MergeError::Unreadable {
        path: path.clone(),
        message,
    };
    let bytes = crate::util::input::read_bounded(&path, crate::util::input::MAX_RESULT_BYTES)
        .map_err(|e| unreadable(format!("cannot read: {e}")))?;
    #[derive(Deserialize)]
    struct Format {
        format: String,
    }
    match serde_json::from_slice::<Format>(&bytes) {
        Ok(f) if f.format != FORMAT => {
            return Err(unreadable(format!(
                "format {:?}, expected {FORMAT:?} (written by another specprobe version? rerun the shards with this one)",
                f.format
            )));
        }
        _ => {}
    }
    let p: Partial = serde_json::from_slice(&bytes).map_err(|e| {
        unreadable(format!(
            "not a specprobe partial result (damaged or truncated?): {e}"
        ))
    })?;
    let blame = Blame {
        path: &path,
        shard: p.shard,
    };
    blame.require(p.checksum == p.digest(), "checksum", || {
        "does not match the content: the file was changed or damaged after the shard wrote it"
            .into()
    })?;
    // The checksum covers what was parsed; the file must be exactly that, as specprobe writes
    // it, so that nothing read (an added key, say) lies outside the checksum.
    let canonical = serde_json::to_vec(&p).map_err(|e| unreadable(e.to_string()))?;
    blame.require(canonical == bytes, "(file)", || {
        "is not the partial as specprobe writes it (a key added or reordered, or the file reformatted): the file was changed after the shard wrote it".into()
    })?;
    if let Some(key) = super::mac::key() {
        let tag = p.mac.as_deref().unwrap_or("");
        blame.require(super::mac::verify(&key, &p.checksum, tag), "mac", || {
            if p.mac.is_none() {
                format!(
                    "missing: {} is set, so every shard must be signed with it (run the shards with the same key)",
                    super::mac::KEY_VAR
                )
            } else {
                format!(
                    "does not verify under {}: the file was forged, or signed with another key",
                    super::mac::KEY_VAR
                )
            }
        })?;
    }
    blame.require(p.version == env!("CARGO_PKG_VERSION"), "version", || {
        format!(
            "written by specprobe {}, and this is specprobe {}: rerun the shards with this version (results may differ between versions)",
            p.version,
            env!("CARGO_PKG_VERSION")
        )
    })?;
    blame.require(
        p.shard.count >= 1 && p.shard.index < p.shard.count,
        "shard",
        || {
            format!(
                "index {} is not below the count {}",
                p.shard.index, p.shard.count
            )
        },
    )?;
    blame.require(p.shard.count <= p.total_runs, "shard.count", || {
        format!(
            "{} shards for {} runs (at most one shard per run)",
            p.shard.count, p.total_runs
        )
    })?;
    blame.require(p.runs == p.shard.runs_of(p.total_runs), "runs", || {
        format!(
            "says {} runs, but shard {} of {} runs holds {}",
            p.runs,
            p.shard,
            p.total_runs,
            p.shard.runs_of(p.total_runs)
        )
    })?;
    Ok((path, p))
}

/// Checks that the partials belong together and cover every shard exactly once.
pub(crate) fn check_together(parts: &[(PathBuf, Partial)]) -> Result<(), MergeError> {
    let (first_path, first) = parts.first().ok_or(MergeError::Empty)?;
    let count = first.shard.count;
    let mut seen = std::collections::BTreeMap::<u64, &Path>::new();
    for (path, p) in parts {
        let mismatch = |what: String| MergeError::Mismatch {
            path: path.clone(),
            first: first_path.clone(),
            what,
        };
        if p.fingerprint != first.fingerprint || p.scenario != first.scenario {
            return Err(mismatch(format!(
                "scenario {:?} (fingerprint {}) vs {:?} (fingerprint {}): a different scenario, seed, horizon or number of runs",
                p.scenario, p.fingerprint, first.scenario, first.fingerprint
            )));
        }
        if p.source_text != first.source_text
            || p.overrides != first.overrides
            || p.custom != first.custom
            || p.one_channel != first.one_channel
        {
            return Err(mismatch(
                "the same fingerprint but a different stored scenario text, overrides or added policies (edited?)".into(),
            ));
        }
        if p.version != first.version {
            return Err(mismatch(format!(
                "written by specprobe {} and {}: rerun the shards with one version",
                p.version, first.version
            )));
        }
        if p.shard.count != count || p.total_runs != first.total_runs {
            return Err(mismatch(format!(
                "shard {} of {} runs vs shard count {count} of {} runs",
                p.shard, p.total_runs, first.total_runs
            )));
        }
        if let Some(other) = seen.insert(p.shard.index, path) {
            return Err(MergeError::Coverage(format!(
                "shard {} appears twice: {} and {}",
                p.shard,
                other.display(),
                path.display()
            )));
        }
    }
    let missing = count - seen.len() as u64;
    if missing > 0 {
        let listed: Vec<String> = (0..count)
            .filter(|i| !seen.contains_key(i))
            .take(10)
            .map(|i| format!("{i}/{count}"))
            .collect();
        return Err(MergeError::Coverage(format!(
            "missing shard{} {}{} of {} (merge needs every shard exactly once)",
            if missing == 1 { "" } else { "s" },
            listed.join(", "),
            if missing > 10 {
                format!(" and {} more", missing - 10)
            } else {
                String::new()
            },
            first.scenario
        )));
    }
    let runs: u64 = parts.iter().map(|(_, p)| p.runs).sum();
    if runs != first.total_runs {
        return Err(MergeError::Coverage(format!(
            "the shards hold {runs} runs, the scenario {}",
            first.total_runs
        )));
    }
    Ok(())
}

/// The run indices shard `shard` holds, in order.
fn shard_runs(shard: Shard, runs: u64) -> impl Iterator<Item = u64> {
    (0..runs).map(move |i| shard.run(i))
}

/// Checks one (experiment, policy)'s statistics from a shard against the scenario.
fn check_policy_stats(
    blame: &Blame,
    field: &str,
    ps: &PartialStats,
    runs: u64,
    checkpoints: usize,
    k: usize,
    horizon: u64,
) -> Result<(), MergeError> {
    blame.require(ps.runs == runs, format!("{field}.runs"), || {
        format!("says {} runs, the shard holds {runs}", ps.runs)
    })?;
    check_curves(blame, field, ps, runs, checkpoints)?;
    check_probes(blame, field, ps, runs, k, horizon)?;
    check_finals(blame, field, ps, runs, checkpoints)
}

/// One exact moment per (checkpoint, metric), each over the shard's runs.
fn check_curves(
    blame: &Blame,
    field: &str,
    ps: &PartialStats,
    runs: u64,
    checkpoints: usize,
) -> Result<(), MergeError> {
    blame.require(
        ps.curves.len() == checkpoints,
        format!("{field}.curves"),
        || {
            format!(
                "holds {} checkpoints, the scenario {checkpoints} (truncated?)",
                ps.curves.len()
            )
        },
    )?;
    for (c, row) in ps.curves.iter().enumerate() {
        for (m, moments) in row.iter().enumerate() {
            blame.require(
                moments.is_sound() && moments.count() == runs,
                format!("{field}.curves[{c}][{m}]"),
                || {
                    format!(
                        "holds {} values (the shard has {runs} runs) or sums that are not finite",
                        moments.count()
                    )
                },
            )?;
        }
    }
    Ok(())
}

/// A count per channel, and a probe histogram of every slot of every run, none above K.
fn check_probes(
    blame: &Blame,
    field: &str,
    ps: &PartialStats,
    runs: u64,
    k: usize,
    horizon: u64,
) -> Result<(), MergeError> {
    blame.require(
        ps.channel_probes.len() == k,
        format!("{field}.channel_probes"),
        || {
            format!(
                "{} channel counts for {k} channels",
                ps.channel_probes.len()
            )
        },
    )?;
    let mut slots = 0u64;
    for &(value, count) in &ps.probes {
        blame.require(value <= k as u64, format!("{field}.probes"), || {
            format!("{value} probes in a slot, with {k} channels")
        })?;
        slots = slots.saturating_add(count);
    }
    blame.require(
        slots == runs.saturating_mul(horizon),
        format!("{field}.probes"),
        || {
            format!(
                "counts {slots} slots, the shard's runs hold {}",
                runs.saturating_mul(horizon)
            )
        },
    )
}

/// One finite row per run, in the shard's run order, that the last checkpoint and the channel
/// counts summarise exactly.
fn check_finals(
    blame: &Blame,
    field: &str,
    ps: &PartialStats,
    runs: u64,
    checkpoints: usize,
) -> Result<(), MergeError> {
    blame.require(
        ps.finals.len() as u64 == runs,
        format!("{field}.finals"),
        || format!("holds {} runs, the shard {runs}", ps.finals.len()),
    )?;
    for (i, ((run, row), expected)) in ps
        .finals
        .iter()
        .zip(shard_runs(blame.shard, runs))
        .enumerate()
    {
        blame.require(*run == expected, format!("{field}.finals[{i}]"), || {
            format!(
                "is run {run}, but shard {} holds run {expected} there (another shard's data?)",
                blame.shard
            )
        })?;
        blame.require(
            row.iter().all(|x| x.is_finite()),
            format!("{field}.finals[{i}]"),
            || "holds a value that is not finite".into(),
        )?;
    }
    // The last checkpoint is the horizon: its moments summarise exactly the per-run rows.
    if let Some(last) = ps.curves.last() {
        for (m, moments) in last.iter().enumerate() {
            let mut from_rows = Moments::default();
            for (_, row) in &ps.finals {
                from_rows.add(row[m]);
            }
            blame.require(
                moments.totals() == from_rows.totals(),
                format!("{field}.curves[{}][{m}]", checkpoints - 1),
                || "disagrees with the per-run rows at the horizon (edited?)".into(),
            )?;
        }
    }
    let probes: f64 = ps
        .finals
        .iter()
        .map(|(_, r)| r[crate::engine::recorder::Metric::Probes as usize])
        .sum();
    let counted: u64 = ps.channel_probes.iter().sum();
    blame.require(
        probes == counted as f64,
        format!("{field}.channel_probes"),
        || format!("add up to {counted} probes, the per-run rows to {probes}"),
    )?;
    // An interrupted transmission was one on a channel found idle, run by run, and the runs'
    // counts add up to the total.
    use crate::engine::recorder::Metric;
    for (i, (_, r)) in ps.finals.iter().enumerate() {
        let (returns, found) = (r[Metric::PuReturns as usize], r[Metric::IdleFound as usize]);
        blame.require(
            returns >= 0.0 && returns <= found && returns.fract() == 0.0,
            format!("{field}.finals[{i}]"),
            || format!("{returns} interrupted transmissions, with {found} found idle"),
        )?;
    }
    let per_run: f64 = ps
        .finals
        .iter()
        .map(|(_, r)| r[Metric::PuReturns as usize])
        .sum();
    blame.require(
        per_run == ps.pu_returns as f64,
        format!("{field}.pu_returns"),
        || {
            format!(
                "{} interrupted transmissions, the per-run rows {per_run}",
                ps.pu_returns
            )
        },
    )?;
    Ok(())
}

/// Checks a regret body (one scenario or sweep cell) against the scenario.
fn check_regret_body(
    blame: &Blame,
    field: &str,
    s: &RegretScenario,
    body: &PartialBody,
    runs: u64,
) -> Result<(), MergeError> {
    let PartialBody::Regret { checkpoints, stats } = body else {
        return Err(blame.at(field, "is not a regret scenario's statistics"));
    };
    blame.require(
        *checkpoints == s.header.checkpoints.slots(s.header.horizon),
        format!("{field}.checkpoints"),
        || "differ from the scenario's".into(),
    )?;
    blame.require(
        stats.len() == s.experiments.len(),
        format!("{field}.stats"),
        || {
            format!(
                "holds {} experiments, the scenario {}",
                stats.len(),
                s.experiments.len()
            )
        },
    )?;
    for (e, (exp, experiment)) in stats.iter().zip(&s.experiments).enumerate() {
        blame.require(
            exp.len() == s.policies.len(),
            format!("{field}.stats[{e}]"),
            || {
                format!(
                    "holds {} policies, the scenario {}",
                    exp.len(),
                    s.policies.len()
                )
            },
        )?;
        for (p, ps) in exp.iter().enumerate() {
            check_policy_stats(
                blame,
                &format!("{field}.stats[{e}][{p}]"),
                ps,
                runs,
                checkpoints.len(),
                experiment.env.len(),
                s.header.horizon,
            )?;
        }
    }
    Ok(())
}

/// Checks an identification body against the scenario.
fn check_identification_body(
    blame: &Blame,
    s: &IdentificationScenario,
    body: &PartialBody,
    runs: u64,
) -> Result<(), MergeError> {
    let PartialBody::Identification { cells } = body else {
        return Err(blame.at("body", "is not an identification scenario's statistics"));
    };
    let mut expected = Vec::new();
    for (i, inst) in s.instances.iter().enumerate() {
        for p in 0..inst.points.len() {
            for &setting in &s.settings {
                for (a, algorithm) in s.algorithms.iter().enumerate() {
                    if algorithm.runs_in(setting) {
                        expected.push((i, p, setting, a, algorithm.name().to_string()));
                    }
                }
            }
        }
    }
    blame.require(cells.len() == expected.len(), "body.cells", || {
        format!(
            "holds {} cells, the scenario {}",
            cells.len(),
            expected.len()
        )
    })?;
    for (j, (c, want)) in cells.iter().zip(&expected).enumerate() {
        let field = format!("body.cells[{j}]");
        blame.require(
            (c.instance, c.point, c.setting, c.algorithm, c.name.clone()) == *want,
            &field,
            || {
                format!(
                    "is {} (instance {}, point {}), the scenario has {} there",
                    c.name, c.instance, c.point, want.4
                )
            },
        )?;
        blame.require(
            c.runs == runs && c.outcomes.len() as u64 == runs,
            format!("{field}.runs"),
            || {
                format!(
                    "says {} runs with {} outcomes, the shard holds {runs}",
                    c.runs,
                    c.outcomes.len()
                )
            },
        )?;
        for (i, ((run, outcome), expected)) in c
            .outcomes
            .iter()
            .zip(shard_runs(blame.shard, runs))
            .enumerate()
        {
            blame.require(*run == expected, format!("{field}.outcomes[{i}]"), || {
                format!(
                    "is run {run}, but shard {} holds run {expected} there (another shard's data?)",
                    blame.shard
                )
            })?;
            blame.require(
                outcome.samples <= s.sample_cap,
                format!("{field}.outcomes[{i}].samples"),
                || {
                    format!(
                        "{} samples, above the cap of {}",
                        outcome.samples, s.sample_cap
                    )
                },
            )?;
        }
        let errors = c.outcomes.iter().filter(|(_, o)| !o.correct).count() as u64;
        let capped = c.outcomes.iter().filter(|(_, o)| o.capped).count() as u64;
        blame.require(c.errors == errors, format!("{field}.errors"), || {
            format!("says {}, the outcomes {errors}", c.errors)
        })?;
        blame.require(c.capped == capped, format!("{field}.capped"), || {
            format!("says {}, the outcomes {capped}", c.capped)
        })?;
        let mut from_runs = Moments::default();
        for (_, o) in &c.outcomes {
            from_runs.add(o.samples as f64);
        }
        blame.require(
            c.samples.is_sound() && c.samples.totals() == from_runs.totals(),
            format!("{field}.samples"),
            || "disagrees with the per-run outcomes (edited?)".into(),
        )?;
    }
    Ok(())
}

/// A sweep's cell bodies, as many as the scenario has cells.
fn sweep_cells<'a>(
    blame: &Blame,
    body: &'a PartialBody,
    n: usize,
) -> Result<&'a [PartialBody], MergeError> {
    let PartialBody::Sweep { cells } = body else {
        return Err(blame.at("body", "is not a sweep's statistics"));
    };
    blame.require(cells.len() == n, "body.cells", || {
        format!("holds {} sweep cells, the scenario {n}", cells.len())
    })?;
    Ok(cells)
}

/// Checks every partial's body against the scenario they were re-checked into.
pub(crate) fn check_bodies(
    scenario: &Scenario,
    parts: &[(PathBuf, Partial)],
) -> Result<(), MergeError> {
    for (path, p) in parts {
        let blame = Blame {
            path,
            shard: p.shard,
        };
        blame.require(scenario.runs() == p.total_runs, "total_runs", || {
            format!("says {}, the scenario {}", p.total_runs, scenario.runs())
        })?;
        match scenario {
            Scenario::Regret(s) => check_regret_body(&blame, "body", s, &p.body, p.runs)?,
            Scenario::Sweep(s) => {
                let cells = sweep_cells(&blame, &p.body, s.sweep.cells.len())?;
                for (i, (cell, body)) in s.sweep.cells.iter().zip(cells).enumerate() {
                    check_regret_body(&blame, &format!("body.cells[{i}]"), cell, body, p.runs)?;
                }
            }
            Scenario::Identification(s) => check_identification_body(&blame, s, &p.body, p.runs)?,
            Scenario::MultiUser(s) => match &s.sweep {
                None => multi::check_multi_body(&blame, "body", s, &p.body, p.runs)?,
                Some(sw) => {
                    let cells = sweep_cells(&blame, &p.body, sw.cells.len())?;
                    for (i, (cell, body)) in sw.cells.iter().zip(cells).enumerate() {
                        let field = format!("body.cells[{i}]");
                        multi::check_multi_body(&blame, &field, cell, body, p.runs)?;
                    }
                }
            },
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn partial(index: u64, count: u64, fingerprint: &str) -> (PathBuf, Partial) {
        (
            PathBuf::from(format!("shard{index}")),
            Partial {
                format: FORMAT.into(),
                scenario: "s".into(),
                fingerprint: fingerprint.into(),
                source_path: "s.ron".into(),
                source_text: String::new(),
                overrides: Overrides::default(),
                custom: Vec::new(),
                one_channel: Vec::new(),
                shard: Shard { index, count },
                total_runs: 10,
                runs: Shard { index, count }.runs_of(10),
                version: "0".into(),
                body: PartialBody::Identification { cells: Vec::new() },
                checksum: String::new(),
                mac: None,
            },
        )
    }

    #[test]
    fn coverage_and_mismatches_are_reported() {
        let ok = [partial(0, 2, "a"), partial(1, 2, "a")];
        check_together(&ok).unwrap();
        let err = check_together(&[partial(0, 2, "a")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing shard 1/2"), "{err}");
        let err = check_together(&[partial(0, 2, "a"), partial(0, 2, "a")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("appears twice"), "{err}");
        let err = check_together(&[partial(0, 2, "a"), partial(1, 2, "b")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("fingerprint"), "{err}");
        let err = check_together(&[partial(0, 2, "a"), partial(1, 3, "a")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("shard count 2"), "{err}");
    }
}
