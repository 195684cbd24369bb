//! The many-users kind's runs: the Monte Carlo runner ([`runner`], a
//! [`super::pipeline::Kind`]) and the slot loop of M users ([`slot_loop`]: timing, collisions
//! and feedback around each user's probes).

mod budget;
pub(crate) mod reduced;
pub(crate) mod runner;
pub(crate) mod slot_loop;
