//! specprobe: a simulator for cost-aware spectrum access.
//!
//! A secondary user senses channels one after another at the start of each slot; each channel is
//! idle with probability θ_i, each probe costs energy and delay, and the user transmits on the
//! first idle channel it finds. Net reward per slot = 1{idle found} − total probing cost.
//! Learning which channels to probe, in which order and when to stop is the cost-aware cascading
//! bandit of Zhou et al. (IJCAI 2018), whose offline optimum (UCR-T1) and online algorithm
//! (CC-UCB) specprobe implements together with the baselines users compare against. It also
//! runs best-K identification experiments: find the K channels most often idle with confidence
//! 1 − ν, using as few probes as possible.
//!
//! # The library
//! [`Simulation`] takes a checked [`Scenario`] (from [`load`] or [`parse`]), your own
//! [`Policy`] or [`Identifier`] if you like, and runs it through the same pipeline as the
//! command line; [`Results`] hold the exact statistics in memory ([`summary`] types) and write
//! the files the command line writes. [`commands`] holds what each CLI command does.
//!
//! # Layers
//! Each folder of `src/` imports only the folders below it (a test checks it):
//! ```text
//! app       Simulation builder, commands, export (the one writer)
//! report    summaries, CSV, charts and report.md by result kind, rendered to bytes
//! store     result folders (lock, stage, swap), partial results of shards
//! engine    slot loop, runner, recorder, results, budget
//! scenario  raw serde structs -> checked scenario (errors with file:line:col, field, rule)
//! policy    cascade policies    identify   identification algorithms
//! model     channels, occupancy processes, costs, sensing, theory
//! util      random streams, counter-based draws, exact statistics, bounded input
//! ```
//! The simulator never reads files, the report never simulates, the store never interprets.

#![forbid(unsafe_code)]

/// The version of this library (and of the command line and Python package built with it).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The experiment kinds, one entry each: the variant's name, then the paths of the kind's
/// scenario, results and partial-results body types, of its raw file form, and the `kind` its
/// result folders and its sweeps' are written as (a contract with the tools that read them).
/// A kind written inside another's file, as a sweep is a regret file with a `sweep` field,
/// has no raw form and writes the other kind's sweep. Every layer generates its
/// closed enum of the kinds, and the dispatch over it, from this one list:
/// `experiment_kinds!($ callback)` expands to `callback! { $ list }` (the `$` lets `callback`
/// declare macros of its own), so that a new kind is its own files in each layer and one line
/// here. Defined before the modules, it is in scope in all of them without an import.
macro_rules! experiment_kinds {
    ($d:tt $callback:ident) => {
        $callback! { $d
            /// A regret experiment.
            Regret(
                crate::scenario::RegretScenario,
                crate::engine::regret::RegretResults,
                crate::store::partial::regret::RegretBody,
                raw crate::scenario::raw::RawRegret,
                writes "regret" swept "sweep"
            ),
            /// A best-K identification experiment.
            Identification(
                crate::scenario::IdentificationScenario,
                crate::engine::identification::IdentificationResults,
                crate::store::partial::identification::IdentificationBody,
                raw crate::scenario::raw::RawIdentification,
                writes "identification" swept "identification-sweep"
            ),
            /// A regret scenario run at several values of one field.
            Sweep(
                crate::scenario::SweepScenario,
                crate::engine::sweep::SweepResults,
                crate::store::partial::kind::SweepBody
            ),
            /// Many secondary users on the same channels.
            MultiUser(
                crate::scenario::MultiUserScenario,
                crate::engine::multi_user::MultiUserResults,
                crate::store::partial::multi_user::MultiUserBody,
                raw crate::scenario::raw::RawMultiUser,
                writes "multi-user" swept "multi-user-sweep"
            ),
        }
    };
}

mod app;
mod engine;
mod identify;
mod model;
mod multi;
mod policy;
mod report;
mod scenario;
mod store;
#[cfg(test)]
mod testing;
mod util;

