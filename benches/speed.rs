//! The speed figures of the guide's performance page (guide/src/performance.md), as ratios measured in one run.
//!
//! `cargo bench --bench speed` prints:
//! 1. **Floor**: a one-policy CC-UCB run at K = 6 (Figure 1(a), realised regret included)
//!    through the library, against a hand-written loop with the same exact semantics
//!    (`benches/handwritten.rs`) and the reference C (`benches/reference/cc_ucb.c`, built with
//!    `cc -O2` when a C compiler is found). The three agree bit for bit (checked); times are
//!    process CPU time, interleaved A B C A B C, medians.
//! 2. **Per channel-slot** cost of the ranking policies at K = 64 … 4096.
//! 3. **Memory** (peak RSS of the release binary) at several run counts, with
//!    `SPECPROBE_BIN` (default `target/release/specprobe`).
//! 4. **Against a previous binary** (`SPECPROBE_BASELINE=/path/to/old/specprobe`): whole-process
//!    CPU time of the same commands (regret, many users, identification), interleaved,
//!    medians, new/old.
//! 5. **Threads**: the speed-up of `--threads N` over `--threads 1` (N = 2 and the machine's
//!    cores).
//! 6. **Many users**: CPU per user-slot of each policy of `scenarios/multi-bk2018-k9-smpy.ron`
//!    (K = 9, M = 6) through the library, one thread; with `SPECPROBE_SMPY=<python with
//!    SMPyBandits>` also SMPyBandits' on the same workload (`scripts/smpy_multiplayer.py`) and
//!    the ratio; and the peak memory of the binary at T = 10⁴ and 10⁵ (flat in T).
//! 7. **Classic UCB1**: CPU per pull of the built-in `Ucb1(reward: Idle)` on the 6-arm instance
//!    θ = 0.8 … 0.3 (200 runs × 10⁵, one thread, through the library, realised regret included);
//!    beside the hand-written floor with the same semantics (`handwritten::ucb1`, checked bit
//!    for bit on run 0); with `SPECPROBE_SMPY` also SMPyBandits' `UCB` in its minimal loop
//!    (`scripts/smpy_ucb1.py`), interleaved, and the ratios.
//! 8. **The training environments' floor**: the world's own step (`Stepper::step`) on the
//!    workloads of `python/bench/envs_bench.py`, in Rust with no Python, beside the engine's
//!    slot loop (`benches/env_floor.rs`); process CPU time, interleaved, medians.
//!
//! `SPEED_QUICK=1` shortens everything (a smoke run); `SPEED_PARTS=1,3` runs some parts only.

use specprobe::{Simulation, summary::RegretSummary};
use std::process::Command;
use std::time::Duration;

mod env_floor;
mod handwritten;
mod support;

/// CPU time of this process, all threads (the library runs a simulation on its own worker
/// thread even at `threads(1)`, so the calling thread's clock would miss it).
fn process_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid pointer to a timespec; the clock exists on every Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// CPU time (user + system) of a finished child process and its peak RSS in KiB.
// wait4 reaps the child (std's wait() would not give its rusage).
#[allow(clippy::zombie_processes)]
fn child_usage(mut cmd: Command) -> (Duration, u64, std::process::ExitStatus) {
    use std::os::unix::process::ExitStatusExt;
    let child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the binary starts");
    let mut status = 0;
    // SAFETY: zeroed rusage is a valid out-parameter for wait4.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, writing into `status` and `usage`.
    unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    (
        tv(usage.ru_utime) + tv(usage.ru_stime),
        usage.ru_maxrss as u64,
        std::process::ExitStatus::from_raw(status),
    )
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn quick() -> bool {
    std::env::var_os("SPEED_QUICK").is_some()
}

fn part(n: u32) -> bool {
    std::env::var("SPEED_PARTS")
        .map(|p| p.split(',').any(|x| x.trim() == n.to_string()))
        .unwrap_or(true)
}

/// The release binary.
fn binary() -> String {
    std::env::var("SPECPROBE_BIN").unwrap_or_else(|_| "target/release/specprobe".into())
}

/// Builds the reference C, if a compiler is found; returns its path.
fn reference_c() -> Option<std::path::PathBuf> {
    let out = std::env::temp_dir().join(format!("specprobe-cc-ucb-{}", std::process::id()));
    let ok = Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&out)
        .arg("benches/reference/cc_ucb.c")
        .arg("-lm")
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(out)
}

