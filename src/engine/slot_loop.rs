//! The slot loop.
//!
//! Generic over the policy (monomorphised, so the calls to `plan` and `observe` inline), free of
//! allocation (the list buffer, the paths and the record are the caller's) and of logging. Each
//! slot: the policy plans its list; the engine probes it in order, each probe at the instant
//! the delays before it have used up (when the scenario sets a slot duration; a probe that
//! would start after the slot ends is not made), reads the channel's state there, draws the
//! probe's cost and the sensed state, reports them to the policy, and stops at the first
//! channel sensed idle. The user transmits there: on a truly idle channel that earns 1, on a busy
//! one it collides with the primary user and earns nothing. The slot's pseudo-regret comes from
//! the exact expected rewards of the benchmark's list and the policy's, for the current
//! benchmark epoch; realised regret is filled in afterwards from the benchmark's run on the
//! same sample paths ([`RunRecord::set_realized`]).

use crate::engine::recorder::{Metric, N_METRICS, RunRecord};
use crate::model::channel::{Environment, Paths};
use crate::policy::Policy;
use crate::util::cancel::{CHECK_MASK, Cancel};
use crate::util::crn;
use crate::util::rng::SimRng;

/// Runs one episode of `horizon` slots, recording cumulative metrics at `checkpoints` (increasing,
/// the last one equal to `horizon`) into `record`, which must be sized for them and reset.
/// `paths` must be reset for this run; `rng` is the policy's own stream. Returns early, with
/// the record incomplete, when `cancel` is set (looked at every 2¹⁶ slots).
#[allow(clippy::too_many_arguments)]
pub(crate) fn episode<P: Policy>(
    env: &Environment,
    policy: &mut P,
    horizon: u64,
    checkpoints: &[u64],
    rng: &mut SimRng,
    paths: &mut Paths,
    record: &mut RunRecord,
    list: &mut Vec<usize>,
    cancel: &Cancel,
) {
    debug_assert_eq!(checkpoints.last(), Some(&horizon));
    debug_assert_eq!(record.rows.len(), checkpoints.len());
    let duration = env.slot_duration();
    let channels = env.channels();
    let epochs = env.epochs();
    let mut epoch = 0;
    let mut best = epochs[0].optimum.expected_reward;
    // Policies often repeat last slot's list (always, for the oracle): its expected reward is
    // then reused instead of recomputed (a memcmp instead of a multiply-add per channel).
    let mut previous: Vec<usize> = Vec::with_capacity(env.len());
    let mut previous_value = env.expected_reward_in(0, &previous);
    let mut cum = [0.0f64; N_METRICS];
    let mut next = 0;
    let mut next_t = checkpoints[0];
    for t in 1..=horizon {
        if t & CHECK_MASK == 0 && cancel.is_cancelled() {
            return;
        }
        if t > epochs[epoch].last {
            while t > epochs[epoch].last {
                epoch += 1;
            }
            best = epochs[epoch].optimum.expected_reward;
            previous.clear();
            previous_value = env.expected_reward_in(epoch, &previous);
        }
        list.clear();
        policy.plan(t, list, rng);
        let mut cost = 0.0;
        let mut energy = 0.0;
        let mut delay = 0.0;
        let mut success = false;
        let mut collision = false;
        let mut missed = 0u32;
        let mut probes = 0usize;
        for &i in list.iter() {
            let offset = match duration {
                None => 0.0,
                Some(d) if delay < d => delay / d,
                Some(_) => break,
            };
            let ch = &channels[i];
            let idle = ch.occupancy().idle(&mut paths.occupancy[i], t, offset);
            let c = ch.cost().sample_at(paths.cost[i], paths.delay[i], t);
            let sensing = ch.sensing();
            let sensed = if sensing.is_perfect() {
                idle
            } else {
                sensing.sense(idle, crn::bits(paths.sensing[i], t))
            };
            policy.observe(i, sensed, c.cost);
            cost += c.cost;
            energy += c.energy;
            delay += c.delay;
            record.channel_probes[i] += 1;
            probes += 1;
            if sensed {
                success = idle;
                collision = !idle;
                break;
            }
            missed += u32::from(idle);
        }
        let idle = if success { 1.0 } else { 0.0 };
        let net = idle - cost;
        if list[..] != previous[..] {
            previous.clear();
            previous.extend_from_slice(list);
            previous_value = env.expected_reward_in(epoch, list);
        }
        cum[Metric::PseudoRegret as usize] += best - previous_value;
        cum[Metric::Reward as usize] += net;
        cum[Metric::Cost as usize] += cost;
        cum[Metric::Energy as usize] += energy;
        cum[Metric::Delay as usize] += delay;
        cum[Metric::Probes as usize] += probes as f64;
        cum[Metric::IdleFound as usize] += idle;
        cum[Metric::PuCollisions as usize] += if collision { 1.0 } else { 0.0 };
        cum[Metric::MissedOpportunities as usize] += f64::from(missed);
        record.probes_per_slot[probes] += 1;
        if t == next_t {
            record.rows[next] = cum;
            next += 1;
            next_t = checkpoints.get(next).copied().unwrap_or(u64::MAX);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::channel::Channel;
    use crate::model::cost::CostModel;
    use crate::model::law::{Law, LawSpec};
    use crate::policy::{Oracle, RandomList};
    use crate::util::crn::RunKey;
    use crate::util::stats::CheckpointSpec;

    fn env(theta: &[f64], cost: f64) -> Environment {
        let law = Law::new(&LawSpec::Bernoulli(cost)).unwrap();
        Environment::new(
            theta
                .iter()
                .map(|&t| Channel::new(t, CostModel::Plain(law.clone())))
                .collect(),
        )
    }

    #[test]
    fn oracle_has_exactly_zero_pseudo_regret_and_consistent_counts() {
        let env = env(&[0.8, 0.7, 0.6, 0.5, 0.4, 0.3], 0.55);
        let cps = CheckpointSpec::default().slots(5000);
        let mut rec = RunRecord::new(6, cps.len());
        let mut list = Vec::new();
        let mut rng = crate::util::rng::stream(1, 1, 1);
        let mut paths = Paths::new(&env, RunKey::new(1, 1, 1));
        episode(
            &env,
            &mut Oracle::new(&env),
            5000,
            &cps,
            &mut rng,
            &mut paths,
            &mut rec,
            &mut list,
            &Cancel::new(),
        );
        let last = rec.rows.last().unwrap();
        assert_eq!(last[Metric::PseudoRegret as usize], 0.0);
        // Never probes a channel outside the UCR-T1 list {0, 1, 2}.
        assert!(rec.channel_probes[3..].iter().all(|&c| c == 0));
        let probes: u64 = rec.channel_probes.iter().sum();
        assert_eq!(last[Metric::Probes as usize], probes as f64);
        assert_eq!(rec.probes_per_slot.iter().sum::<u64>(), 5000);
        // Reward = idle found − cost; perfect sensing never collides.
        let reward = last[Metric::IdleFound as usize] - last[Metric::Cost as usize];
        assert!((last[Metric::Reward as usize] - reward).abs() < 1e-9);
        assert_eq!(last[Metric::PuCollisions as usize], 0.0);
        assert_eq!(last[Metric::MissedOpportunities as usize], 0.0);
    }

    #[test]
    fn probing_stops_at_the_first_idle_channel() {
        // Channel 0 always idle: a random list of all channels probes exactly one channel when
        // channel 0 comes first, never anything after it.
        let env = env(&[1.0, 0.0, 0.0], 0.1);
        let cps = vec![1000];
        let mut rec = RunRecord::new(3, 1);
        let mut list = Vec::new();
        let mut rng = crate::util::rng::stream(2, 2, 2);
        let mut paths = Paths::new(&env, RunKey::new(2, 2, 2));
        episode(
            &env,
            &mut RandomList::new(3, 3),
            1000,
            &cps,
            &mut rng,
            &mut paths,
            &mut rec,
            &mut list,
            &Cancel::new(),
        );
        let last = rec.rows[0];
        // Every slot finds channel 0 idle.
        assert_eq!(last[Metric::IdleFound as usize], 1000.0);
        assert_eq!(rec.channel_probes[0], 1000);
        assert_eq!(rec.probes_per_slot[0], 0);
        assert_eq!(rec.probes_per_slot.iter().sum::<u64>(), 1000);
    }
}
