//! N copies of a regret scenario's one-user world, stepped together: what the slot-level
//! vector environment steps.
//!
//! Each copy is the world [`Stepper::regret`](crate::Stepper::regret) builds, draw for draw
//! (copy i reset to run r plays run r of the scenario, as `specprobe run` does), and a slot is
//! the same function, the episode loop's [`World::play`]. What differs is where the copies'
//! state lives: not in N worlds' own heap blocks (some fifteen per copy, which outgrow the
//! cache at thousands of copies: the misses on them were half of a step), but in the same
//! positions of arrays the copies share, one row per copy (its channels' keys, its occupancy
//! path states and the benchmark's, its totals, its last slot's probes), read in copy order;
//! what a slot only needs while it is played (the list, the probes the benchmark may reuse,
//! the counters nobody reads) is one scratch for all the copies a thread steps. A copy's step
//! touches its own rows and that scratch, nothing else.

use crate::engine::recorder::RunRecord;
use crate::engine::slot_loop::{Probes, Totals, World};
use crate::engine::spectrum::{General, Plain, Simple, Spectrum};
use crate::engine::stepper::{StepError, experiment_of, repeated};
use crate::model::channel::{ChannelKeys, Environment, Epoch, PathsMut};
use crate::model::occupancy::OccupancyState;
use crate::policy::Policy;
use crate::scenario::RegretScenario;
use crate::util::crn::RunKey;
use crate::util::rng::SimRng;
use std::sync::Arc;

/// One probe as a copy's last slot reports it: `(channel, sensed idle, observed cost)`.
type Probe = (usize, bool, f64);

/// What every copy shares: the checked channels and the run keys' domain.
#[derive(Debug)]
struct Model {
    env: Environment,
    horizon: u64,
    /// The random-stream domain (a grid configuration's own; 0 otherwise).
    domain: u64,
    /// The papers' channels' fast form, where the channels allow it.
    simple: Option<Simple>,
    /// Otherwise, the plain channels' form (perfect sensing, constant or Bernoulli costs).
    plain: Option<Plain>,
}

/// A copy's last slot, as the environment reports it.
#[derive(Clone, Copy, Debug, Default)]
struct Last {
    reward: f64,
    regret: f64,
    /// Probes made (the first entries of the copy's row of `probes`).
    probes: usize,
}

/// N copies of a regret scenario's one-user world (see the module docs).
///
/// ```
/// use specprobe::{Batch, Scenario, Stepper};
/// let text = r#"Regret(name: "doc", seed: 3, horizon: 50, runs: 1,
///     channels: [(theta: 0.3, cost: Bernoulli(0.2)), (theta: 0.6, cost: Constant(0.1))],
///     policies: [(policy: Oracle)])"#;
/// let Scenario::Regret(s) = specprobe::parse(text, "doc.ron".as_ref()).unwrap() else {
///     panic!("a regret scenario")
/// };
/// let mut batch = Batch::regret(&s, 0, 4).unwrap();
/// let mut one = Stepper::regret(&s, 0).unwrap();
/// batch.reset(2, 7);
/// one.reset(7);
/// for _ in 0..50 {
///     batch.step(2, &[1, 0]).unwrap();
///     one.step(&[&[1, 0]]).unwrap();
/// }
/// // Copy 2, reset to run 7, played run 7.
/// assert_eq!(batch.totals(2), one.totals());
/// ```
#[derive(Clone, Debug)]
pub struct Batch {
    model: Arc<Model>,
    /// Draws come from this seed from the next reset on (the scenario's by default).
    seed: u64,
    k: usize,
    rows: Rows,
    /// One slot's scratch (the vector environment's threads each use their own).
    scratch: Scratch,
}

/// The copies' state, copy i's in row i of each array (`k` entries a row for the per-channel
/// ones).
#[derive(Clone, Debug, Default)]
struct Rows {
    run: Vec<u64>,
    t: Vec<u64>,
    epoch: Vec<usize>,
    totals: Vec<Totals>,
    last: Vec<Last>,
    keys: Vec<ChannelKeys>,
    occupancy: Vec<OccupancyState>,
    benchmark: Vec<OccupancyState>,
    probes: Vec<Probe>,
}

/// What a slot needs only while it is played, shared by the copies one thread steps.
#[derive(Clone, Debug)]
pub(crate) struct Scratch {
    list: Vec<usize>,
    probes: Probes,
    /// Never read: the environment reports no per-channel counts.
    record: RunRecord,
    /// Marks one copy's slot in `probes` (see [`World::play`]).
    stamp: u64,
}

