//! What a scenario will need, known before anything runs: memory from its declared sizes and
//! work in slot-steps.
//!
//! A small file can ask for a great deal: a grid of many large configurations, 10¹² runs, a
//! horizon of 10¹⁸ slots. Before simulating, [`Estimate::of`] adds up, with saturating
//! arithmetic and without allocating anything, what the runs will hold: every (experiment,
//! policy)'s curves (exact moments per checkpoint and metric), probe histograms, per-channel
//! counts and per-run final rows; each worker thread's buffers and policy state; the channels
//! themselves. [`Estimate::check`] refuses, with the estimate and the limit in the message, a
//! scenario that would exceed the machine's physical memory or a `--max-memory`. The work is
//! the number of slot-steps (one policy, one slot) or, for identification, of samples expected
//! from each instance's complexity; the duration shown comes from each policy's measured cost
//! per slot at the scenario's K (`scripts/calibrate-costs.py`). Work is never refused, since a
//! run can always be stopped with Ctrl-C.
//!
//! The estimate is an upper bound in spirit, not to the byte: sizes of exact sums and of
//! hdrhistogram buckets are typical values, and a sliding-window policy is assumed to see at
//! most 8 probes per slot.

use crate::engine::pipeline::RunOptions;
use crate::engine::recorder::N_METRICS;
use crate::model::channel::{Channel, Environment};
use crate::scenario::Scenario;
use crate::util::math;

/// Bytes of one exact moment (count + two exact sums of about three partials each).
pub(crate) const MOMENTS: u64 = 8 + 2 * (24 + 3 * 8 + 16);
/// Bytes of one run's final row (run index + one value per metric), with room for the
/// outputs built from it (runs.csv rows, paired differences).
pub(crate) const FINAL_ROW: u64 = 3 * (8 + 8 * N_METRICS as u64);
/// Bytes of per-channel state of a policy, a sample path and the run records.
pub(crate) const PER_CHANNEL: u64 = 64 + 80 + 3 * 8;
/// Bytes per channel of the report written after a run (the summary's description of each
/// channel, serialized and read back to render the tables and charts): measured 1.7 KB over
/// the run's own per channel at 65 536 channels, rounded up so that the estimate bounds the
/// peak (issue 50: 1.7 GiB estimated against 2.27 GB used).
pub(crate) const REPORT_PER_CHANNEL: u64 = 2048;
/// Bytes per channel and policy of the report (each policy's per-channel counts).
pub(crate) const REPORT_PER_POLICY_CHANNEL: u64 = 96;
/// Bytes per epoch entry of a piecewise benchmark ([`Environment::epoch_entries`]: epochs ×
/// (channels + overhead)), held by the set-up and written and read back by the report:
/// measured 89 per entry (peak resident) at 49 001 epochs of 8 channels.
pub(crate) const PER_EPOCH_ENTRY: u64 = 96;
/// Bytes the process needs whatever the scenario (code, fonts, thread stacks).
const BASE: u64 = 16 << 20;
/// Worker accumulators alive per thread (rayon splits the runs adaptively).
pub(crate) const SPLITS_PER_THREAD: u64 = 4;
/// A user's own policy (Rust or Python): unknown, so a cautious middle per slot and channel.
pub(crate) const CUSTOM_NS_PER_SLOT: (f64, f64) = (1000.0, 20.0);
/// A scenario's needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Peak memory in bytes.
    pub memory: u64,
    /// Slot-steps (one policy, one slot, its share of the benchmark pass included), over every
    /// run and policy; `None` for identification.
    pub slot_steps: Option<f64>,
    /// Identification samples over every run, algorithm and setting: a rough expectation
    /// from each instance's complexity (when the algorithms stop is random), capped by the
    /// sample cap; `None` for the other kinds.
    pub samples: Option<f64>,
    /// CPU seconds the work is expected to take on one thread, from each policy's measured
    /// cost per slot at the scenario's K (regret), per user-slot (many users) or per sample
    /// (identification).
    pub cpu_seconds: f64,
    /// Worker threads assumed.
    pub threads: usize,
    /// Seconds of set-up before the runs, on one thread (the many-users exact benchmark of
    /// every epoch; 0 for the other kinds).
    pub setup_seconds: f64,
}

/// What one kind of scenario needs to run, before anything runs: implemented in each kind's
/// folder (`engine/<kind>/budget.rs`) from the sizes here.
pub(crate) trait Needs {
    /// The needs of its runs on `threads` threads, `runs` giving how many of a total the
    /// shard runs.
    fn needs(&self, runs: &dyn Fn(u64) -> u64, threads: u64) -> Need;
}

