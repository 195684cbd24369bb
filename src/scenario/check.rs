//! Checking a raw regret scenario into a [`RegretScenario`]: every broken rule reported with its
//! position, field and rule, all at once (the channels' own checks are in [`super::channels`],
//! an identification scenario's in [`super::identification`], a sweep's in [`super::sweep`]).

use crate::model::channel::Environment;
use crate::scenario::channels::{self, channel_count, check_channels};
use crate::scenario::checker::Checker;
use crate::scenario::header::check_header;
use crate::scenario::locate::FieldPath;
use crate::scenario::overrides::{Overridable, OverrideError, Overrides, rehorizon};
use crate::scenario::raw::{RawRegret, RewardSpec};
use crate::scenario::{Experiment, MAX_CHANNELS, PolicyEntry, PolicyKind, RegretScenario, Source};
use std::collections::{BTreeMap, BTreeSet};

pub(crate) fn check_regret(
    raw: RawRegret,
    source: &Source,
    ck: &mut Checker,
) -> Option<RegretScenario> {
    let root = FieldPath::default();
    let header = check_header(&raw.header(), source, &root, ck);
    let policies = check_policy_labels(&raw, &root, ck);
    let (experiments, sizes) = check_experiments(&raw, source, &policies, &root, ck);
    check_reference_policy(&raw, &policies, &root, ck);
    check_policy_parameters(&raw, &sizes, &root, ck);
    Some(RegretScenario {
        header,
        is_grid: !raw.grid.is_empty(),
        experiments,
        policies,
        reference: raw.reference,
    })
}

/// `reference` names a policy.
fn check_reference_policy(
    raw: &RawRegret,
    policies: &[PolicyEntry],
    root: &FieldPath,
    ck: &mut Checker,
) {
    if let Some(r) = &raw.reference {
        let labels: Vec<&str> = policies.iter().map(|p| p.label.as_str()).collect();
        ck.require(
            labels.contains(&r.as_str()),
            &root.field("reference"),
            format!("names policy {r:?}, which is not a policy label of this scenario (labels: {labels:?})"),
        );
    }
}

/// The policies with their labels (non-empty, unique; the policy's own label by default).
fn check_policy_labels(raw: &RawRegret, root: &FieldPath, ck: &mut Checker) -> Vec<PolicyEntry> {
    let mut seen = BTreeSet::new();
    if raw.policies.is_empty() {
        ck.fail(&root.field("policies"), "must list at least one policy");
    }
    raw.policies
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let at = root.field("policies").index(i);
            let label = p
                .label
                .clone()
                .unwrap_or_else(|| p.policy.default_label().to_string());
            // Without a `label`, the default label comes from the policy.
            let label_path = if p.label.is_some() {
                at.field("label")
            } else {
                at.field("policy")
            };
            ck.label(&mut seen, &label, &label_path, "policy");
            PolicyEntry {
                label,
                policy: PolicyKind::Builtin(p.policy.clone()),
            }
        })
        .collect()
}

/// The experiments: one channel list or a grid of configurations. Both forms are checked even
/// when both are (wrongly) given, so that every problem is reported at once. Also returns each
/// channel list's K with a note naming its configuration, for the policy checks.
fn check_experiments(
    raw: &RawRegret,
    source: &Source,
    policies: &[PolicyEntry],
    root: &FieldPath,
    ck: &mut Checker,
) -> (Vec<Experiment>, Vec<(String, u64)>) {
    let mut experiments = Vec::new();
    let mut sizes = Vec::new();
    let is_grid = !raw.grid.is_empty();
    let raw_header = raw.header();
    let cx = channels::Context::of(&raw_header, source);
    if !raw.channels.is_empty() && is_grid {
        ck.fail(
            &root.field("grid"),
            "give either `channels` (one experiment) or `grid` (several), not both",
        );
    }
    if raw.channels.is_empty() && !is_grid {
        ck.fail(
            &root.field("channels"),
            "the channel list is empty: give `channels` or a `grid` of configurations",
        );
    }
    if !raw.channels.is_empty() {
        sizes.push((String::new(), channel_count(&raw.channels)));
        if fits_reward(raw.reward.as_ref(), channel_count(&raw.channels), root, ck)
            && let Some(env) = check_channels(&raw.channels, &root.field("channels"), &cx, ck)
                .and_then(|env| with_reward(env, raw.reward.as_ref(), raw.weights.delay, root, ck))
        {
            experiments.push(Experiment {
                label: raw.name.clone(),
                env,
                reference: BTreeMap::new(),
            });
        }
    }
    // Every configuration's channels are held at once: their total is bounded before any
    // configuration is expanded.
    let total = raw
        .grid
        .iter()
        .map(|c| channel_count(&c.channels))
        .fold(0u64, u64::saturating_add);
    if total > MAX_CHANNELS {
        ck.fail(
            &root.field("grid"),
            format!(
                "its configurations hold {total} channels in all; at most {MAX_CHANNELS} are supported"
            ),
        );
        return (experiments, sizes);
    }
    let labels: BTreeSet<&str> = policies.iter().map(|p| p.label.as_str()).collect();
    let mut seen = BTreeSet::new();
    for (g, conf) in raw.grid.iter().enumerate() {
        let at = root.field("grid").index(g);
        ck.label(&mut seen, &conf.label, &at.field("label"), "configuration");
        if conf.channels.is_empty() {
            ck.fail(&at.field("channels"), "the channel list is empty");
        }
        check_reference(&conf.reference, &labels, &at.field("reference"), ck);
        sizes.push((
            format!(" (configuration {:?})", conf.label),
            channel_count(&conf.channels),
        ));
        if fits_reward(raw.reward.as_ref(), channel_count(&conf.channels), root, ck)
            && let Some(env) = check_channels(&conf.channels, &at.field("channels"), &cx, ck)
                .and_then(|env| with_reward(env, raw.reward.as_ref(), raw.weights.delay, root, ck))
        {
            experiments.push(Experiment {
                label: conf.label.clone(),
                env,
                reference: conf.reference.clone(),
            });
        }
    }
    (experiments, sizes)
}