fn pseudo(summary: &RegretSummary) -> f64 {
    support::pseudo_regret(summary, "cc-ucb")
}

/// Part 1: specprobe, the hand-written loop and the reference C on one CC-UCB run at K = 6.
fn floor() {
    let horizon: u64 = if quick() { 200_000 } else { 5_000_000 };
    let reps = if quick() { 3 } else { 5 };
    let (theta, cost) = support::instance(6);
    let cc_ucb = "CcUcb(alpha: 1.5, epsilon: 1e-5)";
    let scenario = support::scenario(&theta, &cost, &[("cc-ucb", cc_ucb)], horizon, 1);
    let c = reference_c();
    let engine = || support::run(Simulation::new(scenario.clone()));
    let hand = handwritten::cc_ucb(&theta, &cost, 1.5, 1e-5, horizon, 1);
    let summary = engine();
    let realised = summary.experiments()[0].policies[0].realized_regret.mean;
    assert_eq!(pseudo(&summary), hand.pseudo_regret, "engine against floor");
    assert_eq!(realised, hand.realized_regret, "engine against floor");
    if let Some(c) = &c {
        let out = Command::new(c)
            .args(["6", &horizon.to_string(), "1"])
            .output()
            .expect("the reference C runs");
        let got: Vec<f64> = String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect();
        assert_eq!(
            got,
            vec![hand.pseudo_regret, hand.reward, hand.realized_regret],
            "reference C against floor"
        );
    }
    let (mut e, mut h, mut r) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..reps {
        let t0 = process_cpu();
        std::hint::black_box(engine());
        e.push((process_cpu() - t0).as_secs_f64());
        let t0 = process_cpu();
        std::hint::black_box(handwritten::cc_ucb(&theta, &cost, 1.5, 1e-5, horizon, 1));
        h.push((process_cpu() - t0).as_secs_f64());
        if let Some(c) = &c {
            let mut cmd = Command::new(c);
            cmd.args(["6", &horizon.to_string(), "1"]);
            r.push(child_usage(cmd).0.as_secs_f64());
        }
    }
    let ns = |v: Vec<f64>| median(v) * 1e9 / horizon as f64;
    let (e, h) = (ns(e), ns(h));
    println!(
        "## 1. One CC-UCB run, K = 6, {horizon} slots, realised regret included (CPU, medians of {reps})\n"
    );
    println!("| implementation | ns/slot | specprobe / it |");
    println!("|---|---:|---:|");
    println!("| specprobe (library, one thread) | {e:.1} | 1.00 |");
    println!(
        "| hand-written loop (benches/handwritten.rs) | {h:.1} | {:.2} |",
        e / h
    );
    if c.is_some() {
        let r = ns(r);
        println!(
            "| reference C, cc -O2 (benches/reference/cc_ucb.c) | {r:.1} | {:.2} |",
            e / r
        );
    } else {
        println!("| reference C | no C compiler found | |");
    }
    println!();
}

