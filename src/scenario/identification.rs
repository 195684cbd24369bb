//! Checking identification scenarios into [`IdentificationScenario`].

use super::checker::{CheckRaw, Checker};
use super::locate::FieldPath;
use super::overrides::{Overridable, OverrideError, Overrides};
use super::raw::{RawIdentification, RawInstance};
use super::sweep::{Sweep, check_sweep_of};
use super::{RegretScenario, Scenario, Source};
use crate::identify::Algorithm;
use crate::identify::confidence::{Guarantee, Params, Setting, lemma_delta_limit};
use crate::identify::instance::{Arms, Family, Rewards};
use std::collections::BTreeSet;
use std::path::Path;

/// Most arms one instance may have.
pub(crate) const MAX_ARMS: u64 = 1 << 20;

/// Most arms over every instance and every N of a scenario together: each (instance, N) point
/// holds its arms' means, so the sum is what the set-up allocates (about 16 MB here), counted
/// from what the scenario declares before anything is built.
pub(crate) const MAX_TOTAL_ARMS: u64 = 1 << 21;

/// A checked identification scenario.
#[derive(Clone, Debug)]
pub struct IdentificationScenario {
    /// Scenario name (safe as a folder name).
    pub(crate) name: String,
    /// Free text.
    pub(crate) description: String,
    /// The file it came from, with its text.
    pub(crate) source: Source,
    /// Seed of every random stream.
    pub(crate) seed: u64,
    /// Runs per (instance, N, algorithm, setting).
    pub(crate) runs: u64,
    /// Required error probability ν.
    pub(crate) confidence: f64,
    /// Parameter settings to run.
    pub(crate) settings: Vec<Setting>,
    /// ε of the faithful setting.
    pub(crate) faithful_epsilon: f64,
    /// Per-run sample cap.
    pub(crate) sample_cap: u64,
    /// The instances.
    pub(crate) instances: Vec<Instance>,
    /// The algorithms: the scenario's, then any a library user added.
    pub(crate) algorithms: Vec<Algorithm>,
    /// A sweep: the scenario at each value of one field (its cells); the scenario itself is
    /// then the sweep's base and is not run.
    pub(crate) sweep: Option<Box<Sweep<IdentificationScenario>>>,
}

/// One instance family with its checked points (one per number of arms).
#[derive(Clone, Debug)]
pub(crate) struct Instance {
    /// Unique label.
    pub label: String,
    /// The family, described.
    pub family: String,
    /// One checked instance per N, in increasing N.
    pub points: Vec<Arms>,
}

impl IdentificationScenario {
    /// The scenario's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs per (instance, N, setting, algorithm) cell.
    pub fn runs(&self) -> u64 {
        self.runs
    }

    /// Whether it sweeps a field (a sweep's cells are the scenarios that run).
    pub fn is_sweep(&self) -> bool {
        self.sweep.is_some()
    }

    /// Its sweep (field, values, cells), if it sweeps a field.
    pub fn sweep(&self) -> Option<&Sweep<IdentificationScenario>> {
        self.sweep.as_deref()
    }

    /// Applies `f` to the scenario and to each cell of its sweep (overrides, added
    /// algorithms), or gives `f`'s first error.
    pub(crate) fn try_map_all<E>(
        mut self,
        f: &impl Fn(IdentificationScenario) -> Result<IdentificationScenario, E>,
    ) -> Result<IdentificationScenario, E> {
        let sweep = self.sweep.take();
        let mut s = f(self)?;
        if let Some(sw) = sweep {
            s.sweep = Some(Box::new(sw.try_map_cells(|c| c.try_map_all(f))?));
        }
        Ok(s)
    }

    /// A hash (hex) of everything that determines this scenario's results and outputs.
    pub(crate) fn fingerprint(&self) -> String {
        use std::fmt::Write;
        let mut s = format!(
            "identification|{}|{}|{}|{}|{}|{:?}|{}|{}",
            self.name,
            self.description,
            self.seed,
            self.runs,
            self.confidence,
            self.settings,
            self.faithful_epsilon,
            self.sample_cap,
        );
        for a in &self.algorithms {
            let _ = write!(s, "|alg {}", a.name());
        }
        for inst in &self.instances {
            let _ = write!(s, "|inst {}|{}", inst.label, inst.family);
            for p in &inst.points {
                let _ = write!(s, "|{}:{:?}:{:?}", p.k(), p.means(), p.rewards());
            }
        }
        // Absent for a scenario without a sweep, so that earlier fingerprints (and partials)
        // stay as they were.
        if let Some(sw) = &self.sweep {
            s.push_str(&sw.fingerprint_part(IdentificationScenario::fingerprint));
        }
        format!("{:016x}", crate::util::rng::label_hash(&[&s]))
    }

