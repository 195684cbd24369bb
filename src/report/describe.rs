//! The text `specprobe validate` prints: the checked scenario, its UCR-T1 optimum and bounds, or
//! an identification scenario's instances and parameters.

use crate::model::channel::Environment;
use crate::model::cost::CostModel;
use crate::model::law::LawSpec;
use crate::report::format::unit_suffix;
use crate::report::format::{runs_by, sig, span};
use crate::scenario::Scenario;
use crate::util::ron_text::to_ron_line;
use std::fmt::Write;

/// What `specprobe validate` prints for a checked scenario of one kind: each kind's own is in
/// its folder (`report/<kind>/describe.rs`).
pub(crate) trait Describe {
    /// The text, from the line that says the file is valid.
    fn describe(&self) -> String;
}

/// What `specprobe validate` prints for a checked scenario.
pub(crate) fn describe(scenario: &Scenario) -> String {
    crate::scenario::each_kind!(scenario, s => s.describe())
}

/// The line that opens a many-users or identification sweep's cells.
pub(crate) fn sweep_line<S>(out: &mut String, sw: &crate::scenario::Sweep<S>) {
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

/// The scenario's description (when it has one) and its cost weights, as every slot-stepped
/// kind prints them.
pub(crate) fn description_and_weights(out: &mut String, h: &crate::scenario::Header) {
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
pub(crate) fn channel_table(out: &mut String, env: &Environment, horizon: u64) {
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