/// Part 2: nanoseconds per channel-slot of the ranking policies as K grows.
fn per_channel() {
    let ks: Vec<usize> = if quick() {
        vec![64, 256]
    } else {
        vec![64, 256, 1024, 4096]
    };
    let policies = [
        ("CcUcb", "CcUcb(alpha: 1.5, epsilon: 1e-5)"),
        ("CcUcbKnownCost", "CcUcbKnownCost(alpha: 1.5)"),
        ("SwCcUcb", "SwCcUcb(window: 5000)"),
        ("DCcUcb", "DCcUcb(discount: 0.999)"),
        ("CascadeKlUcb", "CascadeKlUcb(list_len: 3)"),
        ("ThompsonSampling", "ThompsonSampling(known_cost: false)"),
    ];
    println!(
        "## 2. Cost per slot as K grows (ns per slot, and per channel-slot in brackets; one run, best of 3 when under a second)\n"
    );
    print!("| policy |");
    for k in &ks {
        print!(" K = {k} |");
    }
    println!("\n|---|{}", "---:|".repeat(ks.len()));
    for (name, spec) in policies {
        print!("| {name} |");
        for &k in &ks {
            let (theta, cost) = support::instance(k);
            // Long enough that the steady state dominates: at least 20 slots per channel.
            let horizon = if quick() {
                (20 * k as u64).max(5_000)
            } else {
                (50_000_000 / k as u64).clamp(20 * k as u64, 250_000)
            };
            let scenario = support::scenario(&theta, &cost, &[("p", spec)], horizon, 1);
            // Best of 3, or the one episode when it took over a second (the slow policies).
            let mut best = f64::INFINITY;
            for _ in 0..3 {
                let t0 = process_cpu();
                std::hint::black_box(support::run(Simulation::new(scenario.clone())));
                let took = (process_cpu() - t0).as_secs_f64();
                best = best.min(took * 1e9 / horizon as f64);
                if took > 1.0 {
                    break;
                }
            }
            print!(" {best:.0} ({:.2}) |", best / k as f64);
        }
        println!();
    }
    println!();
    if !quick() {
        // The table's horizon at K = 4096 is 20 slots a channel, still exploring; this is the
        // same instance once every channel has been probed ~100 times, where UCB's exploration
        // has packed the indices tightly and the lists the exact expected reward reads are long.
        let (k, horizon) = (4096, 400_000);
        let (theta, cost) = support::instance(k);
        let spec = "CcUcb(alpha: 1.5, epsilon: 1e-5)";
        let scenario = support::scenario(&theta, &cost, &[("p", spec)], horizon, 1);
        let t0 = process_cpu();
        std::hint::black_box(support::run(Simulation::new(scenario)));
        let ns = (process_cpu() - t0).as_secs_f64() * 1e9 / horizon as f64;
        println!(
            "CC-UCB at K = {k} over {horizon} slots (~100 probes a channel): {ns:.0} ns a slot ({:.2} a channel-slot)\n",
            ns / k as f64
        );
    }
}

/// Part 3: peak memory of the binary at several run counts (`SPEED_README=guide/src` writes the
/// table into the performance page's `bench:memory` block).
fn memory() {
    let bin = binary();
    let cases: Vec<(&str, Vec<u64>)> = if quick() {
        vec![("scale-k6.ron", vec![1, 10_000])]
    } else {
        vec![
            ("scale-k6.ron", vec![1, 10_000, 100_000, 1_000_000]),
            ("paper-fig1a.ron", vec![1_000, 30_000, 300_000]),
        ]
    };
    println!(
        "## 3. Peak memory, `{bin} run scenarios/<scenario> --horizon 100 --runs N --no-charts --threads 2`\n"
    );
    let mut table =
        String::from("| scenario | runs | peak RSS | / fewest runs |\n|---|---:|---:|---:|\n");
    print!("{table}");
    for (scenario, counts) in cases {
        let mut first = 0;
        for n in counts {
            let kib = peak_kib(&bin, scenario, n);
            if first == 0 {
                first = kib;
            }
            let row = format!(
                "| `{scenario}` | {n} | {:.1} MB | {:.2} |\n",
                kib as f64 / 1024.0,
                kib as f64 / first as f64
            );
            print!("{row}");
            table.push_str(&row);
        }
    }
    println!();
    if let Some(readme) = std::env::var_os("SPEED_README") {
        let note = "\n(`SPEED_PARTS=3 SPEED_README=guide/src cargo bench --bench speed`: peak RSS by `/usr/bin/time -f %M`, horizon 100, 2 threads, no charts; written by the bench.)";
        splice_readme(std::path::Path::new(&readme), "memory", &(table + note));
    }
}

