//! Integration tests, one binary: each module covers one area of specprobe from the outside.

mod charts;
mod cli;
mod common;
mod custom;
mod damaged;
mod detector;
mod determinism;
mod engine;
mod faults;
mod floor;
mod frontier_reference;
mod golden;
mod guide;
mod identification;
mod jammers;
mod layers;
mod many_users;
mod mutation;
mod outputs;
mod ownership;
mod scenario_errors;
mod shards;
mod smpy_reference;
mod spectrum;
mod sweep;
mod time_left;
