//! The top layer: the library's entry point ([`simulation`]) and what each command does
//! ([`commands`]).

pub mod commands;
pub(crate) mod export;
pub(crate) mod runs_file;
pub(crate) mod simulation;