impl Scratch {
    fn new(k: usize) -> Scratch {
        let mut probes = Probes::default();
        probes.reset(k);
        Scratch {
            list: Vec::with_capacity(k),
            probes,
            record: RunRecord::new(k, 1),
            stamp: 0,
        }
    }
}

/// The probes of one copy's slot, written into its row.
struct Row<'a> {
    probes: &'a mut [Probe],
    made: usize,
}

impl Policy for Row<'_> {
    fn plan(&mut self, _t: u64, _list: &mut Vec<usize>, _rng: &mut SimRng) {}

    #[inline]
    fn observe(&mut self, channel: usize, idle: bool, cost: f64) {
        self.probes[self.made] = (channel, idle, cost);
        self.made += 1;
    }
}

impl Batch {
    /// `n` copies of the world of a regret scenario's configuration `experiment` (0 for a
    /// single channel list), copy i at the start of run i.
    pub fn regret(s: &RegretScenario, experiment: usize, n: usize) -> Result<Batch, StepError> {
        let exp = experiment_of(s, experiment)?;
        let env = exp.env.clone();
        let k = env.len();
        let simple = Simple::of(&env);
        let model = Model {
            plain: simple.is_none().then(|| Plain::of(&env)).flatten(),
            simple,
            env,
            horizon: s.header.horizon,
            // A grid's configurations draw from their own domains, as its runs do.
            domain: crate::engine::regret::runner::experiment_domain(s, &exp.label),
        };
        let mut batch = Batch {
            model: Arc::new(model),
            seed: s.header.seed,
            k,
            rows: Rows::default(),
            scratch: Scratch::new(k),
        };
        batch.resize(n);
        Ok(batch)
    }

    /// Holds `n` copies: the first ones as they were, each new copy i at the start of run i.
    pub fn resize(&mut self, n: usize) {
        let (k, old, r) = (self.k, self.len(), &mut self.rows);
        r.run.resize(n, 0);
        r.t.resize(n, 0);
        r.epoch.resize(n, 0);
        r.totals.resize(n, Totals::default());
        r.last.resize(n, Last::default());
        r.keys.resize(n * k, ChannelKeys::default());
        r.probes.resize(n * k, (0, false, 0.0));
        for v in [&mut r.occupancy, &mut r.benchmark] {
            v.truncate(n * k);
            // Placeholders, replaced by the resets below.
            while v.len() < n * k {
                let c = v.len() % k;
                v.push(self.model.env.channels()[c].occupancy().start(0));
            }
        }
        for i in old..n {
            self.reset(i, i as u64);
        }
    }

    /// Copies.
    pub fn len(&self) -> usize {
        self.rows.run.len()
    }

    /// Whether there is no copy.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Channels.
    pub fn channels(&self) -> usize {
        self.k
    }

    /// Slots of a run.
    pub fn horizon(&self) -> u64 {
        self.model.horizon
    }

    /// The checked channels every copy probes.
    pub fn environment(&self) -> &Environment {
        &self.model.env
    }

    /// Draws come from `seed` from the next reset on.
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }

    /// Copy `i` at the start of run `run` (the same draws as run `run` of the scenario).
    pub fn reset(&mut self, i: usize, run: u64) {
        self.part().reset(i, run);
    }

    /// Plays copy `i`'s next slot with `list` (as [`crate::Stepper::step`] with one user).
    pub fn step(&mut self, i: usize, list: &[usize]) -> Result<(), StepError> {
        let (mut part, scratch) = self.part_and_scratch();
        part.step(i, list, scratch)
    }

    /// Copy `i`'s run.
    pub fn run(&self, i: usize) -> u64 {
        self.rows.run[i]
    }

    /// Copy `i`'s slots played in its run.
    pub fn slot(&self, i: usize) -> u64 {
        self.rows.t[i]
    }

    /// Copy `i`'s totals so far, `(reward, pseudo-regret, realised regret)`, as
    /// [`crate::Stepper::totals`].
    pub fn totals(&self, i: usize) -> (f64, f64, f64) {
        self.rows.totals[i].summary()
    }

    /// Copy `i`'s last slot: its probes `(channel, sensed idle, observed cost)`, its net
    /// reward, the benchmark's expected reward and the slot's pseudo-regret (no probes and
    /// zeros before the run's first slot).
    pub fn last(&self, i: usize) -> (&[Probe], f64, f64, f64) {
        let r = &self.rows;
        last_of(
            &self.model.env,
            self.k,
            i,
            (&r.t, &r.epoch, &r.last, &r.probes),
        )
    }

    /// Every copy, as one part.
    #[doc(hidden)]
    pub fn part(&mut self) -> BatchPart<'_> {
        self.part_and_scratch().0
    }

    fn part_and_scratch(&mut self) -> (BatchPart<'_>, &mut Scratch) {
        let r = &mut self.rows;
        (
            BatchPart {
                model: &self.model,
                seed: self.seed,
                k: self.k,
                run: &mut r.run,
                t: &mut r.t,
                epoch: &mut r.epoch,
                totals: &mut r.totals,
                last: &mut r.last,
                keys: &mut r.keys,
                occupancy: &mut r.occupancy,
                benchmark: &mut r.benchmark,
                probes: &mut r.probes,
            },
            &mut self.scratch,
        )
    }
}

