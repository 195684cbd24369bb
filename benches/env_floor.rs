//! The floor under `specprobe.envs` (part 8 of `benches/speed.rs`): what the world itself
//! costs a step, in Rust, with no Python call, no action decoding and no observation, on the
//! training-environment bench's workloads (`python/bench/envs_bench.py`).
//!
//! - K = 9 Markov channels with Bernoulli(0.3) costs, 512 worlds (in cache), each stepped
//!   with a fixed list: the bench's (the channels of positive score in decreasing score,
//!   uniform scores in [−1, 1]) or UCR-T1's; and the engine's own slot loop playing UCR-T1
//!   (`Oracle`) on the same channels, one run, for the loop without a stepper. With the
//!   bench's lists the agent's probes and the benchmark's walk the Markov paths apart (each
//!   event of a path is a counter-based draw); with UCR-T1's the benchmark reuses the agent's.
//! - The same channels and lists at 4 096 worlds (the bench's N, out of cache): N steppers
//!   against one [`Batch`] of N copies (the copies' state in shared arrays, what the
//!   slot-level vector environment steps), paired in one run.
//! - Six users, one channel each, on i.i.d. channels, 64 worlds (agent-steps).

use specprobe::{Batch, Scenario, Simulation, Stepper};
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

const K: usize = 9;
const WORLDS: usize = 512;

fn markov(policy: &str, horizon: u64) -> Scenario {
    let channels: Vec<String> = (0..K)
        .map(|i| {
            format!(
                "(occupancy: Markov(idle_to_busy: {:?}, busy_to_idle: 0.3), cost: Bernoulli(0.3))",
                0.1 + 0.02 * i as f64
            )
        })
        .collect();
    let text = format!(
        "Regret(name: \"env-bench\", seed: 1, horizon: {horizon}, runs: 1, channels: [{}], policies: [(policy: {policy})])",
        channels.join(", ")
    );
    specprobe::parse(&text, Path::new("env-bench.ron")).expect("a valid bench scenario")
}

