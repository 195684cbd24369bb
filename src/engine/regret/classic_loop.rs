//! The slot loop of a classic bandit: a built-in policy that lists one channel per slot
//! ([`crate::policy::PolicySpec::single_channel`]) on the papers' channels ([`Simple`]: i.i.d.
//! slots, a constant or Bernoulli cost, perfect sensing, no slot duration).
//!
//! It computes exactly what [`crate::engine::slot_loop::episode`] computes for such a policy,
//! bit for bit (a test runs both), without the cascade machinery a one-channel list never
//! needs: the probe is the slot's only one, so the benchmark reuses it where it lists that
//! channel and draws the rest; the expected reward of a one-channel list is taken from a table
//! of the K lists `[i]` (computed by the same function, once per benchmark epoch) instead of
//! being compared with last slot's list; the per-channel records are slices checked once. A
//! classic bandit's slot is a few dozen instructions of policy, so the general loop's
//! bookkeeping was most of its time.

use crate::engine::recorder::{Metric, N_METRICS, RunRecord};
use crate::engine::slot_loop::{Checkpoints, Slot, close_row};
use crate::engine::spectrum::{Simple, Spectrum};
use crate::model::channel::{Environment, Epoch, Paths};
use crate::model::theory::expected_reward_prefix;
use crate::policy::Policy;
use crate::util::cancel::{Cancel, check_mask};
use crate::util::rng::SimRng;

/// The buffers of the classic loop, kept from run to run.
#[derive(Clone, Debug, Default)]
pub(crate) struct ClassicBuffers {
    list: Vec<usize>,
    /// The exact expected reward of each one-channel list `[i]` in the current epoch.
    value: Vec<f64>,
}

/// The exact expected reward of each list `[i]` in `epoch`, as the general loop computes it.
fn one_channel_values(epoch: &Epoch, mean_cost: &[f64], value: &mut Vec<f64>) {
    value.clear();
    let mut list = Vec::with_capacity(1);
    for i in 0..mean_cost.len() {
        list.clear();
        list.push(i);
        let (v, _, _) = expected_reward_prefix(
            &mut list,
            &mut |_| false,
            &epoch.success,
            &epoch.stop,
            mean_cost,
        );
        value.push(v);
    }
}

