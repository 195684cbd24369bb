//! Finds the line and column of a field path (`channels[2].theta`) in JSON scenario text, as
//! [`super::locate`] does in RON.
//!
//! The JSON schema wraps every enum value in an object with one key (`{"Regret": {...}}`,
//! `{"CcUcb": {"alpha": 1.5}}`), which the validator's paths do not name: a step that is not
//! found in such an object continues inside its one value. A path that cannot be followed
//! yields `None`, and the error is still reported without a position.

use super::locate::{FieldPath, Seg, line_col};

/// The 1-based (line, column) where the value at `path` starts.
pub(crate) fn locate_json(src: &str, path: &FieldPath) -> Option<(usize, usize)> {
    let s = src.as_bytes();
    let mut at = ws(s, 0);
    // The top level is the scenario's kind: `{"Regret": {...}}`.
    at = only_value(s, at)?;
    for seg in &path.0 {
        at = step(s, at, seg)?;
    }
    Some(line_col(src, at))
}

/// The value `seg` names inside the value starting at `at`.
fn step(s: &[u8], at: usize, seg: &Seg) -> Option<usize> {
    match (s.get(at)?, seg) {
        (b'{', Seg::Field(name)) => {
            member(s, at, name).or_else(|| step(s, only_value(s, at)?, seg))
        }
        (b'{', Seg::Index(_)) => step(s, only_value(s, at)?, seg),
        (b'[', Seg::Index(k)) => element(s, at, *k),
        _ => None,
    }
}

/// The members of the object at `at`: (key, where its value starts).
fn members(s: &[u8], at: usize) -> Option<Vec<(String, usize)>> {
    let mut out = Vec::new();
    let mut i = ws(s, at + 1);
    if s.get(i) == Some(&b'}') {
        return Some(out);
    }
    loop {
        let (key, after) = string(s, i)?;
        i = ws(s, after);
        if s.get(i) != Some(&b':') {
            return None;
        }
        i = ws(s, i + 1);
        out.push((key, i));
        i = ws(s, skip(s, i)?);
        match s.get(i)? {
            b',' => i = ws(s, i + 1),
            b'}' => return Some(out),
            _ => return None,
        }
    }
}

fn member(s: &[u8], at: usize, name: &str) -> Option<usize> {
    members(s, at)?
        .into_iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
}

/// The value of an object with exactly one member (an enum variant).
fn only_value(s: &[u8], at: usize) -> Option<usize> {
    match members(s, at)?.as_slice() {
        [(_, v)] => Some(*v),
        _ => None,
    }
}

fn element(s: &[u8], at: usize, k: usize) -> Option<usize> {
    let mut i = ws(s, at + 1);
    for n in 0.. {
        if s.get(i) == Some(&b']') {
            return None;
        }
        if n == k {
            return Some(i);
        }
        i = ws(s, skip(s, i)?);
        match s.get(i)? {
            b',' => i = ws(s, i + 1),
            _ => return None,
        }
    }
    None
}

/// A string starting at `at`: its text (escapes kept as written) and the offset after it.
fn string(s: &[u8], at: usize) -> Option<(String, usize)> {
    if s.get(at) != Some(&b'"') {
        return None;
    }
    let mut i = at + 1;
    while *s.get(i)? != b'"' {
        i += if s[i] == b'\\' { 2 } else { 1 };
    }
    Some((String::from_utf8_lossy(&s[at + 1..i]).into_owned(), i + 1))
}

/// The offset just after the value starting at `at`.
fn skip(s: &[u8], at: usize) -> Option<usize> {
    match s.get(at)? {
        b'"' => string(s, at).map(|(_, end)| end),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            loop {
                match s.get(i)? {
                    b'"' => {
                        i = string(s, i)?.1;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let len = s[at..]
                .iter()
                .position(|c| matches!(c, b',' | b'}' | b']') || c.is_ascii_whitespace())
                .unwrap_or(s.len() - at);
            Some(at + len)
        }
    }
}

fn ws(s: &[u8], mut i: usize) -> usize {
    while s.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(p: &[Seg]) -> FieldPath {
        FieldPath(p.to_vec())
    }

    #[test]
    fn paths_are_found_through_variant_wrappers() {
        let src = "{\"Regret\": {\n  \"name\": \"x\",\n  \"channels\": [\n    {\"theta\": 0.8},\n    {\"theta\": 1.5, \"cost\": {\"Bernoulli\": 0.5}}\n  ],\n  \"policies\": [{\"policy\": {\"CcUcb\": {\"alpha\": -1}}}]\n}}";
        let f = |s: &str| Seg::Field(s.into());
        assert_eq!(locate_json(src, &path(&[f("name")])), Some((2, 11)));
        assert_eq!(
            locate_json(src, &path(&[f("channels"), Seg::Index(1), f("theta")])),
            Some((5, 15))
        );
        assert_eq!(
            locate_json(src, &path(&[f("channels"), Seg::Index(1), f("cost")])),
            Some((5, 28))
        );
        let alpha = path(&[f("policies"), Seg::Index(0), f("policy"), f("alpha")]);
        assert_eq!(locate_json(src, &alpha), Some((7, 47)));
        assert_eq!(
            locate_json(src, &path(&[f("channels"), Seg::Index(7)])),
            None
        );
        assert_eq!(locate_json(src, &path(&[f("missing")])), None);
        assert_eq!(
            locate_json("{\"Regret\": {\"a\": \"unterminated", &path(&[f("b")])),
            None
        );
    }
}
