//! The regret kind's runs: the Monte Carlo runner ([`runner`], a [`super::pipeline::Kind`])
//! and the one-channel fast path of its slot loop ([`classic_loop`]; the general loop, shared
//! with the environments, is [`super::slot_loop`]).

mod budget;
pub(crate) mod classic_loop;
pub(crate) mod runner;
