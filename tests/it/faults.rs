//! The binary under faults: SIGKILL at every file boundary of the write phase, SIGINT and SIGTERM
//! mid-simulation, a second run into a busy folder, planted symlinks, and small files that ask
//! for too much. The folder must always hold the complete old set or the complete new set.

use crate::common::{fig1a, scenario_file};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_specprobe");

/// Every entry of a folder, hidden ones included, with its bytes (None for a non-file).
type Snapshot = BTreeMap<String, Option<Vec<u8>>>;

fn snapshot(dir: &Path) -> Snapshot {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| {
            let bytes = e
                .file_type()
                .unwrap()
                .is_file()
                .then(|| std::fs::read(e.path()).unwrap());
            (e.file_name().into_string().unwrap(), bytes)
        })
        .collect()
}

fn copy(from: &Path, to: &Path) -> PathBuf {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
    to.to_path_buf()
}

/// Staging and old-set folders of `dir` left in its parent (the lock file may stay).
fn leftovers(dir: &Path) -> Vec<String> {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    std::fs::read_dir(dir.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with(&format!(".{name}.")) && !n.ends_with(".lock"))
        .collect()
}

fn run_cmd(scenario: &Path, out: &Path, seed: u64, extra: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args([
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ])
    .args(["--seed", &seed.to_string(), "--format", "svg"])
    .args(extra)
    .stdout(Stdio::null());
    c
}

/// How a child ended, with its own CPU time (from wait4, not shared with the other tests'
/// children).
#[derive(Debug)]
struct Ended {
    code: Option<i32>,
    cpu: Duration,
}

/// The peak memory the binary logs at `-v` (its own VmHWM: wait4's maximum would include the
/// test process it was spawned from).
fn peak_mb(stderr: &str) -> f64 {
    let at = stderr
        .find("peak_memory_bytes=")
        .expect("-v logs the peak memory")
        + 18;
    let digits: String = stderr[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse::<f64>().unwrap() / (1024.0 * 1024.0)
}

fn reap(child: Child) -> Ended {
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain data, and wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(got, pid, "wait4");
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Ended {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        cpu: Duration::from_secs_f64(secs(usage.ru_utime) + secs(usage.ru_stime)),
    }
}

fn signal(child: &Child, sig: libc::c_int) {
    // SAFETY: kill(2) on our own child, which has not been reaped yet.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, sig) }, 0);
}

/// Waits for the fault hook's "paused" line on stderr; false when the run ended first.
fn paused(child: &mut Child) -> bool {
    let stderr = child.stderr.take().unwrap();
    BufReader::new(stderr)
        .lines()
        .map_while(Result::ok)
        .any(|l| l.contains("specprobe-fault: paused"))
}

struct Fixture {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    scenario: PathBuf,
    old: Snapshot,
    new: Snapshot,
    old_dir: PathBuf,
}

/// A scenario with complete results for seed 1 (the old set) and seed 2 (the new set).
fn fixture(horizon: u64) -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let policies = "(policy: CcUcb()), (policy: Oracle)";
    let scenario = scenario_file(&root, "s.ron", &fig1a(horizon, 2, policies));
    let sets: Vec<Snapshot> = [1, 2]
        .iter()
        .map(|&seed| {
            let dir = root.join(format!("ref{seed}"));
            assert!(
                run_cmd(&scenario, &dir, seed, &[])
                    .status()
                    .unwrap()
                    .success()
            );
            snapshot(&dir)
        })
        .collect();
    assert_ne!(sets[0], sets[1]);
    Fixture {
        old_dir: root.join("ref1"),
        _tmp: tmp,
        root,
        scenario,
        old: sets[0].clone(),
        new: sets[1].clone(),
    }
}

impl Fixture {
    fn state(&self, dir: &Path) -> &'static str {
        let now = snapshot(dir);
        if now == self.old {
            "old"
        } else if now == self.new {
            "new"
        } else {
            "MIXED"
        }
    }

    /// After a fault: old or new, and the next run completes the new set and cleans up.
    fn check_after(&self, dir: &Path, what: &str) -> &'static str {
        let state = self.state(dir);
        assert_ne!(
            state, "MIXED",
            "{what}: the folder holds neither the old nor the new set"
        );
        let next = run_cmd(&self.scenario, dir, 2, &[]).output().unwrap();
        assert!(
            next.status.success(),
            "{what}: the next run failed: {}",
            String::from_utf8_lossy(&next.stderr)
        );
        assert_eq!(
            self.state(dir),
            "new",
            "{what}: the next run did not write the new set"
        );
        assert_eq!(
            leftovers(dir),
            Vec::<String>::new(),
            "{what}: left over after the next run"
        );
        state
    }
}

