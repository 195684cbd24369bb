//! Scenario syntax (RON): the options every scenario is read with, and values written back for
//! `validate`, summaries and reports. A leaf module: the policy, law and report code read and
//! format values without depending on the scenario loader.

/// RON with `implicit_some` (optional fields are written plainly, `cost: Bernoulli(0.5)`) and
/// `unwrap_variant_newtypes` (the file reads `Regret(name: ..)`, not `Regret((name: ..))`).
pub(crate) fn ron_options() -> ron::Options {
    use ron::extensions::Extensions;
    ron::Options::default()
        .with_default_extension(Extensions::IMPLICIT_SOME | Extensions::UNWRAP_VARIANT_NEWTYPES)
}

/// A value in scenario syntax on one line, e.g. `CcUcb(alpha: 1.5, epsilon: 1e-5)`.
pub(crate) fn to_ron_line<T: serde::Serialize + std::fmt::Debug>(value: &T) -> String {
    // `Some(3)` is written `3`, as scenario files write it (the loader reads RON with
    // implicit_some).
    use ron::extensions::Extensions;
    let config = ron::ser::PrettyConfig::new()
        .compact_structs(true)
        .compact_arrays(true)
        .compact_maps(true)
        .extensions(Extensions::IMPLICIT_SOME);
    // A default extension is used without announcing it (`#![enable(implicit_some)]`).
    ron::Options::default()
        .with_default_extension(Extensions::IMPLICIT_SOME)
        .to_string_pretty(value, config)
        .unwrap_or_else(|_| format!("{value:?}"))
}
