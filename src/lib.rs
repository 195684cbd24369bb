//! specprobe: a simulator for cost-aware spectrum access.
//!
//! A secondary user senses channels one after another at the start of each slot; each channel is
//! idle with probability θ_i, each probe costs energy and delay, and the user transmits on the
//! first idle channel it finds. Net reward per slot = 1{idle found} − total probing cost.
//! Learning which channels to probe, in which order and when to stop is the cost-aware cascading
//! bandit of Zhou et al. (IJCAI 2018), whose offline optimum (UCR-T1) and online algorithm
//! (CC-UCB) specprobe implements together with the baselines users compare against.
//!
//! It also runs best-K identification experiments ([`identify`]): find the K channels most
//! often idle with confidence 1 − ν, using as few probes as possible.
//!
//! Data flow, one direction only:
//! ```text
//! scenario::load  (RON -> checked Scenario)
//!   -> runner::run_regret / run_identification   (parallel runs, one RNG stream per run)
//!        -> sim::episode / identify::identify         (the loops, generic over the policy)
//!             -> recorder                          (checkpoints, histograms; exact merges)
//!   -> report::write_regret / identification::write (summary.json, CSV, charts, report.md)
//!   or partial::Partial                            (a shard's exact statistics, for merge)
//! ```
//! The simulator never reads files and the report never simulates. [`commands`] holds what
//! each CLI command does; the binary only parses arguments.

pub mod budget;
pub mod cancel;
pub mod channel;
pub mod commands;
pub mod cost;
pub mod crn;
pub mod error;
pub mod holding;
pub mod identify;
pub mod input;
pub mod law;
pub mod occupancy;
pub mod output;
pub mod partial;
pub mod policy;
mod progress;
pub mod ranking;
pub mod recorder;
pub mod report;
pub mod rng;
mod ron_text;
pub mod runner;
pub mod scenario;
pub mod sensing;
pub mod sim;
pub mod simulation;
pub mod stats;
pub mod theory;

pub use cancel::Cancel;
pub use error::ScenarioError;
pub use identify::Identifier;
pub use output::Replace;
pub use policy::Policy;
/// The random-number crate of [`Policy`] and [`Identifier`]: `use specprobe::rand::RngExt` gives
/// the sampling methods, with no separate dependency to keep in step.
pub use rand;
pub use rng::SimRng;
pub use scenario::{Scenario, load};
pub use simulation::{Results, Simulation};

/// The README's Rust snippets compile (they are doctests, not run).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