/// Copy `i`'s last slot (see [`Batch::last`]) from the rows `(t, epoch, last, probes)` of a
/// batch or of a part of one.
fn last_of<'p>(
    env: &Environment,
    k: usize,
    i: usize,
    (t, epoch, last, probes): (&[u64], &[usize], &[Last], &'p [Probe]),
) -> (&'p [Probe], f64, f64, f64) {
    let last = &last[i];
    let oracle = if t[i] == 0 {
        0.0
    } else {
        env.epochs()[epoch[i]].optimum.expected_reward
    };
    (
        &probes[i * k..i * k + last.probes],
        last.reward,
        oracle,
        last.regret,
    )
}

/// A contiguous range of a [`Batch`]'s copies, which one thread steps (indices are the
/// range's own, from 0); [`BatchPart::split_at`] cuts it in two.
#[doc(hidden)]
#[derive(Debug)]
pub struct BatchPart<'a> {
    model: &'a Model,
    seed: u64,
    k: usize,
    run: &'a mut [u64],
    t: &'a mut [u64],
    epoch: &'a mut [usize],
    totals: &'a mut [Totals],
    last: &'a mut [Last],
    keys: &'a mut [ChannelKeys],
    occupancy: &'a mut [OccupancyState],
    benchmark: &'a mut [OccupancyState],
    probes: &'a mut [Probe],
}

/// One thread's scratch for stepping a [`BatchPart`].
///
/// Aligned to two cache lines (the adjacent-line prefetcher pairs them), so that the threads'
/// scratches, which callers keep side by side in one vector, share no line: each copy's step
/// writes its scratch (the list's length, the stamp), and two threads writing one line take
/// turns owning it at every copy (false sharing).
#[doc(hidden)]
#[derive(Clone, Debug)]
#[repr(align(128))]
pub struct BatchScratch(Scratch);

impl BatchScratch {
    /// Scratch for a world of `k` channels.
    pub fn new(k: usize) -> BatchScratch {
        BatchScratch(Scratch::new(k))
    }
}

impl<'a> BatchPart<'a> {
    /// Copies in this part.
    pub fn len(&self) -> usize {
        self.run.len()
    }

    /// Whether the part holds no copy.
    pub fn is_empty(&self) -> bool {
        self.run.is_empty()
    }

    /// Channels.
    pub fn channels(&self) -> usize {
        self.k
    }

    /// The first `at` copies and the rest.
    pub fn split_at(self, at: usize) -> (BatchPart<'a>, BatchPart<'a>) {
        let k = self.k;
        let (run1, run2) = self.run.split_at_mut(at);
        let (t1, t2) = self.t.split_at_mut(at);
        let (e1, e2) = self.epoch.split_at_mut(at);
        let (to1, to2) = self.totals.split_at_mut(at);
        let (l1, l2) = self.last.split_at_mut(at);
        let (k1, k2) = self.keys.split_at_mut(at * k);
        let (o1, o2) = self.occupancy.split_at_mut(at * k);
        let (b1, b2) = self.benchmark.split_at_mut(at * k);
        let (p1, p2) = self.probes.split_at_mut(at * k);
        let (model, seed) = (self.model, self.seed);
        (
            BatchPart {
                model,
                seed,
                k,
                run: run1,
                t: t1,
                epoch: e1,
                totals: to1,
                last: l1,
                keys: k1,
                occupancy: o1,
                benchmark: b1,
                probes: p1,
            },
            BatchPart {
                model,
                seed,
                k,
                run: run2,
                t: t2,
                epoch: e2,
                totals: to2,
                last: l2,
                keys: k2,
                occupancy: o2,
                benchmark: b2,
                probes: p2,
            },
        )
    }