/// Peak resident KiB of `bin run scenarios/<scenario> --horizon 100 --runs <runs>` on 2 threads.
fn peak_kib(bin: &str, scenario: &str, runs: u64) -> u64 {
    let dir = std::env::temp_dir().join(format!("specprobe-mem-{}-{runs}", std::process::id()));
    // Through /usr/bin/time where there is one: a child forked from this process inherits
    // its high-water mark in ru_maxrss (this bench holds ~20 MB by now), `time`'s does not.
    let time = std::path::Path::new("/usr/bin/time");
    let report = std::env::temp_dir().join(format!("specprobe-mem-{}.txt", std::process::id()));
    let mut cmd = if time.exists() {
        let mut c = Command::new(time);
        c.arg("-f").arg("%M").arg("-o").arg(&report).arg(bin);
        c
    } else {
        Command::new(bin)
    };
    cmd.arg("run")
        .arg(format!("scenarios/{scenario}"))
        .args(["--horizon", "100", "--runs"])
        .arg(runs.to_string())
        .args(["--no-charts", "--threads", "2", "--force", "--out"])
        .arg(&dir);
    let (_, mut kib, status) = child_usage(cmd);
    if let Ok(text) = std::fs::read_to_string(&report) {
        kib = text.trim().parse().unwrap_or(kib);
        let _ = std::fs::remove_file(&report);
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        status.success(),
        "{bin} failed for {runs} runs of {scenario}"
    );
    kib
}

