//! Values written back in scenario syntax (RON), for `validate`, summaries and reports. A leaf
//! module: the policy, law and report code format values without depending on the scenario
//! loader.

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
