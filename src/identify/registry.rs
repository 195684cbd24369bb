//! The registry of built-in identification algorithms: the one place a new algorithm is
//! listed. Each line names an algorithm as scenarios write it and its entry (a
//! [`BuiltinIdentifier`](super::BuiltinIdentifier)); the macro generates the rest.

use super::confidence::{Guarantee, Setting};
use super::lil_clucb::LilClucbEntry;
use super::lil_lucb::LilLucbEntry;
use super::lil_rand_lucb::LilRandLucbEntry;
use super::lil_ucb::LilUcbEntry;
use super::lucb_pp::LucbPlusPlusEntry;
use super::lucb1::Lucb1Entry;
use super::{BuiltinIdentifier, Identifier, IdentifierVisitor, Problem};
use crate::util::rng::SimRng;

builtin_identifiers! {
    Lucb1(Lucb1Entry),
    LilUcb(LilUcbEntry),
    LilLucb(LilLucbEntry),
    LucbPlusPlus(LucbPlusPlusEntry),
    LilRandLucb(LilRandLucbEntry),
    LilClucb(LilClucbEntry),
}
