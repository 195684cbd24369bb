//! Running scenarios: one folder per experiment kind ([`regret`], [`multi_user`],
//! [`identification`]: its runner, a [`pipeline::Kind`], and its own loops), the one batch
//! pipeline they all run on ([`pipeline`]) and the shards they run ([`shard`]), the world's
//! slot loop ([`slot_loop`], on the channels' [`spectrum`]) and its step-by-step forms for
//! the environments ([`stepper`], and [`batch`] for many copies of one user's world), what a
//! run records and how runs fold ([`recorder`]), results in memory ([`results`]), the resource
//! estimate ([`budget`]) and progress reporting. Never reads or writes files.

pub(crate) mod batch;
pub(crate) mod budget;
pub(crate) mod identification;
pub(crate) mod multi_user;
pub(crate) mod pipeline;
pub(crate) mod progress;
pub(crate) mod recorder;
pub(crate) mod regret;
pub(crate) mod results;
pub(crate) mod shard;
pub(crate) mod simulate;
pub(crate) mod slot_loop;
pub(crate) mod spectrum;
pub(crate) mod stepper;
pub(crate) mod sweep;
