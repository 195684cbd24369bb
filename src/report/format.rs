//! Text shared by every report: numbers to significant digits, counts with their noun, 95 %
//! intervals, runs of equal items, CSV floats and file-safe slugs.

use crate::util::math;
use std::fmt::Write;

/// A unit as a label suffix, ` [unit]`, or nothing for no unit.
pub(crate) fn unit_suffix(u: &str) -> String {
    if u.is_empty() {
        String::new()
    } else {
        format!(" [{u}]")
    }
}

/// Formats `x` with about `digits` significant digits, without exponent for ordinary magnitudes.
pub(crate) fn sig(x: f64, digits: usize) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    if x == 0.0 {
        return "0".to_string();
    }
    let magnitude = math::log10(x.abs()).floor() as i32;
    if !(-4..=9).contains(&magnitude) {
        return format!("{x:.*e}", digits.saturating_sub(1));
    }
    let decimals = (digits as i32 - 1 - magnitude).max(0) as usize;
    format!("{x:.decimals$}")
}

/// `1 run`, `3 runs`.
pub(crate) fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A statistic's 95 % confidence interval as `[lo, hi]`; `–` for a single run (no interval).
pub(crate) fn interval(ci95: Option<[f64; 2]>) -> String {
    match ci95 {
        Some([lo, hi]) => format!("[{}, {}]", sig(lo, 4), sig(hi, 4)),
        None => "–".to_string(),
    }
}

/// Runs of consecutive equal items, as `(first, last)` index pairs (inclusive).
pub(crate) fn runs<T: PartialEq>(items: &[T]) -> Vec<(usize, usize)> {
    runs_by(items.len(), |i| &items[i])
}

/// [`runs`] of the keys `key(0)`, …, `key(n - 1)`, computed one at a time: only the current
/// run's key is kept (a million channels need not all be described at once).
pub(crate) fn runs_by<K: PartialEq>(n: usize, key: impl Fn(usize) -> K) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut current: Option<K> = None;
    for i in 0..n {
        let k = key(i);
        match (out.last_mut(), &current) {
            (Some((_, last)), Some(c)) if *c == k => *last = i,
            _ => {
                out.push((i, i));
                current = Some(k);
            }
        }
    }
    out
}

/// The "Charts" section of a report: each chart under its caption (nothing when there are none).
pub(crate) fn charts_section(out: &mut String, charts: &[(String, String)]) {
    if !charts.is_empty() {
        let _ = writeln!(out, "## Charts\n");
        for (caption, file) in charts {
            let _ = writeln!(out, "### {caption}\n\n![{caption}]({file})\n");
        }
    }
}

/// `a` or `a–b`.
pub(crate) fn span(first: usize, last: usize) -> String {
    if first == last {
        first.to_string()
    } else {
        format!("{first}–{last}")
    }
}

/// A channel list, abbreviated past 24 entries: `[3, 1, 4, …, 9] (320 channels)`.
pub(crate) fn list(items: &[usize]) -> String {
    const SHOWN: usize = 24;
    if items.len() <= SHOWN {
        return format!("{items:?}");
    }
    let head: Vec<String> = items[..SHOWN - 2].iter().map(|i| i.to_string()).collect();
    format!(
        "[{}, …, {}] ({} channels)",
        head.join(", "),
        items[items.len() - 1],
        items.len()
    )
}

/// A float as CSV text: shortest round-trip form, always with a decimal point or an exponent.
pub(crate) fn float(x: f64) -> String {
    format!("{x:?}")
}

/// A count (probes, samples) as an integer column: `5504`, not `5504.0`, so that a reader's
/// type inference makes it an integer. A value that is not whole (a median between two
/// counts) keeps its fraction, as [`float`] writes it.
pub(crate) fn whole(x: f64) -> String {
    // 2^53: every whole f64 below it is exactly an integer.
    if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
        format!("{}", x as i64)
    } else {
        float(x)
    }
}

/// Longest slug: chart names stay far below the 255 bytes a file name may have.
const MAX_SLUG: usize = 48;

/// File-name fragment for a label: lowercase ASCII letters, digits and '.', other runs → '-';
/// a long label is cut and given a hash of the whole label, so that names stay short and
/// distinct.
pub(crate) fn slug(label: &str) -> String {
    let mut s = String::new();
    for c in label.chars() {
        if c.is_ascii_alphanumeric() || c == '.' {
            s.push(c.to_ascii_lowercase());
        } else if !s.ends_with('-') {
            s.push('-');
        }
    }
    let s = s.trim_matches('-');
    if s.len() <= MAX_SLUG {
        return s.to_string();
    }
    format!(
        "{}-{:08x}",
        s[..MAX_SLUG - 9].trim_end_matches('-'),
        crate::util::rng::label_hash(&[label]) as u32
    )
}

/// A swept value as a person writes it in JSON: a whole number without a fraction (`"users":
/// 4`, not `4.0`, since the field it sets may be an integer), anything else as the float it
/// is. Read back as `f64` either way.
#[derive(Clone, Copy, Debug)]
struct Whole(f64);

impl serde::Serialize for Whole {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // 2⁵³: every whole f64 below it is an exact i64.
        if self.0.fract() == 0.0 && self.0.abs() < 9_007_199_254_740_992.0 {
            s.serialize_i64(self.0 as i64)
        } else {
            s.serialize_f64(self.0)
        }
    }
}

/// `serialize_with` for one swept value (see [`Whole`]).
pub(crate) fn whole_number<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&Whole(*v), s)
}

/// `serialize_with` for the swept values (see [`Whole`]).
pub(crate) fn whole_numbers<S: serde::Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(|&x| Whole(x)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_and_lists_abbreviate() {
        assert_eq!(runs(&[1, 1, 2, 1]), vec![(0, 1), (2, 2), (3, 3)]);
        assert_eq!(runs_by(5, |i| i / 2), vec![(0, 1), (2, 3), (4, 4)]);
        assert!(runs_by(0, |i| i).is_empty());
        assert_eq!(span(3, 3), "3");
        assert_eq!(span(3, 7), "3–7");
        assert_eq!(list(&[1, 2]), "[1, 2]");
        let long: Vec<usize> = (0..100).collect();
        assert!(list(&long).ends_with(", …, 99] (100 channels)"));
    }

    #[test]
    fn sig_formats_magnitudes() {
        assert_eq!(sig(1445.3, 4), "1445");
        assert_eq!(sig(0.291_512, 4), "0.2915");
        assert_eq!(sig(12.345, 3), "12.3");
        assert_eq!(sig(0.0, 4), "0");
        assert_eq!(sig(1.5e-7, 2), "1.5e-7");
    }

    #[test]
    fn swept_values_keep_whole_numbers_whole() {
        #[derive(serde::Serialize)]
        struct V {
            #[serde(serialize_with = "whole_numbers")]
            values: Vec<f64>,
            #[serde(serialize_with = "whole_number")]
            value: f64,
        }
        let text = serde_json::to_string(&V {
            values: vec![2.0, 0.25, -3.0, 1e300],
            value: 4.0,
        })
        .unwrap();
        assert_eq!(text, r#"{"values":[2,0.25,-3,1e+300],"value":4}"#);
    }

    #[test]
    fn slugs_are_file_safe() {
        assert_eq!(slug("K=12 L=3 Δ=0.1"), "k-12-l-3-0.1");
        assert_eq!(slug("paper-fig1a"), "paper-fig1a");
        let long = "a very long configuration label ".repeat(10);
        let other = format!("{long}!");
        assert!(slug(&long).len() <= 48, "{}", slug(&long));
        assert_ne!(slug(&long), slug(&other));
    }
}
