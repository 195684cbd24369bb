//! Integration tests, one binary: each module covers one area of specprobe from the outside.

mod charts;
mod cli;
mod common;
mod custom;
mod determinism;
mod engine;
mod floor;
mod golden;
mod identification;
mod outputs;
mod scenario_errors;
mod shards;
mod spectrum;
mod sweep;
mod theory;
