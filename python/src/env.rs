//! The training environments' core (`specprobe.envs`): N copies of a scenario's world stepped
//! in Rust in one call, observations, rewards and flags written into buffers that NumPy views
//! without copying (the Python wrapper builds the arrays over them once).
//!
//! Each copy is the engine's own world (one user's: a row of a [`Batch`], the copies' state in
//! shared arrays; several users': a [`Stepper`]), so that copy i of a vector seeded S plays
//! run i of the scenario with seed S, draw for draw, as `specprobe run` does. Its later
//! episodes play runs i + e·2³² (episode e): a copy's trajectory never depends on how many
//! copies there are, on the threads, or on which process steps it.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use specprobe::math;
use specprobe::{Batch, BatchPart, BatchScratch, Scenario, StepError, Stepper};

/// A copy's later episodes: episode `e` of copy `i` plays run `i + e·EPISODE_STRIDE`.
const EPISODE_STRIDE: u64 = 1 << 32;

/// Copies stepped, reset or built (per thread) between two looks at Python's signal handlers:
/// a call over many copies stops within milliseconds of Ctrl-C, and one over fewer never
/// looks (the bench's 4 096 copies are one batch).
const SIGNAL_BATCH: usize = 4096;

/// The fewest user-copies a step gives each of its threads (`threads=n` uses fewer threads
/// for fewer copies; the results never depend on it). A thread is started for each step,
/// which costs about what 128 copies take to step: before this rule, with 2 threads, 16
/// copies took 55 µs a step against 21 µs on one thread, 64 took 65 against 47, and 512 were
/// 1.54× faster (the bench's K = 9 Markov model, wall time, medians of 7 interleaved rounds).
const THREAD_SHARE: usize = 256;

/// How many copies ahead a batch's rows are prefetched.
const AHEAD: usize = 2;

/// How an action names a user's list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ActionKind {
    /// K scores: the channels of positive score, in decreasing score (ties: the lower channel).
    Scores,
    /// K entries, channels then the stop symbol K (what follows it is ignored; a channel
    /// already listed is skipped).
    List,
    /// One channel, or K for silence (a classic world).
    Channel,
}

impl ActionKind {
    fn parse(action: &str) -> PyResult<ActionKind> {
        match action {
            "scores" => Ok(ActionKind::Scores),
            "list" => Ok(ActionKind::List),
            "channel" => Ok(ActionKind::Channel),
            other => Err(PyValueError::new_err(format!(
                "action: {other:?} is not an action kind (scores, list or channel)"
            ))),
        }
    }
}

/// What happens at the end of an episode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Autoreset {
    /// The next step resets the copy (its action ignored), as Gymnasium's `NEXT_STEP`.
    NextStep,
    /// The step that ends the episode resets the copy and returns the new episode's first
    /// observation; the last one goes to the final-observation buffer (`SAME_STEP`).
    SameStep,
    /// Never: a copy that ended must be reset by `reset(mask)` before it steps again.
    Disabled,
}

impl Autoreset {
    fn parse(mode: &str) -> PyResult<Autoreset> {
        match mode {
            "next_step" => Ok(Autoreset::NextStep),
            "same_step" => Ok(Autoreset::SameStep),
            "disabled" => Ok(Autoreset::Disabled),
            other => Err(PyValueError::new_err(format!(
                "autoreset_mode: {other:?} is not a mode (next_step, same_step or disabled)"
            ))),
        }
    }
}

/// Which parts an observation holds, in this order (see the Python module's docs).
#[derive(Clone, Copy, Debug)]
struct Parts {
    last: bool,
    stats: bool,
    time: bool,
    /// Slots the `last` part shows, the most recent first (the window of history).
    window: usize,
}

/// The most slots the `last` part may show.
const MAX_WINDOW: usize = 1024;

impl Parts {
    /// Floats per user: 3 per channel and slot of the window for `last`, 3 per channel for
    /// `stats`, 1 for `time`.
    fn dim(self, k: usize) -> usize {
        3 * k * self.window * usize::from(self.last)
            + 3 * k * usize::from(self.stats)
            + usize::from(self.time)
    }
}

/// One probe as a world reports it: `(channel, sensed idle, observed cost)`.
type Probe = (usize, bool, f64);

/// One slot's probes as the `last` part shows them: per channel probed (0/1), sensed idle
/// (0/1) and the probe's cost; zeros for a channel not probed (or no slot).
fn write_slot(part: &mut [f32], probes: &[Probe]) {
    part.iter_mut().for_each(|x| *x = 0.0);
    for &(c, idle, cost) in probes {
        part[3 * c] = 1.0;
        part[3 * c + 1] = f32::from(u8::from(idle));
        part[3 * c + 2] = cost as f32;
    }
}

/// Every copy's statistics of what its users probed, copy i's in row i of each array (not
/// a heap block per copy: a step reads the rows in copy order).
#[derive(Clone, Debug)]
struct SeenRows {
    /// Per copy, user and channel: probes, idle findings and summed costs.
    counts: Vec<[f64; 3]>,
    /// The observation's `stats` part, per copy, user and channel `(ln(1 + n) / ln(1 + T),
    /// idle / n, cost / n)`, kept as a probe changes them: a step copies it rather than
    /// computing a logarithm and two divisions per channel.
    obs: Vec<f32>,
    /// The `last` part's older slots, per copy and user the `window − 1` slots before the
    /// last one (most recent first), 3 floats per channel each: the last slot itself is read
    /// from the world.
    recent: Vec<f32>,
    /// User-channels of a copy.
    len: usize,
    /// Floats of a copy's older slots.
    older: usize,
}

impl SeenRows {
    /// For `n` copies of `users × k` user-channels, and a `last` part of `window` slots.
    fn new(n: usize, users: usize, k: usize, window: usize) -> SeenRows {
        let len = users * k;
        let older = 3 * len * (window - 1);
        SeenRows {
            counts: vec![[0.0; 3]; n * len],
            obs: vec![0.0; n * 3 * len],
            recent: vec![0.0; n * older],
            len,
            older,
        }
    }

    fn as_mut(&mut self) -> SeenMut<'_> {
        SeenMut {
            counts: &mut self.counts,
            obs: &mut self.obs,
            recent: &mut self.recent,
            len: self.len,
            older: self.older,
        }
    }
}

/// A contiguous range of copies' rows of [`SeenRows`].
struct SeenMut<'a> {
    counts: &'a mut [[f64; 3]],
    obs: &'a mut [f32],
    recent: &'a mut [f32],
    len: usize,
    older: usize,
}

/// One copy's statistics (its rows of [`SeenRows`]).
struct Seen<'a> {
    counts: &'a mut [[f64; 3]],
    obs: &'a mut [f32],
    recent: &'a mut [f32],
}

impl<'a> SeenMut<'a> {
    fn split_at(self, at: usize) -> (SeenMut<'a>, SeenMut<'a>) {
        let (len, older) = (self.len, self.older);
        let (c1, c2) = self.counts.split_at_mut(at * len);
        let (o1, o2) = self.obs.split_at_mut(at * 3 * len);
        let (r1, r2) = self.recent.split_at_mut(at * older);
        let part = |counts, obs, recent| SeenMut {
            counts,
            obs,
            recent,
            len,
            older,
        };
        (part(c1, o1, r1), part(c2, o2, r2))
    }

    /// Copy `i`'s rows.
    #[inline]
    fn row(&mut self, i: usize) -> Seen<'_> {
        let (len, older) = (self.len, self.older);
        Seen {
            counts: &mut self.counts[i * len..(i + 1) * len],
            obs: &mut self.obs[i * 3 * len..(i + 1) * 3 * len],
            recent: &mut self.recent[i * older..(i + 1) * older],
        }
    }

    /// Copy `i`'s `stats` part and older slots.
    #[inline]
    fn parts(&self, i: usize) -> (&[f32], &[f32]) {
        let (len, older) = (self.len, self.older);
        (
            &self.obs[i * 3 * len..(i + 1) * 3 * len],
            &self.recent[i * older..(i + 1) * older],
        )
    }
}

impl Seen<'_> {
    fn clear(&mut self) {
        self.counts.iter_mut().for_each(|x| *x = [0.0; 3]);
        self.obs.iter_mut().for_each(|x| *x = 0.0);
        self.recent.iter_mut().for_each(|x| *x = 0.0);
    }

    /// Moves each of the `users` users' window one slot back: the slot that was last (user
    /// u's probes `last(u)`, none before the first slot) becomes the most recent of the older
    /// ones.
    fn push_slot<'p>(&mut self, last: impl Fn(usize) -> &'p [Probe], users: usize, k: usize) {
        let row = 3 * k;
        let older = self.recent.len() / users;
        for u in 0..users {
            let window = &mut self.recent[u * older..(u + 1) * older];
            window.copy_within(..older - row, row);
            write_slot(&mut window[..row], last(u));
        }
    }

    /// Counts a probe of channel-of-user `j`; `scaled`: the scaled count's table.
    #[inline]
    fn add(&mut self, j: usize, idle: bool, cost: f64, scaled: &Scaled) {
        let c = &mut self.counts[j];
        c[0] += 1.0;
        c[1] += f64::from(u8::from(idle));
        c[2] += cost;
        let n = c[0];
        let o = &mut self.obs[3 * j..3 * j + 3];
        o[0] = scaled.of(n);
        o[1] = (c[1] / n) as f32;
        o[2] = (c[2] / n) as f32;
    }
}