pub use app::commands;
/// The command line's and the Python package's writer of a result set's files (a contract
/// between the crates, not an API: [`Results::write`] is).
#[doc(hidden)]
pub use app::export::commit_files as write_files;
pub use app::export::{ExportError, Written};
pub use app::simulation::{Prepared, Simulation, SimulationError};
pub use engine::batch::{Batch, BatchPart, BatchScratch};
pub use engine::budget::{BudgetError, Estimate, TimeError};
/// The command line's and the Python package's parsers and formatters of sizes, durations and
/// memory (contracts between the crates, not an API).
#[doc(hidden)]
pub use engine::budget::{
    bytes as format_bytes, machine_memory, parse_bytes, parse_duration, peak_memory,
};
pub use engine::identification::IdentificationResults;
pub use engine::multi_user::MultiUserResults;
pub use engine::pipeline::{MAX_THREADS, RunError};
pub use engine::progress::RunCounter;
pub use engine::regret::RegretResults;
pub use engine::results::Results;
pub use engine::shard::Shard;
pub use engine::stepper::{ProbeStep, StepError, StepOutcome, Stepper, UserStep};
pub use engine::sweep::SweepResults;
pub use identify::confidence::{Params, Setting};
pub use identify::{CustomIdentifier, Identifier, IdentifierFactory, Problem, builtin_identifier};
pub use model::channel::Environment;
#[doc(hidden)]
pub use model::occupancy::set_certification_band;
pub use model::theory::Optimum;
pub use multi::{CustomTeam, Seen, Team, TeamFactory};
pub use policy::{CustomPolicy, ListFault, Policy, PolicyFactory, builtin_policy};
/// The random-number crate of [`Policy`] and [`Identifier`]: `use specprobe::rand::RngExt` gives
/// the sampling methods, with no separate dependency to keep in step.
pub use rand;
pub use report::plots::{
    AxisMode, Band, ChartError, ChartOptions, Format, MIN_SIZE, ValueAxis, parse_formats,
    parse_size,
};
pub use report::{Artifact, ReportError};
pub use scenario::additions::AdditionError;
pub use scenario::error::{Problem as ScenarioProblem, ScenarioError};
pub use scenario::{
    IdentificationScenario, MultiUserScenario, OverrideError, Overrides, RegretScenario, Scenario,
    Source, Sweep, SweepScenario, load, parse,
};
pub use store::folder::{Destination, OutputError, Previous, Replace};
/// The files of a results folder that the Python package reads back (a contract between the
/// crates, not an API).
#[doc(hidden)]
pub use store::names::DATA_FILES;
pub use store::names::{ResultKind, Swept};
pub use store::partial::{MergeError, merge as merge_shards};
/// The cache lines a block spans, for the Python crate's prefetching of many worlds (see
/// `Stepper::hot_blocks`): a contract between the crates, not an API.
#[doc(hidden)]
pub use util::cache::lines as cache_lines;
pub use util::cancel::{Cancel, Cancelled};
pub use util::input::ReadError;
pub use util::math;
pub use util::rng::{SimRng, stream};

/// Energy-detector sensing (Liang et al. 2008): a scenario's `EnergyDetector(..)` and the
/// sensing-throughput trade-off in closed form.
pub mod sensing {
    pub use crate::model::detector::{EnergyDetectorSpec, Fading, SensingThroughput};
    pub use crate::model::sensing::{RawSensing, SensingModel, SensingSpec};
}

/// The data of `summary.json` and `curves.csv` as types: what [`RegretResults::summary`],
/// [`IdentificationResults::summary`] and [`SweepResults::summary`] return, and what a saved
/// `summary.json` deserialises into.
pub mod summary {
    pub use crate::model::channel::BenchmarkKind;
    pub use crate::model::sensing::SensingSpec;
    pub use crate::model::theory::{Bounds, LogBound};
    pub use crate::report::identification::summary::{
        CellSummary, IdentificationSummary, SampleStats,
    };
    pub use crate::report::identification::sweep::{
        IdentificationSweepSummary, SweepEntry, SweepPoint,
    };
    pub use crate::report::regret::curves::CurveRow;
    pub use crate::report::regret::summary::{
        ChannelSummary, Difference, ExperimentSummary, Paired, PerSlot, PolicySummary, ProbeStats,
        RegretBody, RegretSummary, SegmentSummary, Stat, TimeLeftSummary,
    };
    pub use crate::report::sweep::summary::{SweepRow, SweepSummary};

    /// The data of a many-users `summary.json`: what [`crate::MultiUserResults::summaries`]
    /// returns, and what a saved one deserialises into.
    pub mod many_users {
        pub use crate::report::multi_user::summary::{
            Benchmark, ChannelSummary, Decomposition, LowerBound, MultiUserSummary, PolicySummary,
            Stat, SystemRewardSummary, UserSummary,
        };
    }
    pub use crate::scenario::Units;
    pub use crate::util::stats::{ExactSum, MeanStd};
}

/// Hooks for the fuzz targets in `fuzz/` (feature `fuzzing`): not an API.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing {
    /// `bytes` parsed as a `partial.json` and re-sealed with a fresh checksum, so that the
    /// checks behind the checksum see the damage; `None` when it does not parse.
    pub fn reseal_partial(bytes: &[u8]) -> Option<Vec<u8>> {
        let p: crate::store::partial::Partial = serde_json::from_slice(bytes).ok()?;
        serde_json::to_vec(&p.resealed()).ok()
    }
}

/// The README's Rust snippets compile (they are doctests, not run).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// Every page of the user guide (`guide/src/`) compiles its Rust snippets the same way; a test
/// (`tests/it/guide.rs`) checks that each page is listed here.
#[cfg(doctest)]
mod guide_doctests {
    macro_rules! pages {
        ($($name:ident => $file:literal,)*) => {
            $(
                #[doc = include_str!(concat!("../guide/src/", $file))]
                pub struct $name;
            )*
        };
    }
    pages! {
    Architecture => "architecture.md",
    Commands => "commands.md",
    Contributing => "contributing.md",
    CrossChecks => "cross-checks.md",
    Environments => "environments.md",
    Guarantees => "guarantees.md",
    Identification => "identification.md",
    Introduction => "introduction.md",
    ManyMachines => "many-machines.md",
    ManyUsers => "many-users.md",
    Model => "model.md",
    Outputs => "outputs.md",
    Performance => "performance.md",
    Policies => "policies.md",
    Python => "python.md",
    RealSpectrum => "real-spectrum.md",
    Reproducing => "reproducing.md",
    Scenarios => "scenarios.md",
    SensingTime => "sensing-time.md",
    Sweeps => "sweeps.md",
    }
}
