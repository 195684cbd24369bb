//! The text `specprobe validate` prints: the checked scenario, its UCR-T1 optimum and bounds, or
//! an identification scenario's instances and parameters.

use crate::engine::multi_user::runner::{benchmarks, expected_kind};
use crate::model::channel::Environment;
use crate::model::cost::CostModel;
use crate::model::law::LawSpec;
use crate::policy::DEFAULT_ALPHA;
use crate::report::format::unit_suffix;
use crate::report::format::{list, runs_by, sig, span};
use crate::report::multi_user::summary::{benchmark_name, lower_bound};
use crate::scenario::{
    IdentificationScenario, MultiUserScenario, RegretScenario, Scenario, SweepScenario,
};
use crate::util::math;
use crate::util::ron_text::to_ron_line;
use std::fmt::Write;

/// What `specprobe validate` prints for a checked scenario.
pub(crate) fn describe(scenario: &Scenario) -> String {
    match scenario {
        Scenario::Regret(s) => describe_regret(s),
        Scenario::Identification(s) => describe_identification(s),
        Scenario::Sweep(s) => describe_sweep(s),
        Scenario::MultiUser(s) => describe_multi_user(s),
    }
}

/// A sweep: its values, then the first cell in full and each cell's optimum.
fn describe_sweep(s: &SweepScenario) -> String {
    let sw = &s.sweep;
    let mut out = format!(
        "{} is valid: a sweep of `{}` over {} values {:?}; each cell is a regret scenario:\n\n",
        s.source.display(),
        sw.field,
        sw.values.len(),
        sw.values
    );
    if let Some(first) = sw.cells.first() {
        let _ = writeln!(out, "cell `{}`:", sw.cell_label(sw.values[0]));
        out.push_str(&describe_regret(first));
    }
    let _ = writeln!(out, "\ncells:");
    for (v, cell) in sw.points() {
        for e in &cell.experiments {
            let opt = e.env.optimum();
            let _ = writeln!(
                out,
                "  {:<28} {} channels, horizon {}: optimum {} with E[r*] = {}",
                sw.cell_label(v),
                e.env.len(),
                cell.header.horizon,
                list(&opt.list),
                sig(opt.expected_reward, 6)
            );
        }
    }
    out
}

fn describe_identification(s: &IdentificationScenario) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} is valid: identification scenario {:?}, {} per cell, seed {}, confidence ν = {}, sample cap {}",
        s.source.display(),
        s.name,
        crate::report::format::count(s.runs, "run"),
        s.seed,
        s.confidence,
        s.sample_cap
    );
    if !s.description.is_empty() {
        let _ = writeln!(out, "  {}", s.description.trim());
    }
    let settings: Vec<&str> = s.settings.iter().map(|x| x.name()).collect();
    let algorithms: Vec<&str> = s.algorithms.iter().map(|a| a.name()).collect();
    let _ = writeln!(
        out,
        "settings: {}; algorithms: {}",
        settings.join(", "),
        algorithms.join(", ")
    );
    for inst in &s.instances {
        let _ = writeln!(out, "\ninstance {:?} ({}):", inst.label, inst.family);
        for arms in &inst.points {
            let _ = writeln!(
                out,
                "  N = {:>6}, K = {:>5}, H = Σ Δ⁻² = {:>10}, rewards {}",
                arms.len(),
                arms.k(),
                sig(arms.complexity(), 4),
                to_ron_line(&arms.rewards())
            );
        }
    }
    if let Some(arms) = s.instances.first().and_then(|i| i.points.last()) {
        let _ = writeln!(
            out,
            "\nparameters at N = {} (first instance, largest N):",
            arms.len()
        );
        for &setting in &s.settings {
            for a in &s.algorithms {
                if a.runs_in(setting) {
                    let p = s.params(a, setting, arms.len());
                    let _ = writeln!(
                        out,
                        "  {:<9} {:<13} ε = {:<5} δ = {:.4e}",
                        setting.name(),
                        a.name(),
                        p.epsilon,
                        p.delta
                    );
                }
            }
        }
    }
    if let Some(sw) = &s.sweep {
        sweep_line(&mut out, sw);
        for (value, cell) in sw.points() {
            let sizes: Vec<String> = cell
                .instances
                .iter()
                .flat_map(|i| {
                    i.points.iter().map(move |a| {
                        format!(
                            "{} N = {}, K = {}, H = {}",
                            i.label,
                            a.len(),
                            a.k(),
                            sig(a.complexity(), 4)
                        )
                    })
                })
                .collect();
            let _ = writeln!(
                out,
                "  {}: ν = {}, {}; {}",
                sw.cell_label(value),
                cell.confidence,
                crate::report::format::count(cell.runs, "run"),
                sizes.join("; ")
            );
        }
    }
    out
}

