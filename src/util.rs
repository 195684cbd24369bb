//! The bottom layer: tools every other layer uses and none of them owns. Random streams
//! ([`rng`]) and counter-based draws ([`crn`]), exactly merging statistics ([`stats`]), the
//! cancel flag ([`cancel`]), bounded reading of files specprobe did not write ([`input`]),
//! arm rankings ([`ranking`]), the transcendental functions, the same bits everywhere ([`math`]), addresses to prefetch ([`cache`]) and RON text ([`ron_text`]). Imports nothing from the crate.

pub(crate) mod cache;
pub(crate) mod cancel;
pub(crate) mod crn;
pub(crate) mod det_float;
pub(crate) mod input;
pub mod math;
pub(crate) mod ranking;
pub(crate) mod rng;
pub(crate) mod ron_text;
pub(crate) mod stats;
