//! The benchmark of the channels the jammers leave (see [`crate::model::jamming`]): in a slot
//! in which jammers hold some channels, the best the users could expect from the others, by
//! the scenario's own benchmark rule on an instance where each jammed channel pays nothing,
//! costs nothing and never ends a cascade (so an optimal list or assignment gains nothing from
//! it: for one channel per user, a user left without a free channel stays silent). For
//! coordinated jammers on J fixed channels this is the top-M of the K − J others. The regret
//! against it is the pseudo-regret less `Σ_t` (the benchmark's expected reward − this one's).

use crate::model::sharing::{disjoint_lists, disjoint_lists_by, m_best};
use crate::model::theory::Optimum;
use crate::multi::Collision;
use crate::scenario::MultiUserScenario;
use crate::util::cancel::Cancel;

/// The benchmark rule a scenario's pseudo-regret is measured against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    /// One user: the single-user optimum.
    One,
    /// One channel per user: the top-M channels.
    Classic,
    /// Disjoint lists (or, without collisions, every user's optimum).
    Lists,
}

/// What the reduced benchmark of a scenario needs.
#[derive(Clone, Debug)]
pub(crate) struct ReducedBenchmark<'a> {
    s: &'a MultiUserScenario,
    rule: Rule,
}

impl<'a> ReducedBenchmark<'a> {
    /// The reduced benchmark of `s` under `rule`, where it is defined: some jammer can jam,
    /// the means are shared and rewards add up (per-user means and other system rewards have
    /// their own benchmarks, not reduced here).
    pub(crate) fn of(s: &'a MultiUserScenario, rule: Rule) -> Option<Self> {
        let defined = s.jammers.active()
            && s.system_reward.is_linear()
            && (s.user_theta.is_none() || s.users == 1);
        defined.then_some(ReducedBenchmark { s, rule })
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
        match self.rule {
            Rule::One => one(),
            Rule::Classic => m_best(&success, &cost, s.users, copies).expected_reward,
            Rule::Lists if copies => one() * s.users as f64,
            Rule::Lists => {
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
