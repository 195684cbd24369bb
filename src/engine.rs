//! Running scenarios: the slot loop ([`slot_loop`], and [`classic_loop`] for a policy that lists
//! one channel), the Monte Carlo runners ([`runner`], [`multi_runner`], [`identify_runner`])
//! over one batch pipeline ([`pipeline`]) and the shards they run ([`shard`]), what a
//! run records and how runs fold ([`recorder`]), results in memory ([`results`]), the resource
//! estimate ([`budget`]) and progress reporting. Never reads or writes files.

pub(crate) mod budget;
pub(crate) mod classic_loop;
pub(crate) mod identify_runner;
pub(crate) mod multi_loop;
pub(crate) mod multi_runner;
pub(crate) mod pipeline;
pub(crate) mod progress;
pub(crate) mod recorder;
pub(crate) mod results;
pub(crate) mod runner;
pub(crate) mod shard;
pub(crate) mod slot_loop;
pub(crate) mod spectrum;
pub(crate) mod stepper;