    /// The ε and δ of `algorithm` in `setting` on `n` arms.
    pub(crate) fn params(&self, algorithm: &Algorithm, setting: Setting, n: usize) -> Params {
        Params::choose(
            algorithm.guarantee(),
            setting,
            self.confidence,
            n,
            self.faithful_epsilon,
        )
    }
}

impl CheckRaw for RawIdentification {
    fn check(self, source: &Source, ck: &mut Checker) -> Option<Scenario> {
        check_identification(self, source, ck).map(Into::into)
    }
}

/// Checks a raw identification scenario (every broken rule reported), with its sweep's cells.
pub(super) fn check_identification(
    mut raw: RawIdentification,
    source: &Source,
    ck: &mut Checker,
) -> Option<IdentificationScenario> {
    let Some(spec) = raw.sweep.take() else {
        return check_one(raw, source, ck);
    };
    // Every cell's arms are held together while the sweep runs: their sum is bounded as one
    // scenario's is.
    let mut cell_arms = 0u64;
    // The sweep's outputs match each instance's sizes across cells by rank (an instance's
    // sizes are held in increasing N): a swept N must keep its rank.
    let mut first_sizes: Option<Vec<Vec<usize>>> = None;
    let (base, sweep) = check_sweep_of(
        raw,
        spec,
        source,
        ck,
        check_one,
        |_, _, _, _, _| true,
        |cell, at, ck| {
            let arms = cell.instances.iter().flat_map(|i| &i.points);
            cell_arms = arms.fold(cell_arms, |t, p| t.saturating_add(p.len() as u64));
            let bounded = ck.require(
                cell_arms <= MAX_TOTAL_ARMS,
                at,
                format!("the cells up to this value hold {cell_arms} arms in all; at most {MAX_TOTAL_ARMS} are supported"),
            );
            let sizes: Vec<Vec<usize>> = cell
                .instances
                .iter()
                .map(|i| i.points.iter().map(|p| p.len()).collect())
                .collect();
            let first = first_sizes.get_or_insert_with(|| sizes.clone());
            let moved = cell
                .instances
                .iter()
                .zip(sizes.iter().zip(first.iter()))
                .find(|(_, (now, then))| now.iter().zip(*then).filter(|(a, b)| a != b).count() > 1);
            let ranked = match moved {
                Some((inst, (now, then))) => ck.require(
                    false,
                    at,
                    format!(
                        "gives instance {:?} the sizes N = {now:?} where the first value gave {then:?}: a swept N must keep its rank among the instance's sizes (each size is one line across the cells)",
                        inst.label
                    ),
                ),
                None => true,
            };
            bounded && ranked
        },
    );
    let mut base = base?;
    base.sweep = sweep.map(Box::new);
    Some(base)
}

/// Checks one identification scenario (a sweep's base or cell).
fn check_one(
    raw: RawIdentification,
    source: &Source,
    ck: &mut Checker,
) -> Option<IdentificationScenario> {
    let root = FieldPath::default();
    check_run_settings(&raw, &root, ck);
    let default_rewards = raw.rewards.unwrap_or(Rewards::Gaussian { variance: 0.25 });
    check_rewards(&default_rewards, &root.field("rewards"), ck);
    check_algorithm_list(&raw, &root, ck);
    let instances = check_instances(&raw, default_rewards, &source.path, &root, ck);
    check_faithful_delta(&raw, &instances, &root, ck);
    Some(IdentificationScenario {
        name: raw.name,
        description: raw.description,
        source: source.clone(),
        seed: raw.seed,
        runs: raw.runs,
        confidence: raw.confidence,
        settings: raw.settings,
        faithful_epsilon: raw.faithful_epsilon,
        sample_cap: raw.sample_cap,
        instances,
        algorithms: raw.algorithms.into_iter().map(Algorithm::Builtin).collect(),
        sweep: None,
    })
}