    /// Copy `i` at the start of run `run`.
    pub fn reset(&mut self, i: usize, run: u64) {
        let (k, model) = (self.k, self.model);
        let key = RunKey::new(self.seed, model.domain, run);
        let rows = i * k..(i + 1) * k;
        let channels = model.env.channels().iter().enumerate();
        for (((c, ch), keys), (occupancy, benchmark)) in
            channels.zip(&mut self.keys[rows.clone()]).zip(
                self.occupancy[rows.clone()]
                    .iter_mut()
                    .zip(&mut self.benchmark[rows]),
            )
        {
            *keys = ChannelKeys::of(key, c);
            *occupancy = ch.occupancy().start(keys.occupancy);
            *benchmark = ch.occupancy().start(keys.occupancy);
        }
        self.run[i] = run;
        self.t[i] = 0;
        self.epoch[i] = 0;
        self.totals[i] = Totals::default();
        self.last[i] = Last::default();
    }

    /// Copy `i`'s slots played in its run.
    pub fn slot(&self, i: usize) -> u64 {
        self.t[i]
    }

    /// The addresses of the cache lines copy `i`'s next step with `list` reads first (the
    /// path states and keys of the channels that its list and the benchmark's name first): a
    /// caller that steps the copies in order prefetches a copy or two ahead. A copy's rows are
    /// read in order, but only the lines of the channels probed, too sparse for the hardware
    /// to follow (the misses on them were two thirds of a step at 4 096 copies). Only
    /// addresses are given; nothing is read.
    pub fn hot_rows(&self, i: usize, list: &[usize], mut f: impl FnMut(*const u8)) {
        let k = self.k;
        let at = |c: usize| i * k + c;
        let simple = self.model.simple.is_some();
        // A value's first and last byte: it may straddle two lines.
        let mut both = |x: *const u8, size: usize| {
            f(x);
            f(x.wrapping_add(size - 1));
        };
        let (state, keys) = (
            std::mem::size_of::<OccupancyState>(),
            std::mem::size_of::<ChannelKeys>(),
        );
        for &c in list.iter().take(2).filter(|&&c| c < k) {
            both((&raw const self.keys[at(c)]).cast(), keys);
            if !simple {
                both((&raw const self.occupancy[at(c)]).cast(), state);
            }
        }
        let epoch = &self.model.env.epochs()[self.epoch[i]];
        for &c in epoch.optimum.list.iter().take(2) {
            both((&raw const self.keys[at(c)]).cast(), keys);
            if !simple {
                both((&raw const self.benchmark[at(c)]).cast(), state);
            }
        }
        both(
            (&raw const self.totals[i]).cast(),
            std::mem::size_of::<Totals>(),
        );
    }

    /// Copy `i`'s last slot's probes (those [`BatchPart::last`] gives, without the rest): what
    /// an observation shows of it.
    #[inline]
    pub fn last_probes(&self, i: usize) -> &[Probe] {
        &self.probes[i * self.k..i * self.k + self.last[i].probes]
    }

    /// See [`Batch::last`].
    pub fn last(&self, i: usize) -> (&[Probe], f64, f64, f64) {
        let rows = (&*self.t, &*self.epoch, &*self.last, &*self.probes);
        last_of(&self.model.env, self.k, i, rows)
    }

    /// See [`Batch::step`]; `scratch`: this thread's.
    pub fn step_with(
        &mut self,
        i: usize,
        list: &[usize],
        scratch: &mut BatchScratch,
    ) -> Result<(), StepError> {
        self.step(i, list, &mut scratch.0)
    }

    /// [`BatchPart::step_with`] for a list of distinct channels below K, as the vector
    /// environment's decoders make them (checking it again took 4 % of a step at K = 64: the
    /// pairwise test of a 32-channel list); only the horizon is checked. A list that breaks
    /// the rule plays a slot that is not the engine's, and never fails otherwise.
    pub fn step_distinct(
        &mut self,
        i: usize,
        list: &[usize],
        scratch: &mut BatchScratch,
    ) -> Result<(), StepError> {
        debug_assert!(list.iter().all(|&c| c < self.k) && repeated(list, self.k).is_none());
        self.unended(i)?;
        self.play_on(i, list, &mut scratch.0);
        Ok(())
    }

    /// Whether copy `i` may play another slot (its run has not reached the horizon).
    fn unended(&self, i: usize) -> Result<(), StepError> {
        if self.t[i] >= self.model.horizon {
            return Err(StepError::Ended(self.model.horizon));
        }
        Ok(())
    }