/// The observation's scaled count `ln(1 + n) / ln(1 + T)`, tabled for the first counts (every
/// count an episode of up to 4 096 slots reaches) rather than a logarithm per probe. The table
/// holds the very values computed, so the observation does not depend on it.
#[derive(Clone, Debug)]
struct Scaled {
    scale: f64,
    table: Vec<f32>,
}

impl Scaled {
    fn new(steps: u64) -> Scaled {
        let scale = 1.0 / math::ln(1.0 + steps as f64);
        let len = steps.min(4096) as usize + 1;
        let mut s = Scaled {
            scale,
            table: Vec::new(),
        };
        s.table = (0..len).map(|n| s.compute(n as f64)).collect();
        s
    }

    fn compute(&self, n: f64) -> f32 {
        (math::ln(1.0 + n) * self.scale) as f32
    }

    #[inline]
    fn of(&self, n: f64) -> f32 {
        match self.table.get(n as usize) {
            Some(&x) => x,
            None => self.compute(n),
        }
    }
}

/// Every user-copy's decoded list, list j in row j (`k` entries, the first `lens[j]` used).
#[derive(Clone, Debug)]
struct Lists {
    entries: Vec<usize>,
    lens: Vec<usize>,
    k: usize,
}

impl Lists {
    fn new(lists: usize, k: usize) -> Lists {
        Lists {
            entries: vec![0; lists * k],
            lens: vec![0; lists],
            k,
        }
    }

    /// List `j`'s `k` entries and its length, to be written in place.
    #[inline]
    fn row_mut(&mut self, j: usize) -> (&mut [usize], &mut usize) {
        (
            &mut self.entries[j * self.k..(j + 1) * self.k],
            &mut self.lens[j],
        )
    }

    fn as_mut(&mut self) -> ListsMut<'_> {
        ListsMut {
            entries: &mut self.entries,
            lens: &mut self.lens,
            k: self.k,
        }
    }
}

/// A contiguous range of [`Lists`]' rows.
struct ListsMut<'a> {
    entries: &'a mut [usize],
    lens: &'a mut [usize],
    k: usize,
}

impl<'a> ListsMut<'a> {
    /// List `j` of the range.
    #[inline]
    fn get(&self, j: usize) -> &[usize] {
        &self.entries[j * self.k..j * self.k + self.lens[j]]
    }

    /// List `j`'s `k` entries and its length, to be written in place.
    #[inline]
    fn row_mut(&mut self, j: usize) -> (&mut [usize], &mut usize) {
        (
            &mut self.entries[j * self.k..(j + 1) * self.k],
            &mut self.lens[j],
        )
    }

    /// The first `at` lists and the rest.
    fn split_at(self, at: usize) -> (ListsMut<'a>, ListsMut<'a>) {
        let (e1, e2) = self.entries.split_at_mut(at * self.k);
        let (l1, l2) = self.lens.split_at_mut(at);
        let k = self.k;
        (
            ListsMut {
                entries: e1,
                lens: l1,
                k,
            },
            ListsMut {
                entries: e2,
                lens: l2,
                k,
            },
        )
    }

    /// Calls `f` with lists `from..from + u` as slices (on the stack for up to 16 users: no
    /// allocation a step).
    #[inline]
    fn with<R>(&self, from: usize, u: usize, f: impl FnOnce(&[&[usize]]) -> R) -> R {
        let mut few: [&[usize]; 16] = [&[]; 16];
        if u <= few.len() {
            for (j, r) in few[..u].iter_mut().enumerate() {
                *r = self.get(from + j);
            }
            f(&few[..u])
        } else {
            let many: Vec<&[usize]> = (from..from + u).map(|j| self.get(j)).collect();
            f(&many)
        }
    }
}

/// What one thread needs while it steps its copies: the batch's slot scratch, and the
/// scores' ranking's (see `ranked`). It takes [`BatchScratch`]'s alignment to two cache lines
/// (a struct is aligned as its most aligned field, and its size is a multiple of that), so the
/// threads' scratches, side by side in one vector and each written at every copy, share no
/// line.
struct ThreadScratch {
    batch: BatchScratch,
    keys: Vec<u64>,
}

const _: () = assert!(std::mem::align_of::<ThreadScratch>() >= 128);

impl ThreadScratch {
    fn new(k: usize) -> ThreadScratch {
        ThreadScratch {
            batch: BatchScratch::new(k),
            keys: vec![0; k],
        }
    }
}

/// N copies of a world, stepped together.
#[pyclass(module = "specprobe._specprobe")]
pub struct VecWorld {
    worlds: Worlds,
    /// One scratch per thread.
    scratch: Vec<ThreadScratch>,
    seen: SeenRows,
    scaled: Scaled,
    episode: Vec<u64>,
    /// A copy whose episode ended (and, under `NEXT_STEP`, resets at its next step).
    ended: Vec<bool>,
    k: usize,
    users: usize,
    /// Slots per episode (at most the horizon).
    steps: u64,
    parts: Parts,
    dim: usize,
    action: ActionKind,
    autoreset: Autoreset,
    threads: usize,
    obs: Vec<f32>,
    final_obs: Vec<f32>,
    reward: Vec<f64>,
    terminated: Vec<u8>,
    truncated: Vec<u8>,
    /// `_final_obs`: the copies whose last observation is in `final_obs` (`SAME_STEP`).
    has_final: Vec<u8>,
    oracle: Vec<f64>,
    regret: Vec<f64>,
    /// Copies whose action was ignored this step (they were reset, `NEXT_STEP`).
    reset_now: Vec<u8>,
    lists: Lists,
    /// The index of copy 0 among all copies of this scenario (its runs are `first + i`).
    first: u64,
    /// The action buffers the wrapper writes into (one of them is used: scores, or entries).
    scores_in: Vec<f32>,
    entries_in: Vec<i64>,
    /// Scratch of `decode_lists`: per channel, whether the list being decoded names it (all
    /// false between two lists; `list.contains` took 1.6 s a step for 1 024 lists of 4 096).
    listed: Vec<bool>,
    /// Set when Ctrl-C stopped a step or a reset part way: the copies before this index had
    /// been stepped (or reset), the others not, so the vector steps again only after a reset
    /// of every copy.
    interrupted: Option<usize>,
}