/// Name, runs, confidence, ε, sample cap and settings.
fn check_run_settings(raw: &RawIdentification, root: &FieldPath, ck: &mut Checker) {
    ck.name(&raw.name, &root.field("name"));
    ck.require(
        raw.runs >= 1,
        &root.field("runs"),
        "must be at least 1 run (got 0)",
    );
    ck.require(
        raw.confidence > 0.0 && raw.confidence < 1.0,
        &root.field("confidence"),
        format!(
            "is the error probability ν and must lie in (0, 1) (got {})",
            raw.confidence
        ),
    );
    ck.require(
        raw.faithful_epsilon > 0.0 && raw.faithful_epsilon < 1.0,
        &root.field("faithful_epsilon"),
        format!(
            "must lie in (0, 1), as Lemma 2.1 requires (got {})",
            raw.faithful_epsilon
        ),
    );
    ck.require(
        raw.sample_cap >= 1,
        &root.field("sample_cap"),
        "must be at least 1 sample (got 0)",
    );
    ck.require(
        !raw.settings.is_empty(),
        &root.field("settings"),
        "must list at least one of Faithful, Heuristic",
    );
    let distinct: BTreeSet<Setting> = raw.settings.iter().copied().collect();
    ck.require(
        distinct.len() == raw.settings.len(),
        &root.field("settings"),
        "lists a setting twice",
    );
}

/// At least one algorithm, none twice.
fn check_algorithm_list(raw: &RawIdentification, root: &FieldPath, ck: &mut Checker) {
    if raw.algorithms.is_empty() {
        ck.fail(
            &root.field("algorithms"),
            "must list at least one algorithm",
        );
    }
    let mut seen = BTreeSet::new();
    for (i, a) in raw.algorithms.iter().enumerate() {
        if !seen.insert(*a) {
            ck.fail(
                &root.field("algorithms").index(i),
                format!("{} is listed twice", a.name()),
            );
        }
    }
}

/// Every instance (labels unique), and lil'UCB's K = 1 on each.
fn check_instances(
    raw: &RawIdentification,
    default_rewards: Rewards,
    source: &Path,
    root: &FieldPath,
    ck: &mut Checker,
) -> Vec<Instance> {
    let mut instances = Vec::new();
    let mut labels = BTreeSet::new();
    if raw.instances.is_empty() {
        ck.fail(&root.field("instances"), "must list at least one instance");
    }
    let total = raw
        .instances
        .iter()
        .flat_map(declared_sizes)
        .fold(0u64, |t, (n, _)| t.saturating_add(n));
    if total > MAX_TOTAL_ARMS {
        ck.fail(
            &root.field("instances"),
            format!(
                "declare {total} arms over every instance and N together; at most {MAX_TOTAL_ARMS} are supported (counted before anything is built)"
            ),
        );
        return instances;
    }
    // An algorithm for the single best arm (lil'UCB) needs K = 1 on every instance.
    let single = raw.algorithms.iter().position(|a| a.single_best());
    for (i, inst) in raw.instances.iter().enumerate() {
        let at = root.field("instances").index(i);
        ck.label(&mut labels, &inst.label, &at.field("label"), "instance");
        // Checked from the instance as written, so that it is reported with the instance's
        // other problems, not after they are fixed.
        if let (Some(j), Some((n, k))) = (single, declared_sizes(inst).find(|&(_, k)| k != 1)) {
            ck.fail(
                &root.field("algorithms").index(j),
                format!(
                    "{:?} identifies the single best arm (K = 1), but instance {:?} has K = {k} at N = {n}",
                    raw.algorithms[j],
                    inst.label
                ),
            );
        }
        if let Some(instance) = check_instance(inst, &at, default_rewards, source, ck) {
            // A family loaded from another scenario declares its N only once loaded.
            if let (Some(j), Family::Channels { .. }, Some(p)) = (
                single,
                &inst.family,
                instance.points.iter().find(|p| p.k() != 1),
            ) {
                ck.fail(
                    &root.field("algorithms").index(j),
                    format!(
                        "{:?} identifies the single best arm (K = 1), but instance {:?} has K = {} at N = {}",
                        raw.algorithms[j],
                        instance.label,
                        p.k(),
                        p.len()
                    ),
                );
            }
            instances.push(instance);
        }
    }
    instances
}

