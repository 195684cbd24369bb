//! The macro behind the registry of occupancy processes (the `occupancy_processes!` list in
//! `occupancy.rs`): from one line per file it declares the process's module and generates the
//! scenario's [`OccupancySpec`](super::OccupancySpec), the checked
//! [`Occupancy`](super::Occupancy), its path state and their dispatch (one `match` per call,
//! inlined into the slot loop).

macro_rules! occupancy_processes {
    ($($module:ident::{$($name:ident($spec:ident)),+ $(,)?}),* $(,)?) => {
        $(
            mod $module;
            pub(crate) use $module::{$($spec),+};
        )*
        occupancy_processes!(@generate $($($name($spec)),+),*);
    };
    (@generate $($name:ident($spec:ty)),*) => {
        /// A channel's occupancy process as a scenario writes it, e.g.
        /// `Markov(idle_to_busy: 0.05, busy_to_idle: 0.15)`.
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub(crate) enum OccupancySpec {
            $(
                #[doc = concat!("`", stringify!($name), "`: see [`", stringify!($spec), "`].")]
                $name($spec),
            )*
        }

        /// A checked occupancy process of any kind.
        #[derive(Clone, Debug)]
        pub(crate) enum Occupancy {
            $(
                #[doc = concat!("Checked from `", stringify!($name), "`.")]
                $name(<$spec as ProcessSpec>::Process),
            )*
        }

        /// The path state of any process (one player's, reset for every run).
        #[derive(Clone, Debug)]
        pub(crate) enum OccupancyState {
            $(
                #[doc = concat!("Of `", stringify!($name), "`.")]
                $name(<<$spec as ProcessSpec>::Process as Process>::State),
            )*
        }

        impl OccupancySpec {
            /// Every process name, in registry order.
            #[allow(dead_code)]
            pub(crate) const NAMES: &'static [&'static str] = &[$(stringify!($name)),*];

            /// Checks the parameters into the process; every broken rule at once.
            pub(crate) fn check(&self, cx: &mut SpecContext<'_>) -> Result<Occupancy, Vec<SpecProblem>> {
                match self {
                    $(OccupancySpec::$name(s) => s.check(cx).map(Occupancy::$name),)*
                }
            }
        }

        impl Occupancy {
            /// The state at the start of a run.
            pub(crate) fn start(&self, key: u64) -> OccupancyState {
                match self {
                    $(Occupancy::$name(p) => OccupancyState::$name(p.start(key)),)*
                }
            }

            /// Whether the channel is idle at (slot, offset); `state` must come from this
            /// process.
            #[inline]
            pub(crate) fn idle(&self, state: &mut OccupancyState, slot: u64, offset: f64) -> bool {
                match (self, state) {
                    $((Occupancy::$name(p), OccupancyState::$name(s)) => p.idle(s, slot, offset),)*
                    #[allow(unreachable_patterns)]
                    _ => unreachable!("a path state always comes from its own process"),
                }
            }

            /// See [`Process::idle_until`].
            #[inline]
            pub(crate) fn idle_until(&self, state: &OccupancyState, slot: u64) -> f64 {
                match (self, state) {
                    $((Occupancy::$name(p), OccupancyState::$name(s)) => p.idle_until(s, slot),)*
                    // A state from another process cannot be asked (as in `idle`); no return.
                    #[allow(unreachable_patterns)]
                    _ => f64::INFINITY,
                }
            }

            /// See [`Process::theta_at`].
            pub(crate) fn theta_at(&self, slot: u64) -> f64 {
                match self {
                    $(Occupancy::$name(p) => p.theta_at(slot),)*
                }
            }

            /// See [`Process::stats`].
            pub(crate) fn stats(&self, horizon: u64) -> ProcessStats {
                match self {
                    $(Occupancy::$name(p) => p.stats(horizon),)*
                }
            }

            /// See [`Process::describe`].
            pub(crate) fn describe(&self) -> String {
                match self {
                    $(Occupancy::$name(p) => p.describe(),)*
                }
            }

            /// See [`Process::boundaries`].
            pub(crate) fn boundaries(&self) -> Vec<u64> {
                match self {
                    $(Occupancy::$name(p) => p.boundaries(),)*
                }
            }

            /// See [`Process::is_dynamic`].
            pub(crate) fn is_dynamic(&self) -> bool {
                match self {
                    $(Occupancy::$name(p) => p.is_dynamic(),)*
                }
            }

            /// See [`Process::is_iid`].
            pub(crate) fn is_iid(&self) -> bool {
                match self {
                    $(Occupancy::$name(p) => p.is_iid(),)*
                }
            }

            /// See [`Process::slots`].
            pub(crate) fn slots(&self) -> Option<u64> {
                match self {
                    $(Occupancy::$name(p) => p.slots(),)*
                }
            }

            /// See [`Process::content_hash`].
            pub(crate) fn content_hash(&self) -> Option<u64> {
                match self {
                    $(Occupancy::$name(p) => p.content_hash(),)*
                }
            }

            /// See [`Process::shared_memory`].
            pub(crate) fn shared_memory(&self) -> Option<(usize, u64)> {
                match self {
                    $(Occupancy::$name(p) => p.shared_memory(),)*
                }
            }

            /// See [`Process::notes`].
            pub(crate) fn notes(&self) -> Vec<String> {
                match self {
                    $(Occupancy::$name(p) => p.notes(),)*
                }
            }

            /// See [`Process::seen_idle`].
            pub(crate) fn seen_idle(&self, theta: f64) -> Result<Occupancy, String> {
                match self {
                    $(Occupancy::$name(p) => p.seen_idle(theta).map(Occupancy::$name),)*
                }
            }
        }
    };
}