/// Runs one episode of `horizon` slots of a policy whose lists hold one channel (or none),
/// recording as [`crate::engine::slot_loop::episode`] does (same arguments, same record).
#[allow(clippy::too_many_arguments)]
pub(crate) fn episode<P: Policy>(
    env: &Environment,
    spectrum: &Simple,
    policy: &mut P,
    horizon: u64,
    checkpoints: &[u64],
    rng: &mut SimRng,
    paths: &mut Paths,
    record: &mut RunRecord,
    buffers: &mut ClassicBuffers,
    cancel: &Cancel,
) {
    debug_assert_eq!(checkpoints.last(), Some(&horizon));
    debug_assert_eq!(record.rows.len(), checkpoints.len());
    let k = env.len();
    let ClassicBuffers { list, value } = buffers;
    let epochs = env.epochs();
    let mean_cost = env.mean_cost();
    let mut epoch = 0;
    let mut current = &epochs[0];
    one_channel_values(current, mean_cost, value);
    // The empty list's expected reward (a slot without a probe).
    let silent = 0.0;
    // Sliced to K once, so that a channel checked against K indexes them without more checks.
    let channel_probes = &mut record.channel_probes[..k];
    let probes_per_slot = &mut record.probes_per_slot;
    let mut cum = [0.0f64; N_METRICS];
    let mut benchmark_reward = 0.0f64;
    let mut rows = Checkpoints::new(checkpoints);
    let check = check_mask(env.len());
    for t in 1..=horizon {
        if t & check == 0 && cancel.is_cancelled() {
            return;
        }
        if Epoch::advance(epochs, &mut epoch, t) {
            current = &epochs[epoch];
            one_channel_values(current, mean_cost, value);
        }
        list.clear();
        policy.plan(t, list, rng);
        debug_assert!(list.len() <= 1, "a single-channel policy listed {list:?}");
        let mut slot = Slot::default();
        // The policy's probe, if it listed a channel.
        let probed = list.first().map(|&i| {
            assert!(i < k, "channel {i} of {k}");
            let p = spectrum.probe(&paths.keys, &mut paths.occupancy, i, t, 0.0);
            policy.observe(i, p.sensed, p.cost.cost);
            channel_probes[i] += 1;
            slot.add(&p);
            (i, p)
        });
        // The benchmark's probes on the same paths: the policy's where it probed the channel.
        let mut bench = Slot::default();
        for &i in &current.optimum.list {
            let p = match probed {
                Some((c, p)) if c == i => p,
                _ => spectrum.probe(&paths.keys, &mut paths.benchmark, i, t, 0.0),
            };
            if bench.add(&p) {
                break;
            }
        }
        benchmark_reward += bench.net();
        let expected = probed.map_or(silent, |(i, _)| value[i]);
        cum[Metric::PseudoRegret as usize] += current.optimum.expected_reward - expected;
        slot.add_to(&mut cum);
        probes_per_slot[slot.probes] += 1;
        if let Some(row) = rows.due(t) {
            close_row(&mut cum, benchmark_reward);
            record.rows[row] = cum;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::slot_loop::{self, Buffers};
    use crate::model::channel::Channel;
    use crate::model::cost::CostModel;
    use crate::model::law::{Law, LawSpec};
    use crate::policy::{PolicySpec, RandomList};
    use crate::util::crn::RunKey;
    use crate::util::stats::CheckpointSpec;

    /// Picks one channel at random, or none every third slot: empty lists too.
    struct Sometimes(RandomList);

    impl Policy for Sometimes {
        fn plan(&mut self, t: u64, list: &mut Vec<usize>, rng: &mut SimRng) {
            self.0.plan(t, list, rng);
            list.truncate(usize::from(!t.is_multiple_of(3)));
        }
        fn observe(&mut self, channel: usize, idle: bool, cost: f64) {
            self.0.observe(channel, idle, cost);
        }
    }

    fn env(channels: &[(f64, LawSpec)]) -> Environment {
        Environment::new(
            channels
                .iter()
                .map(|(theta, cost)| {
                    Channel::new(*theta, CostModel::Plain(Law::new(cost).unwrap()))
                })
                .collect(),
        )
    }

    /// Runs `make()`'s policy through both loops from the same streams; the records must be
    /// equal bit for bit.
    fn same_as_the_general_loop<P: Policy>(env: &Environment, make: impl Fn() -> P, seed: u64) {
        let horizon = 4000;
        let cps = CheckpointSpec::default().slots(horizon);
        let simple = Simple::of(env).expect("the papers' setting");
        let k = env.len();
        // The same streams and paths for both loops; only the loop differs.
        let run = |classic: bool| {
            let mut rec = RunRecord::new(k, cps.len());
            let mut paths = Paths::new(env, RunKey::new(seed, 0, 1));
            let mut rng = crate::util::rng::stream(seed, 0, 1);
            let (policy, cancel) = (&mut make(), &Cancel::new());
            if classic {
                let buffers = &mut ClassicBuffers::default();
                episode(
                    env, &simple, policy, horizon, &cps, &mut rng, &mut paths, &mut rec, buffers,
                    cancel,
                );
            } else {
                let buffers = &mut Buffers::new(k);
                slot_loop::episode(
                    env, &simple, policy, horizon, &cps, &mut rng, &mut paths, &mut rec, buffers,
                    cancel,
                );
            }
            rec
        };
        let (general, rec) = (run(false), run(true));
        for (a, b) in rec.rows.iter().zip(&general.rows) {
            for (x, y) in a.iter().zip(b) {
                assert_eq!(x.to_bits(), y.to_bits(), "seed {seed}: {a:?} against {b:?}");
            }
        }
        assert_eq!(rec.channel_probes, general.channel_probes);
        assert_eq!(rec.probes_per_slot, general.probes_per_slot);
    }

    /// Both UCB1s, and a policy that sometimes lists nothing, on channels whose benchmark list
    /// is long (the benchmark draws what the policy did not probe), with constant and
    /// Bernoulli costs, channels always idle or always busy, and costs that make the best list
    /// empty.
    #[test]
    fn equals_the_general_loop_bit_for_bit() {
        use LawSpec::{Bernoulli, Constant};
        let instances = [
            env(&[
                (0.8, Constant(0.75)),
                (0.7, Constant(0.75)),
                (0.6, Constant(0.75)),
                (0.5, Constant(0.75)),
                (0.4, Constant(0.75)),
                (0.3, Constant(0.75)),
            ]),
            env(&[
                (0.8, Bernoulli(0.55)),
                (0.7, Bernoulli(0.5)),
                (0.6, Constant(0.45)),
                (0.4, Bernoulli(0.3)),
                (0.2, Constant(0.1)),
            ]),
            env(&[
                (1.0, Constant(0.2)),
                (0.0, Bernoulli(0.1)),
                (0.5, Constant(0.0)),
                (0.3, Bernoulli(1.0)),
            ]),
            env(&[(0.1, Constant(0.9)), (0.2, Bernoulli(0.95))]),
        ];
        for (n, env) in instances.iter().enumerate() {
            let seed = 11 + n as u64;
            for spec in ["Ucb1", "Ucb1(reward: Idle)"] {
                let spec: PolicySpec = spec.parse().unwrap();
                assert!(spec.single_channel());
                same_as_the_general_loop(env, || spec.build(env), seed);
            }
            same_as_the_general_loop(env, || Sometimes(RandomList::new(env.len(), 1)), seed);
        }
    }
}