#[test]
fn a_kill_at_every_file_boundary_leaves_the_old_or_the_new_set() {
    let f = fixture(1500);
    // Every file of the set, the marker included, is one boundary; one more never pauses.
    let files = f.new.len();
    let mut points: Vec<String> = (1..=files + 1)
        .map(|n| format!("pause-after-file:{n}"))
        .collect();
    points.extend(["pause-before-swap".into(), "pause-after-swap".into()]);
    let mut outcomes = BTreeMap::new();
    for (i, point) in points.iter().enumerate() {
        let dir = copy(&f.old_dir, &f.root.join(format!("k{i}")));
        let mut child = run_cmd(&f.scenario, &dir, 2, &[])
            .env("SPECPROBE_FAULT", point)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        if !paused(&mut child) {
            // Only the boundary after the last file (there is none) may end without pausing.
            assert_eq!(
                point,
                &format!("pause-after-file:{}", files + 1),
                "{point} never paused"
            );
            assert_eq!(reap(child).code, Some(0));
            continue;
        }
        signal(&child, libc::SIGKILL);
        assert_eq!(reap(child).code, None, "{point}: killed");
        *outcomes.entry(f.check_after(&dir, point)).or_insert(0) += 1;
    }
    // Killed at any file or before the swap: old; after it: new.
    assert_eq!(outcomes.get("old"), Some(&(files + 1)), "{outcomes:?}");
    assert_eq!(outcomes.get("new"), Some(&1), "{outcomes:?}");
}

#[test]
fn sigint_and_sigterm_stop_the_run_and_keep_the_earlier_results() {
    let f = fixture(500);
    for (sig, code) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        let dir = copy(&f.old_dir, &f.root.join(format!("sig{sig}")));
        // A run far longer than the test: only the signal can end it.
        let mut child = run_cmd(
            &f.scenario,
            &dir,
            2,
            &["--horizon", "10000000000", "--runs", "4"],
        )
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let sent = Instant::now();
        signal(&child, sig);
        let mut err = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
        let ended = reap(child);
        let waited = sent.elapsed();
        assert_eq!(ended.code, Some(code), "signal {sig}: {err}");
        assert!(
            err.contains("earlier results were left as they were"),
            "{err}"
        );
        // Cancellation is checked every 2^16 slots (well under a millisecond); the generous
        // bound only absorbs a loaded test machine. scripts/faults/kill.py measures the delay.
        assert!(
            waited < Duration::from_secs(5),
            "signal {sig}: exited after {waited:?}"
        );
        assert_eq!(f.state(&dir), "old", "signal {sig}");
        assert_eq!(leftovers(&dir), Vec::<String>::new());
    }
}

#[test]
fn a_second_run_into_a_busy_folder_fails_at_once_while_the_first_completes() {
    // The claim is about overlapping runs, so the test makes them overlap: on a fast machine
    // the first run can finish between taking its lock and the second's start (the second
    // then succeeds, correctly, as there is no busy folder any more); that attempt proves
    // nothing, and the next one is four times longer.
    for (attempt, horizon) in [3_000_000u64, 12_000_000, 48_000_000]
        .into_iter()
        .enumerate()
    {
        let tmp = tempfile::tempdir().unwrap();
        let scenario = scenario_file(tmp.path(), "s.ron", &fig1a(horizon, 2, "(policy: CcUcb())"));
        let out = tmp.path().join("busy");
        let first = run_cmd(&scenario, &out, 1, &[])
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // The first run holds the lock from before it simulates until its swap.
        let lock = tmp.path().join(".busy.lock");
        let start = Instant::now();
        while !lock.exists() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the first run never took the lock"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        let second = run_cmd(&scenario, &out, 2, &[]).output().unwrap();
        let err = String::from_utf8_lossy(&second.stderr);
        if second.status.code() == Some(0) && attempt < 2 {
            assert_eq!(reap(first).code, Some(0), "the first run completes");
            continue;
        }
        assert_eq!(second.status.code(), Some(1), "{err}");
        assert!(err.contains("being written by another specprobe"), "{err}");
        assert_eq!(reap(first).code, Some(0), "the first run completes");
        let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
        assert!(
            summary.contains("\"seed\": 1"),
            "the first run's results: {summary:.200}"
        );
        return;
    }
}

