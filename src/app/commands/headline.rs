//! What a command prints when it is done: the results table of the report it wrote (final
//! regret per policy, samples per algorithm, …) and where the report is, rather than the list
//! of files (which the log gives at `-v`).

use std::fmt::Write;

/// Columns and rows of the table shown; the report has the rest.
const MAX_COLUMNS: usize = 6;
const MAX_ROWS: usize = 12;

/// The first results table of `report` (Markdown as `report.md` writes it: the first table
/// that does not describe the channels), as aligned plain text; `None` when there is none.
pub fn headline(report: &str) -> Option<String> {
    let lines: Vec<&str> = report.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        if let Some(header) = lines[i].strip_prefix('|') {
            let first = header.split('|').next().unwrap_or("").trim();
            let is_table = lines
                .get(i + 1)
                .is_some_and(|l| l.starts_with("|-") || l.starts_with("|:"));
            // Tables that describe the scenario (channels, an instance's true top-K sets, a
            // many-users sweep's cells, headed by the swept field in backticks) come first.
            let describes = matches!(first, "channel" | "ch" | "N") || first.starts_with('`');
            if is_table && !describes {
                let rows: Vec<Vec<String>> = std::iter::once(lines[i])
                    .chain(
                        lines[i + 2..]
                            .iter()
                            .copied()
                            .take_while(|l| l.starts_with('|')),
                    )
                    .map(cells)
                    .collect();
                return Some(render(&rows));
            }
            while i < lines.len() && lines[i].starts_with('|') {
                i += 1;
            }
        }
        i += 1;
    }
    None
}

/// The cells of a Markdown table row, as plain text.
fn cells(row: &str) -> Vec<String> {
    row.trim()
        .trim_matches('|')
        .split('|')
        .map(|c| c.trim().replace("<br>", " / ").replace("**", ""))
        .collect()
}

fn render(rows: &[Vec<String>]) -> String {
    let columns = rows[0].len().min(MAX_COLUMNS);
    let shown = &rows[..rows.len().min(MAX_ROWS + 1)];
    let width = |c: usize| {
        shown
            .iter()
            .map(|r| r.get(c).map_or(0, |s| s.chars().count()))
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..columns).map(width).collect();
    let mut out = String::new();
    for row in shown {
        let line: Vec<String> = (0..columns)
            .map(|c| {
                let cell = row.get(c).map_or("", String::as_str);
                let pad = widths[c] - cell.chars().count();
                // The first column names the row; the others are numbers, right-aligned.
                if c == 0 {
                    format!("{cell}{}", " ".repeat(pad))
                } else {
                    format!("{}{cell}", " ".repeat(pad))
                }
            })
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
    }
    let (more_rows, more_columns) = (rows.len() - shown.len(), rows[0].len() - columns);
    let plural = |n: usize, what: &str| format!("{n} more {what}{}", if n == 1 { "" } else { "s" });
    let more: Vec<String> = [(more_rows, "row"), (more_columns, "column")]
        .into_iter()
        .filter(|&(n, _)| n > 0)
        .map(|(n, what)| plural(n, what))
        .collect();
    if !more.is_empty() {
        let _ = writeln!(out, "(the report has {})", more.join(" and "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_results_table_is_shown_aligned() {
        let report = "# s\n\n| channel | θ |\n|---:|---:|\n| 0 | 0.8 |\n\n### Results at the horizon\n\n| policy | pseudo-regret | 95 % interval |\n|---|---:|---|\n| cc-ucb | 223.1 | [211.2, 235.0] |\n| **oracle** | 0 | [0, 0] |\n\nmore text\n";
        let h = headline(report).unwrap();
        assert_eq!(
            h,
            "policy  pseudo-regret   95 % interval\ncc-ucb          223.1  [211.2, 235.0]\noracle              0          [0, 0]\n"
        );
        assert_eq!(headline("# nothing\n"), None);
    }

    #[test]
    fn a_wide_or_long_table_says_what_it_leaves_out() {
        let header = format!("| a |{}\n|---|{}\n", " b |".repeat(7), "---:|".repeat(7));
        let rows = "| x | 1 | 2 | 3 | 4 | 5 | 6 | 7 |\n".repeat(20);
        let h = headline(&format!("{header}{rows}")).unwrap();
        assert_eq!(h.lines().count(), 1 + MAX_ROWS + 1, "{h}");
        assert!(
            h.ends_with("(the report has 8 more rows and 2 more columns)\n"),
            "{h}"
        );
    }
}
