//! The collector every scenario check reports to: each broken rule with its position in the
//! file (found from the field path, in RON or JSON text), its field and its rule.

use crate::model::detector::{EnergyDetector, EnergyDetectorSpec};
use crate::scenario::Scenario;
use crate::scenario::error::{Problem, ScenarioError};
use crate::scenario::locate::{FieldPath, locate};
use crate::scenario::locate_json;
use std::collections::BTreeSet;

/// Most distinct Rayleigh-faded detectors whose threshold a scenario may leave to a search
/// (`target_pd` without `threshold`): about 4 ms each, so a `validate` of any scenario stays
/// near a second (20 000 of them took 82 s, issue 50).
pub(crate) const MAX_FADED_SEARCHES: usize = 256;

/// Problems located in the text: finding one walks the file from its top, so a file of
/// 20 000 broken entries cost 90 s of CPU to locate them all (issue 50); those beyond are
/// reported by field alone.
const MAX_LOCATED: usize = 200;

/// Collects problems with their positions.
pub(crate) struct Checker<'a> {
    pub(crate) src: &'a str,
    /// Whether `src` is JSON (else RON): how positions are found.
    pub(crate) json: bool,
    pub(crate) problems: Vec<Problem>,
    /// Trace files read so far.
    pub(crate) traces: crate::model::occupancy::TraceFiles,
    /// Faded detectors whose threshold was searched for, with the result: each search costs
    /// milliseconds, so a detector written again (on another channel or in another sweep
    /// cell) reuses it, and at most [`MAX_FADED_SEARCHES`] distinct ones are searched.
    pub(crate) faded: Vec<(EnergyDetectorSpec, EnergyDetector)>,
    /// The whole loader, for a scenario that refers to another one (an identification
    /// instance whose arms are a regret scenario's channels): handed in by the loader itself,
    /// so that the checks do not import it back.
    pub(crate) parse: Parse,
}

/// An experiment kind's file form checked into its scenario, reporting what is wrong to the
/// checker (each kind's own, beside its checks; `parse` dispatches over the kinds).
pub(crate) trait CheckRaw {
    /// The scenario, or `None` with the problems in `ck`.
    fn check(self, source: &super::Source, ck: &mut Checker) -> Option<Scenario>;
}

/// Parses and checks scenario text read from a path.
pub(crate) type Parse = fn(&str, &std::path::Path) -> Result<Scenario, ScenarioError>;

impl Checker<'_> {
    pub(crate) fn fail(&mut self, path: &FieldPath, rule: impl Into<String>) {
        // The deepest part of the path present in the text: a parameter of a tuple variant such
        // as `Bernoulli(1.5)` has no name to find, so the law itself is pointed at.
        let find = if self.json {
            locate_json::locate_json
        } else {
            locate
        };
        let (line, col) = if self.problems.len() < MAX_LOCATED {
            (0..=path.0.len())
                .rev()
                .find_map(|n| find(self.src, &FieldPath(path.0[..n].to_vec())))
                .unwrap_or((0, 0))
        } else {
            (0, 0)
        };
        self.problems.push(Problem {
            line,
            col,
            field: path.to_string(),
            rule: rule.into(),
        });
    }

    /// Checks `ok`, reporting `rule` at `path` when it fails; returns `ok`.
    pub(crate) fn require(&mut self, ok: bool, path: &FieldPath, rule: impl Into<String>) -> bool {
        if !ok {
            self.fail(path, rule);
        }
        ok
    }

    /// The scenario name names the output folder: it must be a safe file name.
    pub(crate) fn name(&mut self, name: &str, path: &FieldPath) {
        self.require(
            is_safe_name(name),
            path,
            format!(
                "must be 1 to {MAX_NAME} characters, only letters, digits, '.', '_' and '-', not starting with '.' (it names the output folder; got {name:?})"
            ),
        );
    }

    /// A label (of a `what`: policy, configuration, instance) must be non-empty, free of
    /// control characters (a NUL or a line break in a CSV cell or a chart is a damaged file
    /// to every reader, `specprobe plot` included) and unique among those already `seen`.
    pub(crate) fn label(
        &mut self,
        seen: &mut BTreeSet<String>,
        label: &str,
        path: &FieldPath,
        what: &str,
    ) {
        if self.require(!label.trim().is_empty(), path, "must not be empty")
            && self.require(
                label_is_printable(label),
                path,
                format!(
                    "must not hold control characters (a NUL, a tab, a line break; got {label:?})"
                ),
            )
            && !seen.insert(label.to_string())
        {
            self.fail(
                path,
                format!("duplicate {what} label {label:?}: labels must be unique"),
            );
        }
    }
}

/// Whether `label` holds no control character (see [`Checker::label`]).
pub(crate) fn label_is_printable(label: &str) -> bool {
    !label.chars().any(char::is_control)
}

/// Longest scenario name: it names the output folder, beside which the lock and staging
/// folders add a few characters, all within a file name's 255 bytes.
pub(crate) const MAX_NAME: usize = 100;

pub(crate) fn is_safe_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_NAME
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && !s.starts_with('.')
}
