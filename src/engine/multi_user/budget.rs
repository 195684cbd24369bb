//! What a many-users scenario, or its sweep, needs before it runs (see
//! [`crate::engine::budget`]).

use crate::engine::budget::{CUSTOM_NS_PER_SLOT, MOMENTS, Need, Needs, Work, channels, product};
use crate::engine::multi_user::slot_loop::N_MULTI;
use crate::scenario::multi_user::TeamKind;
use crate::scenario::{MultiUserScenario, Sweep};

/// Nanoseconds per channel of one assignment the exact many-users benchmark evaluates:
/// 1.8 s measured for 300 piecewise epochs of K = 10 channels and M = 2 users (3¹⁰ assignments
/// each), rounded up.
const NS_PER_ASSIGNMENT_CHANNEL: f64 = 12.0;

/// A many-users scenario: per policy the curves and per-user and per-channel statistics, the
/// per-run values at the horizon; per worker the users' paths and buffers.
fn multi_user(s: &MultiUserScenario, runs: u64, threads: u64) -> (u64, f64, f64) {
    let checkpoints = s.header.checkpoints.slots(s.header.horizon).len() as u64;
    let (k, m) = (s.env.len() as u64, s.users as u64);
    let policies = s.policies.len() as u64;
    // Every metric of a checkpoint row (the single-user ones and the users in collisions),
    // as moments; per run its row at the horizon and its index.
    let row = N_MULTI as u64;
    let per_policy = product(&[checkpoints, row, MOMENTS])
        .saturating_add(product(&[
            m.saturating_mul(3).saturating_add(k * 2),
            MOMENTS,
        ]))
        .saturating_add(product(&[runs, 8 * (row + 1)]));
    let worker = product(&[m.saturating_add(m), k, 64]).saturating_add(product(&[k, k, 8]));
    let memory = product(&[policies, per_policy])
        .saturating_add(product(&[threads, 4, worker]))
        .saturating_add(channels(&s.env));
    let user_slots = runs as f64 * m as f64 * s.header.horizon as f64;
    // Each team's own cost per user-slot at this K and M (a user's team: a cautious middle,
    // as a user's single-user policy).
    let ns: f64 = s
        .policies
        .iter()
        .map(|p| match &p.kind {
            TeamKind::Builtin(spec) => spec.ns_per_user_slot(k, m),
            TeamKind::Custom(_) | TeamKind::Selfish(_) => {
                CUSTOM_NS_PER_SLOT.0 + CUSTOM_NS_PER_SLOT.1 * k as f64
            }
        })
        .sum();
    (memory, user_slots * policies as f64, user_slots * ns * 1e-9)
}

/// The seconds the many-users benchmark takes before the runs: where it is the exact best
/// assignment of disjoint lists ((M + 1)^K ≤ 2²⁰ assignments, see
/// [`crate::model::sharing`]), every epoch enumerates them (a piecewise channel of many
/// segments has an epoch each); the classic, per-user and heuristic benchmarks are cheap.
fn benchmark_setup(s: &MultiUserScenario) -> f64 {
    use crate::engine::multi_user::runner::expected_kind;
    use crate::engine::multi_user::slot_loop::Expected;
    let copies = s.collision == crate::multi::Collision::NoCollision;
    if s.users < 2 || s.user_theta.is_some() || copies || expected_kind(s) != Expected::None {
        return 0.0;
    }
    let k = s.env.len();
    let Some(assignments) = crate::model::sharing::enumerated(k, s.users) else {
        return 0.0;
    };
    let epochs = s.env.epochs().len() as f64;
    epochs * assignments as f64 * k as f64 * NS_PER_ASSIGNMENT_CHANNEL * 1e-9
}

impl Needs for MultiUserScenario {
    fn needs(&self, runs: &dyn Fn(u64) -> u64, threads: u64) -> Need {
        // A sweep's cells run one after another; every cell's statistics are kept.
        let cells = Sweep::cells_or(self.sweep.as_deref(), self);
        let (memory, steps, cpu) = cells.iter().fold((0u64, 0.0, 0.0), |(m, w, t), c| {
            let (cm, cw, ct) = multi_user(c, runs(c.header.runs), threads);
            (m.saturating_add(cm), w + cw, t + ct)
        });
        Need {
            memory,
            work: Work::SlotSteps(steps),
            cpu_seconds: cpu,
            setup_seconds: cells.iter().map(benchmark_setup).sum(),
        }
    }
}
