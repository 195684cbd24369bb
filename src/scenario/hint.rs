//! Parser messages in the words of scenario files: the nearest valid name for a typo ("did you
//! mean `CcUcb`?"), what a name stands for (a policy, a law) instead of the Rust type that
//! parses it, and "a whole number" instead of `u64`.
//!
//! RON and serde_json word the same mistakes differently; both are recognised here, and any
//! other message is passed through unchanged.

/// The user-facing word for what a Rust enum or struct of the raw scenario parses.
fn what(rust_name: &str) -> &'static str {
    match rust_name {
        "PolicySpec" => "policy",
        "LawSpec" => "law",
        "OccupancySpec" => "occupancy process",
        "HoldingSpec" => "holding-time law",
        "RawScenario" => "scenario kind",
        "TeamSpec" => "many-users policy",
        "AlgorithmSpec" => "identification algorithm",
        "Timing" => "timing",
        "Collision" => "collision model",
        "Feedback" => "feedback level",
        "IndexKind" => "index",
        "Convention" => "convention",
        "Clock" => "time convention",
        "Ties" => "tie rule",
        "Reward" => "reward",
        "KRule" => "K rule",
        _ => "name",
    }
}

/// The valid name nearest to `typo`, if one is near enough to be what was meant: equal but for
/// case, or within about a third of its letters.
pub(crate) fn nearest<'a>(typo: &str, valid: &[&'a str]) -> Option<&'a str> {
    let lower = typo.to_lowercase();
    if let Some(v) = valid.iter().find(|v| v.to_lowercase() == lower) {
        return Some(v);
    }
    valid
        .iter()
        .map(|v| (strsim::damerau_levenshtein(&lower, &v.to_lowercase()), *v))
        .filter(|&(d, _)| d <= (typo.chars().count() / 3).max(1))
        .min_by_key(|&(d, _)| d)
        .map(|(_, v)| v)
}

/// The backquoted names in `list` (`` `a`, `b`, or `c` ``).
fn quoted(list: &str) -> Vec<&str> {
    list.split('`').skip(1).step_by(2).collect()
}

/// `a did you mean` clause, or nothing.
fn suggestion(typo: &str, valid: &[&str]) -> String {
    nearest(typo, valid).map_or(String::new(), |n| format!(": did you mean `{n}`?"))
}

/// The message of a RON or JSON parse error of a scenario, reworded (see the module docs).
pub(crate) fn explain(rule: &str) -> String {
    // RON: Unexpected variant named `X` in enum `E`, expected one of `A`, `B`, or `C` instead
    // JSON: unknown variant `X`, expected one of `A`, `B`, `C`
    if let Some((typo, rust, list)) = between(rule, "Unexpected variant named `", "` in enum `")
        .and_then(|(typo, rest)| {
            let (rust, list) = rest.split_once("`, expected ")?;
            Some((typo, rust, list))
        })
        .or_else(|| {
            let (typo, list) = between(rule, "unknown variant `", "`, expected ")?;
            Some((typo, "", list))
        })
    {
        let valid = quoted(list);
        let what = what(rust);
        let mut out = format!("unknown {what} `{typo}`{}", suggestion(typo, &valid));
        out.push_str(&format!(" (one of {})", join(&valid)));
        if what == "policy" && typo.starts_with(|c: char| c.is_lowercase()) {
            out.push_str(
                "; a policy is written by its name, such as `CcUcb(alpha: 1.5)`: a name such as `cc-ucb` is a label, written `label: \"cc-ucb\"`",
            );
        }
        return out;
    }
    // RON: Unexpected field named `x` in `Regret`, expected one of `a`, `b` instead
    // JSON: unknown field `x`, expected one of `a`, `b`
    if let Some((typo, within, list)) = between(rule, "Unexpected field named `", "` in `")
        .and_then(|(typo, rest)| {
            let (within, list) = rest.split_once("`, expected ")?;
            Some((typo, Some(within), list))
        })
        .or_else(|| {
            let (typo, list) = between(rule, "unknown field `", "`, expected ")?;
            Some((typo, None, list))
        })
    {
        let valid = quoted(list);
        let within = within.map_or(String::new(), |w| format!(" of `{w}`"));
        return format!(
            "unknown field `{typo}`{within}{} (the fields are {})",
            suggestion(typo, &valid),
            join(&valid)
        );
    }
    if rule.starts_with("Invalid digit") && rule.contains("integers") {
        return "expected a whole number such as 100000 (scientific notation like 1e5 is read as a fraction: write the digits)".into();
    }
    if rule == "Expected identifier" {
        return "expected a name such as `CcUcb` or `Bernoulli`, without quotes".into();
    }
    let mut out = rule.to_string();
    for (rust, words) in [
        ("u64", "a whole number"),
        ("usize", "a whole number"),
        ("u32", "a whole number"),
        ("f64", "a number"),
    ] {
        out = out
            .replace(&format!("expected {rust}"), &format!("expected {words}"))
            .replace(&format!("Expected {rust}"), &format!("Expected {words}"));
    }
    out
}

/// The text of `s` between `open` and `close`, and what follows `close`.
fn between<'a>(s: &'a str, open: &str, close: &str) -> Option<(&'a str, &'a str)> {
    let start = s.find(open)? + open.len();
    let (inner, rest) = s[start..].split_once(close)?;
    Some((inner, rest))
}

/// `` `a`, `b`, `c` ``.
fn join(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_policy_gets_the_nearest_name_in_the_files_words() {
        let ron = "Unexpected variant named `CcUCB` in enum `PolicySpec`, expected one of `Oracle`, `CcUcb`, `CcUcbKnownCost`, or `DCcUcb` instead";
        let m = explain(ron);
        assert!(
            m.starts_with("unknown policy `CcUCB`: did you mean `CcUcb`?"),
            "{m}"
        );
        assert!(!m.contains("PolicySpec"), "{m}");
        let json =
            "unknown variant `Bernuolli`, expected one of `Constant`, `Bernoulli`, `Uniform`";
        assert!(explain(json).contains("did you mean `Bernoulli`?"));
        let label = "Unexpected variant named `cc` in enum `PolicySpec`, expected one of `Oracle`, `CcUcb` instead";
        let m = explain(label);
        assert!(m.contains("is a label"), "{m}");
        let far = "unknown variant `Zebra`, expected one of `Oracle`, `CcUcb`";
        assert!(!explain(far).contains("did you mean"), "{}", explain(far));
    }

    #[test]
    fn a_misspelt_field_gets_the_nearest_field() {
        let ron = "Unexpected field named `rusn` in `Regret`, expected one of `name`, `seed`, `horizon`, `runs` instead";
        let m = explain(ron);
        assert!(
            m.starts_with("unknown field `rusn` of `Regret`: did you mean `runs`?"),
            "{m}"
        );
        let json = "unknown field `horizn`, expected one of `name`, `horizon`";
        assert!(explain(json).contains("did you mean `horizon`?"));
    }

    #[test]
    fn numbers_are_described_in_words() {
        assert!(explain("Invalid digit 'e' for base 10 integers").contains("whole number"));
        assert_eq!(
            explain("invalid type: floating point `200000.5`, expected u64"),
            "invalid type: floating point `200000.5`, expected a whole number"
        );
        assert_eq!(explain("something else"), "something else");
    }
}