fn step_error(e: &StepError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// One buffer as the Python side views it: `(name, address, length, dtype)`.
type Buffer = (&'static str, usize, usize, &'static str);

/// `v` as a [`Buffer`] named `name`, of NumPy type `dtype`.
fn buffer<T>(name: &'static str, v: &[T], dtype: &'static str) -> Buffer {
    (name, v.as_ptr() as usize, v.len(), dtype)
}

#[pymethods]
impl VecWorld {
    /// `scenario`: a checked scenario's JSON text or path (see `load`); `n` copies; `steps`:
    /// slots per episode (default the horizon); `obs`: which parts; `action`: `scores`,
    /// `list` or `channel`; `autoreset`: `next_step`, `same_step` or `disabled`.
    #[new]
    #[pyo3(signature = (scenario, *, json, n, steps=None, experiment=0, seed=None,
        last=true, stats=true, time=true, window=1, action="scores", autoreset="next_step",
        threads=1, first=0))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        scenario: &str,
        json: bool,
        n: usize,
        steps: Option<u64>,
        experiment: usize,
        seed: Option<u64>,
        last: bool,
        stats: bool,
        time: bool,
        window: usize,
        action: &str,
        autoreset: &str,
        threads: usize,
        first: u64,
    ) -> PyResult<VecWorld> {
        if n == 0 {
            return Err(PyValueError::new_err("num_envs: must be at least 1"));
        }
        if threads == 0 || threads > specprobe::MAX_THREADS {
            return Err(PyValueError::new_err(format!(
                "threads: must lie in 1..={} (got {threads}), as the command line's --threads",
                specprobe::MAX_THREADS
            )));
        }
        let action = ActionKind::parse(action)?;
        let autoreset = Autoreset::parse(autoreset)?;
        let one = Worlds::load(py, scenario, json, experiment, action)?;
        let (k, users, horizon) = (one.channels(), one.users(), one.horizon());
        let steps = steps.unwrap_or(horizon);
        if steps == 0 || steps > horizon {
            return Err(PyValueError::new_err(format!(
                "max_episode_steps: must lie in 1..={horizon}, the scenario's horizon (got {steps})"
            )));
        }
        if !(1..=MAX_WINDOW).contains(&window) {
            return Err(PyValueError::new_err(format!(
                "window: the `last` part shows 1 to {MAX_WINDOW} slots (got {window})"
            )));
        }
        let parts = Parts {
            last,
            stats,
            time,
            window: if last { window } else { 1 },
        };
        let dim = parts.dim(k);
        if dim == 0 {
            return Err(PyValueError::new_err(
                "observation: choose at least one part (last, stats or time)",
            ));
        }
        check_memory(n, copy_bytes(k, users, parts.window))?;
        let worlds = one.copies(py, n)?;
        let mut v = VecWorld {
            worlds,
            scratch: (0..threads.max(1)).map(|_| ThreadScratch::new(k)).collect(),
            seen: SeenRows::new(n, users, k, parts.window),
            scaled: Scaled::new(steps),
            episode: vec![0; n],
            ended: vec![false; n],
            k,
            users,
            steps,
            parts,
            dim,
            action,
            autoreset,
            threads: threads.max(1),
            obs: vec![0.0; n * users * dim],
            final_obs: vec![0.0; n * users * dim],
            reward: vec![0.0; n * users],
            terminated: vec![0; n],
            truncated: vec![0; n],
            has_final: vec![0; n],
            oracle: vec![0.0; n],
            regret: vec![0.0; n],
            reset_now: vec![0; n],
            lists: Lists::new(n * users, k),
            first,
            scores_in: vec![
                0.0;
                if action == ActionKind::Scores {
                    n * users * k
                } else {
                    0
                }
            ],
            entries_in: match action {
                ActionKind::Scores => Vec::new(),
                ActionKind::List => vec![k as i64; n * users * k],
                ActionKind::Channel => vec![k as i64; n * users],
            },
            interrupted: None,
            listed: vec![false; k],
        };
        if let Some(seed) = seed {
            v.reseed(seed);
        }
        v.reset_all(py)?;
        // Built ready to step, but the first reset still starts episode 0 (run i).
        v.episode.iter_mut().for_each(|e| *e = 0);
        Ok(v)
    }

    /// `(channels, users, floats per observation, slots per episode, the horizon)`.
    fn shape(&self) -> (usize, usize, usize, u64, u64) {
        (
            self.k,
            self.users,
            self.dim,
            self.steps,
            self.worlds.horizon(),
        )
    }

    /// The smallest and largest cost a probe can show in an observation (the cost a learner
    /// observes: under `reward: TimeLeft` with the time it used).
    fn cost_range(&self) -> (f64, f64) {
        self.worlds.environment().observed_cost_range()
    }

    /// Every buffer as `(name, address, length, dtype)`: the Python side views them as NumPy
    /// arrays once (they never move: their lengths are fixed at construction).
    fn buffers(&self) -> Vec<Buffer> {
        vec![
            buffer("obs", &self.obs, "float32"),
            buffer("final_obs", &self.final_obs, "float32"),
            buffer("reward", &self.reward, "float64"),
            buffer("terminated", &self.terminated, "bool"),
            buffer("truncated", &self.truncated, "bool"),
            buffer("has_final", &self.has_final, "bool"),
            buffer("oracle", &self.oracle, "float64"),
            buffer("regret", &self.regret, "float64"),
            buffer("reset_now", &self.reset_now, "bool"),
            match self.action {
                ActionKind::Scores => buffer("action", &self.scores_in, "float32"),
                _ => buffer("action", &self.entries_in, "int64"),
            },
        ]
    }

    /// Reseeds every copy: copy i's next episode is run i of seed `seed`.
    fn seed(&mut self, py: Python<'_>, seed: u64) -> PyResult<()> {
        self.reseed(seed);
        self.reset_all(py)
    }

    /// Resets the copies `mask` selects (all when `None`) to the start of their next episode;
    /// with `seed`, every copy is reseeded first (copy i: run i of that seed).
    #[pyo3(signature = (seed=None, mask=None))]
    fn reset(
        &mut self,
        py: Python<'_>,
        seed: Option<u64>,
        mask: Option<Vec<bool>>,
    ) -> PyResult<()> {
        if let Some(s) = seed {
            self.reseed(s);
        }
        match mask {
            None => self.reset_all(py)?,
            Some(mask) => {
                if mask.len() != self.worlds.len() {
                    return Err(PyValueError::new_err(format!(
                        "reset_mask: {} entries for {} environments",
                        mask.len(),
                        self.worlds.len()
                    )));
                }
                let every = mask.iter().all(|&m| m);
                for (i, m) in mask.into_iter().enumerate() {
                    if m {
                        self.reset_one(i);
                        self.write_obs(i, false);
                    }
                }
                // A mask of every copy resets them all, as a reset without one does.
                if every {
                    self.interrupted = None;
                }
            }
        }
        Ok(())
    }

    /// Starts copy `index`'s episode at run `run` (its later episodes follow from there,
    /// `run + e·2³²`).
    #[pyo3(signature = (run, index=0))]
    fn reset_run(&mut self, run: u64, index: usize) -> PyResult<()> {
        if index >= self.worlds.len() {
            return Err(PyValueError::new_err(format!(
                "index: {index} is not an environment (0..{})",
                self.worlds.len()
            )));
        }
        self.episode[index] = 1;
        let mut copies = Copies::of(self);
        copies.restart(index, run);
        copies.write_obs(index, false);
        Ok(())
    }

    /// The run each copy plays (its episode's draws).
    fn runs(&self) -> Vec<u64> {
        (0..self.worlds.len()).map(|i| self.worlds.run(i)).collect()
    }

    /// Each copy's totals so far in its episode: `(reward, pseudo-regret, realised regret)`.
    fn totals(&self) -> Vec<(f64, f64, f64)> {
        (0..self.worlds.len())
            .map(|i| self.worlds.totals(i))
            .collect()
    }

    /// Steps every copy with the actions in the action buffer (`n × users × K` float32
    /// scores, or int64 entries of lists, or `n × users` int64 channels, written there by the
    /// Python wrapper through its NumPy view). Raises naming the copy, the user and the rule
    /// an action breaks; then nothing has been stepped.
    /// [`VecWorld::step`], returning copy 0's `(reward, terminated, truncated, oracle,
    /// pseudo-regret)`: `SpectrumEnv.step` in one call rather than five reads of the buffers
    /// (they were a fifth of its 2.2 µs).
    fn step_first(&mut self, py: Python<'_>) -> PyResult<(f64, bool, bool, f64, f64)> {
        self.step(py)?;
        Ok((
            self.reward[0],
            self.terminated[0] != 0,
            self.truncated[0] != 0,
            self.oracle[0],
            self.regret[0],
        ))
    }

    fn step(&mut self, py: Python<'_>) -> PyResult<()> {
        if let Some(at) = self.interrupted {
            return Err(PyValueError::new_err(format!(
                "step: the last step or reset was interrupted (Ctrl-C) when environments 0..{at} of {} had been done: reset() every environment before stepping again",
                self.worlds.len()
            )));
        }
        if self.autoreset == Autoreset::Disabled
            && let Some(i) = self.ended.iter().position(|&e| e)
        {
            return Err(PyValueError::new_err(format!(
                "environment {i} ended its episode: reset it (reset_mask) before stepping it again (autoreset_mode DISABLED)"
            )));
        }
        // Check every action before stepping any copy, so that a bad one leaves all as they
        // were. Lists are decoded here; scores are only checked, and each copy's are ranked
        // as it steps, on its thread (ranking was an eighth of a step, all on one thread).
        match self.action {
            ActionKind::Scores => self.check_scores()?,
            ActionKind::List | ActionKind::Channel => {
                let entries = std::mem::take(&mut self.entries_in);
                let decoded = self.decode_lists(&entries);
                self.entries_in = entries;
                decoded?;
            }
        }
        let n = self.worlds.len();
        // A few copies step in less time than releasing the interpreter takes.
        if n * self.users < 64 {
            return self.step_range(0, n);
        }
        // In batches, looking at the signal handlers between two (Ctrl-C).
        // `threads` is at most MAX_THREADS (checked when built): the product cannot wrap.
        let batch = SIGNAL_BATCH.saturating_mul(self.threads);
        let mut from = 0;
        while from < n {
            let to = (from + batch).min(n);
            py.detach(|| self.step_range(from, to))?;
            from = to;
            if from < n
                && let Err(e) = py.check_signals()
            {
                self.interrupted = Some(from);
                return Err(e);
            }
        }
        Ok(())
    }
}

impl VecWorld {
    fn reseed(&mut self, seed: u64) {
        self.worlds.set_seed(seed);
        self.episode.iter_mut().for_each(|e| *e = 0);
    }

