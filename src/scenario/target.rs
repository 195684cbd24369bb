//! Warnings about what a many-users policy learns: most of them (MCTopM, RandTopM, rhoRand,
//! DPE, SIC-MMAB, ...) estimate each channel's idle probability and never see a probe's cost,
//! while the benchmark ranks channels by net reward, idle probability minus mean cost. Where
//! the costs reorder the channels, such a policy converges on the wrong ones and its regret
//! grows linearly without anything failing (issue 50: MCTopM spent ~9 455 user-slots a run on
//! a wrong channel). `validate` and `run` say so before the run.

use super::multi_user::{MultiUserScenario, TeamKind};
use crate::model::sharing::m_best;

/// A policy whose learned target is worse than its benchmark: in `epoch`, the channels it
/// aims at (`learned`) and the benchmark's (`best`), with their expected net rewards per
/// slot, all users together.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Mismatch {
    /// The policy's label.
    pub label: String,
    /// The epoch (of a piecewise scenario; 0 otherwise).
    pub epoch: usize,
    /// The M channels of largest idle probability.
    pub learned: Vec<usize>,
    /// Their expected net reward per slot.
    pub learned_value: f64,
    /// The benchmark's channels.
    pub best: Vec<usize>,
    /// The benchmark's expected net reward per slot.
    pub best_value: f64,
}

impl Mismatch {
    /// One line for `validate` and the log.
    pub(crate) fn describe(&self) -> String {
        let when = if self.epoch > 0 {
            format!(" (epoch {})", self.epoch)
        } else {
            String::new()
        };
        format!(
            "policy {:?} learns the channels' idle probabilities and never sees the probing costs, so it aims at channels {:?} (expected net reward {:.4} a slot, all users together), while the benchmark's best by net reward are {:?} ({:.4}){when}: its regret grows by about {:.4} a slot, linearly. Give it the net reward where it takes one (`reward: Net` on McTopM, RandTopM, RhoRand and CentralizedMultiplePlay) or a policy that sees the costs (`Selfish(policy: Ucb1)`, whose default reward is the net one)",
            self.label,
            self.learned,
            self.learned_value,
            self.best,
            self.best_value,
            self.best_value - self.learned_value
        )
    }
}

/// The policies of `s` that learn the idle probability alone, list one channel a slot, and
/// would converge on channels of lower expected net reward than the benchmark's, at the first
/// epoch where that happens. Only where the classic benchmark applies (the sum of the users'
/// rewards, no per-user means, no time-left reward); elsewhere the benchmark is not a
/// ranking of channels and nothing is said.
pub(crate) fn mismatches(s: &MultiUserScenario) -> Vec<Mismatch> {
    if !s.system_reward.is_linear() || s.user_theta.is_some() || s.env.time_left().is_some() {
        return Vec::new();
    }
    let blind: Vec<&str> = s
        .policies
        .iter()
        .filter(|p| {
            let sees = match &p.kind {
                TeamKind::Builtin(spec) => spec.sees_costs(),
                TeamKind::Custom(_) | TeamKind::Selfish(_) => true,
            };
            !sees && p.is_classic()
        })
        .map(|p| p.label.as_str())
        .collect();
    if blind.is_empty() {
        return Vec::new();
    }
    // What a cost-blind policy aims at depends on the scenario alone: found once, said of each.
    let copies = s.collision == crate::multi::Collision::NoCollision;
    let cost = s.env.mean_cost();
    let free = vec![0.0; cost.len()];
    let channels = |lists: &[Vec<usize>]| {
        let mut c: Vec<usize> = lists.iter().map(|l| l[0]).collect();
        c.sort_unstable();
        c.dedup();
        c
    };
    let found = s.env.epochs().iter().enumerate().find_map(|(e, epoch)| {
        let best = m_best(&epoch.success, cost, s.users, copies);
        let learned = m_best(&epoch.success, &free, s.users, copies);
        let value: f64 = learned
            .lists
            .iter()
            .map(|l| epoch.success[l[0]] - cost[l[0]])
            .sum();
        let tolerance = 1e-9 * best.expected_reward.abs().max(1.0);
        (best.expected_reward - value > tolerance).then(|| Mismatch {
            label: String::new(),
            epoch: e,
            learned: channels(&learned.lists),
            learned_value: value,
            best: channels(&best.lists),
            best_value: best.expected_reward,
        })
    });
    let Some(found) = found else {
        return Vec::new();
    };
    blind
        .into_iter()
        .map(|label| Mismatch {
            label: label.to_string(),
            ..found.clone()
        })
        .collect()
}

