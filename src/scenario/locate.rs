//! Finds the line and column of a field path (`grid[2].channels[0].theta`) in RON text.
//!
//! Serde hands validation code values without positions, yet a user fixing a scenario wants
//! `file:line:col`. This is a small scanner over RON's surface syntax (identifiers, groups,
//! strings, comments) that walks the same path the validator reports. It never fails loudly: a
//! path it cannot follow yields `None`, and the error is still reported without a position.

/// One step of a field path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Seg {
    /// A named field of a struct.
    Field(String),
    /// An element of a list.
    Index(usize),
}

/// A field path, printed `a.b[3].c`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct FieldPath(pub Vec<Seg>);

impl FieldPath {
    /// The path extended by a field.
    pub(crate) fn field(&self, name: &str) -> FieldPath {
        let mut p = self.clone();
        p.0.push(Seg::Field(name.to_string()));
        p
    }

    /// The path extended by an index.
    pub(crate) fn index(&self, i: usize) -> FieldPath {
        let mut p = self.clone();
        p.0.push(Seg::Index(i));
        p
    }
}

impl std::fmt::Display for FieldPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut first = true;
        for seg in &self.0 {
            match seg {
                Seg::Field(name) => {
                    if !first {
                        f.write_str(".")?;
                    }
                    f.write_str(name)?;
                }
                Seg::Index(i) => write!(f, "[{i}]")?,
            }
            first = false;
        }
        if first {
            f.write_str("(scenario)")?;
        }
        Ok(())
    }
}

/// The 1-based (line, column) where the value at `path` starts, inside the top-level value
/// (for `Regret( ... )`, `path` starts with one of its fields).
pub(crate) fn locate(src: &str, path: &FieldPath) -> Option<(usize, usize)> {
    value_offset(src, path).map(|offset| line_col(src, offset))
}

/// Byte offsets just after each policy written bare (`policy: CcUcb`, no parentheses) in a
/// regret scenario's `policies` list: where `()` makes it the explicit form. The loader parses
/// the text with those inserted, so that serde never has to recover from the bare form (see
/// `scenario::parse_raw`).
///
/// One pass over the list: finding each entry from the top (as [`locate`] does a path) made
/// 20 000 policies cost 8 s of CPU before `validate` could answer.
pub(crate) fn bare_policies(src: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let Some(list) = value_offset(src, &FieldPath(vec![Seg::Field("policies".into())])) else {
        return out;
    };
    let mut c = Cursor {
        s: src.as_bytes(),
        i: list,
    };
    c.skip_ws();
    if c.peek() != Some(b'[') {
        return out;
    }
    c.i += 1;
    loop {
        c.skip_ws();
        match c.peek() {
            None | Some(b']') => break,
            Some(b',') => {
                c.i += 1;
                continue;
            }
            _ => {}
        }
        let start = c.i;
        let mut entry = Cursor { s: c.s, i: start };
        if entry.enter_field("policy").is_some() && !entry.ident().is_empty() {
            let end = entry.i;
            entry.skip_ws();
            if entry.peek() != Some(b'(') {
                out.push(end);
            }
        }
        c.skip_value();
        if c.i == start {
            break;
        }
    }
    out
}

/// The byte offset where the value at `path` starts.
fn value_offset(src: &str, path: &FieldPath) -> Option<usize> {
    let mut c = Cursor {
        s: src.as_bytes(),
        i: 0,
    };
    c.skip_ws();
    while c.peek() == Some(b'#') {
        c.skip_line();
        c.skip_ws();
    }
    for seg in &path.0 {
        match seg {
            Seg::Field(name) => c.enter_field(name)?,
            Seg::Index(n) => c.enter_index(*n)?,
        }
    }
    Some(c.i)
}