    fn step(&mut self, i: usize, list: &[usize], scratch: &mut Scratch) -> Result<(), StepError> {
        let k = self.k;
        // In the stepper's order: the horizon first, then the list.
        self.unended(i)?;
        if let Some(&channel) = list.iter().find(|&&c| c >= k) {
            return Err(StepError::Channel {
                user: 0,
                channel,
                k,
            });
        }
        if let Some(channel) = repeated(list, k) {
            return Err(StepError::Repeated { user: 0, channel });
        }
        self.play_on(i, list, scratch);
        Ok(())
    }

    /// Copy `i`'s next slot with a checked `list` (its run not ended), on the channels' fast
    /// form where they have one.
    fn play_on(&mut self, i: usize, list: &[usize], scratch: &mut Scratch) {
        let model = self.model;
        match (&model.simple, &model.plain) {
            (Some(simple), _) => self.play(simple, i, list, scratch),
            (None, Some(plain)) => self.play(plain, i, list, scratch),
            (None, None) => self.play(&General::of(&model.env), i, list, scratch),
        }
    }

    /// Copy `i`'s next slot on spectrum `S`: the episode loop's slot, on the copy's rows.
    #[inline(always)]
    fn play<S: Spectrum>(&mut self, spectrum: &S, i: usize, list: &[usize], scratch: &mut Scratch) {
        let (k, model) = (self.k, self.model);
        let t = self.t[i] + 1;
        self.t[i] = t;
        let epochs = model.env.epochs();
        let mut epoch = self.epoch[i];
        Epoch::advance(epochs, &mut epoch, t);
        self.epoch[i] = epoch;
        let world = World::at(&model.env, spectrum, epoch);
        let rows = i * k..(i + 1) * k;
        let mut row = Row {
            probes: &mut self.probes[rows.clone()],
            made: 0,
        };
        let paths = PathsMut {
            keys: &self.keys[rows.clone()],
            occupancy: &mut self.occupancy[rows.clone()],
            benchmark: &mut self.benchmark[rows],
        };
        scratch.list.clear();
        scratch.list.extend_from_slice(list);
        // A unique mark per copy's slot: the copies share the record of what was probed.
        scratch.stamp += 1;
        let mut probes = scratch.probes.view();
        // The expected reward is computed afresh: the copy keeps no cache of its last list
        // (the same function of the same list gives the same bits).
        probes.expected.reset();
        let (slot, regret) = world.play(
            t,
            scratch.stamp,
            &mut row,
            &mut scratch.list,
            paths,
            &mut probes,
            &mut self.totals[i],
            &mut scratch.record,
        );
        self.last[i] = Last {
            reward: slot.net(),
            regret,
            probes: row.made,
        };
    }

    /// Copy `i`'s run.
    pub fn run(&self, i: usize) -> u64 {
        self.run[i]
    }

    /// Copy `i`'s totals so far (see [`Batch::totals`]).
    pub fn totals(&self, i: usize) -> (f64, f64, f64) {
        self.totals[i].summary()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Stepper;
    use crate::scenario::{Scenario, load};
    use std::path::Path;

    /// A reproducible stream of lists: each a random prefix (possibly empty) of a random order
    /// of the `k` channels.
    struct Lists(u64);

    impl Lists {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }

        fn list(&mut self, k: usize, out: &mut Vec<usize>) {
            out.clear();
            out.extend(0..k);
            for i in (1..k).rev() {
                let j = (self.next() % (i as u64 + 1)) as usize;
                out.swap(i, j);
            }
            let len = (self.next() % (k as u64 + 1)) as usize;
            out.truncate(len);
        }
    }