/// Every warning of [`mismatches`] for a scenario, one line each (a sweep's: per cell, named
/// by its value); none for other kinds.
pub(crate) fn warnings(scenario: &crate::scenario::Scenario) -> Vec<String> {
    crate::scenario::each_kind!(scenario, s => s.target_warnings())
}

/// A scenario kind whose policies may learn another target than their benchmark's: only
/// many-users policies do.
pub(crate) trait TargetWarnings {
    /// One line per policy whose learned target is worse than its benchmark.
    fn target_warnings(&self) -> Vec<String> {
        Vec::new()
    }
}

impl TargetWarnings for MultiUserScenario {
    fn target_warnings(&self) -> Vec<String> {
        multi_user_warnings(self)
    }
}

impl TargetWarnings for super::RegretScenario {}

impl TargetWarnings for super::SweepScenario {}

impl TargetWarnings for super::IdentificationScenario {}

/// [`warnings`] of a many-users scenario.
pub(crate) fn multi_user_warnings(s: &MultiUserScenario) -> Vec<String> {
    match &s.sweep {
        None => mismatches(s).iter().map(Mismatch::describe).collect(),
        Some(sweep) => sweep
            .points()
            .flat_map(|(value, cell)| {
                let at = sweep.cell_label(value);
                mismatches(cell)
                    .into_iter()
                    .map(move |m| format!("{at}: {}", m.describe()))
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    fn many(channels: &str, policies: &str, extra: &str) -> MultiUserScenario {
        let text = format!(
            "MultiUser(name: \"t\", seed: 1, horizon: 100, runs: 1, users: 2, channels: [{channels}], policies: [{policies}]{extra})"
        );
        match crate::scenario::parse(&text, std::path::Path::new("t.ron")).unwrap() {
            Scenario::MultiUser(s) => s,
            _ => unreachable!(),
        }
    }

    #[test]
    fn costs_that_reorder_the_channels_are_found_for_cost_blind_policies_only() {
        // Idle probabilities rank 0, 1 first; net rewards rank 2, 3 first.
        let channels = "(theta: 0.9, cost: Bernoulli(0.8)), (theta: 0.8, cost: Bernoulli(0.7)), (theta: 0.6, cost: Bernoulli(0.1)), (theta: 0.5, cost: Bernoulli(0.05))";
        let s = many(
            channels,
            "(policy: McTopM()), (policy: RhoRand()), (policy: Selfish(policy: Ucb1())), (policy: Selfish(policy: Ucb1(reward: Idle))), (policy: McTopM(reward: Net)), (policy: RandTopM(index: Ucb, reward: Net))",
            "",
        );
        let found = mismatches(&s);
        let labels: Vec<&str> = found.iter().map(|m| m.label.as_str()).collect();
        assert_eq!(labels.len(), 3, "{labels:?}");
        assert!(
            !labels
                .iter()
                .any(|l| *l == "selfish-ucb1" || l.contains("-net")),
            "{labels:?}"
        );
        let m = &found[0];
        assert_eq!(
            (m.learned.clone(), m.best.clone()),
            (vec![0, 1], vec![2, 3])
        );
        assert!((m.best_value - 0.95).abs() < 1e-12 && (m.learned_value - 0.2).abs() < 1e-12);
        assert!(m.describe().contains("grows by about 0.7500 a slot"));
    }

    #[test]
    fn costs_that_keep_the_order_or_tie_say_nothing() {
        // Costs that keep the idle order, and equal values that only tie.
        for channels in [
            "(theta: 0.9, cost: Bernoulli(0.1)), (theta: 0.8, cost: Bernoulli(0.1)), (theta: 0.3, cost: Bernoulli(0.2))",
            "(theta: 0.9, cost: Constant(0.0)), (theta: 0.9, cost: Constant(0.0)), (theta: 0.5, cost: Constant(0.0))",
        ] {
            let s = many(channels, "(policy: McTopM()), (policy: RandTopM())", "");
            assert_eq!(mismatches(&s), Vec::new(), "{channels}");
        }
    }
}
