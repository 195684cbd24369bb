//! The world a policy probes: channels ([`channel`]) with their occupancy processes
//! ([`occupancy`]), probing costs ([`cost`], [`law`]), holding-time laws ([`holding`]) and
//! sensing errors ([`sensing`], from an energy detector's physics: [`detector`]), and the paper's theory computed from the true parameters
//! ([`theory`]). Imports only [`crate::util`].

pub(crate) mod channel;
pub(crate) mod cost;
pub(crate) mod detector;
pub(crate) mod holding;
pub(crate) mod jamming;
pub(crate) mod kl_search;
pub(crate) mod law;
pub(crate) mod matching;
pub(crate) mod occupancy;
pub(crate) mod sensing;
pub(crate) mod sharing;
pub(crate) mod system_reward;
pub(crate) mod theory;
pub(crate) mod time_left;
