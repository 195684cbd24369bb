//! What `merge` and `plot` read, on arbitrary bytes, through the real commands (charts as SVG,
//! written under /dev/shm where there is one). They must never panic: damage is an error.
//!
//! The first byte picks the command; the rest is split at 0xFF bytes (never in UTF-8) into files:
//! - 0: merge of up to three `partial.json`, as they are (the checksum rejects most damage);
//! - 1: merge of up to three partials re-sealed with a fresh checksum, so that the checks
//!   behind the checksum (shapes, run counts, shards together) see the damage;
//! - 2: plot of a folder holding `summary.json`, `curves.csv` and `runs.csv`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use specprobe::Cancel;
use specprobe::commands::{self, MergeArgs};
use specprobe::{ChartOptions, Format};
use std::path::PathBuf;

fn scratch() -> PathBuf {
    let shm = std::path::Path::new("/dev/shm");
    let base = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    base.join(format!("specprobe-fuzz-{}", std::process::id()))
}

fn charts() -> ChartOptions {
    ChartOptions {
        formats: vec![Format::Svg],
        size: (480, 320),
        ..ChartOptions::default()
    }
}

fn fresh(dir: &std::path::Path) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("scratch folder");
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let parts: Vec<&[u8]> = rest.split(|&b| b == 0xFF).take(3).collect();
    let root = scratch();
    fresh(&root);
    match mode % 3 {
        0 | 1 => {
            let mut inputs = Vec::new();
            for (i, part) in parts.iter().enumerate() {
                let dir = root.join(format!("shard{i}"));
                std::fs::create_dir_all(&dir).expect("scratch folder");
                let bytes = if mode % 3 == 1 {
                    match specprobe::fuzzing::reseal_partial(part) {
                        Some(bytes) => bytes,
                        None => return,
                    }
                } else {
                    part.to_vec()
                };
                std::fs::write(dir.join("partial.json"), bytes).expect("scratch file");
                inputs.push(dir);
            }
            let args = MergeArgs {
                inputs,
                out: Some(root.join("merged")),
                charts: charts(),
                force: true,
                cancel: Cancel::default(),
            };
            let _ = commands::merge(&args);
        }
        _ => {
            let dir = root.join("saved");
            std::fs::create_dir_all(&dir).expect("scratch folder");
            for (part, name) in parts.iter().zip(["summary.json", "curves.csv", "runs.csv"]) {
                std::fs::write(dir.join(name), part).expect("scratch file");
            }
            let _ = commands::plot(&dir, &charts(), &Cancel::default());
        }
    }
});
