//! What a library user adds beside a scenario's own entries (policies, many-users teams,
//! identification algorithms), and what a shard's partial results name of them, rebuilt by
//! name: added in one place, for every kind, with one rule for their labels. A run adds the
//! user's code; `merge` adds placeholders known by their names, which must give the checked
//! scenario (and its fingerprint) the run had.

use super::multi_user::{TeamEntry, TeamKind};
use super::{
    IdentificationScenario, MultiUserScenario, PolicyEntry, PolicyKind, RegretScenario,
    label_is_printable,
};
use crate::identify::{Algorithm, CustomIdentifier};
use crate::multi::CustomTeam;
use crate::policy::CustomPolicy;
use std::collections::BTreeSet;

/// Entries added beside a scenario's own, in this order.
#[derive(Clone, Debug, Default)]
pub(crate) struct Additions {
    /// Cascade policies, by label: a regret scenario's (each sweep cell's), or each user's
    /// policy (Selfish) in a many-users scenario.
    pub policies: Vec<(String, CustomPolicy)>,
    /// Many-users teams, by label.
    pub teams: Vec<(String, CustomTeam)>,
    /// Identification algorithms (labelled by their names).
    pub algorithms: Vec<CustomIdentifier>,
    /// Entries known by (label, description) only, as a shard's partial results name them:
    /// added as placeholders of whatever the scenario takes (policies, teams or algorithms).
    pub named: Vec<(String, String)>,
    /// The labels among `named` that a user declared one-channel (many-users teams).
    pub one_channel: Vec<String>,
}

/// Why an entry cannot be added.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AdditionError {
    /// A policy added to an identification scenario, or an algorithm to a regret one.
    #[error(
        "{label:?}: {} {what} cannot run in {} {kind} scenario",
        article(what),
        article(kind)
    )]
    WrongKind {
        /// The added entry's label.
        label: String,
        /// What it is (`policy`, `many-users team`, `identification algorithm`).
        what: &'static str,
        /// The scenario's kind.
        kind: &'static str,
    },
    /// An added label is empty, holds a control character or is already used.
    #[error(
        "{0:?}: labels must be non-empty, free of control characters (a NUL, a tab, a line break) and unique within the scenario"
    )]
    Label(String),
}

/// "a" or "an" before `word`.
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// Labels in use, which each new one must differ from.
struct Labels(BTreeSet<String>);

impl Labels {
    fn of<'a>(labels: impl Iterator<Item = &'a str>) -> Labels {
        Labels(labels.map(str::to_string).collect())
    }

    /// Takes `label`, or says why it cannot be taken.
    fn take(&mut self, label: &str) -> Result<(), AdditionError> {
        if label.trim().is_empty() || !label_is_printable(label) || !self.0.insert(label.into()) {
            return Err(AdditionError::Label(label.to_string()));
        }
        Ok(())
    }
}

impl Additions {
    /// The first entry a scenario of kind `kind` cannot take (`policies`, `teams` and
    /// `algorithms`: whether it takes each).
    fn refuse(&self, kind: &'static str, takes: [bool; 3]) -> Result<(), AdditionError> {
        let wrong = |label: &str, what| AdditionError::WrongKind {
            label: label.to_string(),
            what,
            kind,
        };
        if let (false, Some((label, _))) = (takes[0], self.policies.first()) {
            return Err(wrong(label, "policy"));
        }
        if let (false, Some((label, _))) = (takes[1], self.teams.first()) {
            return Err(wrong(label, "many-users team"));
        }
        if let (false, Some(a)) = (takes[2], self.algorithms.first()) {
            return Err(wrong(a.name(), "identification algorithm"));
        }
        Ok(())
    }

