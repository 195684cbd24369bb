//! The identification kind's runs: the Monte Carlo runner over its cells ([`runner`], a
//! [`super::pipeline::Kind`]); the sampling loop itself is [`crate::identify::identify`].

mod budget;
pub(crate) mod runner;
