//! What the registry of built-in policies (the `builtin_policies!` list in `policy.rs`) is
//! built with: the catalogue entry, the visitor that hands the concrete policy type to the slot
//! loop, the RON/JSON helpers of the generated `PolicySpec`, and the wrapper a user's policy
//! uses to build a built-in one.

use super::{Builtin, Policy, PolicySpec};
use crate::model::channel::Environment;

/// One entry of the policy catalogue printed by `specprobe policies`.
#[derive(Clone, Debug)]
pub(crate) struct CatalogueEntry {
    /// The spec with every parameter at its default (required ones at an example value).
    pub example: PolicySpec,
    /// What the policy does, one line.
    pub summary: &'static str,
    /// A remark on a parameter's default (empty for none).
    pub note: &'static str,
}

/// Generic code that runs with a concrete policy type (monomorphised per policy).
pub(crate) trait PolicyVisitor {
    /// What the visit returns.
    type Output;
    /// Runs with the concrete policy.
    fn visit<P: Policy>(self, policy: P) -> Self::Output;
}

/// Formats a spec in scenario syntax: `Name(param: value, ...)`, or the bare name when it has
/// no parameters.
pub(super) fn ron_of<T: Builtin>(spec: &T) -> String {
    let params = crate::util::ron_text::to_ron_line(spec);
    if params == "()" {
        T::NAME.to_string()
    } else {
        format!("{}{params}", T::NAME)
    }
}

/// Reads a variant's parameters, accepting the bare name (`CcUcb`) for the defaults.
///
/// Formats signal a bare variant by failing `newtype_variant_seed` before the seed runs (RON:
/// no `(` after the name; JSON: a plain string); a failure inside the parameters is reported
/// as it is, with its position.
pub(super) fn variant_params<'de, T: Builtin, A: serde::de::VariantAccess<'de>>(
    variant: A,
) -> Result<T, A::Error> {
    struct Seed<'a, T> {
        started: &'a std::cell::Cell<bool>,
        _spec: std::marker::PhantomData<T>,
    }
    impl<'de, T: Builtin> serde::de::DeserializeSeed<'de> for Seed<'_, T> {
        type Value = T;
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
            self.started.set(true);
            T::deserialize(d)
        }
    }
    let started = std::cell::Cell::new(false);
    match variant.newtype_variant_seed(Seed::<T> {
        started: &started,
        _spec: std::marker::PhantomData,
    }) {
        Ok(spec) => Ok(spec),
        Err(e) if started.get() => Err(e),
        Err(_) => T::bare().map_err(|param| {
            serde::de::Error::custom(format!(
                "{} needs its `{param}` parameter, e.g. {}",
                T::NAME,
                ron_of(&T::example())
            ))
        }),
    }
}

impl std::str::FromStr for PolicySpec {
    type Err = String;

    /// Parses a policy in scenario syntax, e.g. `"CcUcb(alpha: 1.0)"`.
    fn from_str(s: &str) -> Result<PolicySpec, String> {
        crate::util::ron_text::ron_options()
            .from_str(s)
            .map_err(|e| format!("{s:?} is not a policy: {e}"))
    }
}

/// A built-in policy written as a scenario writes it (`"CcUcb(alpha: 1.0)"`), built for `env`:
/// for a policy of your own that wraps or extends a built-in one. Parameters are checked
/// against the environment's channels; the error names the broken rule.
///
/// A wrapper forwards [`Policy::extend`] too: on many channels CC-UCB (K ≥ 512) and
/// CascadeKL-UCB (K ≥ 8) write only the head of their list in `plan` and hand out the rest as
/// it is asked for; call `extend` until it returns `false` to read the whole list.
///
/// ```
/// # fn main() -> Result<(), String> {
/// let sim = specprobe::Simulation::from_file("scenarios/paper-fig1a.ron").map_err(|e| e.to_string())?;
/// let sim = sim.policy("wrapped", |env| specprobe::builtin_policy("CcUcb(alpha: 1.0)", env).unwrap());
/// # let _ = sim;
/// # Ok(())
/// # }
/// ```
pub fn builtin_policy(spec: &str, env: &Environment) -> Result<Box<dyn Policy>, String> {
    let spec: PolicySpec = spec.parse()?;
    let errors: Vec<String> = spec
        .check(env.len())
        .into_iter()
        .map(|e| format!("{}: {}", e.param, e.rule))
        .collect();
    if !errors.is_empty() {
        return Err(format!("{}: {}", spec.to_ron(), errors.join("; ")));
    }
    Ok(Box::new(spec.build(env)))
}

#[cfg(test)]
mod tests {
    use crate::policy::*;

    #[test]
    fn every_policy_with_defaults_may_be_written_bare() {
        for entry in PolicySpec::catalogue() {
            let name = entry.example.name();
            for text in [name.to_string(), format!("{name}()")] {
                match text.parse::<PolicySpec>() {
                    Ok(spec) => assert_eq!(spec.name(), name),
                    // Policies without defaults name the parameter they need.
                    Err(e) => {
                        let param = entry.example.required_parameter().expect("a required one");
                        assert!(e.contains(&format!("`{param}`")), "{text}: {e}");
                    }
                }
            }
        }
        assert_eq!(
            "RandomList".parse::<PolicySpec>().unwrap(),
            PolicySpec::RandomList(RandomListSpec { list_len: None })
        );
    }

    #[test]
    fn json_uses_the_same_schema() {
        let bare: PolicySpec = serde_json::from_str(r#""CcUcb""#).unwrap();
        assert_eq!(bare, PolicySpec::CcUcb(CcUcbSpec::default()));
        let spec: PolicySpec = serde_json::from_str(r#"{"CcUcb": {"alpha": 1.0}}"#).unwrap();
        assert_eq!(spec.to_ron(), "CcUcb(alpha: 1.0, epsilon: 1e-5)");
        let err = serde_json::from_str::<PolicySpec>(r#"{"CcUcb": {"alpha": "x"}}"#).unwrap_err();
        assert!(err.to_string().contains("invalid type"), "{err}");
        let err = serde_json::from_str::<PolicySpec>(r#""Nope""#).unwrap_err();
        assert!(err.to_string().contains("Oracle"), "{err}");
    }
}