/// Uniform draws in [0, 1) from a fixed seed (the lists are data, not part of the timing).
fn uniforms(n: usize) -> Vec<f64> {
    let mut x: u64 = 12_345;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

/// The bench's lists: per world, the channels of positive score in decreasing score.
fn score_lists(worlds: usize) -> Vec<Vec<usize>> {
    uniforms(worlds * K)
        .chunks(K)
        .map(|u| {
            let scores: Vec<f64> = u.iter().map(|x| 2.0 * x - 1.0).collect();
            let mut list: Vec<usize> = (0..K).filter(|&c| scores[c] > 0.0).collect();
            list.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
            list
        })
        .collect()
}

fn worlds(one: &Stepper, n: usize) -> Vec<Stepper> {
    (0..n as u64)
        .map(|run| {
            let mut w = one.clone();
            w.reset(run);
            w
        })
        .collect()
}

/// Steps every world `steps` times with its lists (a world at its horizon starts its run
/// again), prefetching ahead as the vector environment did; returns the summed reward.
fn step_all(worlds: &mut [Stepper], lists: &[Vec<Vec<usize>>], steps: usize) -> f64 {
    let mut refs: Vec<&[usize]> = Vec::new();
    let mut sum = 0.0;
    for _ in 0..steps {
        for i in 0..worlds.len() {
            // Fetched ahead as the vector environment fetched its steppers: a world's struct
            // three ahead, its blocks' headers two ahead, its blocks one ahead.
            if let Some(w) = worlds.get(i + 3) {
                specprobe::cache_lines(std::slice::from_ref(w), &mut |p| prefetch(p));
            }
            if let Some(w) = worlds.get(i + 2) {
                w.hot_headers(prefetch);
            }
            if let (Some(w), Some(l)) = (worlds.get(i + 1), lists.get(i + 1)) {
                w.hot_blocks(l, prefetch);
            }
            let (w, l) = (&mut worlds[i], &lists[i]);
            if w.slot() == w.horizon() {
                w.reset(w.run());
            }
            refs.clear();
            refs.extend(l.iter().map(Vec::as_slice));
            let o = w.step(&refs).expect("a valid action");
            sum += o.users.iter().map(|u| u.reward).sum::<f64>();
        }
    }
    sum
}

/// Brings the cache line at `p` in (x86-64; nothing elsewhere).
fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of x86-64's baseline; a prefetch never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Steps every copy of `batch` `steps` times with its list (a copy at its horizon starts its
/// run again), prefetching two copies ahead as the vector environment does
/// (`Batch::hot_rows`); returns the summed reward.
fn step_batch(batch: &mut Batch, lists: &[Vec<usize>], steps: usize) -> f64 {
    let mut sum = 0.0;
    for _ in 0..steps {
        for (i, l) in lists.iter().enumerate() {
            if let Some(next) = lists.get(i + 2) {
                batch.part().hot_rows(i + 2, next, prefetch);
            }
            if batch.slot(i) == batch.horizon() {
                batch.reset(i, batch.run(i));
            }
            batch.step(i, l).expect("a valid action");
            sum += batch.last(i).1;
        }
    }
    sum
}

/// One workload: its name, and a closure that runs it once and returns how many steps it made.
type Workload = (&'static str, Box<dyn FnMut() -> u64>);

/// The workloads, each ready to run (`steps`: steps per world and run).
pub(crate) fn workloads(steps: usize) -> Vec<Workload> {
    let scenario = markov("Oracle", 1_000_000);
    let Scenario::Regret(s) = &scenario else {
        unreachable!()
    };
    let one = Stepper::regret(s, 0).expect("one configuration");
    let oracle = one.environment().optimum().list.clone();
    let bench: Vec<Vec<Vec<usize>>> = score_lists(WORLDS).into_iter().map(|l| vec![l]).collect();
    let best: Vec<Vec<Vec<usize>>> = vec![vec![oracle]; WORLDS];
    let mut out: Vec<Workload> = Vec::new();
    for (name, lists) in [
        (
            "K = 9 Markov channels, the bench's lists (uniform scores, the positive ones in order)",
            bench,
        ),
        (
            "the same channels, UCR-T1's list (the benchmark reuses the agent's probes)",
            best,
        ),
    ] {
        let mut ws = worlds(&one, WORLDS);
        out.push((
            name,
            Box::new(move || {
                black_box(step_all(&mut ws, &lists, steps));
                (WORLDS * steps) as u64
            }),
        ));
    }
    const MANY: usize = 4096;
    let lists: Vec<Vec<Vec<usize>>> = score_lists(MANY).into_iter().map(|l| vec![l]).collect();
    let mut ws = worlds(&one, MANY);
    let per_run = (steps * WORLDS / MANY).max(1);
    out.push((
        "4 096 worlds, the bench's lists: `Stepper::step` each",
        Box::new(move || {
            black_box(step_all(&mut ws, &lists, per_run));
            (MANY * per_run) as u64
        }),
    ));
    let lists = score_lists(MANY);
    let mut batch = Batch::regret(s, 0, MANY).expect("one configuration");
    out.push((
        "4 096 worlds, the bench's lists: one `Batch` of 4 096 copies (rows prefetched two ahead)",
        Box::new(move || {
            black_box(step_batch(&mut batch, &lists, per_run));
            (MANY * per_run) as u64
        }),
    ));
    let horizon = (WORLDS * steps) as u64;
    let engine = markov("Oracle", horizon);
    out.push((
        "the engine's own slot loop playing UCR-T1 there (`specprobe run`'s, one run)",
        Box::new(move || {
            black_box(
                Simulation::new(engine.clone())
                    .threads(1)
                    .run()
                    .expect("the bench scenario runs"),
            );
            horizon
        }),
    ));
    let (users, n) = (6, 64);
    let channels: Vec<String> = (0..K)
        .map(|i| format!("(theta: {:?}, cost: Constant(0.0))", 0.1 * (i + 1) as f64))
        .collect();
    let text = format!(
        "MultiUser(name: \"env-bench-m\", seed: 1, horizon: 1000000, runs: 1, users: {users}, timing: Synchronous, channels: [{}], policies: [(policy: McTopM(index: KlUcb))])",
        channels.join(", ")
    );
    let Scenario::MultiUser(m) = specprobe::parse(&text, Path::new("m.ron")).expect("valid") else {
        unreachable!()
    };
    let one = Stepper::multi_user(&m, true);
    let lists: Vec<Vec<Vec<usize>>> = uniforms(n * users)
        .chunks(users)
        .map(|u| u.iter().map(|x| vec![(x * K as f64) as usize]).collect())
        .collect();
    let mut ws = worlds(&one, n);
    let per_run = (steps * WORLDS / n).max(1);
    out.push((
        "six users, one channel each, i.i.d. channels (agent-steps, 64 worlds)",
        Box::new(move || {
            black_box(step_all(&mut ws, &lists, per_run));
            (n * users * per_run) as u64
        }),
    ));
    out
}

/// Runs every workload `repeat` times, interleaved (A B C D A B C D …), timing each with
/// `clock`; returns each one's name and its median nanoseconds per step.
pub(crate) fn measure(
    steps: usize,
    repeat: usize,
    clock: fn() -> Duration,
) -> Vec<(&'static str, f64)> {
    let mut loads = workloads(steps);
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); loads.len()];
    for _ in 0..repeat {
        for (load, t) in loads.iter_mut().zip(&mut times) {
            let t0 = clock();
            let n = (load.1)();
            t.push((clock() - t0).as_secs_f64() * 1e9 / n as f64);
        }
    }
    loads
        .iter()
        .zip(times)
        .map(|(l, mut t)| {
            t.sort_by(f64::total_cmp);
            (l.0, t[t.len() / 2])
        })
        .collect()
}
