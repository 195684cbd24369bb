//! The macro behind the registry of identification algorithms (the `builtin_identifiers!` list
//! in `identify.rs`): from one line per file it declares the algorithm's module and generates
//! the scenario's [`AlgorithmSpec`](super::AlgorithmSpec), the built
//! [`AnyIdentifier`](super::AnyIdentifier) and their dispatch.

macro_rules! builtin_identifiers {
    ($($module:ident::{$($name:ident($entry:ident)),+ $(,)?}),* $(,)?) => {
        $(
            mod $module;
            pub(crate) use $module::{$($entry),+};
        )*
        builtin_identifiers!(@generate $($($name($entry)),+),*);
    };
    (@generate $($name:ident($entry:ty)),*) => {
        /// An algorithm as a scenario names it (`Lucb1`, `LilUcb`, ...).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        pub(crate) enum AlgorithmSpec {
            $(
                #[doc = concat!("See [`", stringify!($entry), "`].")]
                $name,
            )*
        }

        /// A built algorithm of any kind; [`AnyIdentifier::visit`] hands the concrete type to
        /// generic code (one dispatch per run).
        pub(crate) enum AnyIdentifier {
            $(
                #[doc = concat!("Built from `", stringify!($name), "`.")]
                $name(<$entry as BuiltinIdentifier>::Algorithm),
            )*
            /// An algorithm written outside specprobe.
            Custom(Box<dyn Identifier>),
        }

        impl std::fmt::Debug for AnyIdentifier {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self {
                    $(AnyIdentifier::$name(_) => f.write_str(stringify!($name)),)*
                    AnyIdentifier::Custom(_) => f.write_str("Custom"),
                }
            }
        }

        /// A built algorithm of any kind is an algorithm (a match per call; the engine itself
        /// uses [`AnyIdentifier::visit`] and dispatches once per run).
        impl Identifier for AnyIdentifier {
            fn next(&mut self, rng: &mut SimRng) -> Option<usize> {
                match self {
                    $(AnyIdentifier::$name(a) => a.next(rng),)*
                    AnyIdentifier::Custom(a) => a.next(rng),
                }
            }
            fn observe(&mut self, arm: usize, reward: f64) {
                match self {
                    $(AnyIdentifier::$name(a) => a.observe(arm, reward),)*
                    AnyIdentifier::Custom(a) => a.observe(arm, reward),
                }
            }
            fn answer(&self, out: &mut Vec<usize>) {
                match self {
                    $(AnyIdentifier::$name(a) => a.answer(out),)*
                    AnyIdentifier::Custom(a) => a.answer(out),
                }
            }
        }

        impl AnyIdentifier {
            /// Dispatches once to the concrete type.
            pub(crate) fn visit<V: IdentifierVisitor>(self, v: V) -> V::Output {
                match self {
                    $(AnyIdentifier::$name(a) => v.visit(a),)*
                    AnyIdentifier::Custom(a) => v.visit(a),
                }
            }
        }

        impl AlgorithmSpec {
            /// Every algorithm, in registry order.
            #[allow(dead_code)]
            pub(crate) const ALL: &'static [AlgorithmSpec] = &[$(AlgorithmSpec::$name),*];

            /// Name in outputs.
            pub(crate) fn name(self) -> &'static str {
                match self {
                    $(AlgorithmSpec::$name => <$entry as BuiltinIdentifier>::LABEL,)*
                }
            }

            /// How its error probability depends on δ (fixes δ in the faithful setting).
            pub(crate) fn guarantee(self) -> Guarantee {
                match self {
                    $(AlgorithmSpec::$name => <$entry as BuiltinIdentifier>::GUARANTEE,)*
                }
            }

            /// Whether it identifies only the single best arm (K = 1).
            pub(crate) fn single_best(self) -> bool {
                match self {
                    $(AlgorithmSpec::$name => <$entry as BuiltinIdentifier>::SINGLE_BEST,)*
                }
            }

            /// Whether the algorithm runs in `setting`.
            pub(crate) fn runs_in(self, setting: Setting) -> bool {
                match self {
                    $(AlgorithmSpec::$name => <$entry as BuiltinIdentifier>::runs_in(setting),)*
                }
            }

            /// Builds the algorithm for one run.
            pub(crate) fn build(self, problem: &Problem) -> AnyIdentifier {
                match self {
                    $(AlgorithmSpec::$name => AnyIdentifier::$name(<$entry as BuiltinIdentifier>::build(problem)),)*
                }
            }
        }
    };
}
