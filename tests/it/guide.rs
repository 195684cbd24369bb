//! The README and the user guide (`guide/`, an mdBook) as a reader meets them: the README stays
//! a front door of at most 250 lines, every page of the guide is in `SUMMARY.md` and compiled
//! as a doctest, every link between them resolves (files and `#anchors`), and every
//! `specprobe run` of a shipped scenario that they show runs, with reduced runs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every Markdown page of the guide, by file name.
fn pages() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root().join("guide/src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    out.sort();
    out
}

/// The README and every page but `SUMMARY.md`.
fn documents() -> Vec<PathBuf> {
    let mut docs = vec![root().join("README.md")];
    docs.extend(pages().into_iter().filter(|p| !p.ends_with("SUMMARY.md")));
    docs
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The text outside code fences (links and headings inside fences are code, not Markdown).
fn prose(text: &str) -> String {
    let mut fenced = false;
    let mut out = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// GitHub's and mdBook's anchor of a heading: lower case, punctuation dropped, spaces to `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> BTreeSet<String> {
    prose(text)
        .lines()
        .filter_map(|l| {
            let t = l.trim_start_matches('#');
            (t.len() < l.len() && t.starts_with(' ')).then(|| slug(t))
        })
        .collect()
}

/// Every `](target)` of the prose.
fn links(text: &str) -> Vec<String> {
    let prose = prose(text);
    let mut out = Vec::new();
    let mut rest = prose.as_str();
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        if let Some(j) = rest.find(')') {
            out.push(rest[..j].to_string());
        }
    }
    out
}

#[test]
fn the_readme_is_a_front_door_of_at_most_250_lines() {
    let n = read(&root().join("README.md")).lines().count();
    assert!(n <= 250, "README.md has {n} lines");
}

/// Every page is in `SUMMARY.md` and every entry of it is a page: a reader finds each from the
/// table of contents, and mdBook builds no empty chapter.
#[test]
fn every_page_is_in_the_summary_and_every_entry_exists() {
    let summary = read(&root().join("guide/src/SUMMARY.md"));
    let listed: BTreeSet<String> = links(&summary).into_iter().collect();
    for page in pages() {
        let name = page.file_name().unwrap().to_string_lossy().to_string();
        if name != "SUMMARY.md" {
            assert!(listed.contains(&name), "{name} is not in SUMMARY.md");
        }
    }
    for entry in &listed {
        assert!(
            root().join("guide/src").join(entry).is_file(),
            "SUMMARY.md lists {entry}, which does not exist"
        );
    }
}

/// Every link of the README and the guide resolves: a file relative to the document, and an
/// `#anchor` to a heading of its target.
#[test]
fn every_internal_link_resolves() {
    let mut broken = Vec::new();
    for doc in documents() {
        let dir = doc.parent().unwrap();
        for link in links(&read(&doc)) {
            if link.starts_with("http://") || link.starts_with("https://") {
                continue;
            }
            let (file, anchor) = match link.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (link.as_str(), None),
            };
            let target = if file.is_empty() {
                doc.clone()
            } else {
                dir.join(file)
            };
            if !target.exists() {
                broken.push(format!("{}: {link} (no file)", doc.display()));
                continue;
            }
            if let Some(a) = anchor
                && !anchors(&read(&target)).contains(a)
            {
                broken.push(format!("{}: {link} (no heading)", doc.display()));
            }
        }
    }
    assert!(broken.is_empty(), "{broken:#?}");
}

/// Every page is compiled as a doctest (`src/lib.rs` includes it), so its Rust fences build.
#[test]
fn every_page_is_a_doctest() {
    let lib = read(&root().join("src/lib.rs"));
    for page in pages() {
        let name = page.file_name().unwrap().to_string_lossy().to_string();
        if name != "SUMMARY.md" {
            assert!(
                lib.contains(&format!("\"{name}\"")),
                "{name} is not among src/lib.rs's guide doctests"
            );
        }
    }
}

/// The shipped scenarios the README and the guide tell a reader to run
/// (`specprobe run scenarios/…`, in a fence or inline), each once.
fn commanded_scenarios() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for doc in documents() {
        let text = read(&doc);
        for (i, _) in text.match_indices(" run scenarios/") {
            let rest = &text[i + " run ".len()..];
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '`' || c == ')')
                .unwrap_or(rest.len());
            out.insert(rest[..end].to_string());
        }
    }
    out
}