/// One scenario's needs, as its kind counts them.
pub(crate) struct Need {
    /// Peak memory in bytes, the process's own base left out.
    pub memory: u64,
    /// The work.
    pub work: Work,
    /// CPU seconds of the work on one thread.
    pub cpu_seconds: f64,
    /// Seconds of set-up before the runs, on one thread.
    pub setup_seconds: f64,
}

/// What a scenario's work is counted in.
pub(crate) enum Work {
    /// One policy, one slot (regret and many users).
    SlotSteps(f64),
    /// Identification samples.
    Samples(f64),
}

/// A scenario that would need more memory than allowed.
#[derive(Clone, Debug, thiserror::Error)]
#[error("this run would need about {} of memory, more than the {} {}; reduce the runs or the scenario's size (checkpoints, channels, configurations, arms){}", bytes(*needed), bytes(*limit), if *from_flag { "allowed by --max-memory" } else { "this machine has" }, if *from_flag { "" } else { ", or pass --max-memory if the estimate is too cautious" })]
pub struct BudgetError {
    /// The estimate.
    pub needed: u64,
    /// The limit.
    pub limit: u64,
    /// Whether the limit was given (`--max-memory`) rather than the machine's.
    pub from_flag: bool,
}

/// A scenario expected to take longer than allowed (`--max-time`).
#[derive(Clone, Debug, thiserror::Error)]
#[error("this run is expected to take roughly {} on {threads} thread{}, more than the {} allowed by --max-time (the command line's default: 1 hour); reduce the runs or the horizon, split it into shards (--shard i/n: each shard is estimated alone), or pass --max-time {} (or --max-time none) to run it", duration(*seconds), if *threads == 1 { "" } else { "s" }, duration(*limit), suggested(*seconds))]
pub struct TimeError {
    /// The estimate, in seconds on the threads assumed.
    pub seconds: f64,
    /// The limit, in seconds.
    pub limit: f64,
    /// The worker threads assumed.
    pub threads: usize,
}

/// A `--max-time` that admits `seconds` (rounded up to whole hours or days).
fn suggested(seconds: f64) -> String {
    let hours = (seconds / 3600.0).ceil().max(1.0);
    if hours <= 48.0 {
        format!("{hours}h")
    } else {
        format!("{}d", (hours / 24.0).ceil())
    }
}

/// `"1.5GiB"` as `(1.5, "GiB")`: the leading number and what follows it (`None` when there is
/// no number).
fn number_and_unit(t: &str) -> Option<(f64, &str)> {
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    number.parse().ok().map(|v| (v, unit))
}

/// Parses a duration: seconds, or a number with `s`, `m`, `h` or `d`; `none` for no limit.
pub fn parse_duration(s: &str) -> Result<Option<f64>, String> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let (value, unit) = number_and_unit(t)
        .ok_or_else(|| format!("{s:?} is not a duration (e.g. 90s, 30m, 3h, 2d or none)"))?;
    let scale = match unit.trim() {
        "" | "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        "d" => 86400.0,
        other => {
            return Err(format!(
                "{s:?}: unknown unit {other:?} (s, m, h or d; or none)"
            ));
        }
    };
    let seconds = value * scale;
    if !(seconds.is_finite() && seconds > 0.0) {
        return Err(format!("{s:?} must be a positive duration"));
    }
    Ok(Some(seconds))
}

/// `1.5 GiB`.
pub fn bytes(b: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = b as f64;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < units.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", units[i])
    }
}

/// Parses a memory size: bytes, or a number with `K`, `M`, `G` or `T` (powers of 1024;
/// `KiB`, `MB` and the like read the same).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (value, unit) = number_and_unit(t)
        .ok_or_else(|| format!("{s:?} is not a size such as 8G, 512M or 1000000000"))?;
    let shift = match unit
        .trim()
        .to_ascii_uppercase()
        .trim_end_matches('B')
        .trim_end_matches('I')
    {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(format!("{s:?}: unknown unit {unit:?} (use K, M, G or T)")),
    };
    let bytes = value * (1u64 << shift) as f64;
    if !(bytes.is_finite() && bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(format!("{s:?} is not a usable memory size"));
    }
    Ok(bytes as u64)
}

/// `3.2 hours`, `41 years`.
pub(crate) fn duration(seconds: f64) -> String {
    let (v, unit) = if seconds < 120.0 {
        (seconds, "seconds")
    } else if seconds < 7200.0 {
        (seconds / 60.0, "minutes")
    } else if seconds < 2.0 * 86400.0 {
        (seconds / 3600.0, "hours")
    } else if seconds < 2.0 * 365.25 * 86400.0 {
        (seconds / 86400.0, "days")
    } else {
        (seconds / (365.25 * 86400.0), "years")
    };
    if v < 100.0 {
        format!("{v:.1} {unit}")
    } else if v < 1e4 {
        // 100 to 119 seconds or minutes, or a few thousand years.
        format!("{v:.0} {unit}")
    } else {
        format!("{v:.3e} {unit}")
    }
}