/// The (N, K) pairs an instance declares, before any other check (a family loaded from another
/// scenario gives none here).
fn declared_sizes(inst: &RawInstance) -> impl Iterator<Item = (u64, u64)> + '_ {
    let fixed = match &inst.family {
        Family::Means(m) => Some(m.len() as u64),
        _ => None,
    };
    let sizes: Vec<u64> = match (&inst.family, fixed) {
        (_, Some(n)) => vec![n],
        (Family::Channels { .. }, None) => Vec::new(),
        _ => inst.arms.clone(),
    };
    sizes.into_iter().map(move |n| (n, inst.k.k(n)))
}

/// Faithful δ must stay in the range where Lemma 2.1 holds (the first violation is reported).
fn check_faithful_delta(
    raw: &RawIdentification,
    instances: &[Instance],
    root: &FieldPath,
    ck: &mut Checker,
) {
    if !(raw.settings.contains(&Setting::Faithful)
        && raw.faithful_epsilon > 0.0
        && raw.faithful_epsilon < 1.0)
    {
        return;
    }
    let limit = lemma_delta_limit(raw.faithful_epsilon);
    for a in raw
        .algorithms
        .iter()
        // Lemma 2.1's range concerns the LIL radius: an algorithm with a plain δ guarantee (LUCB1)
        // has none.
        .filter(|a| a.guarantee() != Guarantee::Delta)
    {
        for p in instances.iter().flat_map(|inst| &inst.points) {
            let params = Params::choose(
                a.guarantee(),
                Setting::Faithful,
                raw.confidence,
                p.len(),
                raw.faithful_epsilon,
            );
            if params.delta >= limit {
                ck.fail(
                    &root.field("confidence"),
                    format!(
                        "gives {} a faithful δ = {} at N = {}, outside Lemma 2.1's range δ < ln(1+ε)/e = {limit}: lower the confidence level or ε",
                        a.name(),
                        params.delta,
                        p.len()
                    ),
                );
                return;
            }
        }
    }
}

fn check_rewards(r: &Rewards, at: &FieldPath, ck: &mut Checker) -> bool {
    match *r {
        Rewards::Gaussian { variance } => ck.require(
            variance.is_finite() && variance > 0.0,
            &at.field("variance"),
            format!("must be a positive finite number (got {variance})"),
        ),
        Rewards::Bernoulli => true,
    }
}

fn check_instance(
    inst: &RawInstance,
    at: &FieldPath,
    default_rewards: Rewards,
    source: &Path,
    ck: &mut Checker,
) -> Option<Instance> {
    let before = ck.problems.len();
    let rewards = match (&inst.rewards, &inst.family) {
        (Some(r), _) => *r,
        (None, Family::Channels { .. }) => Rewards::Bernoulli,
        (None, _) => default_rewards,
    };
    if let Some(r) = &inst.rewards {
        check_rewards(r, &at.field("rewards"), ck);
    }
    let fixed: Option<Vec<f64>> = match &inst.family {
        Family::Means(m) => Some(m.clone()),
        Family::Channels {
            scenario,
            configuration,
        } => Some(channel_means(
            scenario,
            configuration.as_deref(),
            source,
            &at.field("family"),
            ck,
        )?),
        Family::Exponential { alpha } | Family::LilExponential { alpha } => {
            ck.require(
                alpha.is_finite() && *alpha > 0.0,
                &at.field("family").field("alpha"),
                format!("must be a positive finite number (got {alpha})"),
            );
            None
        }
        Family::OneSparse => None,
    };
    let sizes: Vec<u64> = match &fixed {
        Some(means) => {
            ck.require(
                inst.arms.is_empty(),
                &at.field("arms"),
                "must be left out: this family fixes the number of arms",
            );
            vec![means.len() as u64]
        }
        None => {
            ck.require(
                !inst.arms.is_empty(),
                &at.field("arms"),
                "must list the numbers of arms N to sweep, e.g. [10, 20, 50]",
            );
            let mut sorted = inst.arms.clone();
            sorted.sort_unstable();
            sorted.dedup();
            ck.require(
                sorted.len() == inst.arms.len(),
                &at.field("arms"),
                "lists a number of arms twice",
            );
            sorted
        }
    };
    let mut points = Vec::new();
    for (j, &n) in sizes.iter().enumerate() {
        // Errors point at the value as written (the sizes are sorted here).
        let where_n = if fixed.is_some() {
            at.field("family")
        } else {
            let written = inst.arms.iter().position(|&a| a == n).unwrap_or(j);
            at.field("arms").index(written)
        };
        if !ck.require(
            (2..=MAX_ARMS).contains(&n),
            &where_n,
            format!("N = {n} arms: must lie in 2..={MAX_ARMS}"),
        ) {
            continue;
        }
        let k = inst.k.k(n);
        if !ck.require(
            k >= 1 && k < n,
            &at.field("k"),
            format!("gives K = {k} for N = {n}: K must satisfy 1 ≤ K < N"),
        ) {
            continue;
        }
        let means = fixed
            .clone()
            .unwrap_or_else(|| inst.family.means(n as usize, k as usize));
        match Arms::new(means, k as usize, rewards) {
            Ok(arms) => points.push(arms),
            Err(rule) => ck.fail(&where_n, format!("at N = {n}: {rule}")),
        }
    }
    (ck.problems.len() == before).then(|| Instance {
        label: inst.label.clone(),
        family: inst.family.describe(),
        points,
    })
}

