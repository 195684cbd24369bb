//! Result folders on disk: written whole or not at all ([`folder`]), and a shard's partial
//! results with their checks and merge ([`partial`]). The store never interprets results: it
//! stages, swaps, reads and checks bytes and partial statistics.

pub(crate) mod folder;
pub(crate) mod names;
pub(crate) mod partial;