    /// Resets every copy, looking at the signal handlers between batches (Ctrl-C); a reset
    /// that completes clears an interrupted step.
    fn reset_all(&mut self, py: Python<'_>) -> PyResult<()> {
        for i in 0..self.worlds.len() {
            self.reset_one(i);
            self.write_obs(i, false);
            if (i + 1) % SIGNAL_BATCH == 0
                && let Err(e) = py.check_signals()
            {
                self.interrupted = Some(i + 1);
                return Err(e);
            }
        }
        self.interrupted = None;
        Ok(())
    }

    /// Copy `i` at the start of its next episode (episode `e`: run `i + e·2³²`).
    fn reset_one(&mut self, i: usize) {
        let mut copies = Copies::of(self);
        copies.reset_copy(i);
        copies.clear_outputs(i);
    }

    /// Refuses scores with a NaN, naming the first.
    fn check_scores(&self) -> PyResult<()> {
        // Whole blocks folded without an early exit (which vectorises), the NaN then found
        // in the block that has one.
        const BLOCK: usize = 256;
        let scores = &self.scores_in;
        for (b, block) in scores.chunks(BLOCK).enumerate() {
            if !block.iter().fold(false, |nan, x| nan | x.is_nan()) {
                continue;
            }
            let at = b * BLOCK + block.iter().position(|x| x.is_nan()).unwrap_or(0);
            let (j, c) = (at / self.k, at % self.k);
            return Err(PyValueError::new_err(format!(
                "actions[{}]{}: score of channel {c} is NaN",
                j / self.users,
                user_suffix(self.users, j % self.users)
            )));
        }
        Ok(())
    }

    fn decode_lists(&mut self, entries: &[i64]) -> PyResult<()> {
        let (k, users) = (self.k, self.users);
        let width = if self.action == ActionKind::Channel {
            1
        } else {
            k
        };
        let listed = &mut self.listed;
        for (j, e) in entries.chunks_exact(width).enumerate() {
            let (list, len) = self.lists.row_mut(j);
            *len = 0;
            let at = || format!("actions[{}]{}", j / users, user_suffix(users, j % users));
            let mut bad = None;
            for &x in e {
                if x == k as i64 {
                    break;
                }
                if x < 0 || x > k as i64 {
                    bad = Some(x);
                    break;
                }
                // Every element of the action space is a valid action (Gymnasium samples it):
                // a channel already listed is skipped.
                let c = x as usize;
                if !listed[c] {
                    listed[c] = true;
                    list[*len] = c;
                    *len += 1;
                }
            }
            // The marks go back to false for the next list (or the next step).
            for &c in &list[..*len] {
                listed[c] = false;
            }
            if let Some(x) = bad {
                return Err(PyValueError::new_err(format!(
                    "{}: {x} is not a channel (0..{k}) nor the stop symbol {k}",
                    at()
                )));
            }
        }
        Ok(())
    }

    /// Steps copies `from..to` with their decoded lists (on `threads` threads, the copies
    /// split evenly).
    fn step_range(&mut self, from: usize, to: usize) -> PyResult<()> {
        let n = to - from;
        // At most one thread per THREAD_SHARE user-copies: a thread started for fewer costs
        // more than it saves.
        let threads = self.threads.min((n * self.users / THREAD_SHARE).max(1));
        let mut scratch = std::mem::take(&mut self.scratch);
        let (_, rest) = Copies::of(self).split_at(from);
        let (mut range, _) = rest.split_at(n);
        let error = if threads == 1 || n < 2 {
            range.step(0, n, &mut scratch[0]);
            range.error
        } else {
            let mut parts: Vec<Copies<'_>> = range.split(n.div_ceil(threads));
            std::thread::scope(|scope| {
                let mut each = parts.iter_mut().zip(&mut scratch);
                // This thread steps the first part itself: one thread fewer to start a step.
                let here = each.next();
                for (part, scratch) in each {
                    scope.spawn(move || {
                        let len = part.worlds.len();
                        part.step(0, len, scratch);
                    });
                }
                if let Some((part, scratch)) = here {
                    let len = part.worlds.len();
                    part.step(0, len, scratch);
                }
            });
            parts.into_iter().find_map(|p| p.error)
        };
        self.scratch = scratch;
        error.map_or(Ok(()), |e| Err(step_error(&e)))
    }

    fn write_obs(&mut self, i: usize, final_: bool) {
        let mut c = Copies::of(self);
        c.write_obs(i, final_);
    }
}

/// An upper bound on one copy's memory, its world and its share of the vector's buffers:
/// 4 KB and 640 bytes per user and channel (measured after 50 steps, process RSS: 4.9 KB for
/// one user on 2 channels, 8.9 KB on 9 Markov channels, 40 KB on 64, 580 KB on 1 024; 26 KB
/// for six users on 9 channels, 363 KB for 16 users on 64), and the window's older slots (36
/// bytes per user, channel and slot: the two observations and the copy's own).
fn copy_bytes(k: usize, users: usize, window: usize) -> u128 {
    let (k, u, w) = (k as u128, users as u128, window as u128);
    4096 + 640 * u * k + 36 * u * k * (w - 1)
}

/// Refuses `n` copies of `per_copy` bytes when they would not fit in this machine's memory
/// (when it is unknown, in 2⁴⁸ bytes): a `ValueError` before anything is allocated, rather
/// than an allocation failure that would end the interpreter.
fn check_memory(n: usize, per_copy: u128) -> PyResult<()> {
    let need = n as u128 * per_copy;
    let (limit, whose) = match specprobe::machine_memory() {
        Some(m) => (u128::from(m), "this machine's memory"),
        None => (1 << 48, "2^48 bytes"),
    };
    if need > limit {
        let fmt = |b: u128| specprobe::format_bytes(u64::try_from(b).unwrap_or(u64::MAX));
        return Err(PyValueError::new_err(format!(
            "num_envs: {n} environments need about {} (up to {} each), more than {whose} ({})",
            fmt(need),
            fmt(per_copy),
            fmt(limit)
        )));
    }
    Ok(())
}

/// Writes the channels of positive score in decreasing score, ties to the lower channel, into
/// `row`, and returns how many, sorted as integers: a positive float's bits order as the float
/// does, so each channel is the key `(!bits) << 32 | channel`, whose increasing order is the
/// list (`keys`: scratch of `scores.len()` entries).
fn ranked(scores: &[f32], keys: &mut [u64], row: &mut [usize]) -> usize {
    // Every key is written and only the positive ones kept (the count moves by the test):
    // the signs of an agent's scores are coin flips, which a branch would mispredict.
    let mut kept = 0;
    for (c, x) in scores.iter().enumerate() {
        keys[kept] = (u64::from(!x.to_bits()) << 32) | c as u64;
        kept += usize::from(*x > 0.0);
    }
    let keys = &mut keys[..kept];
    if kept <= SHORT {
        insertion_sort(keys);
    } else {
        keys.sort_unstable();
    }
    for (slot, key) in row.iter_mut().zip(keys.iter()) {
        *slot = (key & 0xffff_ffff) as usize;
    }
    kept
}

/// Lists up to this long are sorted by [`insertion_sort`], inlined, rather than through the
/// standard sort's call and small-slice dispatch: an agent's scores keep few keys (4.5 on
/// average at K = 9).
const SHORT: usize = 16;

/// Sorts a few distinct keys in increasing order.
#[inline]
fn insertion_sort(keys: &mut [u64]) {
    for i in 1..keys.len() {
        let key = keys[i];
        let mut j = i;
        while j > 0 && keys[j - 1] > key {
            keys[j] = keys[j - 1];
            j -= 1;
        }
        keys[j] = key;
    }
}

/// `[u]` after an action's index when there are several users.
fn user_suffix(users: usize, u: usize) -> String {
    if users > 1 {
        format!("[{u}]")
    } else {
        String::new()
    }
}

/// The copies' worlds: one user's, as the rows of a batch; several users', one stepper each.
enum Worlds {
    One(Box<Batch>),
    Many(Vec<Stepper>),
}

impl Worlds {
    /// One world of `scenario` (a regret scenario's configuration `experiment`, or a
    /// many-users scenario's, one channel per user under the `channel` action).
    fn load(
        py: Python<'_>,
        scenario: &str,
        json: bool,
        experiment: usize,
        action: ActionKind,
    ) -> PyResult<Worlds> {
        Ok(match &crate::load(py, scenario, json)? {
            // `channel` on a regret scenario: one probe a slot (the classic dynamic spectrum
            // access formulation), a list of at most one channel.
            Scenario::Regret(s) => Worlds::One(Box::new(
                Batch::regret(s, experiment, 1)
                    .map_err(|e| PyValueError::new_err(format!("scenario: {e}")))?,
            )),
            Scenario::MultiUser(s) => {
                if s.is_sweep() {
                    return Err(PyValueError::new_err(
                        "scenario: a many-users sweep has one world per cell: remove `sweep` (or set the swept field) to make an environment",
                    ));
                }
                // The benchmarks can take minutes (many piecewise epochs): built on a worker,
                // Ctrl-C looked at every 20 ms.
                let cancel = specprobe::Cancel::new();
                let classic = action == ActionKind::Channel;
                Worlds::Many(vec![
                    crate::interruptible(py, &cancel, || {
                        Stepper::multi_user_until(s, classic, &cancel)
                    })?
                    .map_err(|e| PyValueError::new_err(format!("scenario: {e}")))?,
                ])
            }
            _ => {
                return Err(PyValueError::new_err(
                    "scenario: only regret and many-users scenarios have an environment (an identification scenario samples arms, a sweep has one world per cell)",
                ));
            }
        })
    }

