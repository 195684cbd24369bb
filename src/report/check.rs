//! Saved results are read back by `plot` and `compare`, and nothing in them is trusted: a file
//! may be truncated, edited by hand or written by something else. These checks establish every
//! property the reports and charts rely on (counts that agree, channel indices in range, rows
//! that belong to a policy and come in slot order, finite numbers), so that a damaged folder
//! gives an error naming the file and the field rather than a panic or a misleading chart.

use crate::report::regret::summary::Stat;
use std::collections::BTreeSet;

/// A failed check: the field and what is wrong with it.
pub(crate) type Failure = String;

pub(crate) fn fail<T>(
    field: impl std::fmt::Display,
    message: impl std::fmt::Display,
) -> Result<T, Failure> {
    Err(format!("{field}: {message}"))
}

pub(crate) fn require(
    ok: bool,
    field: impl std::fmt::Display,
    message: impl FnOnce() -> String,
) -> Result<(), Failure> {
    if ok { Ok(()) } else { fail(field, message()) }
}

pub(crate) fn finite(x: f64, field: impl std::fmt::Display) -> Result<(), Failure> {
    require(x.is_finite(), field, || {
        format!("{x} is not a finite number")
    })
}

pub(crate) fn stat(s: &Stat, runs: u64, field: &str) -> Result<(), Failure> {
    require(s.n <= runs, format!("{field}.n"), || {
        format!("{} runs, more than the {runs} of the summary", s.n)
    })?;
    for (name, x) in [("mean", s.mean), ("std", s.std), ("stderr", s.stderr)] {
        finite(x, format!("{field}.{name}"))?;
    }
    require(s.std >= 0.0 && s.stderr >= 0.0, field, || {
        "has a negative spread".into()
    })?;
    if let Some([lo, hi]) = s.ci95 {
        require(
            lo.is_finite() && hi.is_finite() && lo <= hi,
            format!("{field}.ci95"),
            || format!("[{lo}, {hi}] is not an interval"),
        )?;
    }
    Ok(())
}

pub(crate) fn list(items: &[usize], k: usize, field: &str) -> Result<(), Failure> {
    let mut seen = BTreeSet::new();
    for (j, &i) in items.iter().enumerate() {
        require(i < k, format!("{field}[{j}]"), || {
            format!("channel {i}, but there are {k} channels")
        })?;
        require(seen.insert(i), format!("{field}[{j}]"), || {
            format!("channel {i} is listed twice")
        })?;
    }
    Ok(())
}
