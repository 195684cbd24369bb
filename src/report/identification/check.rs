//! Checks of a saved identification summary: see [`crate::report::check`].

use crate::report::check::{Failure, fail, require};
use crate::report::identification::summary::IdentificationSummary;
use crate::store::names::ResultKind;

/// An identification summary: sizes, counts and sample statistics that make sense.
pub(crate) fn identification(s: &IdentificationSummary) -> Result<(), Failure> {
    s.kind
        .expect(ResultKind::Identification)
        .or_else(|why| fail("kind", why))?;
    require(s.runs >= 1, "runs", || "must be at least 1".into())?;
    require(!s.results.is_empty(), "results", || "is empty".into())?;
    for (i, c) in s.results.iter().enumerate() {
        let field = format!("results[{i}]");
        require(c.n >= 2 && c.k >= 1 && c.k < c.n, &field, || {
            format!("K = {} of N = {} arms is not a top-K problem", c.k, c.n)
        })?;
        require(
            c.runs <= s.runs && c.errors <= c.runs && c.capped <= c.runs,
            &field,
            || {
                format!(
                    "{} runs with {} errors and {} capped, the scenario {} runs",
                    c.runs, c.errors, c.capped, s.runs
                )
            },
        )?;
        // Written by every version that reports it; an older summary without it has none.
        if !c.top_set.is_empty() {
            require(
                c.top_set.len() == c.k
                    && c.top_set.windows(2).all(|w| w[0] < w[1])
                    && c.top_set.last().is_some_and(|&a| a < c.n),
                format!("{field}.top_set"),
                || format!("is not {} distinct ascending arms of {}", c.k, c.n),
            )?;
        }
        let x = &c.samples;
        for (name, v) in [
            ("mean", x.mean),
            ("std", x.std),
            ("stderr", x.stderr),
            ("p50", x.p50),
            ("max", x.max),
            ("complexity", c.complexity),
        ] {
            require(
                v.is_finite() && v >= 0.0,
                format!("{field}.samples.{name}"),
                || format!("{v} is not a non-negative number"),
            )?;
        }
        require(
            x.mean <= x.max && x.p50 <= x.max,
            format!("{field}.samples"),
            || "mean or median above the maximum".into(),
        )?;
    }
    Ok(())
}
