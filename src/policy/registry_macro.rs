//! The macro behind the registry of built-in policies (the `builtin_policies!` list in
//! `policy.rs`): from one line per file it declares the policy's module and generates
//! `PolicySpec`, `AnyPolicy` and their match arms. It expands in `policy.rs`, which imports the
//! helpers it uses (`ron_of`, `variant_params`, `CatalogueEntry`).

macro_rules! builtin_policies {
    ($($module:ident::{$($name:ident($spec:ident)),+ $(,)?}),* $(,)?) => {
        $(
            mod $module;
            pub(crate) use $module::{$($spec),+};
        )*
        builtin_policies!(@generate $($($name($spec)),+),*);
    };
    (@generate $($name:ident($spec:ty)),*) => {
        /// A built-in policy as a scenario names it, with its parameters: `Oracle`,
        /// `CcUcb(alpha: 1.5)`, ... (`specprobe policies` lists them all). A policy whose
        /// parameters all have defaults may be written bare.
        #[derive(Clone, Debug, PartialEq)]
        pub(crate) enum PolicySpec {
            $(
                #[doc = concat!("`", stringify!($name), "`: see [`", stringify!($spec), "`].")]
                $name($spec),
            )*
        }

        /// A built policy of any kind; [`AnyPolicy::visit`] hands the concrete type to generic
        /// code.
        pub(crate) enum AnyPolicy {
            $(
                #[doc = concat!("Built from `", stringify!($name), "`.")]
                $name(<$spec as Builtin>::Policy),
            )*
            /// A policy written outside specprobe (one dynamic call per plan and observe).
            Custom(Box<dyn Policy>),
        }

        impl std::fmt::Debug for AnyPolicy {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self {
                    $(AnyPolicy::$name(_) => f.write_str(stringify!($name)),)*
                    AnyPolicy::Custom(_) => f.write_str("Custom"),
                }
            }
        }

        /// A built policy of any kind is a policy (a match per call; the engine itself uses
        /// [`AnyPolicy::visit`] and dispatches once per run). Lets a user wrap a built-in one.
        impl Policy for AnyPolicy {
            fn plan(&mut self, t: u64, list: &mut Vec<usize>, rng: &mut crate::util::rng::SimRng) {
                match self {
                    $(AnyPolicy::$name(p) => p.plan(t, list, rng),)*
                    AnyPolicy::Custom(p) => p.plan(t, list, rng),
                }
            }
            fn observe(&mut self, channel: usize, idle: bool, cost: f64) {
                match self {
                    $(AnyPolicy::$name(p) => p.observe(channel, idle, cost),)*
                    AnyPolicy::Custom(p) => p.observe(channel, idle, cost),
                }
            }
            fn extend(&mut self, list: &mut Vec<usize>) -> bool {
                match self {
                    $(AnyPolicy::$name(p) => p.extend(list),)*
                    AnyPolicy::Custom(p) => p.extend(list),
                }
            }
        }

        impl AnyPolicy {
            /// Dispatches once to the concrete policy type.
            pub(crate) fn visit<V: PolicyVisitor>(self, visitor: V) -> V::Output {
                match self {
                    $(AnyPolicy::$name(p) => visitor.visit(p),)*
                    AnyPolicy::Custom(p) => visitor.visit(p),
                }
            }
        }

        impl PolicySpec {
            /// Every scenario name, in catalogue order.
            pub(crate) const NAMES: &'static [&'static str] = &[$(stringify!($name)),*];

            /// The name in scenario files.
            pub(crate) fn name(&self) -> &'static str {
                match self {
                    $(PolicySpec::$name(_) => <$spec as Builtin>::NAME,)*
                }
            }

            /// The label used when a scenario gives none.
            pub(crate) fn default_label(&self) -> &'static str {
                match self {
                    $(PolicySpec::$name(s) => s.label(),)*
                }
            }

            /// See [`Builtin::extra_memory`].
            pub(crate) fn extra_memory(&self, k: u64, horizon: u64) -> u64 {
                match self {
                    $(PolicySpec::$name(s) => s.extra_memory(k, horizon),)*
                }
            }

            /// CPU seconds one slot of this policy costs at `k` channels (see
            /// [`Builtin::NS_PER_SLOT`]).
            pub(crate) fn seconds_per_slot(&self, k: u64) -> f64 {
                let (base, per_channel) = match self {
                    $(PolicySpec::$name(_) => <$spec as Builtin>::NS_PER_SLOT,)*
                };
                (base + per_channel * k as f64) * 1e-9
            }

            /// See [`Builtin::learns_idle_only`].
            pub(crate) fn learns_idle_only(&self) -> bool {
                match self {
                    $(PolicySpec::$name(s) => s.learns_idle_only(),)*
                }
            }

            /// See [`Builtin::single_channel`].
            pub(crate) fn single_channel(&self) -> bool {
                match self {
                    $(PolicySpec::$name(s) => s.single_channel(),)*
                }
            }

            /// See [`Builtin::among_users`].
            pub(crate) fn among_users(&self) -> PolicySpec {
                match self {
                    $(PolicySpec::$name(s) => PolicySpec::$name(s.among_users()),)*
                }
            }

            /// See [`Builtin::theorem2_alpha`].
            pub(crate) fn theorem2_alpha(&self) -> Option<f64> {
                match self {
                    $(PolicySpec::$name(s) => s.theorem2_alpha(),)*
                }
            }

            /// The parameter a policy cannot be written without (`None`: it may be written
            /// bare).
            pub(crate) fn required_parameter(&self) -> Option<&'static str> {
                match self {
                    $(PolicySpec::$name(_) => <$spec as Builtin>::bare().err(),)*
                }
            }

            /// Every broken parameter rule against an instance of `k` channels.
            pub(crate) fn check(&self, k: usize) -> Vec<ParamError> {
                match self {
                    $(PolicySpec::$name(s) => s.check(k),)*
                }
            }

            /// The spec in scenario syntax, e.g. `CcUcb(alpha: 1.5, epsilon: 1e-5)`.
            pub(crate) fn to_ron(&self) -> String {
                match self {
                    $(PolicySpec::$name(s) => ron_of(s),)*
                }
            }

            /// Builds the policy for an environment (parameters already checked).
            pub(crate) fn build(&self, env: &Environment) -> AnyPolicy {
                match self {
                    $(PolicySpec::$name(s) => AnyPolicy::$name(s.build(env)),)*
                }
            }

            /// Every built-in policy with its defaults, for `specprobe policies` and the guide.
            pub(crate) fn catalogue() -> Vec<CatalogueEntry> {
                vec![$(CatalogueEntry {
                    example: PolicySpec::$name(<$spec as Builtin>::example()),
                    summary: <$spec as Builtin>::SUMMARY,
                    note: <$spec as Builtin>::NOTE,
                }),*]
            }
        }

        impl serde::Serialize for PolicySpec {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut index = 0u32;
                $(
                    if let PolicySpec::$name(spec) = self {
                        return s.serialize_newtype_variant(
                            "PolicySpec", index, stringify!($name), spec,
                        );
                    }
                    index += 1;
                )*
                let _ = index;
                unreachable!("every variant is matched above")
            }
        }

        impl<'de> serde::Deserialize<'de> for PolicySpec {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct Name(usize);
                impl<'de> serde::Deserialize<'de> for Name {
                    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                        struct V;
                        impl serde::de::Visitor<'_> for V {
                            type Value = Name;
                            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                                f.write_str("a policy name")
                            }
                            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Name, E> {
                                PolicySpec::NAMES
                                    .iter()
                                    .position(|n| *n == v)
                                    .map(Name)
                                    .ok_or_else(|| E::unknown_variant(v, PolicySpec::NAMES))
                            }
                        }
                        d.deserialize_identifier(V)
                    }
                }
                struct V;
                impl<'de> serde::de::Visitor<'de> for V {
                    type Value = PolicySpec;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str("a policy such as `CcUcb(alpha: 1.5)`")
                    }
                    fn visit_enum<A: serde::de::EnumAccess<'de>>(
                        self,
                        data: A,
                    ) -> Result<PolicySpec, A::Error> {
                        let (Name(i), variant) = data.variant()?;
                        let mut index = 0usize;
                        $(
                            if i == index {
                                return variant_params::<$spec, _>(variant).map(PolicySpec::$name);
                            }
                            index += 1;
                        )*
                        let _ = index;
                        unreachable!("Name only accepts registered names")
                    }
                }
                d.deserialize_enum("PolicySpec", PolicySpec::NAMES, V)
            }
        }
    };
}
