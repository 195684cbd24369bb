//! What `specprobe validate` prints for a regret scenario.

use crate::policy::DEFAULT_ALPHA;
use crate::report::describe::{Describe, channel_table, description_and_weights};
use crate::report::format::unit_suffix;
use crate::report::format::{list, sig};
use crate::scenario::RegretScenario;
use std::fmt::Write;

fn describe_regret(s: &RegretScenario) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} is valid: regret scenario {:?}, horizon {} slots, {}, seed {}",
        s.header.source.display(),
        s.header.name,
        s.header.horizon,
        crate::report::format::count(s.header.runs, "run"),
        s.header.seed
    );
    description_and_weights(&mut out, &s.header);
    let _ = writeln!(out, "policies:");
    for p in &s.policies {
        let _ = writeln!(out, "  {:<24} {}", p.label, p.describe());
    }
    if let Some(r) = s.reference_index() {
        let _ = writeln!(out, "paired differences against: {}", s.policies[r].label);
    }
    for e in &s.experiments {
        let env = &e.env;
        let _ = writeln!(out, "\nconfiguration {:?}: {} channels", e.label, env.len());
        if let Some(d) = env.slot_duration() {
            let _ = writeln!(
                out,
                "slot duration {d}{}: probes start after the delays before them; none starts after the slot ends",
                unit_suffix(&s.header.units.delay)
            );
        }
        if let Some(tl) = env.time_left() {
            let spec = tl.spec();
            let _ = writeln!(
                out,
                "reward by the time left: a transmission on channel k earns rate_k·(1 − t/T) when k is idle, {}·(1 − t/T) when it is busy but sensed idle (t: the probes' time); rates {:?}; learners see each probe's time as {}·delay/T",
                spec.busy_rate,
                tl.rates(),
                spec.rate
            );
        }
        channel_table(&mut out, env, s.header.horizon);
        let _ = writeln!(out, "benchmark: {}", env.benchmark().describe());
        for epoch in env
            .epochs()
            .iter()
            .filter(|ep| ep.first <= s.header.horizon)
        {
            let opt = &epoch.optimum;
            let when = if env.epochs().len() > 1 {
                format!(
                    " in slots {}–{}",
                    epoch.first,
                    epoch.last.min(s.header.horizon)
                )
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "{}{when}: probe {}; expected net reward {} per slot",
                if env.time_left().is_some() {
                    "time-left optimum (dynamic programme over the channels sensed busy)"
                } else if env.senses_imperfectly() {
                    "sensing-aware optimum"
                } else {
                    "UCR-T1 optimum"
                },
                list(&opt.list),
                sig(opt.expected_reward, 6)
            );
        }
        let b = env.bounds(s.theorem2_alpha(), s.header.horizon);
        match (&b.theorem2, &b.theorem3) {
            (Some(t2), Some(t3)) => {
                let _ = writeln!(
                    out,
                    "Theorem 2 (α = {}): R(T) ≤ {}·ln T + O(1) = {} at T; Theorem 3: R(T) ≳ {}·ln T = {} at T",
                    t2.alpha.unwrap_or(DEFAULT_ALPHA),
                    sig(t2.coefficient, 4),
                    sig(t2.at_horizon, 4),
                    sig(t3.coefficient, 4),
                    sig(t3.at_horizon, 4)
                );
            }
            _ => {
                let _ = writeln!(
                    out,
                    "Theorems 2 and 3 do not apply: {}",
                    b.violations.join("; ")
                );
            }
        }
        if !e.reference.is_empty() {
            let values: Vec<String> = e
                .reference
                .iter()
                .map(|(policy, v)| format!("{policy}: {}", sig(*v, 6)))
                .collect();
            let _ = writeln!(out, "paper's values: {}", values.join(", "));
        }
    }
    out
}

impl Describe for RegretScenario {
    fn describe(&self) -> String {
        describe_regret(self)
    }
}
