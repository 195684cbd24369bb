//! A bounded in-process mutation test of the scenario loader over the shipped scenarios: a few
//! thousand mutants (numbers swapped for extreme values, spans deleted or repeated, tokens
//! inserted). None may panic, and every mutant the loader accepts must have finite derived
//! quantities, a resource estimate, and a `validate` text free of NaN and infinity. The fuzz
//! target `fuzz/fuzz_targets/scenario.rs` runs the same property without a bound.

use specprobe::Simulation;
use specprobe::rand::rngs::StdRng;
use specprobe::rand::{RngExt, SeedableRng};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

const MUTANTS_PER_SCENARIO: usize = 250;

/// Values that have broken loaders: extremes, non-numbers, signs, overflow.
const NUMBERS: &[&str] = &[
    "0",
    "-0.0",
    "1",
    "-1",
    "0.5",
    "1.0000001",
    "2",
    "1e308",
    "-1e308",
    "1e-308",
    "5e-324",
    "1e999",
    "NaN",
    "inf",
    "-inf",
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775807",
    "1099511627777",
    "1048576",
    "4294967296",
    "0.0",
];

const TOKENS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "count: 1048576, ",
    "theta: 1e308, ",
    "Some(",
    "None",
    "Bernoulli(",
    "Constant(-1.0)",
    "runs: 0, ",
    "horizon: 0, ",
    "//",
    "/*",
    "r#\"",
    "\u{0}",
    "é",
    "Channels(scenario: \"/dev/zero\")",
    "Trace(file: \"../../../etc/passwd\", column: 1)",
];

fn mutate(text: &str, rng: &mut StdRng) -> String {
    let mut s = text.to_string();
    for _ in 0..rng.random_range(1..=3) {
        let len = s.len();
        if len == 0 {
            break;
        }
        let at = (0..8)
            .map(|_| rng.random_range(0..len))
            .find(|&i| s.is_char_boundary(i))
            .unwrap_or(0);
        match rng.random_range(0..5) {
            // A number swapped for an extreme one.
            0 | 1 => {
                let digits: Vec<usize> = s
                    .match_indices(|c: char| c.is_ascii_digit())
                    .map(|(i, _)| i)
                    .collect();
                if let Some(&start) = digits.get(rng.random_range(0..digits.len().max(1))) {
                    let end = s[start..]
                        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == '-'))
                        .map_or(s.len(), |e| start + e);
                    let new = NUMBERS[rng.random_range(0..NUMBERS.len())];
                    s.replace_range(start..end, new);
                }
            }
            // A token inserted.
            2 => s.insert_str(at, TOKENS[rng.random_range(0..TOKENS.len())]),
            // A span deleted.
            3 => {
                let end = (at + rng.random_range(1..40)).min(len);
                if s.is_char_boundary(end) {
                    s.replace_range(at..end, "");
                }
            }
            // A span repeated (lists and counts grow).
            _ => {
                let end = (at + rng.random_range(1..200)).min(len);
                if s.is_char_boundary(end) {
                    let span = s[at..end].to_string();
                    s.insert_str(end, &span);
                }
            }
        }
    }
    s
}

/// `inf`, `NaN` and the like printed as words, outside the user's own strings (a description may
/// say anything).
fn non_finite_words(text: &str, source: &str) -> Vec<String> {
    // A word the scenario's own text holds (a mutated description, "Figure inf") is echoed, not
    // computed. (Stripping quoted strings by quote parity failed when a comment held a quote.)
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| ["inf", "infinity", "nan"].contains(&w.to_lowercase().as_str()))
            .map(String::from)
            .collect()
    };
    let echoed = words(source);
    words(text)
        .into_iter()
        .filter(|w| !echoed.contains(w))
        .collect()
}

fn shipped() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ron" || e == "json"))
        .collect();
    files.sort();
    files
}

#[test]
fn mutated_scenarios_never_panic_and_accepted_ones_are_finite() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut tried, mut accepted) = (0, 0);
    for path in shipped() {
        let text = std::fs::read_to_string(&path).unwrap();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let mut rng = StdRng::seed_from_u64(fnv1a(&stem));
        for i in 0..MUTANTS_PER_SCENARIO {
            let mutant = mutate(&text, &mut rng);
            tried += 1;
            // Parsed as if it were the shipped file, so that traces and references resolve.
            let outcome = catch_unwind(AssertUnwindSafe(|| specprobe::parse(&mutant, &path)));
            let loaded = match outcome {
                Ok(Ok(loaded)) => loaded,
                Ok(Err(_)) => continue,
                Err(_) => panic!("{stem} mutant {i} panicked the loader:\n{mutant}"),
            };
            accepted += 1;
            for (name, value) in loaded.derived_numbers() {
                assert!(
                    value.is_finite(),
                    "{stem} mutant {i}: {name} = {value}\n{mutant}"
                );
            }
            let estimate = catch_unwind(AssertUnwindSafe(|| Simulation::new(loaded).estimate()));
            assert!(
                estimate.is_ok(),
                "{stem} mutant {i} panicked the estimate:\n{mutant}"
            );
            // Every tenth accepted mutant through `validate` as the command line runs it.
            if accepted % 10 == 0 {
                // (In a scratch folder: a trace it references no longer resolves, an error.)
                let file = tmp.path().join("mutant.ron");
                std::fs::write(&file, &mutant).unwrap();
                let text = catch_unwind(|| specprobe::commands::validate(&file));
                let text = text.unwrap_or_else(|_| panic!("{stem} mutant {i} panicked validate"));
                if let Ok(text) = text {
                    let bad = non_finite_words(&text, &mutant);
                    assert!(
                        bad.is_empty(),
                        "{stem} mutant {i}: validate printed {bad:?}:\n{text}"
                    );
                }
            }
        }
    }
    // The mutations must reach the checks behind the parser, not only syntax errors.
    assert!(
        accepted * 20 > tried,
        "only {accepted} of {tried} mutants were accepted"
    );
    eprintln!("{tried} mutants, {accepted} accepted");
}

/// FNV-1a of a name: a seed per shipped scenario that no Rust release can change.
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
