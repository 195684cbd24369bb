//! The benchmark of the channels the jammers leave (see [`crate::model::jamming`]): in a slot
//! in which jammers hold some channels, the best the users could expect from the others, by
//! the scenario's own benchmark rule on an instance where each jammed channel pays nothing,
//! costs nothing and never ends a cascade (so an optimal list or assignment gains nothing from
//! it: for one channel per user, a user left without a free channel stays silent). For
//! coordinated jammers on J fixed channels this is the top-M of the K − J others. The regret
//! against it is the pseudo-regret less `Σ_t` (the benchmark's expected reward − this one's).

use super::slot_loop::Expected;
use crate::model::sharing::{disjoint_lists, disjoint_lists_by, m_best};
use crate::model::theory::Optimum;
use crate::multi::Collision;
use crate::scenario::MultiUserScenario;
use crate::util::cancel::Cancel;

/// What the reduced benchmark of a scenario needs.
#[derive(Clone, Debug)]
pub(crate) struct ReducedBenchmark<'a> {
    s: &'a MultiUserScenario,
    expected: Expected,
}

impl<'a> ReducedBenchmark<'a> {
    /// The reduced benchmark of `s` whose pseudo-regret is computed as `expected`, where it
    /// is defined: some jammer can jam, the means are shared and rewards add up (per-user
    /// means and other system rewards have their own benchmarks, not reduced here).
    pub(crate) fn of(s: &'a MultiUserScenario, expected: Expected) -> Option<Self> {
        let defined = s.jammers.active()
            && s.system_reward.is_linear()
            && (s.user_theta.is_none() || s.users == 1)
            && expected != Expected::None;
        defined.then_some(ReducedBenchmark { s, expected })
    }

    /// The expected reward per slot in epoch `epoch` with the channels of `held` jammed.
    pub(crate) fn value(&self, epoch: usize, held: &[usize]) -> f64 {
        let (s, env) = (self.s, &self.s.env);
        let e = &env.epochs()[epoch];
        let (mut success, mut stop, mut cost) =
            (e.success.clone(), e.stop.clone(), env.mean_cost().to_vec());
        for &i in held {
            (success[i], stop[i], cost[i]) = (0.0, 0.0, 0.0);
        }
        let one = || match env.time_left() {
            None => Optimum::sensed(&success, &stop, &cost).expected_reward,
            Some(tl) => tl.optimum(&success, &stop, &cost, tl.delays()).1,
        };
        let copies = s.collision == Collision::NoCollision;
        match self.expected {
            Expected::Single => one(),
            Expected::Classic => m_best(&success, &cost, s.users, copies).expected_reward,
            Expected::None if copies => one() * s.users as f64,
            Expected::None => {
                let cancel = Cancel::new();
                match env.time_left() {
                    None => disjoint_lists(&success, &stop, &cost, s.users, &cancel),
                    Some(tl) => disjoint_lists_by(&success, &cost, s.users, &cancel, |set| {
                        tl.optimum_on(set, &success, &stop, &cost)
                    }),
                }
                .expected_reward
            }
        }
    }
}
