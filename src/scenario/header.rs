//! The header every slot-stepped kind (regret, many users) declares first: its name, seed,
//! horizon, runs, checkpoints, units and cost weights, checked once by one function whatever
//! the kind, into one [`Header`] that the checked scenarios embed.

use crate::model::cost::CostWeights;
use crate::scenario::checker::Checker;
use crate::scenario::locate::FieldPath;
use crate::scenario::raw::RawHeader;
use crate::scenario::{Source, Units};
use crate::util::stats::CheckpointSpec;

/// Longest horizon: 2⁴⁰ slots. Even one policy's single run of that length takes days; a
/// longer one is a typing slip, not an experiment.
pub(crate) const MAX_HORIZON: u64 = 1 << 40;

/// The checked header of a regret or many-users scenario.
#[derive(Clone, Debug)]
pub(crate) struct Header {
    /// Scenario name (safe as a folder name).
    pub(crate) name: String,
    /// Free text.
    pub(crate) description: String,
    /// The file it came from, with its text.
    pub(crate) source: Source,
    /// Seed of every random stream.
    pub(crate) seed: u64,
    /// Slots per run.
    pub(crate) horizon: u64,
    /// Runs per policy or team.
    pub(crate) runs: u64,
    /// Where curves are recorded.
    pub(crate) checkpoints: CheckpointSpec,
    /// Units for reports.
    pub(crate) units: Units,
    /// Weights of energy and delay.
    pub(crate) weights: CostWeights,
}

impl Header {
    /// The header's part of a scenario's fingerprint: every field, `|`-separated.
    pub(crate) fn fingerprint(&self) -> String {
        format!(
            "{}|{}|{}|{}|{}|{:?}|{:?}|{:?}",
            self.name,
            self.description,
            self.seed,
            self.horizon,
            self.runs,
            self.checkpoints,
            self.weights,
            self.units
        )
    }
}

/// Checks the header of a regret or many-users scenario (name, horizon, runs, checkpoints,
/// weights, the slot's length), reporting every broken rule at its field, and gives the
/// checked [`Header`].
pub(crate) fn check_header(
    raw: &RawHeader<'_>,
    source: &Source,
    root: &FieldPath,
    ck: &mut Checker,
) -> Header {
    if let Some(slot) = raw.slot {
        ck.require(
            slot.duration.is_finite() && slot.duration > 0.0,
            &root.field("slot").field("duration"),
            format!(
                "is the slot's length in delay units and must be a positive finite number (got {})",
                slot.duration
            ),
        );
    }
    ck.name(raw.name, &root.field("name"));
    ck.require(
        raw.horizon >= 1,
        &root.field("horizon"),
        "must be at least 1 slot (got 0)",
    );
    ck.require(
        raw.horizon <= MAX_HORIZON,
        &root.field("horizon"),
        format!(
            "must be at most {MAX_HORIZON} slots (2⁴⁰: about two days for one policy's single run; got {})",
            raw.horizon
        ),
    );
    ck.require(
        raw.runs >= 1,
        &root.field("runs"),
        "must be at least 1 run (got 0)",
    );
    let cp = root.field("checkpoints");
    ck.require(
        CheckpointSpec::PER_DECADE.contains(&raw.checkpoints.per_decade),
        &cp.field("per_decade"),
        format!(
            "must be 5, 10 or 20 (a Renard series; got {})",
            raw.checkpoints.per_decade
        ),
    );
    ck.require(
        raw.checkpoints.linear <= 10_000,
        &cp.field("linear"),
        format!("must be at most 10000 (got {})", raw.checkpoints.linear),
    );
    for (name, w) in [("energy", raw.weights.energy), ("delay", raw.weights.delay)] {
        ck.require(
            w.is_finite() && w >= 0.0,
            &root.field("weights").field(name),
            format!("must be a finite number ≥ 0 (got {w})"),
        );
    }
    Header {
        name: raw.name.to_string(),
        description: raw.description.to_string(),
        source: source.clone(),
        seed: raw.seed,
        horizon: raw.horizon,
        runs: raw.runs,
        checkpoints: *raw.checkpoints,
        units: Units {
            energy: raw.units.energy.clone(),
            delay: raw.units.delay.clone(),
        },
        weights: *raw.weights,
    }
}
