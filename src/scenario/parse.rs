//! Reading scenario text: RON or JSON into the raw serde structs (syntax and schema errors with
//! `file:line:col` and the field path), then the checks into a checked [`Scenario`].

use crate::scenario::Scenario;
use crate::scenario::Source;
use crate::scenario::checker::{CheckRaw, Checker};
use crate::scenario::error::ScenarioError;
use crate::scenario::raw::RawScenario;
use crate::scenario::syntax::{parse_raw, parse_raw_json, reads_as_json};
use std::path::Path;

/// Reads, parses and checks a scenario file.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    parse(&read(path)?, path)
}

/// Reads a scenario file's text (a regular file of at most
/// [`MAX_SCENARIO_BYTES`](crate::util::input::MAX_SCENARIO_BYTES)).
pub(crate) fn read(path: &Path) -> Result<String, ScenarioError> {
    crate::util::input::read_text(path, crate::util::input::MAX_SCENARIO_BYTES).map_err(|error| {
        ScenarioError::Read {
            path: path.to_path_buf(),
            error,
        }
    })
}

/// Parses and checks scenario text; `path` is used in messages and to resolve relative paths.
/// A path ending in `.json`, or text opening with `{`, is read as JSON with the same schema.
pub fn parse(text: &str, path: &Path) -> Result<Scenario, ScenarioError> {
    let json = reads_as_json(text, path);
    let raw = if json {
        parse_raw_json(text, path)?
    } else {
        parse_raw(text, path)?
    };
    let mut checker = Checker {
        parse,
        src: text,
        json,
        problems: Vec::new(),
        traces: Default::default(),
        faded: Vec::new(),
    };
    let source = Source {
        path: path.to_path_buf(),
        text: text.into(),
    };
    let scenario = check_raw(raw, &source, &mut checker);
    match scenario {
        Some(s) if checker.problems.is_empty() => Ok(s),
        _ => {
            let mut problems = checker.problems;
            problems.sort_by_key(|p| (p.line == 0, p.line, p.col));
            Err(ScenarioError::Invalid {
                path: path.to_path_buf(),
                problems,
            })
        }
    }
}

/// Declares `check_raw`, which checks a file of any kind with the kind's [`CheckRaw`], from the
/// list of the kinds (`experiment_kinds!`, in `lib.rs`).
macro_rules! check_raw {
    ($d:tt $(
        $(#[$doc:meta])* $kind:ident($s:path, $r:path, $b:path $(, raw $raw:path)? $(, writes $file:literal swept $swept:literal)?),
    )*) => {
        /// The scenario a file of any kind holds, or `None` with the problems in `ck`.
        fn check_raw(raw: RawScenario, source: &Source, ck: &mut Checker) -> Option<Scenario> {
            match raw {
                $($( RawScenario::$kind(r) => <$raw as CheckRaw>::check(r, source, ck), )?)*
            }
        }
    };
}

experiment_kinds!($ check_raw);