/// θ of a regret scenario's channels, loaded relative to this scenario's folder.
fn channel_means(
    scenario: &str,
    configuration: Option<&str>,
    source: &Path,
    at: &FieldPath,
    ck: &mut Checker,
) -> Option<Vec<f64>> {
    let path = source.parent().unwrap_or(Path::new(".")).join(scenario);
    // The kind is read before the file is checked: an identification scenario referring to
    // itself (or to another that refers back) must not recurse.
    let text = match super::read(&path) {
        Ok(t) => t,
        Err(e) => {
            ck.fail(&at.field("scenario"), format!("cannot load it: {e}"));
            return None;
        }
    };
    let raw = if super::syntax::reads_as_json(&text, &path) {
        super::syntax::parse_raw_json(&text, &path)
    } else {
        super::syntax::parse_raw(&text, &path)
    };
    if let Ok(super::raw::RawScenario::Identification(_)) = raw {
        ck.fail(
            &at.field("scenario"),
            format!(
                "{} is an identification scenario, not a regret scenario with one channel list per configuration",
                path.display()
            ),
        );
        return None;
    }
    let loaded = match (ck.parse)(&text, &path) {
        Ok(Scenario::Regret(s)) => s,
        Ok(other @ (Scenario::Identification(_) | Scenario::Sweep(_) | Scenario::MultiUser(_))) => {
            ck.fail(
                &at.field("scenario"),
                format!(
                    "{} is {}, not a regret scenario with one channel list per configuration",
                    path.display(),
                    if matches!(other, Scenario::Sweep(_)) {
                        "a sweep"
                    } else if matches!(other, Scenario::MultiUser(_)) {
                        "a many-users scenario"
                    } else {
                        "an identification scenario"
                    }
                ),
            );
            return None;
        }
        Err(e) => {
            ck.fail(
                &at.field("scenario"),
                format!("cannot load {}: {e}", path.display()),
            );
            return None;
        }
    };
    let exp = pick_configuration(&loaded, configuration);
    match exp {
        Some(e) => Some(e.env.theta().to_vec()),
        None => {
            let names: Vec<&str> = loaded
                .experiments
                .iter()
                .map(|e| e.label.as_str())
                .collect();
            ck.fail(
                &at.field("configuration"),
                format!(
                    "{:?} is not a configuration of {} (it has {names:?})",
                    configuration.unwrap_or(""),
                    path.display()
                ),
            );
            None
        }
    }
}

fn pick_configuration<'a>(
    s: &'a RegretScenario,
    label: Option<&str>,
) -> Option<&'a super::Experiment> {
    match label {
        None => s.experiments.first(),
        Some(l) => s.experiments.iter().find(|e| e.label == l),
    }
}

impl Overridable for IdentificationScenario {
    /// Runs and seed, in the scenario and every cell of its sweep; an identification scenario
    /// has no horizon.
    fn with_overrides(self, o: &Overrides) -> Result<IdentificationScenario, OverrideError> {
        if o.horizon.is_some() {
            return Err(OverrideError::HorizonForIdentification);
        }
        if let Some(sw) = &self.sweep {
            sw.refuse_swept(o)?;
        }
        self.try_map_all(&|mut s| {
            s.runs = o.runs.unwrap_or(s.runs);
            s.seed = o.seed.unwrap_or(s.seed);
            Ok(s)
        })
    }
}