    /// A regret scenario (or sweep cell) with the policies (and named ones) appended.
    pub(crate) fn to_regret(&self, mut s: RegretScenario) -> Result<RegretScenario, AdditionError> {
        self.refuse("regret", [true, false, false])?;
        let mut labels = Labels::of(s.policies.iter().map(|p| p.label.as_str()));
        let named = self.named.iter().map(|(label, description)| {
            (label, CustomPolicy::placeholder(description.clone(), false))
        });
        let policies = self.policies.iter().map(|(l, p)| (l, p.clone()));
        for (label, policy) in policies.chain(named) {
            labels.take(label)?;
            s.policies.push(PolicyEntry {
                label: label.clone(),
                policy: PolicyKind::Custom(policy),
            });
        }
        Ok(s)
    }

    /// A many-users scenario with the policies (each user's, Selfish), teams and named
    /// entries (teams known by name) appended.
    pub(crate) fn to_multi_user(
        &self,
        mut s: MultiUserScenario,
    ) -> Result<MultiUserScenario, AdditionError> {
        self.refuse("many-users", [true, true, false])?;
        let mut labels = Labels::of(s.policies.iter().map(|p| p.label.as_str()));
        let policies = self
            .policies
            .iter()
            .map(|(l, p)| (l, TeamKind::Selfish(p.clone())));
        let teams = self
            .teams
            .iter()
            .map(|(l, t)| (l, TeamKind::Custom(t.clone())));
        // A user's team or Selfish policy, known by what the outputs call it.
        let named = self.named.iter().map(|(label, description)| {
            let one_channel = self.one_channel.contains(label);
            let team = CustomTeam::placeholder(description.clone(), one_channel);
            (label, TeamKind::Custom(team))
        });
        for (label, kind) in policies.chain(teams).chain(named) {
            labels.take(label)?;
            s.policies.push(TeamEntry {
                label: label.clone(),
                kind,
            });
        }
        Ok(s)
    }