    /// `n` copies of this one world (copy i at the start of run i); looks at the signal
    /// handlers between batches of copies (Ctrl-C).
    fn copies(self, py: Python<'_>, n: usize) -> PyResult<Worlds> {
        Ok(match self {
            Worlds::One(mut batch) => {
                batch.resize(n);
                Worlds::One(batch)
            }
            Worlds::Many(mut worlds) => {
                // Every copy shares the one checked model (channels, benchmarks): a clone holds
                // only its own state, so the model stays in cache however many copies step.
                worlds.reserve(n - 1);
                while worlds.len() < n {
                    let batch = SIGNAL_BATCH.min(n - worlds.len());
                    let one = &worlds[0].clone();
                    worlds.extend(std::iter::repeat_n(one, batch).cloned());
                    py.check_signals()?;
                }
                Worlds::Many(worlds)
            }
        })
    }

    fn len(&self) -> usize {
        match self {
            Worlds::One(b) => b.len(),
            Worlds::Many(w) => w.len(),
        }
    }

    fn channels(&self) -> usize {
        match self {
            Worlds::One(b) => b.channels(),
            Worlds::Many(w) => w[0].channels(),
        }
    }

    fn users(&self) -> usize {
        match self {
            Worlds::One(_) => 1,
            Worlds::Many(w) => w[0].users(),
        }
    }

    fn horizon(&self) -> u64 {
        match self {
            Worlds::One(b) => b.horizon(),
            Worlds::Many(w) => w[0].horizon(),
        }
    }

    fn environment(&self) -> &specprobe::Environment {
        match self {
            Worlds::One(b) => b.environment(),
            Worlds::Many(w) => w[0].environment(),
        }
    }

    fn set_seed(&mut self, seed: u64) {
        match self {
            Worlds::One(b) => b.set_seed(seed),
            Worlds::Many(w) => w.iter_mut().for_each(|w| w.set_seed(seed)),
        }
    }

    fn run(&self, i: usize) -> u64 {
        match self {
            Worlds::One(b) => b.run(i),
            Worlds::Many(w) => w[i].run(),
        }
    }

    fn totals(&self, i: usize) -> (f64, f64, f64) {
        match self {
            Worlds::One(b) => b.totals(i),
            Worlds::Many(w) => w[i].totals(),
        }
    }

    fn as_mut(&mut self) -> WorldsMut<'_> {
        match self {
            Worlds::One(b) => WorldsMut::One(b.part()),
            Worlds::Many(w) => WorldsMut::Many(w),
        }
    }
}

/// A contiguous range of the copies' worlds.
enum WorldsMut<'a> {
    One(BatchPart<'a>),
    Many(&'a mut [Stepper]),
}

impl<'a> WorldsMut<'a> {
    fn len(&self) -> usize {
        match self {
            WorldsMut::One(b) => b.len(),
            WorldsMut::Many(w) => w.len(),
        }
    }

    fn split_at(self, at: usize) -> (WorldsMut<'a>, WorldsMut<'a>) {
        match self {
            WorldsMut::One(b) => {
                let (x, y) = b.split_at(at);
                (WorldsMut::One(x), WorldsMut::One(y))
            }
            WorldsMut::Many(w) => {
                let (x, y) = w.split_at_mut(at);
                (WorldsMut::Many(x), WorldsMut::Many(y))
            }
        }
    }

    fn reset(&mut self, i: usize, run: u64) {
        match self {
            WorldsMut::One(b) => b.reset(i, run),
            WorldsMut::Many(w) => w[i].reset(run),
        }
    }

    fn slot(&self, i: usize) -> u64 {
        match self {
            WorldsMut::One(b) => b.slot(i),
            WorldsMut::Many(w) => w[i].slot(),
        }
    }

    /// User `u`'s probes in copy `i`'s last slot (none before the first).
    fn last_probes(&self, i: usize, u: usize) -> &[Probe] {
        match self {
            WorldsMut::One(b) => b.last_probes(i),
            WorldsMut::Many(w) => w[i]
                .last_outcome()
                .and_then(|o| o.users.get(u))
                .map_or(&[][..], |step| &step.probes),
        }
    }
}

/// A contiguous range of copies and their slices of every buffer, stepped by one thread.
struct Copies<'a> {
    worlds: WorldsMut<'a>,
    seen: SeenMut<'a>,
    scaled: &'a Scaled,
    episode: &'a mut [u64],
    ended: &'a mut [bool],
    lists: ListsMut<'a>,
    /// The copies' scores, each copy's ranked into its lists as it steps (empty when the
    /// action is not scores: the lists were decoded before the step).
    scores: &'a [f32],
    obs: &'a mut [f32],
    final_obs: &'a mut [f32],
    reward: &'a mut [f64],
    terminated: &'a mut [u8],
    truncated: &'a mut [u8],
    has_final: &'a mut [u8],
    oracle: &'a mut [f64],
    regret: &'a mut [f64],
    reset_now: &'a mut [u8],
    /// The index of the first copy among all copies (episode runs are keyed by it).
    first: u64,
    k: usize,
    users: usize,
    steps: u64,
    parts: Parts,
    dim: usize,
    autoreset: Autoreset,
    error: Option<StepError>,
}

impl<'a> Copies<'a> {
    fn of(v: &'a mut VecWorld) -> Copies<'a> {
        Copies {
            worlds: v.worlds.as_mut(),
            seen: v.seen.as_mut(),
            scaled: &v.scaled,
            episode: &mut v.episode,
            ended: &mut v.ended,
            lists: v.lists.as_mut(),
            scores: if v.action == ActionKind::Scores {
                &v.scores_in
            } else {
                &[]
            },
            obs: &mut v.obs,
            final_obs: &mut v.final_obs,
            reward: &mut v.reward,
            terminated: &mut v.terminated,
            truncated: &mut v.truncated,
            has_final: &mut v.has_final,
            oracle: &mut v.oracle,
            regret: &mut v.regret,
            reset_now: &mut v.reset_now,
            first: v.first,
            k: v.k,
            users: v.users,
            steps: v.steps,
            parts: v.parts,
            dim: v.dim,
            autoreset: v.autoreset,
            error: None,
        }
    }

    /// These copies in ranges of `chunk`, each with its slices.
    fn split(self, chunk: usize) -> Vec<Copies<'a>> {
        let mut out = Vec::new();
        let mut rest = self;
        while rest.worlds.len() > 0 {
            let take = chunk.min(rest.worlds.len());
            let (head, tail) = rest.split_at(take);
            out.push(head);
            rest = tail;
        }
        out
    }

    fn split_at(self, at: usize) -> (Copies<'a>, Copies<'a>) {
        let (u, d) = (self.users, self.dim);
        let (w1, w2) = self.worlds.split_at(at);
        let (s1, s2) = self.seen.split_at(at);
        let (e1, e2) = self.episode.split_at_mut(at);
        let (en1, en2) = self.ended.split_at_mut(at);
        let (l1, l2) = self.lists.split_at(at * u);
        let (sc1, sc2) = if self.scores.is_empty() {
            (self.scores, self.scores)
        } else {
            self.scores.split_at(at * u * self.k)
        };
        let (o1, o2) = self.obs.split_at_mut(at * u * d);
        let (f1, f2) = self.final_obs.split_at_mut(at * u * d);
        let (r1, r2) = self.reward.split_at_mut(at * u);
        let (t1, t2) = self.terminated.split_at_mut(at);
        let (tr1, tr2) = self.truncated.split_at_mut(at);
        let (h1, h2) = self.has_final.split_at_mut(at);
        let (or1, or2) = self.oracle.split_at_mut(at);
        let (re1, re2) = self.regret.split_at_mut(at);
        let (rn1, rn2) = self.reset_now.split_at_mut(at);
        let make = |worlds,
                    seen,
                    episode,
                    ended,
                    lists,
                    scores,
                    obs,
                    final_obs,
                    reward,
                    terminated,
                    truncated,
                    has_final,
                    oracle,
                    regret,
                    reset_now,
                    first| Copies {
            worlds,
            seen,
            scaled: self.scaled,
            episode,
            ended,
            lists,
            scores,
            obs,
            final_obs,
            reward,
            terminated,
            truncated,
            has_final,
            oracle,
            regret,
            reset_now,
            first,
            k: self.k,
            users: u,
            steps: self.steps,
            parts: self.parts,
            dim: d,
            autoreset: self.autoreset,
            error: None,
        };
        (
            make(
                w1, s1, e1, en1, l1, sc1, o1, f1, r1, t1, tr1, h1, or1, re1, rn1, self.first,
            ),
            make(
                w2,
                s2,
                e2,
                en2,
                l2,
                sc2,
                o2,
                f2,
                r2,
                t2,
                tr2,
                h2,
                or2,
                re2,
                rn2,
                self.first + at as u64,
            ),
        )
    }

