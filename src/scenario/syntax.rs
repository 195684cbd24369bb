//! Scenario text into the raw serde structs: RON (with the extensions scenario files use, bare
//! policy names, positions mapped back to the file) or JSON with the same schema. Syntax and
//! schema errors carry `file:line:col` and the field path.

use crate::scenario::error::{Problem, ScenarioError};
use crate::scenario::locate;
use crate::scenario::raw::RawScenario;
use std::path::Path;

/// Whether scenario text is JSON: it comes from a `.json` file, or it opens with `{` (a RON
/// scenario opens with `Regret(` or `Identification(`, after any comments).
pub(crate) fn reads_as_json(text: &str, path: &Path) -> bool {
    is_json(path) || text.trim_start().starts_with('{')
}

pub(crate) fn parse_raw(text: &str, path: &Path) -> Result<RawScenario, ScenarioError> {
    // A policy written bare (`CcUcb`) is parsed as `CcUcb()`: serde cannot look ahead for the
    // parenthesis, and recovering from the failed attempt would leave serde_path_to_error
    // reporting the wrong field for a later error. Positions are mapped back to the file's.
    let inserted = locate::bare_policies(text);
    let mut parsed = String::with_capacity(text.len() + 2 * inserted.len());
    let mut from = 0;
    for &at in &inserted {
        parsed.push_str(&text[from..at]);
        parsed.push_str("()");
        from = at;
    }
    parsed.push_str(&text[from..]);
    // The (line, column) of each insertion, in one pass over the text (the insertions are in
    // increasing order): measured from the start for each, 20 000 of them on one line took
    // seconds.
    let mut inserted_at: Vec<(usize, usize)> = Vec::with_capacity(inserted.len());
    let (mut line, mut col, mut pos) = (1, 1, 0);
    for &at in &inserted {
        for ch in text[pos..at].chars() {
            if ch == '\n' {
                line += 1;
                col = 1;
            } else {
                col += 1;
            }
        }
        pos = at;
        inserted_at.push((line, col));
    }
    let parse_error = |err: ron::error::SpannedError, field: String| {
        let (line, mut col) = (err.span.start.line, err.span.start.col);
        col -= 2 * inserted_at
            .iter()
            .filter(|&&(l, c)| l == line && c < col)
            .count();
        ScenarioError::Parse {
            path: path.to_path_buf(),
            problem: Problem {
                line,
                col: col.max(1),
                field: whole_if_empty(field),
                rule: super::hint::explain(&err.code.to_string()),
            },
        }
    };
    let mut de =
        ron::Deserializer::from_str_with_options(&parsed, &crate::util::ron_text::ron_options())
            .map_err(|e| parse_error(e, String::new()))?;
    let raw: RawScenario = match serde_path_to_error::deserialize(&mut de) {
        Ok(raw) => raw,
        Err(err) => {
            let field = err.path().to_string();
            let spanned = de.span_error(err.into_inner());
            return Err(parse_error(spanned, field));
        }
    };
    if let Err(err) = de.end() {
        return Err(parse_error(de.span_error(err), String::new()));
    }
    Ok(raw)
}

/// JSON with the schema of the RON files: an enum is an object with one key (`{"Regret": {..}}`,
/// `{"Bernoulli": 0.55}`), a unit variant a string (`"Oracle"`), an optional field a value or
/// `null`.
pub(crate) fn parse_raw_json(text: &str, path: &Path) -> Result<RawScenario, ScenarioError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let problem = |line: usize, col: usize, field: String, rule: String| ScenarioError::Parse {
        path: path.to_path_buf(),
        problem: Problem {
            line,
            col,
            field: whole_if_empty(field),
            rule,
        },
    };
    let raw: RawScenario = serde_path_to_error::deserialize(&mut de).map_err(|err| {
        let mut field = err.path().to_string();
        let inner = err.into_inner();
        let rule = super::hint::explain(&strip_position(&inner.to_string()));
        if rule == "trailing comma" {
            // The path names the element before the comma; the mistake is the list's.
            if let Some(list) = field.strip_suffix(']').and_then(|f| f.rsplit_once('[')) {
                field = list.0.to_string();
            }
            return problem(
                inner.line(),
                inner.column(),
                field,
                "trailing comma: the list ends without one (JSON allows no comma after the last element)".into(),
            );
        }
        problem(inner.line(), inner.column(), field, rule)
    })?;
    de.end().map_err(|e| {
        problem(
            e.line(),
            e.column(),
            String::new(),
            strip_position(&e.to_string()),
        )
    })?;
    Ok(raw)
}

/// A serde path as a problem's field: `(scenario)` for the whole file.
fn whole_if_empty(field: String) -> String {
    if field.is_empty() || field == "." {
        "(scenario)".to_string()
    } else {
        field
    }
}

/// serde_json's message without its trailing ` at line L column C` (the position is reported
/// separately, as for RON).
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

/// Whether `path` names a JSON scenario (`.json`); anything else is read as RON.
pub(crate) fn is_json(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Twenty thousand policies written bare on one line: the insertions are found and placed
    /// in one pass (they took 8 s of CPU, every entry found again from the top), and an error
    /// after them is reported at its column in the file, not in the text with `()` inserted.
    #[test]
    fn many_bare_policies_on_one_line_are_one_pass_and_keep_the_columns() {
        let policies: String = (0..20_000)
            .map(|i| format!("(label: \"p{i}\", policy: CcUcb), "))
            .collect();
        let head = "Regret(name: \"m\", horizon: 10, runs: 1, channels: [(theta: 0.5, cost: Constant(0.1))], policies: [";
        let text = format!("{head}{policies}(policy: CcUcb(alfa: 1.0))])");
        let started = std::time::Instant::now();
        let err = parse_raw(&text, Path::new("m.ron")).unwrap_err();
        assert!(
            started.elapsed().as_secs_f64() < 5.0,
            "{:?}",
            started.elapsed()
        );
        let ScenarioError::Parse { problem, .. } = err else {
            panic!("{err}")
        };
        let want = text.find("alfa").unwrap() + 1;
        assert_eq!((problem.line, problem.col), (1, want), "{}", problem.rule);
    }
}
