//! What `specprobe validate` prints for a many-users scenario (and its sweep).

use crate::engine::multi_user::runner::{benchmarks, expected_kind};
use crate::report::describe::{Describe, channel_table, description_and_weights, sweep_line};
use crate::report::format::{list, sig};
use crate::report::multi_user::summary::{benchmark_name, lower_bound};
use crate::scenario::MultiUserScenario;
use crate::util::math;
use crate::util::ron_text::to_ron_line;
use std::fmt::Write;

/// A many-users scenario: its model, policies, channels, the benchmark its regret is
/// measured against and the lower bounds where they apply (a sweep: of its base scenario, then
/// each cell's benchmark).
fn describe_multi_user(s: &MultiUserScenario) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} is valid: many users {:?}: M = {} users, K = {} channels, T = {}, {}, seed {}",
        s.header.source.display(),
        s.header.name,
        s.users,
        s.env.len(),
        s.header.horizon,
        crate::report::format::count(s.header.runs, "run"),
        s.header.seed
    );
    description_and_weights(&mut out, &s.header);
    let _ = writeln!(
        out,
        "timing {:?}, collisions {}, feedback {:?}",
        s.timing,
        to_ron_line(&s.collision),
        s.feedback
    );
    if let Some(m) = &s.user_theta {
        let _ = writeln!(
            out,
            "per-user means (row: channel, column: user from 0): {m:?}"
        );
    }
    if !s.jammers.list.is_empty() {
        let _ = writeln!(
            out,
            "jammers (not among the M users; the benchmark stays jammer-free):"
        );
        for j in &s.jammers.list {
            let _ = writeln!(out, "  {}", j.describe());
        }
    }
    let _ = writeln!(out, "policies:");
    for p in &s.policies {
        let _ = writeln!(out, "  {:<24} {}", p.label, p.to_ron());
    }
    let _ = writeln!(out, "\n{} channels", s.env.len());
    channel_table(&mut out, &s.env, s.header.horizon);
    match &s.sweep {
        Some(sw) => {
            sweep_line(&mut out, sw);
            for (value, cell) in sw.points() {
                let _ = write!(out, "  {}: ", sw.cell_label(value));
                benchmark_lines(&mut out, cell);
            }
        }
        None => benchmark_lines(&mut out, s),
    }
    for w in crate::scenario::target::multi_user_warnings(s) {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}

/// The benchmark of many-users scenario `s`, its expected reward per slot and lists, and the
/// lower bounds (or why none apply).
fn benchmark_lines(out: &mut String, s: &MultiUserScenario) {
    let expected = expected_kind(s);
    let bench = benchmarks(s, expected);
    let _ = writeln!(out, "benchmark: {}", benchmark_name(s, expected, &bench));
    for (e, b) in bench.iter().enumerate() {
        let lists: Vec<String> = b.lists.iter().map(|l| list(l)).collect();
        let when = if bench.len() > 1 {
            format!(" (epoch {e})")
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "    expected net reward {} per slot, all users together{when}; lists by user: {}",
            sig(b.expected_reward, 6),
            lists.join(" ")
        );
    }
    match lower_bound(s, expected) {
        Some(b) => {
            let _ = writeln!(
                out,
                "    lower bounds on the regret at T (Besson & Kaufmann 2018, decentralized; Anantharam et al. 1987, centralized): {} and {}; {}",
                sig(b.decentralized * math::ln(s.header.horizon as f64), 4),
                sig(b.centralized * math::ln(s.header.horizon as f64), 4),
                b.caveat
            );
        }
        None => {
            let _ = writeln!(
                out,
                "    no lower bound: they need one channel per user, M < K, i.i.d. channels with shared means, colliding users all losing the slot (AllLost) and sensing feedback"
            );
        }
    }
}

impl Describe for MultiUserScenario {
    fn describe(&self) -> String {
        describe_multi_user(self)
    }
}