/// The line that opens a many-users or identification sweep's cells.
fn sweep_line<S>(out: &mut String, sw: &crate::scenario::Sweep<S>) {
    let _ = writeln!(
        out,
        "\nsweep of `{}` over {}: {} cells, each run as the scenario with that value",
        sw.field,
        sw.values
            .iter()
            .map(f64::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        sw.cells.len()
    );
}

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

/// The scenario's description (when it has one) and its cost weights, as every slot-stepped
/// kind prints them.
fn description_and_weights(out: &mut String, h: &crate::scenario::Header) {
    if !h.description.is_empty() {
        let _ = writeln!(out, "  {}", h.description.trim());
    }
    let _ = writeln!(
        out,
        "cost weights: {}·energy{} + {}·delay{}",
        h.weights.energy,
        unit_suffix(&h.units.energy),
        h.weights.delay,
        unit_suffix(&h.units.delay)
    );
}

/// One line per run of identical channels: θ, c, θ/c and the cost law; then, where the
/// channel is not the papers' i.i.d. one, its process with mean idle and busy periods and
/// autocorrelation, and its sensing error rates.
fn channel_table(out: &mut String, env: &Environment, horizon: u64) {
    let _ = writeln!(
        out,
        "  {:>5} {:>9} {:>11} {:>9}  cost law",
        "ch", "θ", "c", "θ/c"
    );
    // Identical consecutive channels (a `count` in the scenario) share one line.
    let described = |i: usize| {
        let ch = &env.channels()[i];
        format!(
            "{}|{}|{:?}",
            ch.occupancy().describe(),
            ch.sensing().describe(),
            cost_specs(ch.cost())
        )
    };
    for (first, last) in runs_by(env.len(), described) {
        let ch = &env.channels()[first];
        let theta = env.theta()[first];
        let i = span(first, last);
        let c = ch.cost().mean();
        let law = match ch.cost() {
            CostModel::Plain(l) => format!("cost: {}", ron_law(l.spec())),
            CostModel::Split(split) => format!(
                "energy: {}, delay: {}",
                ron_law(split.energy.spec()),
                ron_law(split.delay.spec())
            ),
        };
        // A free probe has no finite ratio: UCR-T1 probes it whenever θ > 0. A cost so small
        // that θ/c overflows is as good as free for the ranking, and says so.
        let ratio = if c > 0.0 && (theta / c).is_finite() {
            sig(theta / c, 4)
        } else if c > 0.0 {
            "≈free".into()
        } else {
            "free".into()
        };
        let _ = writeln!(
            out,
            "  {i:>5} {:>9} {:>11} {ratio:>9}  {law}",
            sig(theta, 4),
            sig(c, 6)
        );
        if !ch.occupancy().is_iid() {
            let st = ch.occupancy().stats(horizon);
            let mut facts = vec![format!("stationary θ = {}", sig(st.theta, 4))];
            if let Some(m) = st.mean_idle {
                facts.push(format!("mean idle period {} slots", sig(m, 4)));
            }
            if let Some(m) = st.mean_busy {
                facts.push(format!("mean busy period {} slots", sig(m, 4)));
            }
            if let Some(r) = st.autocorrelation {
                facts.push(format!("lag-1 autocorrelation {}", sig(r, 4)));
            }
            facts.extend(ch.occupancy().notes());
            let _ = writeln!(
                out,
                "  {:>5} {}: {}",
                "",
                ch.occupancy().describe(),
                facts.join(", ")
            );
        }
        if let Some(d) = ch.sensing().detector() {
            let _ = writeln!(
                out,
                "  {:>5} energy detector: N = {} samples (τ = {}), threshold ε/σ² = {}: Pd = {}, Pfa = {}",
                "",
                sig(d.samples(), 6),
                sig(d.duration(), 6),
                sig(d.threshold(), 6),
                sig(d.pd(), 6),
                sig(d.pfa(), 6)
            );
        }
        if !ch.sensing().is_perfect() {
            let _ = writeln!(
                out,
                "  {:>5} sensing {}: P(sensed idle) = {}, P(success) = {}",
                "",
                ch.sensing().describe(),
                sig(ch.sensing().stop_probability(theta), 4),
                sig(ch.sensing().success_probability(theta), 4)
            );
        }
    }
}

/// The law specs of a cost model (for comparing channels).
fn cost_specs(c: &CostModel) -> Vec<&LawSpec> {
    match c {
        CostModel::Plain(l) => vec![l.spec()],
        CostModel::Split(split) => vec![split.energy.spec(), split.delay.spec()],
    }
}

fn ron_law(spec: &LawSpec) -> String {
    to_ron_line(spec)
}