    /// An identification scenario with the algorithms (and named ones) appended.
    pub(crate) fn to_identification(
        &self,
        mut s: IdentificationScenario,
    ) -> Result<IdentificationScenario, AdditionError> {
        self.refuse("identification", [false, false, true])?;
        let mut labels = Labels::of(s.algorithms.iter().map(|a| a.name()));
        let named = self
            .named
            .iter()
            .map(|(name, _)| CustomIdentifier::placeholder(name.clone()));
        for algorithm in self.algorithms.iter().cloned().chain(named) {
            labels.take(algorithm.name())?;
            s.algorithms.push(Algorithm::Custom(algorithm));
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Scenario, parse};
    use std::path::Path;

    const REGRET: &str = r#"Regret(name: "r", seed: 1, horizon: 10, runs: 1,
        channels: [(theta: 0.5, cost: Constant(0.1)), (theta: 0.7, cost: Constant(0.1))],
        policies: [(label: "mine", policy: Oracle)])"#;
    const SWEEP: &str = r#"Regret(name: "s", seed: 1, horizon: 10, runs: 1,
        channels: [(theta: 0.5, cost: Constant(0.1)), (theta: 0.7, cost: Constant(0.1))],
        policies: [(policy: CcUcb(alpha: 1.5))],
        sweep: (field: "policies[*].policy.alpha", values: [1.0, 2.0]))"#;
    const MULTI: &str = r#"MultiUser(name: "m", seed: 1, horizon: 10, runs: 1, users: 2,
        channels: [(theta: 0.5, cost: Constant(0.0)), (theta: 0.7, cost: Constant(0.0))],
        policies: [(label: "mine", policy: McTopM(index: Ucb))])"#;
    const IDENT: &str = r#"Identification(name: "i", seed: 1, runs: 1, confidence: 0.1,
        settings: [Faithful], faithful_epsilon: 0.01, sample_cap: 1000,
        rewards: Gaussian(variance: 0.25),
        instances: [(label: "a", family: OneSparse, k: Fixed(1), arms: [4])],
        algorithms: [Lucb1])"#;

    fn scenario(text: &str) -> Scenario {
        parse(text, Path::new("s.ron")).unwrap()
    }

    fn policy(label: &str) -> (String, CustomPolicy) {
        (label.into(), CustomPolicy::placeholder("p", false))
    }

    fn team(label: &str) -> (String, CustomTeam) {
        (label.into(), CustomTeam::placeholder("t", false))
    }

    fn wrong(text: &str, a: Additions) -> String {
        match scenario(text).with_additions(&a) {
            Err(e @ AdditionError::WrongKind { .. }) => e.to_string(),
            other => panic!("not refused for its kind: {other:?}"),
        }
    }

    #[test]
    fn an_entry_of_another_kind_is_refused_naming_it_and_the_kind() {
        let both = |p: bool, t: bool, a: bool| Additions {
            policies: if p { vec![policy("p")] } else { Vec::new() },
            teams: if t { vec![team("t")] } else { Vec::new() },
            algorithms: if a {
                vec![CustomIdentifier::placeholder("a")]
            } else {
                Vec::new()
            },
            ..Additions::default()
        };
        for text in [REGRET, SWEEP] {
            assert_eq!(
                wrong(text, both(true, true, true)),
                r#""t": a many-users team cannot run in a regret scenario"#
            );
            assert_eq!(
                wrong(text, both(true, false, true)),
                r#""a": an identification algorithm cannot run in a regret scenario"#
            );
        }
        assert_eq!(
            wrong(MULTI, both(true, true, true)),
            r#""a": an identification algorithm cannot run in a many-users scenario"#
        );
        // A policy is named before a team, as the identification check always did.
        assert_eq!(
            wrong(IDENT, both(true, true, true)),
            r#""p": a policy cannot run in an identification scenario"#
        );
        assert_eq!(
            wrong(IDENT, both(false, true, true)),
            r#""t": a many-users team cannot run in an identification scenario"#
        );
    }

    #[test]
    fn labels_must_be_printable_and_new() {
        for (text, taken) in [(REGRET, "mine"), (MULTI, "mine"), (IDENT, "LUCB1")] {
            for label in ["", "  ", "a\tb", taken] {
                let a = Additions {
                    named: vec![(label.into(), "d".into())],
                    ..Additions::default()
                };
                assert_eq!(
                    scenario(text).with_additions(&a).unwrap_err(),
                    AdditionError::Label(label.into()),
                    "{label:?}"
                );
            }
            let twice = Additions {
                named: vec![("x".into(), "d".into()), ("x".into(), "d".into())],
                ..Additions::default()
            };
            assert_eq!(
                scenario(text).with_additions(&twice).unwrap_err(),
                AdditionError::Label("x".into())
            );
        }
    }

    #[test]
    fn named_entries_become_what_the_kind_takes() {
        let a = Additions {
            named: vec![("x".into(), "a user's".into()), ("y".into(), "one".into())],
            one_channel: vec!["y".into()],
            ..Additions::default()
        };
        let Scenario::Sweep(s) = scenario(SWEEP).with_additions(&a).unwrap() else {
            panic!("a sweep")
        };
        for cell in s.sweep.cells() {
            let labels: Vec<&str> = cell.policies.iter().map(|p| p.label.as_str()).collect();
            assert_eq!(labels[1..], ["x", "y"]);
            assert!(matches!(cell.policies[1].policy, PolicyKind::Custom(_)));
        }
        let Scenario::MultiUser(s) = scenario(MULTI).with_additions(&a).unwrap() else {
            panic!("many users")
        };
        let declared: Vec<bool> = s
            .policies
            .iter()
            .map(|p| p.declares_one_channel())
            .collect();
        assert_eq!(declared, [false, false, true]);
        let Scenario::Identification(s) = scenario(IDENT).with_additions(&a).unwrap() else {
            panic!("identification")
        };
        let names: Vec<&str> = s.algorithms.iter().map(|a| a.name()).collect();
        assert_eq!(names, ["LUCB1", "x", "y"]);
    }
}