    /// Ranks copy `i`'s scores into its lists, if the action is scores.
    #[inline]
    fn rank(&mut self, i: usize, keys: &mut [u64]) {
        if self.scores.is_empty() {
            return;
        }
        let (u, k) = (self.users, self.k);
        for j in i * u..(i + 1) * u {
            let (row, len) = self.lists.row_mut(j);
            *len = ranked(&self.scores[j * k..(j + 1) * k], keys, row);
        }
    }

    /// Steps copies `from..to` (indices into this range); `scratch`: this thread's.
    fn step(&mut self, from: usize, to: usize, scratch: &mut ThreadScratch) {
        let u = self.users;
        // Lists are read two copies ahead (prefetched for the channels they name): ranked
        // that far ahead.
        for i in from..to.min(from + 2) {
            self.rank(i, &mut scratch.keys);
        }
        for i in from..to {
            if i + 2 < to {
                self.rank(i + 2, &mut scratch.keys);
            }
            if let WorldsMut::Many(worlds) = &self.worlds {
                // Several users' worlds are each their own heap blocks: brought into cache
                // ahead (a batch's rows are read in order, which the hardware follows).
                if i + 3 < to {
                    // The world's own struct (its vectors' headers, some 15 lines): read two
                    // copies ahead to find the blocks.
                    prefetch_all(std::slice::from_ref(&worlds[i + 3]));
                }
                if i + 2 < to {
                    worlds[i + 2].hot_headers(prefetch);
                }
            }
            if i + 2 < to {
                // The lists, read one copy ahead for the channels they name.
                for j in (i + 2) * u..(i + 3) * u {
                    prefetch_all(self.lists.get(j));
                }
            }
            // A batch's rows need no headers read first: its copies are prefetched further
            // ahead.
            let ahead = if matches!(self.worlds, WorldsMut::One(_)) {
                AHEAD
            } else {
                1
            };
            if i + ahead < to {
                self.prefetch(i + ahead);
            }
            self.has_final[i] = 0;
            self.reset_now[i] = 0;
            if self.ended[i] && self.autoreset == Autoreset::NextStep {
                self.reset_copy(i);
                // The reset step: reward 0, no flags, no info.
                self.clear_outputs(i);
                self.reset_now[i] = 1;
                self.write_obs(i, false);
                continue;
            }
            if let Err(e) = self.step_copy(i, &mut scratch.batch) {
                self.error.get_or_insert(e);
                return;
            }
            let done = self.worlds.slot(i) >= self.steps;
            self.truncated[i] = u8::from(done);
            self.ended[i] = done;
            if done && self.autoreset == Autoreset::SameStep {
                // The reward, flags and info of the step that ended stay; the observation
                // returned is the new episode's first.
                self.write_obs(i, true);
                self.has_final[i] = 1;
                self.reset_copy(i);
            }
            self.write_obs(i, false);
        }
    }

    /// Brings copy `i`'s buffers into cache while the copy before it steps (see
    /// [`Stepper::hot_blocks`]).
    fn prefetch(&self, i: usize) {
        let u = self.users;
        match &self.worlds {
            WorldsMut::Many(worlds) => self
                .lists
                .with(i * u, u, |l| worlds[i].hot_blocks(l, prefetch)),
            WorldsMut::One(batch) => batch.hot_rows(i, self.lists.get(i), prefetch),
        }
        let seen = &self.seen;
        // The counts of the channels the users probe first (a step adds to those only), and
        // the whole `stats` part, which the observation copies.
        for user in 0..u {
            for &c in self.lists.get(i * u + user).iter().take(2) {
                let j = (i * u + user) * self.k + c;
                prefetch_all(&seen.counts[j..=j]);
            }
        }
        let (stats, recent) = seen.parts(i);
        prefetch_all(stats);
        prefetch_all(recent);
    }

    /// Copy `i` at the start of its next episode (episode `e`: run `first + i + e·2³²`).
    fn reset_copy(&mut self, i: usize) {
        let run = self.first + i as u64 + self.episode[i] * EPISODE_STRIDE;
        self.episode[i] += 1;
        self.restart(i, run);
    }

    /// Copy `i` at the start of run `run`: its world, what its users saw, its episode's end.
    fn restart(&mut self, i: usize, run: u64) {
        self.worlds.reset(i, run);
        self.seen.row(i).clear();
        self.ended[i] = false;
    }

    /// Copy `i`'s reward, flags and info of a step that did not play (a reset).
    fn clear_outputs(&mut self, i: usize) {
        for r in &mut self.reward[i * self.users..(i + 1) * self.users] {
            *r = 0.0;
        }
        self.terminated[i] = 0;
        self.truncated[i] = 0;
        self.oracle[i] = 0.0;
        self.regret[i] = 0.0;
    }

    fn step_copy(&mut self, i: usize, scratch: &mut BatchScratch) -> Result<(), StepError> {
        let (u, k) = (self.users, self.k);
        let lists = &self.lists;
        let worlds = match &mut self.worlds {
            WorldsMut::One(batch) => {
                if self.parts.window > 1 {
                    // The slot that was last joins the window's older slots.
                    let last = batch.last(i).0;
                    self.seen.row(i).push_slot(|_| last, 1, k);
                }
                // The decoders give distinct channels below K.
                batch.step_distinct(i, lists.get(i), scratch)?;
                let (probes, reward, oracle, regret) = batch.last(i);
                self.reward[i] = reward;
                let mut seen = self.seen.row(i);
                for &(c, idle, cost) in probes {
                    seen.add(c, idle, cost, self.scaled);
                }
                self.oracle[i] = oracle;
                self.regret[i] = regret;
                return Ok(());
            }
            WorldsMut::Many(worlds) => worlds,
        };
        if self.parts.window > 1 {
            // The slot that was last joins the window's older slots.
            let last = worlds[i].last_outcome();
            let probes = |user: usize| {
                last.and_then(|o| o.users.get(user))
                    .map_or(&[][..], |step| &step.probes[..])
            };
            self.seen.row(i).push_slot(probes, u, k);
        }
        let o = lists.with(i * u, u, |refs| worlds[i].step(refs))?;
        let mut seen = self.seen.row(i);
        for (user, step) in o.users.iter().enumerate() {
            self.reward[i * u + user] = step.reward;
            for &(c, idle, cost) in &step.probes {
                seen.add(user * k + c, idle, cost, self.scaled);
            }
        }
        self.oracle[i] = o.benchmark_expected;
        self.regret[i] = o.pseudo_regret;
        Ok(())
    }

    /// Writes copy `i`'s observation (of its last slot) into `obs`, or into `final_obs`.
    fn write_obs(&mut self, i: usize, final_: bool) {
        let (u, k, d, parts) = (self.users, self.k, self.dim, self.parts);
        let time = (self.worlds.slot(i) as f64 / self.steps as f64) as f32;
        let buf = if final_ {
            &mut self.final_obs[i * u * d..(i + 1) * u * d]
        } else {
            &mut self.obs[i * u * d..(i + 1) * u * d]
        };
        // At least one part, so `d > 0` (refused otherwise when built).
        debug_assert!(d > 0);
        let (stats, recent) = self.seen.parts(i);
        let span = 3 * k * (parts.window - 1);
        // Each part is cut off the front of the user's row in turn: no offsets to check.
        for (user, row) in buf.chunks_exact_mut(d).enumerate() {
            let mut rest = row;
            if parts.last {
                let (newest, tail) = rest.split_at_mut(3 * k);
                // `last` is none before the episode's first slot.
                write_slot(newest, self.worlds.last_probes(i, user));
                let (older, tail) = tail.split_at_mut(span);
                // A window of one slot has no older ones: no call to copy nothing.
                if span > 0 {
                    older.copy_from_slice(&recent[user * span..(user + 1) * span]);
                }
                rest = tail;
            }
            if parts.stats {
                let (part, tail) = rest.split_at_mut(3 * k);
                part.copy_from_slice(&stats[3 * user * k..3 * (user + 1) * k]);
                rest = tail;
            }
            if parts.time {
                rest[0] = time;
            }
        }
    }
}

