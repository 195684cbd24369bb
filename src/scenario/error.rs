//! Error types. Every message names the file, the position, the field and the rule, so that a
//! user can fix a scenario without reading the source.

use std::fmt;
use std::path::PathBuf;

/// One thing wrong with a scenario: where, which field, which rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line of the offending value (0 when it could not be located).
    pub line: usize,
    /// 1-based column of the offending value (0 when it could not be located).
    pub col: usize,
    /// Path of the field, e.g. `channels[2].theta`.
    pub field: String,
    /// The rule it breaks, e.g. `must lie in [0, 1] (got 1.2)`.
    pub rule: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.rule)
    }
}

impl Problem {
    /// `file:line:col: field: rule` (the position left out when unknown).
    pub fn at(&self, path: &std::path::Path) -> String {
        if self.line > 0 {
            format!("{}:{}:{}: {self}", path.display(), self.line, self.col)
        } else {
            format!("{}: {self}", path.display())
        }
    }
}

/// Why a scenario could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("cannot read scenario file {path}: {error}", path = path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why (it must be a regular UTF-8 file of at most 16 MiB).
        error: crate::util::input::ReadError,
    },
    /// The file is not valid RON for the schema (syntax, unknown or missing field, wrong type).
    #[error("{}", problem.at(path))]
    Parse {
        /// The file.
        path: PathBuf,
        /// What and where.
        problem: Problem,
    },
    /// The file parsed but breaks one or more rules.
    #[error("{}", invalid_message(path, problems))]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Every rule broken, in file order.
        problems: Vec<Problem>,
    },
}

fn invalid_message(path: &std::path::Path, problems: &[Problem]) -> String {
    let mut out = format!(
        "scenario {} is invalid ({} problem{}):",
        path.display(),
        problems.len(),
        if problems.len() == 1 { "" } else { "s" }
    );
    // A message a reader can take in: the rest are one fix away from showing up.
    for p in problems.iter().take(MAX_SHOWN) {
        out.push_str("\n  ");
        out.push_str(&p.at(path));
    }
    if problems.len() > MAX_SHOWN {
        out.push_str(&format!(
            "\n  … and {} more problems",
            problems.len() - MAX_SHOWN
        ));
    }
    out
}

/// Problems an invalid-scenario message lists; the count says how many there were.
const MAX_SHOWN: usize = 100;

impl ScenarioError {
    /// All problems reported (one for a parse error).
    pub fn problems(&self) -> Vec<&Problem> {
        match self {
            ScenarioError::Read { .. } => Vec::new(),
            ScenarioError::Parse { problem, .. } => vec![problem],
            ScenarioError::Invalid { problems, .. } => problems.iter().collect(),
        }
    }
}