/// `a × b × …`, saturating.
pub(crate) fn product(factors: &[u64]) -> u64 {
    factors.iter().fold(1u64, |acc, &f| acc.saturating_mul(f))
}

/// Bytes of an hdrhistogram of probes per slot up to `k` (3 significant figures).
pub(crate) fn histogram(k: u64) -> u64 {
    let decades = math::log2(k.max(2048) as f64 / 2048.0).ceil() as u64;
    8 * (2048 + 1024 * decades)
}

/// The physical memory of this machine (`MemTotal` on Linux), if known.
pub fn machine_memory() -> Option<u64> {
    kib_field("/proc/meminfo", "MemTotal:")
}

/// This process's peak resident memory so far (`VmHWM` on Linux), if known. The command line
/// logs it at `-v`; the fault tests read it there, since a parent's `wait4` also counts the
/// memory of the process it was spawned from.
pub fn peak_memory() -> Option<u64> {
    kib_field("/proc/self/status", "VmHWM:")
}

/// A `Name:   1234 kB` line of a /proc file, in bytes.
fn kib_field(file: &str, name: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

impl Estimate {
    /// The needs of `scenario` run with `options` (threads, shard).
    pub(crate) fn of(scenario: &Scenario, options: &RunOptions) -> Estimate {
        let threads = options.threads.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
        });
        let runs = |total: u64| options.shard.runs_of(total);
        let Need {
            memory,
            work,
            cpu_seconds,
            setup_seconds: setup,
        } = crate::scenario::each_kind!(scenario, s => s.needs(&runs, threads as u64));
        let (slot_steps, samples) = match work {
            Work::SlotSteps(w) => (Some(w), None),
            Work::Samples(n) => (None, Some(n)),
        };
        Estimate {
            memory: memory.saturating_add(BASE),
            slot_steps,
            samples,
            cpu_seconds,
            threads,
            setup_seconds: setup,
        }
    }

    /// Refuses an estimate above `max` (default: the machine's physical memory; no limit when
    /// that is unknown).
    pub fn check(&self, max: Option<u64>) -> Result<(), BudgetError> {
        let (limit, from_flag) = match max {
            Some(m) => (m, true),
            None => match machine_memory() {
                Some(m) => (m, false),
                None => return Ok(()),
            },
        };
        if self.memory > limit {
            return Err(BudgetError {
                needed: self.memory,
                limit,
                from_flag,
            });
        }
        Ok(())
    }

    /// Refuses work expected to take longer than `max` seconds on the assumed threads (no
    /// limit without one): what `--max-time` asks, checked before anything runs.
    pub fn check_time(&self, max: Option<f64>) -> Result<(), TimeError> {
        match (max, self.seconds()) {
            (Some(limit), Some(seconds)) if seconds > limit => Err(TimeError {
                seconds,
                limit,
                threads: self.threads,
            }),
            _ => Ok(()),
        }
    }

    /// A rough duration, in seconds, on the assumed threads.
    pub fn seconds(&self) -> Option<f64> {
        if self.slot_steps.is_none() && self.samples.is_none() {
            return None;
        }
        Some(self.setup_seconds + self.cpu_seconds / self.threads.max(1) as f64)
    }

    /// One line for `validate` and logs.
    pub fn describe(&self) -> String {
        let work = match (self.slot_steps, self.samples) {
            (Some(w), _) => format!("{w:.3e} slot-steps"),
            (None, Some(n)) => {
                format!("about {n:.3e} samples, expected from each instance's complexity")
            }
            (None, None) => return format!("needs about {} of memory", bytes(self.memory)),
        };
        format!(
            "needs about {} of memory and {work} (roughly {} on {} thread{})",
            bytes(self.memory),
            duration(self.seconds().unwrap_or(0.0)),
            self.threads,
            if self.threads == 1 { "" } else { "s" }
        )
    }
}