/// What a probe-level observation shows: per channel whether it was probed in the current
/// slot (always), then optionally the episode's statistics (3 per channel, encoded as the
/// slot-level environment's `stats`) and the time (t/T and the fraction of the channels
/// probed in the slot).
#[derive(Clone, Copy, Debug)]
struct ProbeLayout {
    k: usize,
    stats: bool,
    time: bool,
}

impl ProbeLayout {
    fn dim(&self) -> usize {
        self.k + 3 * self.k * usize::from(self.stats) + 2 * usize::from(self.time)
    }
}

/// `n` copies of a regret scenario's world played probe by probe, copy `i` playing run
/// `first + i` (episode e: run `first + i + e·2³²`); their observations in one array, copy
/// `i`'s in row `i` (the single environment is `n = 1`).
struct ProbeCopies {
    worlds: Vec<Stepper>,
    first: u64,
    episode: Vec<u64>,
    /// The episodes' statistics, encoded as the slot-level environment encodes them: the
    /// observation's `stats` part is the same bits.
    seen: SeenRows,
    scaled: Scaled,
    /// Every copy's observation, [`ProbeLayout::dim`] floats each, kept as probes change it.
    obs: Vec<f32>,
    /// Channels probed in each copy's current slot.
    probed: Vec<usize>,
    /// Slots per episode (at most the horizon).
    steps: u64,
    layout: ProbeLayout,
}

/// One probe-level step of one copy: `(sensed idle, the cost observed, the step's reward,
/// slot ended, transmission succeeded, slot)`.
type ProbeStep = (bool, f64, f64, bool, bool, u64);

impl ProbeCopies {
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        scenario: &str,
        json: bool,
        experiment: usize,
        seed: Option<u64>,
        first: u64,
        n: usize,
        steps: Option<u64>,
        stats: bool,
        time: bool,
    ) -> PyResult<ProbeCopies> {
        let world = match crate::load(py, scenario, json)? {
            Scenario::Regret(s) => Stepper::regret(&s, experiment)
                .map_err(|e| PyValueError::new_err(format!("scenario: {e}")))?,
            _ => {
                return Err(PyValueError::new_err(
                    "scenario: probe by probe is for regret scenarios (one user)",
                ));
            }
        };
        let (k, horizon) = (world.channels(), world.horizon());
        let steps = steps.unwrap_or(horizon);
        if steps == 0 || steps > horizon {
            return Err(PyValueError::new_err(format!(
                "max_episode_steps: must lie in 1..={horizon}, the scenario's horizon (got {steps})"
            )));
        }
        let layout = ProbeLayout { k, stats, time };
        let dim = layout.dim();
        let floats = n
            .checked_mul(dim)
            .filter(|&f| f <= 1 << 32)
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "num_envs: {n} copies of {dim} floats do not fit in memory"
                ))
            })?;
        let mut c = ProbeCopies {
            worlds: vec![world; n],
            first,
            episode: vec![0; n],
            seen: SeenRows::new(n, 1, k, 1),
            scaled: Scaled::new(steps),
            obs: vec![0.0; floats],
            probed: vec![0; n],
            steps,
            layout,
        };
        for i in 0..n {
            c.reset(i, seed);
        }
        Ok(c)
    }

    /// Starts copy `i`'s next episode (with `seed`: episode 0 of that seed).
    fn reset(&mut self, i: usize, seed: Option<u64>) {
        if let Some(s) = seed {
            self.worlds[i].set_seed(s);
            self.episode[i] = 0;
        }
        let run = self.first + i as u64 + self.episode[i] * EPISODE_STRIDE;
        self.worlds[i].reset(run);
        self.episode[i] += 1;
        self.seen.as_mut().row(i).clear();
        let dim = self.layout.dim();
        self.obs[i * dim..(i + 1) * dim]
            .iter_mut()
            .for_each(|x| *x = 0.0);
        self.probed[i] = 0;
    }

    /// Copy `i` probes `channel` next. The step's reward is minus the probe's cost, plus the
    /// transmission's gain when the probe ends the slot (1 for a success; under `reward:
    /// TimeLeft` the rate times the slot left): a slot's steps sum to its net reward.
    fn probe(&mut self, i: usize, channel: usize) -> Result<ProbeStep, StepError> {
        let world = &mut self.worlds[i];
        let p = world.probe(channel)?;
        let user = p
            .ended
            .then(|| world.last_outcome().map(|o| &o.users[0]))
            .flatten();
        let reward = -p.cost + user.map_or(0.0, |u| u.gain);
        let success = user.is_some_and(|u| u.success);
        let slot = world.slot();
        let (k, dim) = (self.layout.k, self.layout.dim());
        let mut seen = self.seen.as_mut();
        seen.row(i)
            .add(channel, p.idle, p.observed_cost, &self.scaled);
        let obs = &mut self.obs[i * dim..(i + 1) * dim];
        if self.layout.stats {
            let stats = &seen.parts(i).0[3 * channel..3 * channel + 3];
            obs[k + 3 * channel..k + 3 * channel + 3].copy_from_slice(stats);
        }
        obs[channel] = 1.0;
        self.probed[i] += 1;
        self.end_probe(i, p.ended);
        Ok((p.idle, p.observed_cost, reward, p.ended, success, slot))
    }

    /// Copy `i` ends the slot without a transmission; the slot reached.
    fn stop(&mut self, i: usize) -> Result<u64, StepError> {
        self.worlds[i].stop()?;
        self.end_probe(i, true);
        Ok(self.worlds[i].slot())
    }

    /// Copy `i` takes `action` in 0..=K: a channel not yet probed in the slot is probed, K or
    /// a channel already probed stops the slot (every element of the space is an action).
    /// `(reward, slot ended)`.
    fn act(&mut self, i: usize, action: usize) -> Result<(f64, bool), StepError> {
        let dim = self.layout.dim();
        if action >= self.layout.k || self.obs[i * dim + action] != 0.0 {
            self.stop(i)?;
            Ok((0.0, true))
        } else {
            let (_, _, reward, ended, _, _) = self.probe(i, action)?;
            Ok((reward, ended))
        }
    }

    /// Copy `i`'s time part after a probe or a stop, and the slot's probed flags cleared when
    /// it `ended`.
    fn end_probe(&mut self, i: usize, ended: bool) {
        let (k, dim) = (self.layout.k, self.layout.dim());
        let obs = &mut self.obs[i * dim..(i + 1) * dim];
        if ended {
            obs[..k].iter_mut().for_each(|x| *x = 0.0);
            self.probed[i] = 0;
        }
        if self.layout.time {
            obs[dim - 2] = (self.worlds[i].slot() as f64 / self.steps as f64) as f32;
            obs[dim - 1] = (self.probed[i] as f64 / k as f64) as f32;
        }
    }

    /// Copy `i`'s last slot that ended: `(benchmark expected reward, pseudo-regret, net
    /// reward)`.
    fn last(&self, i: usize) -> Option<(f64, f64, f64)> {
        self.worlds[i]
            .last_outcome()
            .map(|o| (o.benchmark_expected, o.pseudo_regret, o.users[0].reward))
    }
}

/// One regret scenario's world played probe by probe (`specprobe.envs.SpectrumProbeEnv`): one
/// copy of [`ProbeCopies`].
#[pyclass(module = "specprobe._specprobe")]
pub struct ProbeWorld {
    copies: ProbeCopies,
}

#[pymethods]
impl ProbeWorld {
    /// `scenario` as for [`VecWorld`]; `index`: the run this copy plays (episode e: run
    /// `index + e·2³²`); `steps`: slots per episode (default the horizon); `stats`, `time`:
    /// the observation's optional parts.
    #[new]
    #[pyo3(signature = (scenario, *, json, experiment=0, seed=None, index=0, steps=None, stats=true, time=true))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        scenario: &str,
        json: bool,
        experiment: usize,
        seed: Option<u64>,
        index: u64,
        steps: Option<u64>,
        stats: bool,
        time: bool,
    ) -> PyResult<ProbeWorld> {
        Ok(ProbeWorld {
            copies: ProbeCopies::new(
                py, scenario, json, experiment, seed, index, 1, steps, stats, time,
            )?,
        })
    }

    /// `(channels, slots per episode, the horizon, observation floats)`.
    fn shape(&self) -> (usize, u64, u64, usize) {
        let c = &self.copies;
        (c.layout.k, c.steps, c.worlds[0].horizon(), c.layout.dim())
    }

    /// The smallest and largest cost a probe can show in an observation (as for
    /// [`VecWorld`]).
    fn cost_range(&self) -> (f64, f64) {
        self.copies.worlds[0].environment().observed_cost_range()
    }

    /// Starts the next episode (with `seed`: episode 0 of that seed).
    #[pyo3(signature = (seed=None))]
    fn reset(&mut self, seed: Option<u64>) {
        self.copies.reset(0, seed);
    }

    /// The observation's buffer as `(name, address, length, dtype)` (see
    /// [`VecWorld::buffers`]): the Python side views it once (it never moves).
    fn buffers(&self) -> Vec<Buffer> {
        vec![buffer("obs", &self.copies.obs, "float32")]
    }

    /// Probes `channel` next: `(sensed idle, the cost observed, the step's reward, slot
    /// ended, transmission succeeded, slot)` (see [`ProbeCopies::probe`]).
    fn probe(&mut self, channel: usize) -> PyResult<ProbeStep> {
        self.copies.probe(0, channel).map_err(|e| step_error(&e))
    }

    /// Ends the slot without a transmission; the slot reached.
    fn stop(&mut self) -> PyResult<u64> {
        self.copies.stop(0).map_err(|e| step_error(&e))
    }

    /// The last slot that ended: `(benchmark expected reward, pseudo-regret, net reward)`.
    fn last(&self) -> Option<(f64, f64, f64)> {
        self.copies.last(0)
    }

    /// The episode so far: `(reward, pseudo-regret, realised regret)`.
    fn totals(&self) -> (f64, f64, f64) {
        self.copies.worlds[0].totals()
    }

    /// The run being played.
    fn run(&self) -> u64 {
        self.copies.worlds[0].run()
    }
}