    /// Copy i of a batch plays the run it was reset to as a `Stepper` (the engine's run) plays
    /// it, step by step and bit for bit, whatever the other copies do: every occupancy process
    /// the shipped scenarios use, sensing errors, energy detectors, probe timing, the
    /// time-left reward, piecewise epochs and a grid's configurations; copies reset to other
    /// runs mid-episode.
    #[test]
    fn every_copy_is_its_run_bit_for_bit() {
        for (file, experiment) in [
            ("paper-fig1a.ron", 0),
            ("spectrum-markov.ron", 0),
            ("spectrum-markov.ron", 1),
            ("spectrum-onoff.ron", 0),
            ("spectrum-sensing.ron", 0),
            ("energy-detector.ron", 0),
            ("jiang-2009-adaptive.ron", 0),
            ("spectrum-piecewise.ron", 0),
            ("spectrum-trace.ron", 0),
            ("spectrum-lopez-benitez.ron", 0),
            ("paper-table1.ron", 2),
        ] {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("scenarios")
                .join(file);
            let Scenario::Regret(mut s) = load(&path).unwrap() else {
                panic!("{file}: a regret scenario")
            };
            let experiment = experiment.min(s.experiments.len() - 1);
            s.header.horizon = s.header.horizon.min(400);
            let n = 6;
            let mut batch = Batch::regret(&s, experiment, n).unwrap();
            let mut one: Vec<Stepper> = (0..n)
                .map(|i| {
                    let mut w = Stepper::regret(&s, experiment).unwrap();
                    w.reset(i as u64);
                    w
                })
                .collect();
            let k = batch.channels();
            let mut lists = Lists(17);
            let mut list = Vec::new();
            for step in 0..s.header.horizon + 20 {
                if step == 150 {
                    batch.reset(3, 1 << 32 | 3);
                    one[3].reset(1 << 32 | 3);
                }
                for (i, w) in one.iter_mut().enumerate() {
                    lists.list(k, &mut list);
                    let ours = batch.step(i, &list);
                    match w.step(&[&list]) {
                        Err(e) => assert_eq!(ours, Err(e), "{file} copy {i}"),
                        Ok(o) => {
                            assert_eq!(ours, Ok(()), "{file} copy {i}");
                            let (probes, reward, oracle, regret) = batch.last(i);
                            let u = &o.users[0];
                            assert_eq!(probes, &u.probes[..], "{file} copy {i} slot {}", o.t);
                            assert_eq!(reward.to_bits(), u.reward.to_bits(), "{file}");
                            assert_eq!(oracle.to_bits(), o.benchmark_expected.to_bits());
                            assert_eq!(regret.to_bits(), o.pseudo_regret.to_bits(), "{file}");
                        }
                    }
                    let (a, b) = (batch.totals(i), w.totals());
                    assert_eq!(
                        [a.0.to_bits(), a.1.to_bits(), a.2.to_bits()],
                        [b.0.to_bits(), b.1.to_bits(), b.2.to_bits()],
                        "{file} copy {i} at step {step}"
                    );
                    assert_eq!(batch.slot(i), w.slot());
                    assert_eq!(batch.run(i), w.run());
                }
            }
        }
    }

    /// Parts cut anywhere step their copies as the whole batch does (and the unchecked step of
    /// distinct lists as the checked one).
    #[test]
    fn parts_step_as_the_whole() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/spectrum-sensing.ron");
        let Scenario::Regret(s) = load(&path).unwrap() else {
            panic!("a regret scenario")
        };
        let n = 9;
        let (mut whole, mut cut) = (
            Batch::regret(&s, 0, n).unwrap(),
            Batch::regret(&s, 0, n).unwrap(),
        );
        let k = whole.channels();
        let mut lists = Lists(5);
        let mut list = Vec::new();
        let mut scratch = BatchScratch::new(k);
        for _ in 0..200 {
            let mut step_lists = Vec::new();
            for i in 0..n {
                lists.list(k, &mut list);
                whole.step(i, &list).unwrap();
                step_lists.push(list.clone());
            }
            let (mut a, mut b) = cut.part().split_at(4);
            for (i, l) in step_lists.iter().enumerate() {
                match i {
                    0..4 => a.step_with(i, l, &mut scratch).unwrap(),
                    _ => b.step_distinct(i - 4, l, &mut scratch).unwrap(),
                }
            }
        }
        for i in 0..n {
            assert_eq!(whole.totals(i), cut.totals(i));
        }
    }

    /// Bad lists are refused, as the stepper refuses them, and change nothing.
    #[test]
    fn bad_lists_are_refused() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/paper-fig1a.ron");
        let Scenario::Regret(s) = load(&path).unwrap() else {
            panic!("a regret scenario")
        };
        let mut batch = Batch::regret(&s, 0, 2).unwrap();
        let k = batch.channels();
        assert_eq!(
            batch.step(1, &[0, k]),
            Err(StepError::Channel {
                user: 0,
                channel: k,
                k
            })
        );
        assert_eq!(
            batch.step(1, &[1, 0, 1]),
            Err(StepError::Repeated {
                user: 0,
                channel: 1
            })
        );
        assert_eq!(batch.slot(1), 0);
        assert!(Batch::regret(&s, 5, 1).is_err());
    }
}