/// Each such command runs as written, with fewer runs and slots (identification scenarios have
/// no horizon): a renamed scenario or a field the loader no longer takes fails here.
#[test]
fn every_scenario_the_guide_runs_runs() {
    let scenarios = commanded_scenarios();
    assert!(scenarios.len() >= 20, "{scenarios:?}");
    let tmp = tempfile::tempdir().unwrap();
    for (i, s) in scenarios.iter().enumerate() {
        let path = root().join(s);
        assert!(path.is_file(), "the guide runs {s}, which does not exist");
        let text = read(&path);
        let mut args = vec![
            "run".to_string(),
            path.to_string_lossy().to_string(),
            "--runs".into(),
            "1".into(),
            "--no-charts".into(),
            "--threads".into(),
            "2".into(),
            "--max-time".into(),
            "none".into(),
            "--out".into(),
            tmp.path().join(i.to_string()).to_string_lossy().to_string(),
        ];
        if !text.contains("Identification(") {
            args.extend(["--horizon".into(), "200".into()]);
        }
        let o = Command::new(env!("CARGO_BIN_EXE_specprobe"))
            .args(&args)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{s}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// The bench sources that write measured tables into the guide.
fn bench_sources() -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for dir in ["benches", "python/bench"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "rs" || x == "py") {
                let text = read(&p);
                out.push((p, text));
            }
        }
    }
    out
}

#[test]
fn every_measured_table_is_a_benchs_output_with_the_command_that_rewrites_it() {
    // Tables of measured numbers sit between `<!-- bench:NAME -->` markers and are written by
    // the bench that measures them (benches/speed.rs, python/bench/*.py). Each block must be
    // written by one bench (its source passes NAME to its splice), and end with the command
    // that measured it, which names that bench and targets the guide, so that running it
    // rewrites this very block (a block left behind by a move, or a command pointing at a file
    // that no longer holds it, fails here).
    let sources = bench_sources();
    let mut seen = 0;
    for doc in documents() {
        let text = read(&doc);
        let mut rest = text.as_str();
        while let Some(a) = rest.find("<!-- bench:") {
            let open = &rest[a..];
            let name_end = open.find(" -->").expect("a closed marker");
            let name = &open["<!-- bench:".len()..name_end];
            let close = format!("<!-- /bench:{name} -->");
            let b = open
                .find(&close)
                .unwrap_or_else(|| panic!("{}: {name} has no {close}", doc.display()));
            let block = &open[..b];
            assert_eq!(
                text.matches(&format!("<!-- bench:{name} -->")).count(),
                1,
                "{}: block {name} appears more than once",
                doc.display()
            );
            let writers: Vec<&(PathBuf, String)> = sources
                .iter()
                .filter(|(_, src)| {
                    src.contains(&format!("\"{name}\""))
                        && (src.contains("splice_readme(") || src.contains("splice("))
                })
                .collect();
            assert_eq!(
                writers.len(),
                1,
                "{}: block {name} is written by {} benches",
                doc.display(),
                writers.len()
            );
            let (bench, src) = writers[0];
            let command = block
                .rfind("(`")
                .map(|i| &block[i + 2..])
                .and_then(|c| c.find('`').map(|j| &c[..j]))
                .unwrap_or_else(|| {
                    panic!(
                        "{}: block {name} does not end with the command that measured it",
                        doc.display()
                    )
                });
            let file = bench.file_name().unwrap().to_str().unwrap();
            let stem = file.trim_end_matches(".rs").trim_end_matches(".py");
            assert!(
                command.contains(file) || command.contains(&format!("--bench {stem}")),
                "{}: block {name}'s command `{command}` does not run {file}",
                doc.display()
            );
            assert!(
                command.contains("guide/src"),
                "{}: block {name}'s command `{command}` does not write into the guide",
                doc.display()
            );
            for token in command.split_whitespace() {
                if !token.chars().all(|c| c.is_ascii_digit()) {
                    assert!(
                        src.contains(token),
                        "{}: block {name}'s command `{command}` is not what {file} writes (`{token}`)",
                        doc.display()
                    );
                }
            }
            seen += 1;
            rest = &open[b..];
        }
    }
    assert!(seen >= 5, "only {seen} measured tables found");
}
