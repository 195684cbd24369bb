//! A measured occupancy trace replayed: `Trace(file: "traces/example.csv", column: 2)`, one row
//! per slot, 1 = idle, 0 = busy, one column per channel (comma-, semicolon-, tab- or
//! space-separated; `#` starts a comment line; a leading UTF-8 byte-order mark is skipped; a first
//! row without a single number is a header, which `validate` reports; any other row is data, so
//! a typo in row 1 is an error at that row, never a silently dropped slot).
//! The state holds for the whole slot. A horizon longer than the trace is an error unless
//! `wrap: true`, which replays it from the start. The trace is read and checked when the
//! scenario is loaded (the simulator never reads files); errors name the file, line and column.

use super::{Process, ProcessSpec, ProcessStats, SpecContext, SpecProblem, Step};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `Trace(file: "traces/example.csv", column: 2, wrap: false)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TraceSpec {
    /// The file, relative to the scenario file.
    pub(crate) file: String,
    /// Its column (1-based).
    pub(crate) column: usize,
    /// Replay from the start when the horizon is longer than the trace.
    #[serde(default)]
    pub(crate) wrap: bool,
}

/// Trace files read while checking one scenario, by path, each read once however many channels
/// use it (a file that could not be read keeps its error).
pub(crate) type TraceFiles = BTreeMap<PathBuf, Result<Arc<TraceFile>, String>>;

impl ProcessSpec for TraceSpec {
    type Process = Trace;

    fn check(&self, cx: &mut SpecContext<'_>) -> Result<Trace, Vec<SpecProblem>> {
        let path = cx.base.join(&self.file);
        // What the files read so far took, so that many distinct files cannot add up to more
        // than one scenario's share before anything is estimated.
        let used: u64 = cx
            .traces
            .values()
            .filter_map(|t| t.as_ref().ok())
            .map(|t| t.text_bytes)
            .sum();
        let parsed = cx
            .traces
            .entry(path.clone())
            .or_insert_with(|| {
                TraceFile::read_within(&path, MAX_TRACES_TOTAL_BYTES.saturating_sub(used))
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            })
            .clone();
        let fail = |field, rule: String| Err(vec![SpecProblem::at(&[Step::Field(field)], rule)]);
        let trace = match parsed {
            Ok(t) => t,
            Err(message) => return fail("file", message),
        };
        let Some(column) = trace.column(&self.file, self.column, self.wrap) else {
            return fail(
                "column",
                format!(
                    "{} has {} column{} (columns count from 1; got {})",
                    path.display(),
                    trace.width(),
                    if trace.width() == 1 { "" } else { "s" },
                    self.column
                ),
            );
        };
        if !self.wrap && cx.horizon > trace.rows() {
            return fail(
                "file",
                format!(
                    "{} holds {} slots, fewer than the horizon of {}: shorten the horizon or set `wrap: true`",
                    path.display(),
                    trace.rows(),
                    cx.horizon
                ),
            );
        }
        Ok(column)
    }
}

/// A checked trace column.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Trace {
    file: String,
    column: usize,
    wrap: bool,
    /// One bit per slot, slot 1 first (shared by every channel replaying this column).
    bits: Arc<Vec<u64>>,
    len: u64,
    /// The header row skipped, if any: its line and a short prefix.
    header: Option<(usize, String)>,
    /// The last statistics computed, shared by every copy of this channel (a `count` of
    /// 100 000 copies must not scan the trace 100 000 times).
    stats: StatsMemo,
}

/// The statistics of a trace over one horizon, computed once for all copies of a channel.
#[derive(Clone, Debug, Default)]
struct StatsMemo(Arc<std::sync::Mutex<Option<(u64, ProcessStats)>>>);

impl PartialEq for StatsMemo {
    /// A cache: never part of what a trace is.
    fn eq(&self, _: &StatsMemo) -> bool {
        true
    }
}

/// A trace file that cannot be used, with where.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub(crate) enum TraceError {
    /// The file cannot be read.
    #[error("cannot read trace {}: {message}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A value or row is wrong.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Value {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column (field).
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The file holds no rows.
    #[error("trace {} holds no data rows", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
}

/// Longest trace accepted, in bytes (a referenced file must not exhaust memory): the 16 MiB
/// of every file a scenario refers to. A column holds one bit per row, so the parsed trace is
/// at most an eighth of the text.
pub(crate) const MAX_TRACE_BYTES: u64 = crate::util::input::MAX_SCENARIO_BYTES;

/// Most bytes of trace text one scenario may refer to, over all its distinct files: each
/// file is read whole before the run's memory is estimated, so the files together are bounded
/// too (the parsed bits are counted in the estimate).
pub(crate) const MAX_TRACES_TOTAL_BYTES: u64 = 256 << 20;

/// Most columns a trace may have (each costs a small allocation: a one-row file of millions
/// of columns must not cost hundreds of times its size).
pub(crate) const MAX_TRACE_COLUMNS: usize = 1 << 16;

/// Characters of a file's text an error quotes: enough to spot a typo, too few to print a
/// line of a file that is not a trace.
const QUOTED: usize = 12;

/// `text`'s first [`QUOTED`] characters, quoted, with `…` when cut.
fn quote(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(QUOTED).collect();
    if chars.next().is_some() {
        format!("{head:?}…")
    } else {
        format!("{head:?}")
    }
}

/// The columns of one trace file, parsed once however many channels use it; each column is
/// shared by every channel that replays it.
#[derive(Clone, Debug)]
pub(crate) struct TraceFile {
    /// Bytes of the file's text.
    text_bytes: u64,
    columns: Vec<Arc<Vec<u64>>>,
    rows: u64,
    header: Option<(usize, String)>,
}

fn fields(line: &str) -> impl Iterator<Item = &str> {
    line.split([',', ';', '\t', ' ']).filter(|f| !f.is_empty())
}

impl TraceFile {
    /// Reads and checks `path`.
    #[cfg(test)]
    pub(crate) fn read(path: &Path) -> Result<TraceFile, TraceError> {
        TraceFile::read_within(path, MAX_TRACE_BYTES)
    }

    /// Reads and checks `path` when only `budget` bytes of the scenario's trace text are left
    /// (see [`MAX_TRACES_TOTAL_BYTES`]).
    pub(crate) fn read_within(path: &Path, budget: u64) -> Result<TraceFile, TraceError> {
        let unreadable = |message: String| TraceError::Read {
            path: path.to_path_buf(),
            message,
        };
        let limit = MAX_TRACE_BYTES.min(budget);
        let text = crate::util::input::read_text(path, limit).map_err(|e| match e {
            crate::util::input::ReadError::TooLarge { len, .. } if limit < MAX_TRACE_BYTES => {
                unreadable(format!(
                    "is {len} bytes, and the scenario's other trace files already take {} of the {MAX_TRACES_TOTAL_BYTES} bytes of trace text one scenario may refer to",
                    MAX_TRACES_TOTAL_BYTES - budget.min(MAX_TRACES_TOTAL_BYTES)
                ))
            }
            e => unreadable(e.to_string()),
        })?;
        TraceFile::parse(&text, path)
    }

    /// Parses trace text (`path` names it in errors).
    pub(crate) fn parse(text: &str, path: &Path) -> Result<TraceFile, TraceError> {
        let bad = |line: usize, column: usize, message: String| TraceError::Value {
            path: path.to_path_buf(),
            line,
            column,
            message,
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut columns: Vec<Vec<u64>> = Vec::new();
        let mut width = None;
        let mut rows = 0u64;
        let mut header = None;
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let values: Vec<&str> = fields(trimmed).collect();
            if values.len() > MAX_TRACE_COLUMNS {
                return Err(bad(
                    line_no,
                    MAX_TRACE_COLUMNS + 1,
                    format!(
                        "row has {} values; a trace has at most {MAX_TRACE_COLUMNS} columns",
                        values.len()
                    ),
                ));
            }
            if width.is_none() && values.iter().all(|v| v.parse::<f64>().is_err()) {
                // A header row names the columns: no field is a number.
                width = Some(values.len());
                header = Some((line_no, quote(trimmed)));
                continue;
            }
            let w = *width.get_or_insert(values.len());
            if values.len() != w {
                return Err(bad(
                    line_no,
                    values.len().min(w) + 1,
                    format!("row has {} values, the first row {w}", values.len()),
                ));
            }
            if columns.is_empty() {
                columns = vec![Vec::new(); w];
            }
            for (c, v) in values.iter().enumerate() {
                let bit = match *v {
                    "1" => true,
                    "0" => false,
                    other => {
                        return Err(bad(
                            line_no,
                            c + 1,
                            format!("{} is not 0 (busy) or 1 (idle)", quote(other)),
                        ));
                    }
                };
                let word = (rows / 64) as usize;
                if columns[c].len() <= word {
                    columns[c].push(0);
                }
                if bit {
                    columns[c][word] |= 1 << (rows % 64);
                }
            }
            rows += 1;
        }
        if rows == 0 {
            return Err(TraceError::Empty {
                path: path.to_path_buf(),
            });
        }
        Ok(TraceFile {
            text_bytes: text.len() as u64,
            columns: columns.into_iter().map(Arc::new).collect(),
            rows,
            header,
        })
    }

    /// Number of columns.
    pub(crate) fn width(&self) -> usize {
        self.columns.len()
    }

    /// Number of rows (slots).
    pub(crate) fn rows(&self) -> u64 {
        self.rows
    }

    /// Column `column` (1-based) as a trace.
    pub(crate) fn column(&self, file: &str, column: usize, wrap: bool) -> Option<Trace> {
        let bits = self.columns.get(column.checked_sub(1)?)?;
        Some(Trace {
            file: file.to_string(),
            column,
            wrap,
            bits: Arc::clone(bits),
            len: self.rows,
            header: self.header.clone(),
            stats: StatsMemo::default(),
        })
    }
}

impl Trace {
    /// A hash of the column's contents (so that shards notice a changed trace).
    fn hash_bits(&self) -> u64 {
        self.bits
            .iter()
            .fold(crate::util::rng::splitmix64(self.len), |h, w| {
                crate::util::rng::splitmix64(h ^ w)
            })
    }

    fn bit(&self, slot: u64) -> bool {
        let i = (slot - 1) % self.len;
        self.bits[(i / 64) as usize] >> (i % 64) & 1 == 1
    }

    /// Runs of idle and busy slots over `horizon` (at most 64 replays of the trace).
    fn scan(&self, horizon: u64) -> ProcessStats {
        let h = horizon.max(1);
        let mut idle_runs = (0u64, 0u64);
        let mut busy_runs = (0u64, 0u64);
        let mut run = 1u64;
        for t in 2..=h.min(self.len.saturating_mul(if self.wrap { 64 } else { 1 })) + 1 {
            if t <= h && self.bit(t) == self.bit(t - 1) {
                run += 1;
                continue;
            }
            let r = if self.bit(t - 1) {
                &mut idle_runs
            } else {
                &mut busy_runs
            };
            r.0 += run;
            r.1 += 1;
            run = 1;
            if t > h {
                break;
            }
        }
        let mean = |(total, count): (u64, u64)| (count > 0).then(|| total as f64 / count as f64);
        ProcessStats {
            theta: self.idle_slots(h) as f64 / h as f64,
            mean_idle: mean(idle_runs),
            mean_busy: mean(busy_runs),
            autocorrelation: None,
        }
    }

    /// Idle slots among the first `horizon` (replayed as the simulation would).
    pub(crate) fn idle_slots(&self, horizon: u64) -> u64 {
        let count = |n: u64| -> u64 {
            let full = (n / 64) as usize;
            let mut c: u64 = self.bits[..full]
                .iter()
                .map(|w| u64::from(w.count_ones()))
                .sum();
            if !n.is_multiple_of(64) {
                c += u64::from((self.bits[full] & ((1u64 << (n % 64)) - 1)).count_ones());
            }
            c
        };
        let whole = horizon / self.len;
        whole * count(self.len) + count(horizon % self.len)
    }
}

impl Process for Trace {
    type State = ();

    fn start(&self, _key: u64) {}

    #[inline]
    fn idle(&self, _state: &mut (), slot: u64, _offset: f64) -> bool {
        self.bit(slot)
    }

    /// The benchmark's θ: the fraction of idle slots of the trace as replayed over the horizon
    /// (set by [`Trace::stats`]); per slot this is the same long-run value.
    fn theta_at(&self, _slot: u64) -> f64 {
        self.idle_slots(self.len) as f64 / self.len as f64
    }

    fn stats(&self, horizon: u64) -> ProcessStats {
        let mut memo = self.stats.0.lock().unwrap_or_else(|e| e.into_inner());
        match *memo {
            Some((h, stats)) if h == horizon => stats,
            _ => {
                let stats = self.scan(horizon);
                *memo = Some((horizon, stats));
                stats
            }
        }
    }

    fn describe(&self) -> String {
        format!(
            "Trace(file: {:?}, column: {}{})",
            self.file,
            self.column,
            if self.wrap { ", wrap: true" } else { "" }
        )
    }

    fn slots(&self) -> Option<u64> {
        (!self.wrap).then_some(self.len)
    }

    fn content_hash(&self) -> Option<u64> {
        Some(self.hash_bits())
    }

    fn shared_memory(&self) -> Option<(usize, u64)> {
        let bytes = std::mem::size_of_val(self.bits.as_slice()) + std::mem::size_of::<Vec<u64>>();
        Some((Arc::as_ptr(&self.bits) as usize, bytes as u64))
    }

    fn notes(&self) -> Vec<String> {
        self.header
            .iter()
            .map(|(line, text)| format!("line {line} read as a header (no number in it): {text}"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_is_exact_and_counts_idle_slots() {
        let text = "# hand-made\nch1,ch2\n1,0\n1,1\n0,1\n1,0\n";
        let f = TraceFile::parse(text, Path::new("t.csv")).unwrap();
        assert_eq!((f.width(), f.rows()), (2, 4));
        let t = f.column("t.csv", 1, true).unwrap();
        let mut s = ();
        let states: Vec<bool> = (1..=8).map(|slot| t.idle(&mut s, slot, 0.5)).collect();
        assert_eq!(states, [true, true, false, true, true, true, false, true]);
        assert_eq!(t.idle_slots(4), 3);
        assert_eq!(t.idle_slots(10), 3 + 3 + 2);
        assert_eq!(f.column("t.csv", 2, false).unwrap().idle_slots(4), 2);
        assert!(f.column("t.csv", 3, false).is_none());
        assert!(f.column("t.csv", 0, false).is_none());
    }

    #[test]
    fn bad_values_and_short_rows_name_line_and_column() {
        let err = TraceFile::parse("1 0\n1 2\n", Path::new("x.txt")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "x.txt:2:2: \"2\" is not 0 (busy) or 1 (idle)"
        );
        let err = TraceFile::parse("1,0\n1\n", Path::new("x.csv")).unwrap_err();
        assert!(
            err.to_string().starts_with("x.csv:2:2: row has 1 values"),
            "{err}"
        );
        let err = TraceFile::parse("# nothing\n", Path::new("e.csv")).unwrap_err();
        assert!(matches!(err, TraceError::Empty { .. }));
        let err = TraceFile::read(Path::new("/nonexistent/trace.csv")).unwrap_err();
        assert!(err.to_string().contains("cannot read trace"), "{err}");
    }

    /// Excel's byte-order mark is skipped; a header is a row without a number (reported); a
    /// typo in row 1 is an error there, not a header that drops the first slot.

    #[test]
    fn the_files_of_one_scenario_share_one_budget_of_text() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("t.csv");
        std::fs::write(&f, "1,0\n0,1\n1,1\n").unwrap();
        assert_eq!(TraceFile::read_within(&f, 12).unwrap().text_bytes, 12);
        let err = TraceFile::read_within(&f, 11).unwrap_err().to_string();
        assert!(
            err.contains("is 12 bytes") && err.contains("of trace text one scenario may refer to"),
            "{err}"
        );
    }

    #[test]
    fn copies_of_a_channel_scan_the_trace_once() {
        let f = TraceFile::parse("1\n0\n0\n1\n", Path::new("t.csv")).unwrap();
        let a = f.column("t.csv", 1, true).unwrap();
        let b = a.clone();
        let s = a.stats(10);
        assert_eq!(b.stats.0.lock().unwrap().unwrap(), (10, s));
        assert_eq!(b.stats(10), a.scan(10));
        assert_eq!(b.stats(7), a.scan(7));
        // Another channel of the same column keeps its own statistics (it may not wrap).
        let c = f.column("t.csv", 1, false).unwrap();
        assert!(c.stats.0.lock().unwrap().is_none());
    }

    #[test]
    fn a_column_is_counted_once_in_memory_however_many_channels_replay_it() {
        let f = TraceFile::parse(&"1\n".repeat(640), Path::new("t.csv")).unwrap();
        let a = f.column("t.csv", 1, false).unwrap();
        let b = a.clone();
        let (ida, bytes) = a.shared_memory().unwrap();
        assert_eq!(b.shared_memory().unwrap(), (ida, bytes));
        assert!(bytes >= 80, "{bytes}");
    }
    #[test]
    fn a_bom_is_skipped_and_only_a_row_without_numbers_is_a_header() {
        let f = TraceFile::parse("\u{feff}1,0\n0,1\n", Path::new("b.csv")).unwrap();
        assert_eq!(f.rows(), 2);
        assert!(f.header.is_none());
        let f = TraceFile::parse("\u{feff}ch1,ch2\n0,1\n", Path::new("h.csv")).unwrap();
        assert_eq!(f.rows(), 1);
        let t = f.column("h.csv", 1, true).unwrap();
        assert_eq!(t.notes(), ["line 1 read as a header (no number in it): \"ch1,ch2\""]);
        let err = TraceFile::parse("1,O\n0,1\n", Path::new("typo.csv")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "typo.csv:1:2: \"O\" is not 0 (busy) or 1 (idle)"
        );
    }

    /// A file that is not a trace is quoted a few characters at most; columns are bounded and
    /// shared between the channels that replay them.
    #[test]
    fn errors_quote_little_and_columns_are_bounded_and_shared() {
        let secret = "root:$6$saltsaltsalt$hashhashhashhash:19000:0:99999:7:::";
        let err = TraceFile::parse(&format!("name\n{secret}\n"), Path::new("/etc/x"))
            .unwrap_err()
            .to_string();
        assert!(!err.contains("hashhash") && err.contains("…"), "{err}");
        let wide = vec!["1"; MAX_TRACE_COLUMNS + 1].join(",");
        let err = TraceFile::parse(&wide, Path::new("w.csv")).unwrap_err();
        assert!(err.to_string().contains("at most 65536 columns"), "{err}");
        let f = TraceFile::parse("1,0\n0,1\n", Path::new("s.csv")).unwrap();
        let (a, b) = (f.column("s.csv", 1, true).unwrap(), f.column("s.csv", 1, false).unwrap());
        assert!(Arc::ptr_eq(&a.bits, &b.bits));
    }
}