/// Part 4: whole-process CPU time against a previous binary.
fn baseline() {
    let Some(old) = std::env::var_os("SPECPROBE_BASELINE") else {
        println!(
            "## 4. Against a previous binary: set SPECPROBE_BASELINE=/path/to/old/specprobe\n"
        );
        return;
    };
    let new = binary();
    let h6 = if quick() { "1000000" } else { "10000000" };
    let workloads: Vec<(&str, Vec<&str>)> = vec![
        ("paper-fig1a.ron", vec!["run", "scenarios/paper-fig1a.ron"]),
        (
            "paper-table1.ron",
            vec!["run", "scenarios/paper-table1.ron"],
        ),
        (
            "CC-UCB, K = 6, 1 run",
            vec![
                "run",
                "scenarios/scale-k6.ron",
                "--runs",
                "1",
                "--horizon",
                h6,
            ],
        ),
        (
            "classic UCB1, 20 x 10^5",
            vec![
                "run",
                "scenarios/peers-ucb1.ron",
                "--runs",
                "20",
                "--horizon",
                "100000",
            ],
        ),
        (
            "many users, multi-bk2018-k9-smpy.ron (10 runs)",
            vec!["run", "scenarios/multi-bk2018-k9-smpy.ron", "--runs", "10"],
        ),
        (
            "many users, multi-cascade-sensing.ron (10 runs)",
            vec!["run", "scenarios/multi-cascade-sensing.ron", "--runs", "10"],
        ),
        (
            "paper-topk.ron (10 runs)",
            vec!["run", "scenarios/paper-topk.ron", "--runs", "10"],
        ),
        (
            "paper-best1.ron (10 runs)",
            vec!["run", "scenarios/paper-best1.ron", "--runs", "10"],
        ),
    ];
    let reps = if quick() { 2 } else { 3 };
    println!(
        "## 4. Against {} (whole-process CPU, --threads 1 --no-charts, interleaved, medians of {reps})\n",
        old.to_string_lossy()
    );
    let mut table =
        String::from("| workload | new s | old s | new / old |\n|---|---:|---:|---:|\n");
    print!("{table}");
    for (name, args) in workloads {
        let time = |bin: &std::ffi::OsStr| {
            let dir = std::env::temp_dir().join(format!("specprobe-base-{}", std::process::id()));
            let mut cmd = Command::new(bin);
            cmd.args(&args)
                .args(["--threads", "1", "--no-charts", "--force", "--out"])
                .arg(&dir);
            let (cpu, _, status) = child_usage(cmd);
            let _ = std::fs::remove_dir_all(&dir);
            assert!(
                status.success(),
                "{} {args:?} failed",
                bin.to_string_lossy()
            );
            cpu.as_secs_f64()
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..reps {
            a.push(time(new.as_ref()));
            b.push(time(&old));
        }
        let (a, b) = (median(a), median(b));
        let row = format!("| {name} | {a:.2} | {b:.2} | {:.2} |\n", a / b);
        print!("{row}");
        table.push_str(&row);
    }
    println!();
    if let Some(readme) = std::env::var_os("SPEED_README") {
        // The baseline's path is the measuring machine's: the page names its role, not where
        // it lay.
        let note = format!(
            "\n(`SPECPROBE_BASELINE=path/to/previous/specprobe SPEED_PARTS=4 SPEED_README=guide/src cargo bench --bench speed`: whole-process CPU, `--threads 1 --no-charts`, interleaved, medians of {reps}; written by the bench.)"
        );
        splice_readme(std::path::Path::new(&readme), "baseline", &(table + &note));
    }
}

/// Replaces the `<!-- bench:NAME -->` … `<!-- /bench:NAME -->` block of the page `target` (or
/// of the one page of the folder `target` that holds it, e.g. `guide/src`) with `text`: the
/// figures come from the bench, never typed by hand (as `python/bench/readme_table.py` does
/// for the Python benches).
fn splice_readme(target: &std::path::Path, name: &str, text: &str) {
    let (start, end) = (
        format!("<!-- bench:{name} -->"),
        format!("<!-- /bench:{name} -->"),
    );
    let page = if target.is_dir() {
        let mut holding: Vec<std::path::PathBuf> = std::fs::read_dir(target)
            .expect("the guide folder")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .filter(|p| std::fs::read_to_string(p).is_ok_and(|d| d.contains(&start)))
            .collect();
        assert!(
            holding.len() == 1,
            "{}: needs exactly one page with a {start} block (found {})",
            target.display(),
            holding.len()
        );
        holding.remove(0)
    } else {
        target.to_path_buf()
    };
    let doc = std::fs::read_to_string(&page).expect("the guide page");
    let (Some(a), Some(b)) = (doc.find(&start), doc.find(&end)) else {
        panic!("{}: needs a {start} … {end} block", page.display());
    };
    assert!(a < b, "{}: {start} comes after {end}", page.display());
    let out = format!("{}{start}\n{}\n{}", &doc[..a], text.trim(), &doc[b..]);
    std::fs::write(&page, out).expect("the guide page is writable");
    println!("wrote the table into {} ({start})", page.display());
}

/// Part 5: thread speed-up.
fn threads() {
    let bin = binary();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let horizon = if quick() { "100000" } else { "1000000" };
    // Enough runs per thread that the last one to finish is a small part of the wall time.
    let runs = (cores * 16).max(32).to_string();
    let wall = |threads: usize| {
        let dir = std::env::temp_dir().join(format!("specprobe-thr-{}", std::process::id()));
        let t0 = std::time::Instant::now();
        let status = Command::new(&bin)
            .args([
                "run",
                "scenarios/scale-k6.ron",
                "--horizon",
                horizon,
                "--runs",
                &runs,
            ])
            .args([
                "--no-charts",
                "--force",
                "--threads",
                &threads.to_string(),
                "--out",
            ])
            .arg(&dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .expect("the binary runs");
        let _ = std::fs::remove_dir_all(&dir);
        assert!(status.success());
        t0.elapsed().as_secs_f64()
    };
    println!(
        "## 5. Threads: scale-k6.ron, {runs} runs of {horizon} slots (wall time, medians of 3)\n"
    );
    println!("| threads | s | speed-up |");
    println!("|---:|---:|---:|");
    let one = median((0..3).map(|_| wall(1)).collect());
    println!("| 1 | {one:.2} | 1.00 |");
    let mut ns = vec![2];
    if cores > 2 {
        ns.push(cores);
    }
    for n in ns {
        let t = median((0..3).map(|_| wall(n)).collect());
        println!("| {n} | {t:.2} | {:.2} |", one / t);
    }
    println!();
}

fn main() {
    // `cargo test --benches` runs benches without `--bench`: then only a smoke run.
    if !std::env::args().any(|a| a == "--bench") {
        // SAFETY: single-threaded at this point.
        unsafe { std::env::set_var("SPEED_QUICK", "1") };
    }
    if part(1) {
        floor();
    }
    if part(2) {
        per_channel();
    }
    if part(3) {
        memory();
    }
    if part(4) {
        baseline();
    }
    if part(5) {
        threads();
    }
    if part(6) {
        many_users();
    }
    if part(7) {
        classic_ucb1();
    }
    if part(8) {
        env_floor();
    }
}

/// Part 8: the world's own step under the training environments (`SPEED_README=guide/src`
/// writes its table into the README's `bench:stepper` block).
fn env_floor() {
    let (steps, repeat) = if quick() { (5, 1) } else { (200, 7) };
    let mut table = String::from("| the world's own step | steps per second |\n|---|---:|\n");
    for (name, ns) in env_floor::measure(steps, repeat, process_cpu) {
        table.push_str(&format!("| {name} | {:.1} M ({ns:.0} ns) |\n", 1e3 / ns));
    }
    println!(
        "8. the training environments' floor (Stepper::step, 512 worlds, one thread)\n{table}"
    );
    if let Some(readme) = std::env::var_os("SPEED_README") {
        let note = format!(
            "\n(`SPEED_PARTS=8 SPEED_README=guide/src cargo bench --bench speed`: process CPU, interleaved, medians of {repeat}; written by the bench.)"
        );
        splice_readme(std::path::Path::new(&readme), "stepper", &(table + &note));
    }
}

/// Part 6: many users against SMPyBandits' multi-player evaluator.
fn many_users() {
    let file = "scenarios/multi-bk2018-k9-smpy.ron";
    let text = std::fs::read_to_string(file).expect("the shipped scenario");
    let runs: u64 = if quick() { 2 } else { 20 };
    let horizon: u64 = if quick() { 2_000 } else { 10_000 };
    // One scenario per policy: the text with its policy list cut to that one entry.
    let start = text.find("policies: [").expect("a policy list");
    let end = start + text[start..].find("\n    ],").expect("the list's end");
    let entries: Vec<&str> = text[start..end]
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| l.starts_with('('))
        .collect();
    let smpy = std::env::var("SPECPROBE_SMPY").ok();
    let theirs: std::collections::BTreeMap<String, f64> = smpy
        .as_ref()
        .map(|python| {
            let out = Command::new(python)
                .args(["scripts/smpy_multiplayer.py", "2", &horizon.to_string()])
                .output()
                .expect("SMPyBandits runs");
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter_map(|l| {
                    let l = l.strip_prefix("RESULT ")?;
                    let (name, rest) = l.split_once(':')?;
                    let us = rest
                        .split(", ")
                        .find_map(|x| x.strip_suffix(" µs per user-slot"))?;
                    Some((name.to_string(), us.trim().parse().ok()?))
                })
                .collect()
        })
        .unwrap_or_default();
    println!(
        "## Many users: CPU per user-slot, K = 9, M = 6, T = {horizon}, {runs} runs, one thread\n"
    );
    println!("| policy | specprobe ns | SMPyBandits µs | ratio |\n|---|---:|---:|---:|");
    // The whole workload (every policy once, as the scenario runs them), where both sides ran.
    let (mut ours_all, mut theirs_all) = (0.0f64, 0.0f64);
    for entry in entries {
        let one = format!("{}policies: [{entry}{}", &text[..start], &text[end..]);
        let scenario =
            specprobe::parse(&one, std::path::Path::new(file)).expect("the cut scenario");
        let label = match &scenario {
            specprobe::Scenario::MultiUser(m) => m.policy_labels()[0].to_string(),
            _ => unreachable!("a many-users scenario"),
        };
        let sim = || {
            Simulation::new(scenario.clone())
                .overrides(specprobe::Overrides {
                    runs: Some(runs),
                    horizon: Some(horizon),
                    ..Default::default()
                })
                .threads(1)
        };
        let times: Vec<f64> = (0..3)
            .map(|_| {
                let t0 = process_cpu();
                std::hint::black_box(sim().run().expect("runs"));
                (process_cpu() - t0).as_secs_f64()
            })
            .collect();
        let per = median(times) / (runs * horizon * 6) as f64;
        match theirs.get(&label) {
            Some(us) => {
                ours_all += per;
                theirs_all += us * 1e-6;
                println!(
                    "| {label} | {:.0} | {us:.1} | {:.0}× |",
                    per * 1e9,
                    us * 1e-6 / per
                )
            }
            None => println!("| {label} | {:.0} | — | — |", per * 1e9),
        }
    }
    if theirs_all > 0.0 {
        println!(
            "| the whole workload (sums) | {:.0} | {:.1} | {:.0}× |",
            ours_all * 1e9,
            theirs_all * 1e6,
            theirs_all / ours_all
        );
    }
    println!();
    let bin = binary();
    if std::path::Path::new(&bin).is_file() {
        println!("| T | peak RSS (MB) |\n|---:|---:|");
        for t in [10_000u64, 100_000] {
            let out = std::env::temp_dir()
                .join(format!("specprobe-multi-mem-{}-{t}", std::process::id()));
            let mut cmd = Command::new(&bin);
            cmd.args([
                "run",
                file,
                "--runs",
                "2",
                "--threads",
                "1",
                "--no-charts",
                "--horizon",
            ])
            .arg(t.to_string())
            .arg("--out")
            .arg(&out);
            let (_, rss, status) = child_usage(cmd);
            assert!(status.success(), "the binary ran");
            let _ = std::fs::remove_dir_all(&out);
            println!("| {t} | {:.1} |", rss as f64 / 1024.0);
        }
        println!();
    }
}

/// Part 7: classic UCB1 against SMPyBandits' `UCB` and the hand-written floor, CPU per pull.
fn classic_ucb1() {
    let (runs, horizon): (u64, u64) = if quick() { (4, 10_000) } else { (200, 100_000) };
    let theta = [0.8, 0.7, 0.6, 0.5, 0.4, 0.3];
    let scenario = |runs: u64| support::ucb1_scenario(&theta, horizon, runs);
    // The floor computes what the engine computes: checked on run 0.
    let one = support::run(Simulation::new(scenario(1)));
    let hand = handwritten::ucb1(&theta, 0.75, horizon, 2002, 0);
    assert_eq!(
        one.experiments()[0].policies[0].pseudo_regret.mean,
        hand.pseudo_regret,
        "engine against floor"
    );
    assert_eq!(
        one.experiments()[0].policies[0].realized_regret.mean,
        hand.realized_regret,
        "engine against floor"
    );
    let scenario = scenario(runs);
    let pulls = (runs * horizon) as f64;
    let ours = || {
        let t0 = process_cpu();
        std::hint::black_box(
            Simulation::new(scenario.clone())
                .threads(1)
                .run()
                .expect("runs"),
        );
        (process_cpu() - t0).as_secs_f64() / pulls
    };
    let floor = || {
        let t0 = process_cpu();
        for run in 0..runs {
            std::hint::black_box(handwritten::ucb1(&theta, 0.75, horizon, 2002, run));
        }
        (process_cpu() - t0).as_secs_f64() / pulls
    };
    let smpy = std::env::var("SPECPROBE_SMPY").ok();
    let theirs = |python: &str| -> Option<f64> {
        let (reps, t) = if quick() {
            ("1", "10000")
        } else {
            ("2", "100000")
        };
        let out = Command::new(python)
            .args(["scripts/smpy_ucb1.py", reps, t])
            .output()
            .ok()?;
        String::from_utf8_lossy(&out.stdout).lines().find_map(|l| {
            let us = l
                .strip_prefix("RESULT UCB: ")?
                .strip_suffix(" µs per pull")?;
            us.trim().parse::<f64>().ok().map(|us| us * 1e-6)
        })
    };
    let (mut a, mut f, mut b) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..3 {
        a.push(ours());
        f.push(floor());
        if let Some(t) = smpy.as_deref().and_then(theirs) {
            b.push(t);
        }
    }
    let (ns, floor_ns) = (median(a) * 1e9, median(f) * 1e9);
    println!(
        "## 7. Classic UCB1, 6 arms, {runs} runs x {horizon}, one thread: CPU per pull (medians of 3, interleaved)\n"
    );
    println!("| implementation | ns per pull | SMPyBandits' UCB / it |\n|---|---:|---:|");
    let ratio = |ns: f64| {
        if b.is_empty() {
            "—".to_string()
        } else {
            format!("{:.0}×", median(b.clone()) * 1e9 / ns)
        }
    };
    println!(
        "| specprobe (library, realised regret included) | {ns:.1} | {} |",
        ratio(ns)
    );
    println!(
        "| hand-written loop (benches/handwritten.rs) | {floor_ns:.1} | {} |",
        ratio(floor_ns)
    );
    if !b.is_empty() {
        println!(
            "| SMPyBandits' UCB, minimal loop (scripts/smpy_ucb1.py) | {:.0} | 1× |",
            median(b.clone()) * 1e9
        );
    }
    println!();
}