/// Whether `count` channels can take the scenario's `reward` rule, told before they are built
/// (the time-left benchmark's programme takes at most [`MAX_DP_CHANNELS`] of them).
///
/// [`MAX_DP_CHANNELS`]: crate::model::time_left::MAX_DP_CHANNELS
pub(crate) fn fits_reward(
    reward: Option<&RewardSpec>,
    count: u64,
    root: &FieldPath,
    ck: &mut Checker,
) -> bool {
    use crate::model::time_left::{MAX_DP_CHANNELS, too_many_channels};
    if matches!(reward, Some(RewardSpec::TimeLeft(_))) && count > MAX_DP_CHANNELS as u64 {
        ck.fail(
            &root.field("reward").field("TimeLeft"),
            too_many_channels(count),
        );
        return false;
    }
    true
}

/// The experiment's channels with the scenario's `reward` rule, checked against them (its
/// rates one per channel, the slot's length, no delay weight).
pub(crate) fn with_reward(
    env: Environment,
    reward: Option<&RewardSpec>,
    delay_weight: f64,
    root: &FieldPath,
    ck: &mut Checker,
) -> Option<Environment> {
    match reward {
        None | Some(RewardSpec::Unit) => Some(env),
        Some(RewardSpec::TimeLeft(spec)) => {
            if let Some(rule) =
                crate::model::time_left::too_much_work(env.len(), env.epochs().len() as u64)
            {
                ck.fail(&root.field("reward").field("TimeLeft"), rule);
                return None;
            }
            match spec.check(env.len(), env.slot_duration(), delay_weight) {
                Ok(tl) => Some(env.with_time_left(tl)),
                Err(problems) => {
                    let at = root.field("reward").field("TimeLeft");
                    for ((field, index), rule) in problems {
                        let mut path = if field.is_empty() {
                            at.clone()
                        } else {
                            at.field(field)
                        };
                        if let Some(i) = index {
                            path = path.index(i);
                        }
                        ck.fail(&path, rule);
                    }
                    None
                }
            }
        }
    }
}

/// A configuration's published values name policies of the scenario and are finite.
fn check_reference(
    reference: &BTreeMap<String, f64>,
    labels: &BTreeSet<&str>,
    at: &FieldPath,
    ck: &mut Checker,
) {
    for (policy, value) in reference {
        ck.require(
            labels.contains(policy.as_str()),
            at,
            format!("names policy {policy:?}, which is not a policy label of this scenario"),
        );
        ck.require(
            value.is_finite(),
            at,
            format!("value for {policy:?} must be finite (got {value})"),
        );
    }
}

/// Policy parameters against every channel list's size: every broken rule of the first list
/// that breaks any.
fn check_policy_parameters(
    raw: &RawRegret,
    sizes: &[(String, u64)],
    root: &FieldPath,
    ck: &mut Checker,
) {
    for (i, p) in raw.policies.iter().enumerate() {
        for (where_, k) in sizes {
            let errors = p.policy.check(*k as usize);
            for e in &errors {
                ck.fail(
                    &root
                        .field("policies")
                        .index(i)
                        .field("policy")
                        .field(e.param),
                    format!("{}{where_}", e.rule),
                );
            }
            if !errors.is_empty() {
                break;
            }
        }
    }
}

impl Overridable for RegretScenario {
    /// Applies overrides (already checked to be non-zero); a horizon longer than a trace that
    /// does not wrap is refused.
    fn with_overrides(mut self, o: &Overrides) -> Result<RegretScenario, OverrideError> {
        self.header.runs = o.runs.unwrap_or(self.header.runs);
        self.header.seed = o.seed.unwrap_or(self.header.seed);
        if let Some(h) = o.horizon {
            self.header.horizon = h;
            for e in &mut self.experiments {
                rehorizon(&mut e.env, h)?;
            }
        }
        Ok(self)
    }
}