/// `n` copies of the probe-level world stepped in one call
/// (`specprobe.envs.SpectrumProbeVectorEnv`): copy `i` takes `action[i]`, and its reward,
/// flags and the info of a slot that ended land in row `i` of buffers the Python side views.
/// Autoreset as Gymnasium's vectors: `next_step` resets a copy at the step after its
/// episode's last (that step's action is ignored), `same_step` at once (its last observation
/// kept in `final_obs`), `disabled` never (a step after the last is an error).
#[pyclass(module = "specprobe._specprobe")]
pub struct ProbeVecWorld {
    copies: ProbeCopies,
    mode: Autoreset,
    action: Vec<i64>,
    reward: Vec<f64>,
    terminated: Vec<u8>,
    truncated: Vec<u8>,
    /// Copies whose slot ended this step (their `oracle` and `regret` hold it).
    ended: Vec<u8>,
    oracle: Vec<f64>,
    regret: Vec<f64>,
    /// Copies reset by this step (`next_step`), and copies whose episode ended in it and
    /// restarted (`same_step`, with their last observation in `final_obs`).
    reset_now: Vec<u8>,
    has_final: Vec<u8>,
    final_obs: Vec<f32>,
    /// Copies whose episode ended: reset at their next step (`next_step`), refused
    /// (`disabled`).
    done: Vec<bool>,
}

#[pymethods]
impl ProbeVecWorld {
    /// `n` copies, copy `i` playing run `first + i`; the rest as for [`ProbeWorld`].
    #[new]
    #[pyo3(signature = (scenario, *, json, n, experiment=0, seed=None, first=0, steps=None, stats=true, time=true, autoreset="next_step"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        scenario: &str,
        json: bool,
        n: usize,
        experiment: usize,
        seed: Option<u64>,
        first: u64,
        steps: Option<u64>,
        stats: bool,
        time: bool,
        autoreset: &str,
    ) -> PyResult<ProbeVecWorld> {
        let mode = Autoreset::parse(autoreset)?;
        if n == 0 {
            return Err(PyValueError::new_err("num_envs: must be at least 1"));
        }
        let copies = ProbeCopies::new(
            py, scenario, json, experiment, seed, first, n, steps, stats, time,
        )?;
        let dim = copies.layout.dim();
        Ok(ProbeVecWorld {
            final_obs: vec![0.0; n * dim],
            copies,
            mode,
            action: vec![0; n],
            reward: vec![0.0; n],
            terminated: vec![0; n],
            truncated: vec![0; n],
            ended: vec![0; n],
            oracle: vec![0.0; n],
            regret: vec![0.0; n],
            reset_now: vec![0; n],
            has_final: vec![0; n],
            done: vec![false; n],
        })
    }

    /// `(channels, slots per episode, the horizon, observation floats)`.
    fn shape(&self) -> (usize, u64, u64, usize) {
        let c = &self.copies;
        (c.layout.k, c.steps, c.worlds[0].horizon(), c.layout.dim())
    }

    /// See [`ProbeWorld::cost_range`].
    fn cost_range(&self) -> (f64, f64) {
        self.copies.worlds[0].environment().observed_cost_range()
    }

    /// Resets every copy (or those of `mask`); with `seed`, copy `i` starts run `first + i`
    /// of that seed.
    #[pyo3(signature = (seed=None, mask=None))]
    fn reset(&mut self, seed: Option<u64>, mask: Option<Vec<bool>>) -> PyResult<()> {
        let n = self.copies.worlds.len();
        if let Some(m) = &mask
            && m.len() != n
        {
            return Err(PyValueError::new_err(format!(
                "reset_mask: {} entries for {n} environments",
                m.len()
            )));
        }
        for i in 0..n {
            if mask.as_ref().is_none_or(|m| m[i]) {
                self.copies.reset(i, seed);
                self.done[i] = false;
            }
        }
        Ok(())
    }

    /// The buffers as `(name, address, length, dtype)` (see [`VecWorld::buffers`]).
    fn buffers(&self) -> Vec<Buffer> {
        vec![
            buffer("obs", &self.copies.obs, "float32"),
            buffer("final_obs", &self.final_obs, "float32"),
            buffer("action", &self.action, "int64"),
            buffer("reward", &self.reward, "float64"),
            buffer("terminated", &self.terminated, "bool"),
            buffer("truncated", &self.truncated, "bool"),
            buffer("ended", &self.ended, "bool"),
            buffer("oracle", &self.oracle, "float64"),
            buffer("regret", &self.regret, "float64"),
            buffer("reset_now", &self.reset_now, "bool"),
            buffer("has_final", &self.has_final, "bool"),
        ]
    }

    /// Every copy takes its action from the `action` buffer (checked first: a value outside
    /// 0..=K names the environment, and nothing is stepped).
    fn step(&mut self) -> PyResult<()> {
        let k = self.copies.layout.k;
        if let Some((i, a)) = self
            .action
            .iter()
            .enumerate()
            .find(|&(_, &a)| a < 0 || a > k as i64)
        {
            return Err(PyValueError::new_err(format!(
                "actions[{i}]: {a} is not an action (0..{k} a channel, {k} to stop the slot)"
            )));
        }
        if self.mode == Autoreset::Disabled
            && let Some(i) = self.done.iter().position(|&d| d)
        {
            return Err(PyValueError::new_err(format!(
                "environment {i}: its episode ended (autoreset disabled): reset it before stepping again"
            )));
        }
        let dim = self.copies.layout.dim();
        for i in 0..self.copies.worlds.len() {
            self.reward[i] = 0.0;
            self.terminated[i] = 0;
            self.truncated[i] = 0;
            self.ended[i] = 0;
            self.reset_now[i] = 0;
            self.has_final[i] = 0;
            if self.done[i] {
                // NEXT_STEP: this step only resets the copy.
                self.copies.reset(i, None);
                self.done[i] = false;
                self.reset_now[i] = 1;
                continue;
            }
            let (reward, ended) = self
                .copies
                .act(i, self.action[i] as usize)
                .map_err(|e| step_error(&e))?;
            self.reward[i] = reward;
            if ended {
                self.ended[i] = 1;
                let (oracle, regret, _) = self.copies.last(i).unwrap_or((0.0, 0.0, 0.0));
                self.oracle[i] = oracle;
                self.regret[i] = regret;
                if self.copies.worlds[i].slot() >= self.copies.steps {
                    self.truncated[i] = 1;
                    match self.mode {
                        Autoreset::SameStep => {
                            self.final_obs[i * dim..(i + 1) * dim]
                                .copy_from_slice(&self.copies.obs[i * dim..(i + 1) * dim]);
                            self.has_final[i] = 1;
                            self.copies.reset(i, None);
                        }
                        Autoreset::NextStep | Autoreset::Disabled => self.done[i] = true,
                    }
                }
            }
        }
        Ok(())
    }

    /// Each copy's episode so far: `(reward, pseudo-regret, realised regret)`.
    fn totals(&self) -> Vec<(f64, f64, f64)> {
        self.copies.worlds.iter().map(Stepper::totals).collect()
    }

    /// The run each copy is playing.
    fn runs(&self) -> Vec<u64> {
        self.copies.worlds.iter().map(Stepper::run).collect()
    }
}

/// Asks the processor to bring the cache line at `p` into cache (nothing is read; no effect on
/// other targets).
#[inline(always)]
fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of x86-64's baseline; a prefetch never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// [`prefetch`] of every cache line `data` spans.
#[inline(always)]
fn prefetch_all<T>(data: &[T]) {
    specprobe::cache_lines(data, &mut |p| prefetch(p));
}