pub(crate) fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let before = &src[..offset.min(src.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn skip_line(&mut self) {
        while let Some(b) = self.peek() {
            self.i += 1;
            if b == b'\n' {
                break;
            }
        }
    }

    /// Whitespace and comments (`//` to end of line, nested `/* */`).
    fn skip_ws(&mut self) {
        loop {
            match (self.peek(), self.s.get(self.i + 1).copied()) {
                (Some(b), _) if b.is_ascii_whitespace() => self.i += 1,
                (Some(b'/'), Some(b'/')) => self.skip_line(),
                (Some(b'/'), Some(b'*')) => {
                    self.i += 2;
                    let mut depth = 1;
                    while depth > 0 && self.i < self.s.len() {
                        if self.s[self.i..].starts_with(b"/*") {
                            depth += 1;
                            self.i += 2;
                        } else if self.s[self.i..].starts_with(b"*/") {
                            depth -= 1;
                            self.i += 2;
                        } else {
                            self.i += 1;
                        }
                    }
                }
                _ => return,
            }
        }
    }

    fn ident(&mut self) -> &str {
        let start = self.i;
        while let Some(b) = self.peek() {
            if b.is_ascii_alphanumeric() || b == b'_' {
                self.i += 1;
            } else {
                break;
            }
        }
        std::str::from_utf8(&self.s[start..self.i]).unwrap_or("")
    }

    /// A quoted string, a raw string (`r#"..."#`) or a char literal.
    fn skip_string(&mut self) {
        if self.peek() == Some(b'r') {
            self.i += 1;
            let mut hashes = 0;
            while self.peek() == Some(b'#') {
                hashes += 1;
                self.i += 1;
            }
            self.i += 1; // opening quote
            while self.i < self.s.len() {
                if self.s[self.i] == b'"'
                    && self.s[self.i + 1..].iter().take(hashes).all(|&b| b == b'#')
                    && self.s.len() >= self.i + 1 + hashes
                {
                    self.i += 1 + hashes;
                    return;
                }
                self.i += 1;
            }
            return;
        }
        let quote = self.s[self.i];
        self.i += 1;
        while let Some(b) = self.peek() {
            self.i += 1;
            if b == b'\\' {
                self.i += 1;
            } else if b == quote {
                return;
            }
        }
    }

    /// Skips one value, including a leading identifier (`Bernoulli(0.5)`, `Some(..)`).
    fn skip_value(&mut self) {
        self.skip_ws();
        match self.peek() {
            Some(b'"') | Some(b'\'') => self.skip_string(),
            Some(b'r') if matches!(self.s.get(self.i + 1), Some(b'"') | Some(b'#')) => {
                self.skip_string()
            }
            Some(b'(') | Some(b'[') | Some(b'{') => self.skip_group(),
            Some(b) if b.is_ascii_alphabetic() || b == b'_' => {
                self.ident();
                self.skip_ws();
                if self.peek() == Some(b'(') {
                    self.skip_group();
                }
            }
            Some(_) => {
                // A number or other scalar: up to a delimiter.
                while let Some(b) = self.peek() {
                    if b == b',' || b == b')' || b == b']' || b == b'}' || b.is_ascii_whitespace() {
                        break;
                    }
                    self.i += 1;
                }
            }
            None => {}
        }
    }

    /// Skips a bracketed group, balanced, respecting strings and comments.
    fn skip_group(&mut self) {
        let mut depth = 0usize;
        while let Some(b) = self.peek() {
            match b {
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    self.i += 1;
                }
                b')' | b']' | b'}' => {
                    depth = depth.saturating_sub(1);
                    self.i += 1;
                    if depth == 0 {
                        return;
                    }
                }
                b'"' | b'\'' => self.skip_string(),
                b'/' => {
                    let before = self.i;
                    self.skip_ws();
                    if self.i == before {
                        self.i += 1;
                    }
                }
                _ => self.i += 1,
            }
        }
    }

    /// From the start of a struct-like value, moves to the start of field `name`'s value.
    fn enter_field(&mut self, name: &str) -> Option<()> {
        self.skip_ws();
        if self.peek().is_some_and(|b| b.is_ascii_alphabetic()) {
            self.ident();
            self.skip_ws();
        }
        if self.peek() != Some(b'(') {
            return None;
        }
        self.i += 1;
        loop {
            self.skip_ws();
            match self.peek()? {
                b')' => return None,
                b',' => {
                    self.i += 1;
                    continue;
                }
                _ => {}
            }
            let start = self.i;
            let key = self.ident().to_string();
            self.skip_ws();
            if !key.is_empty() && self.peek() == Some(b':') {
                self.i += 1;
                self.skip_ws();
                if key == name {
                    return Some(());
                }
            } else {
                self.i = start;
            }
            self.skip_value();
            if self.i == start {
                return None;
            }
        }
    }

    /// From the start of a list, moves to the start of element `n`.
    fn enter_index(&mut self, n: usize) -> Option<()> {
        self.skip_ws();
        if self.peek() != Some(b'[') {
            return None;
        }
        self.i += 1;
        let mut k = 0;
        loop {
            self.skip_ws();
            match self.peek()? {
                b']' => return None,
                b',' => {
                    self.i += 1;
                    continue;
                }
                _ => {}
            }
            if k == n {
                return Some(());
            }
            let start = self.i;
            self.skip_value();
            if self.i == start {
                return None;
            }
            k += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(segs: &[Seg]) -> FieldPath {
        FieldPath(segs.to_vec())
    }

    const SRC: &str = r#"// a comment with (brackets] and "quotes
#![enable(implicit_some)]
Regret(
    name: "x(y)", /* nested /* comment */ ) */
    channels: [
        (theta: 0.8, cost: Bernoulli(0.55)),
        (count: 2,
         theta: 1.2, cost: Uniform(lo: 0.1, hi: 0.3)),
    ],
    policies: [(label: "a", policy: CcUcb(alpha: 1.5))],
)
"#;

    #[test]
    fn finds_nested_fields() {
        use Seg::*;
        let theta = path(&[Field("channels".into()), Index(1), Field("theta".into())]);
        assert_eq!(locate(SRC, &theta), Some((8, 17)));
        let hi = path(&[
            Field("channels".into()),
            Index(1),
            Field("cost".into()),
            Field("hi".into()),
        ]);
        assert_eq!(locate(SRC, &hi), Some((8, 49)));
        let alpha = path(&[
            Field("policies".into()),
            Index(0),
            Field("policy".into()),
            Field("alpha".into()),
        ]);
        assert_eq!(locate(SRC, &alpha), Some((10, 50)));
        assert_eq!(theta.to_string(), "channels[1].theta");
    }

    #[test]
    fn missing_paths_give_none() {
        use Seg::*;
        assert_eq!(locate(SRC, &path(&[Field("grid".into())])), None);
        assert_eq!(
            locate(SRC, &path(&[Field("channels".into()), Index(5)])),
            None
        );
        assert_eq!(locate("", &path(&[Field("a".into())])), None);
    }
}
