//! The macro behind the registry of built-in many-users policies (the `builtin_teams!` list in
//! `multi.rs`): from one line per file it declares the team's module and generates `TeamSpec`
//! (with its scenario parser), `AnyTeam` and their match arms, as `builtin_policies!` does for
//! the single-user policies. It expands in `multi.rs`, which imports what it uses
//! (`TeamBuiltin`, `TeamVisitor`, `CheckedTeam`, `Feedback`, `Environment`, `SimRng`).

macro_rules! builtin_teams {
    ($($module:ident::{$($name:ident($spec:ident)),+ $(,)?}),* $(,)?) => {
        $(
            mod $module;
            pub(crate) use $module::{$($spec),+};
        )*
        builtin_teams!(@generate $($($name($spec)),+),*);
    };
    (@generate $($name:ident($spec:ty)),*) => {
        /// A built-in many-users policy as a scenario names it, with its parameters
        /// (`specprobe policies` lists them all).
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        pub(crate) enum TeamSpec {
            $(
                #[doc = concat!("`", stringify!($name), "`: see [`", stringify!($spec), "`].")]
                $name($spec),
            )*
        }

        /// A built team of any kind; [`AnyTeam::visit`] hands the concrete type to generic
        /// code (the slot loop is monomorphised per team).
        #[derive(Debug)]
        pub(crate) enum AnyTeam {
            $(
                #[doc = concat!("Built from `", stringify!($name), "`.")]
                $name(<$spec as TeamBuiltin>::Team),
            )*
            /// A user's team, its lists checked.
            Custom(CheckedTeam),
        }

        impl AnyTeam {
            /// Hands the concrete team to `visitor`.
            pub(crate) fn visit<V: TeamVisitor>(self, visitor: V) -> V::Output {
                match self {
                    $(AnyTeam::$name(t) => visitor.visit(t),)*
                    AnyTeam::Custom(t) => visitor.visit(t),
                }
            }
        }

        impl TeamSpec {
            /// The default label in outputs.
            pub(crate) fn label(&self) -> String {
                match self {
                    $(TeamSpec::$name(s) => s.label(),)*
                }
            }

            /// The policy in scenario syntax, e.g. `McTopM(index: KlUcb)`.
            pub(crate) fn to_ron(&self) -> String {
                match self {
                    $(TeamSpec::$name(s) => format!("{}{}", stringify!($name), s.params_ron()),)*
                }
            }

            /// See [`TeamBuiltin::is_classic`].
            pub(crate) fn is_classic(&self) -> bool {
                match self {
                    $(TeamSpec::$name(s) => s.is_classic(),)*
                }
            }

            /// See [`TeamBuiltin::sees_costs`].
            pub(crate) fn sees_costs(&self) -> bool {
                match self {
                    $(TeamSpec::$name(s) => s.sees_costs(),)*
                }
            }

            /// See [`TeamBuiltin::allows_user_means`].
            pub(crate) fn allows_user_means(&self) -> bool {
                match self {
                    $(TeamSpec::$name(s) => s.allows_user_means(),)*
                }
            }

            /// See [`TeamBuiltin::ns_per_user_slot`].
            pub(crate) fn ns_per_user_slot(&self, k: u64, users: u64) -> f64 {
                match self {
                    $(TeamSpec::$name(s) => s.ns_per_user_slot(k, users),)*
                }
            }

            /// See [`TeamBuiltin::needs_collision_indicator`].
            pub(crate) fn needs_collision_indicator(&self) -> bool {
                match self {
                    $(TeamSpec::$name(s) => s.needs_collision_indicator(),)*
                }
            }

            /// The rules the parameters break for `k` channels, `users` users and horizon
            /// `horizon`, as (parameter, rule).
            pub(crate) fn check(&self, k: usize, users: usize, horizon: u64) -> Vec<(String, String)> {
                match self {
                    $(TeamSpec::$name(s) => s.check(k, users, horizon),)*
                }
            }

            /// The team of `users` users on `env`'s channels, for a run of `horizon` slots
            /// whose users' rewards combine by `system`; `rngs` are the users' streams.
            pub(crate) fn build(
                &self,
                env: &Environment,
                users: usize,
                horizon: u64,
                system: SystemReward,
                rngs: &mut [SimRng],
            ) -> AnyTeam {
                match self {
                    $(TeamSpec::$name(s) => AnyTeam::$name(s.build_for(env, users, horizon, system, rngs)),)*
                }
            }

            /// Every built-in many-users policy with its defaults and a one-line summary, for
            /// `specprobe policies` (each printed as [`TeamSpec::to_ron`] writes it, so that it
            /// reads back), in registry order.
            pub(crate) fn catalogue() -> Vec<(TeamSpec, &'static str)> {
                vec![$((TeamSpec::$name(<$spec as TeamBuiltin>::example()), <$spec as TeamBuiltin>::SUMMARY)),*]
            }
        }
    };
}