#[test]
fn planted_symlinks_at_every_temporary_name_are_never_followed() {
    let f = fixture(300);
    let victim = f.root.join("victim.txt");
    let victim_dir = f.root.join("victim-dir");
    std::fs::create_dir(&victim_dir).unwrap();
    std::fs::write(victim_dir.join("keep.txt"), "precious").unwrap();
    let parent = f.root.join("results");
    std::fs::create_dir(&parent).unwrap();
    let out = parent.join("fig");
    let inside = |n: &str| out.join(n);
    let beside = |n: &str| parent.join(n);
    let pid = std::process::id();
    let plants: Vec<(&str, Vec<PathBuf>, &Path)> = vec![
        (
            "staging-like names",
            ["AAAAAA", "abc123"]
                .iter()
                .map(|s| beside(&format!(".fig.staging-{s}")))
                .collect(),
            &victim_dir,
        ),
        (
            "old-set-like names",
            ["AAAAAA", "abc123"]
                .iter()
                .map(|s| beside(&format!(".fig.old-{s}")))
                .collect(),
            &victim_dir,
        ),
        (
            "older versions' temporary names",
            (pid..pid + 200)
                .flat_map(|p| {
                    [
                        inside(&format!(".summary.json.tmp-{p}")),
                        inside(&format!(".specprobe-write-test-{p}")),
                    ]
                })
                .collect(),
            &victim,
        ),
        (
            "files of the replaced folder",
            ["summary.json", "report.md", "regret.svg"]
                .iter()
                .map(|n| inside(n))
                .collect(),
            &victim,
        ),
    ];
    for (what, links, target) in plants {
        std::fs::write(&victim, "keep").unwrap();
        copy(&f.old_dir, &out);
        for link in &links {
            let _ = std::fs::remove_file(link);
            std::os::unix::fs::symlink(target, link).unwrap();
        }
        // Links under names the marker does not list are entries specprobe did not write:
        // refused without --force (nothing followed, nothing removed), replaced with it.
        let unlisted = what == "older versions' temporary names";
        if unlisted {
            let r = run_cmd(&f.scenario, &out, 2, &[]).output().unwrap();
            let err = String::from_utf8_lossy(&r.stderr);
            assert_eq!(r.status.code(), Some(1), "{what}: {err}");
            assert!(err.contains("did not write"), "{what}: {err}");
            assert!(links.iter().all(|l| l.is_symlink()), "{what}: a link went");
        }
        let force: &[&str] = if unlisted { &["--force"] } else { &[] };
        let r = run_cmd(&f.scenario, &out, 2, force).output().unwrap();
        assert!(
            r.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        assert_eq!(
            std::fs::read_to_string(&victim).unwrap(),
            "keep",
            "{what}: a link was followed"
        );
        assert_eq!(
            std::fs::read_to_string(victim_dir.join("keep.txt")).unwrap(),
            "precious",
            "{what}"
        );
        assert_eq!(
            std::fs::read_dir(&victim_dir).unwrap().count(),
            1,
            "{what}: written into the link's target"
        );
        for link in &links {
            if link.is_symlink() {
                std::fs::remove_file(link).unwrap();
            }
        }
    }
    // A link at the lock's name: refused, not followed.
    std::fs::write(&victim, "keep").unwrap();
    let lock = beside(".fig.lock");
    let _ = std::fs::remove_file(&lock);
    std::os::unix::fs::symlink(&victim, &lock).unwrap();
    let r = run_cmd(&f.scenario, &out, 2, &[]).output().unwrap();
    assert_eq!(r.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
}

/// Small scenario files that ask for too much.
fn bombs(dir: &Path) -> Vec<(&'static str, String)> {
    let one = "(theta: 0.5, cost: Bernoulli(0.4))";
    let counted = vec!["(count: 1048576, theta: 0.5, cost: Bernoulli(0.4))"; 64].join(",\n");
    let grid: Vec<String> = (0..400)
        .map(|i| {
            format!(
                r#"(label: "c{i}", channels: [(count: 4000, theta: 0.5, cost: Bernoulli(0.4))])"#
            )
        })
        .collect();
    let pairs: Vec<String> = (0..2000)
        .map(|i| format!(r#"(label: "c{i}", channels: [{one}, {one}])"#))
        .collect();
    let policies: Vec<String> = (0..40)
        .map(|i| format!(r#"(label: "p{i}", policy: CcUcb)"#))
        .collect();
    let seeds: Vec<String> = (0..1000).map(|i| i.to_string()).collect();
    let counts: Vec<String> = (0..1000).map(|i| (100_000 + i).to_string()).collect();
    let segments = |n: u64| -> String {
        (0..n)
            .map(|i| format!("(until: {}, theta: 0.{})", 10 * i + 10, 3 + 4 * (i % 2)))
            .chain(["(theta: 0.5)".to_string()])
            .collect::<Vec<_>>()
            .join(", ")
    };
    let fifo = dir.join("fifo");
    let status = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    let identification = |family: &str, runs: &str| {
        format!(
            r#"Identification(name: "b", runs: {runs}, instances: [(label: "x", family: {family}, k: Fixed(1))], algorithms: [Lucb1])"#
        )
    };
    vec![
        ("64 × count 2^20", format!(r#"Regret(name: "b", horizon: 10, runs: 1, channels: [{counted}], policies: [(policy: CcUcb)])"#)),
        ("grid of 400 × 4000 channels", format!(r#"Regret(name: "b", horizon: 1000, runs: 2, grid: [{}], policies: [(policy: CcUcb)])"#, grid.join(",\n"))),
        ("grid × policies × checkpoints", format!(r#"Regret(name: "b", horizon: 1000000, runs: 2000000, checkpoints: (per_decade: 20, linear: 10000), grid: [{}], policies: [{}])"#, pairs.join(",\n"), policies.join(", "))),
        ("runs 10^12", format!(r#"Regret(name: "b", horizon: 10, runs: 1000000000000, channels: [{one}], policies: [(policy: CcUcb)])"#)),
        ("horizon 10^18", format!(r#"Regret(name: "b", horizon: 1000000000000000000, runs: 1, channels: [{one}], policies: [(policy: CcUcb)])"#)),
        ("sweep of 1000 cells × 100 000 channels", format!(r#"Regret(name: "b", horizon: 10, runs: 1, channels: [(count: 100000, theta: 0.5, cost: Bernoulli(0.4))], policies: [(policy: CcUcb)], sweep: (field: "seed", values: [{}]))"#, seeds.join(", "))),
        ("Channels(/dev/zero)", identification(r#"Channels(scenario: "/dev/zero")"#, "1")),
        ("Channels(a FIFO)", identification(r#"Channels(scenario: "fifo")"#, "1")),
        ("Channels(itself)", identification(r#"Channels(scenario: "bomb.ron")"#, "1")),
        ("trace from /dev/urandom", r#"Regret(name: "b", horizon: 10, runs: 1, channels: [(occupancy: Trace(file: "/dev/urandom", column: 1), cost: Bernoulli(0.4))], policies: [(policy: CcUcb)])"#.to_string()),
        ("sweep of 1000 counts of 10^5 channels", format!(r#"Regret(name: "b", horizon: 10, runs: 1, channels: [(count: 1, theta: 0.5, cost: Bernoulli(0.4))], policies: [(policy: CcUcb)], sweep: (field: "channels[0].count", values: [{}]))"#, counts.join(", "))),
        ("60 000 piecewise segments × 3 000 channels", format!(r#"Regret(name: "b", horizon: 1000000, runs: 1, channels: [(count: 3000, occupancy: Piecewise([{}]), cost: Bernoulli(0.4))], policies: [(policy: CcUcb)])"#, segments(60_000))),
        ("200 000 piecewise segments at horizon 2^40", format!(r#"Regret(name: "b", horizon: 1099511627776, runs: 1, channels: [(occupancy: Piecewise([{}]), cost: Bernoulli(0.4))], policies: [(policy: CcUcb)])"#, segments(200_000))),
        ("OnOff with periods of 1e-9 slots", r#"Regret(name: "b", horizon: 1000, runs: 1, channels: [(occupancy: OnOff(idle: Exponential(mean: 1e-9), busy: Exponential(mean: 1e-9)), cost: Bernoulli(0.4))], policies: [(policy: CcUcb)])"#.to_string()),
        ("OnOff with LogNormal(mu: -700)", r#"Regret(name: "b", horizon: 1000, runs: 1, channels: [(occupancy: OnOff(idle: LogNormal(mu: -700, sigma: 1), busy: Exponential(mean: 2)), cost: Bernoulli(0.4))], policies: [(policy: CcUcb)])"#.to_string()),
        ("200 instances of 2^20 arms", format!(r#"Identification(name: "b", runs: 1, instances: [{}], algorithms: [Lucb1])"#, (0..200).map(|i| format!(r#"(label: "x{i}", family: OneSparse, k: Fixed(1), arms: [1048576])"#)).collect::<Vec<_>>().join(", "))),
        ("3000 values of N", format!(r#"Identification(name: "b", runs: 1, instances: [(label: "x", family: OneSparse, k: Fixed(1), arms: [{}])], algorithms: [Lucb1])"#, (0..3000).map(|i| (1000 + i).to_string()).collect::<Vec<_>>().join(", "))),
        ("41 cells of 2^18 detectors under TimeLeft", format!(r#"Regret(name: "b", weights: (energy: 1.0, delay: 0.0), horizon: 1000, runs: 2, slot: (duration: 1.0), reward: TimeLeft(rate: 1.0), channels: [(count: 262144, theta: 0.5, energy: Constant(0.01), delay: Constant(0.1), sensing: EnergyDetector(snr_db: -15.0, sample_rate: 6e6, duration: 0.0002, target_pd: 0.9))], policies: [(policy: CcUcb), (policy: Oracle)], sweep: (field: "channels[0].theta", values: [{}]))"#, (10..=50).map(|i| format!("0.{i:02}")).collect::<Vec<_>>().join(", "))),
        ("20 piecewise channels × 1000 segments under TimeLeft", format!(r#"Regret(name: "b", weights: (energy: 1.0, delay: 0.0), slot: (duration: 1.0), reward: TimeLeft(rate: 1.0), horizon: 100000, runs: 2, channels: [{}], policies: [(policy: CcUcb)])"#, (0..20).map(|c| format!("(energy: Constant(0.01), delay: Constant(0.0{}), occupancy: Piecewise([{}]))", c % 9 + 1, segments(1000))).collect::<Vec<_>>().join(", "))),
        ("1024 users on 2^17 detectors", r#"MultiUser(name: "m", seed: 1, horizon: 1000, runs: 2, users: 1024, collision: AllLost, feedback: SensingThenCollision, channels: [(count: 131072, theta: 0.5, cost: Constant(0.0), sensing: EnergyDetector(snr_db: -15.0, sample_rate: 6e6, duration: 0.0002, target_pd: 0.9))], policies: [(policy: McTopM(index: KlUcb))])"#.to_string()),
        ("identification 10^12 runs", r#"Identification(name: "b", runs: 1000000000000, instances: [(label: "x", family: OneSparse, k: Fixed(1), arms: [1000000])], algorithms: [Lucb1])"#.to_string()),
    ]
}

#[test]
fn resource_bombs_are_refused_within_a_second_of_cpu_and_100_mb() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("bomb.ron");
    let out = tmp.path().join("out");
    for (name, text) in bombs(tmp.path()) {
        std::fs::write(&path, text).unwrap();
        for command in [
            vec!["validate"],
            vec!["run", "--out", out.to_str().unwrap(), "--no-charts"],
        ] {
            let err_file = tmp.path().join("stderr");
            let child = Command::new(BIN)
                .arg("-v")
                .args(&command[..1])
                .arg(&path)
                .args(&command[1..])
                .current_dir(tmp.path())
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(&err_file).unwrap())
                .spawn()
                .unwrap();
            let started = Instant::now();
            let ended = reap(child);
            let err = std::fs::read_to_string(&err_file).unwrap();
            let what = format!("{name} ({})", command[0]);
            assert_eq!(ended.code, Some(1), "{what}: {err}");
            assert!(err.contains("error"), "{what}: {err}");
            // CPU time, not wall time: other tests share the machine. A hang (a FIFO read)
            // would show in the wall time.
            assert!(
                ended.cpu < Duration::from_secs(1),
                "{what}: {:?} of CPU",
                ended.cpu
            );
            assert!(started.elapsed() < Duration::from_secs(20), "{what}: hung");
            let peak = peak_mb(&err);
            assert!(peak < 100.0, "{what}: {peak:.0} MB");
            assert!(!out.exists(), "{what}: wrote output");
        }
    }
}

/// Result files a few KB on disk but sparse to 3 GiB (their holes read as zeros) are refused at
/// the first hole by `merge` and `plot`, within a second of CPU and 100 MB, instead of being read
/// whole.
#[test]
fn sparse_result_files_are_refused_without_being_read_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = scenario_file(tmp.path(), "s.ron", &fig1a(50, 4, "(policy: CcUcb())"));
    let (sh0, sh1, done) = (
        tmp.path().join("sh0"),
        tmp.path().join("sh1"),
        tmp.path().join("done"),
    );
    for (i, dir) in [&sh0, &sh1].into_iter().enumerate() {
        let shard = format!("{i}/2");
        let ok = run_cmd(&scenario, dir, 1, &["--shard", &shard])
            .status()
            .unwrap();
        assert!(ok.success());
    }
    assert!(
        run_cmd(&scenario, &done, 1, &[])
            .status()
            .unwrap()
            .success()
    );
    let sparse = |file: &Path| {
        let f = std::fs::OpenOptions::new().append(true).open(file).unwrap();
        f.set_len(3 << 30).unwrap();
    };
    sparse(&sh1.join("partial.json"));
    sparse(&done.join("summary.json"));
    let merged = tmp.path().join("merged");
    let (sh0, sh1) = (sh0.to_str().unwrap(), sh1.to_str().unwrap());
    for (what, args) in [
        (
            "merge",
            vec!["merge", sh0, sh1, "--out", merged.to_str().unwrap()],
        ),
        ("plot", vec!["plot", done.to_str().unwrap()]),
    ] {
        let err_file = tmp.path().join("stderr");
        let child = Command::new(BIN)
            .arg("-v")
            .args(&args)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&err_file).unwrap())
            .spawn()
            .unwrap();
        let ended = reap(child);
        let err = std::fs::read_to_string(&err_file).unwrap();
        assert_eq!(ended.code, Some(1), "{what}: {err}");
        assert!(
            err.contains("NUL byte") && err.contains("sparse"),
            "{what}: {err}"
        );
        assert!(
            ended.cpu < Duration::from_secs(1),
            "{what}: {:?}",
            ended.cpu
        );
        let peak = peak_mb(&err);
        assert!(peak < 100.0, "{what}: {peak:.0} MB");
    }
    assert!(!merged.exists());
}

/// A file-size limit (`ulimit -f`) makes a write fail with EFBIG, reported as an error (exit 1)
/// with the earlier results left as they were, instead of a silent death by SIGXFSZ (153).
#[test]
fn a_file_size_limit_is_an_error_not_a_silent_death() {
    let tmp = tempfile::tempdir().unwrap();
    let policies = "(policy: CcUcb()), (policy: Oracle)";
    let scenario = scenario_file(tmp.path(), "s.ron", &fig1a(200, 400, policies));
    let out = tmp.path().join("out");
    assert!(run_cmd(&scenario, &out, 1, &[]).status().unwrap().success());
    let before = snapshot(&out);
    let cmd = format!(
        "ulimit -f 16 && exec {BIN} run {} --out {} --seed 2 --format svg",
        scenario.display(),
        out.display()
    );
    let o = Command::new("sh").args(["-c", &cmd]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("File too large"), "{err}");
    assert_eq!(snapshot(&out), before, "the earlier results are intact");
}

/// Ctrl-C stops within a second even in a step that does not look at the flag: here `validate`
/// computing a trace's statistics over a horizon of 2^40 slots (64 replays of the trace) for
/// 2 000 channel entries (copies of one entry, `count`, share one computation; entries do not).
#[test]
fn sigint_during_a_long_set_up_stops_within_a_second() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("traces")).unwrap();
    std::fs::copy(
        "scenarios/traces/example.csv",
        tmp.path().join("traces/example.csv"),
    )
    .unwrap();
    let entry = r#"(occupancy: Trace(file: "traces/example.csv", column: 1, wrap: true), cost: Bernoulli(0.4)),"#;
    let scenario = scenario_file(
        tmp.path(),
        "t.ron",
        &format!(
            r#"Regret(name: "t", horizon: 1099511627776, runs: 1,
            channels: [{}],
            policies: [(policy: CcUcb)])"#,
            entry.repeat(2000)
        ),
    );
    let mut child = Command::new(BIN)
        .args(["validate", scenario.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(800));
    assert!(child.try_wait().unwrap().is_none(), "validate ended early");
    let sent = Instant::now();
    signal(&child, libc::SIGINT);
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    let ended = reap(child);
    assert_eq!(ended.code, Some(130), "{stderr}");
    assert!(
        sent.elapsed() < Duration::from_secs(1),
        "{:?}",
        sent.elapsed()
    );
    assert!(stderr.contains("stopped"), "{stderr}");
}