/// The channels of an environment: each channel, and once each what copies share (the
/// columns of the traces they replay).
pub(crate) fn channels(env: &Environment) -> u64 {
    let mut shared = std::collections::BTreeMap::new();
    for ch in env.channels() {
        if let Some((id, bytes)) = ch.occupancy().shared_memory() {
            shared.insert(id, bytes);
        }
    }
    product(&[env.len() as u64, std::mem::size_of::<Channel>() as u64])
        .saturating_add(shared.values().fold(0, |a, &b| a.saturating_add(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_durations_read_well() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(3 << 30), "3.0 GiB");
        assert_eq!(duration(90.0), "90.0 seconds");
        assert_eq!(duration(5400.0), "90.0 minutes");
        assert!(duration(1e18).ends_with("years"), "{}", duration(1e18));
        // No exponent for a value of three or four digits.
        assert_eq!(duration(110.0), "110 seconds");
        assert_eq!(product(&[u64::MAX, 2]), u64::MAX);
        assert_eq!(parse_bytes("8G"), Ok(8 << 30));
        assert_eq!(parse_bytes("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_bytes("512 MB"), Ok(512 << 20));
        assert_eq!(parse_bytes("1000"), Ok(1000));
        assert!(parse_bytes("lots").is_err());
        assert!(parse_bytes("0").is_err());
        assert!(parse_bytes("3X").is_err());
    }

    #[test]
    fn the_limit_refuses_with_both_numbers() {
        let e = Estimate {
            memory: 10 << 30,
            slot_steps: None,
            samples: None,
            cpu_seconds: 0.0,
            threads: 1,
            setup_seconds: 0.0,
        };
        let err = e.check(Some(1 << 30)).unwrap_err().to_string();
        assert!(err.contains("10.0 GiB") && err.contains("1.0 GiB"), "{err}");
        assert!(err.contains("--max-memory"), "{err}");
        e.check(Some(20 << 30)).unwrap();
    }

    /// The many-users duration follows each team's own cost at the scenario's K: Thompson
    /// sampling for 1 024 users on 4 096 channels over 10⁶ slots is weeks of CPU (it was
    /// estimated at 2.6 minutes, 150 ns a user-slot whatever the team), refused by an hour's
    /// `--max-time`; a team without per-channel work stays at the loop's own cost; the exact
    /// benchmark's set-up counts per epoch (it was "0.0 seconds" whatever the epochs).
    #[test]
    fn many_users_durations_follow_the_team_and_k() {
        let estimate = |team: &str, users: u64, k: u64, horizon: u64| {
            let text = format!(
                "MultiUser(name: \"m\", horizon: {horizon}, runs: 1, users: {users}, channels: [(theta: 0.5, cost: Constant(0.0), count: {k})], policies: [(policy: {team})])"
            );
            let s = crate::scenario::parse(&text, std::path::Path::new("m.ron")).unwrap();
            Estimate::of(
                &s,
                &RunOptions {
                    threads: Some(1),
                    ..Default::default()
                },
            )
        };
        let ts = estimate("Selfish(policy: ThompsonSampling)", 1024, 4096, 1_000_000);
        assert!(ts.cpu_seconds > 7.0 * 86400.0, "{}", ts.cpu_seconds);
        let err = ts.check_time(Some(3600.0)).unwrap_err().to_string();
        assert!(err.contains("--max-time") && err.contains("days"), "{err}");
        let (small, large) = (
            estimate("McTopM(index: KlUcb)", 4, 16, 10_000),
            estimate("McTopM(index: KlUcb)", 4, 1024, 10_000),
        );
        assert!(large.cpu_seconds > 20.0 * small.cpu_seconds);
        // The exact benchmark of every piecewise epoch is set-up time: 3¹⁰ assignments for
        // each of 300 epochs (1.8 s measured), none with one epoch.
        let piecewise = |epochs: u64| {
            let mut segments: Vec<String> = (1..epochs)
                .map(|e| format!("(until: {}, theta: 0.{})", 100 * e, 1 + e % 8))
                .collect();
            segments.push("(theta: 0.5)".into());
            let channel = format!(
                "(occupancy: Piecewise([{}]), cost: Constant(0.1), count: 10)",
                segments.join(", ")
            );
            let text = format!(
                "MultiUser(name: \"p\", horizon: {}, runs: 1, users: 2, channels: [{channel}], policies: [(policy: Selfish(policy: CcUcb))])",
                100 * epochs
            );
            let s = crate::scenario::parse(&text, std::path::Path::new("p.ron")).unwrap();
            Estimate::of(&s, &RunOptions::default())
        };
        let (many, one) = (piecewise(300), piecewise(1));
        assert!(
            (1.0..10.0).contains(&many.setup_seconds),
            "{}",
            many.setup_seconds
        );
        assert!(many.seconds().unwrap() >= many.setup_seconds);
        assert!(one.setup_seconds < 0.01, "{}", one.setup_seconds);
        let mega = estimate("Mega", 4, 1024, 10_000);
        let loop_only = 4.0 * 10_000.0 * crate::multi::USER_SLOT_NS * 1e-9;
        assert!((mega.cpu_seconds - loop_only).abs() < 1e-12 * loop_only.max(1.0));
    }
}
