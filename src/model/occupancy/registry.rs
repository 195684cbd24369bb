//! The registry of occupancy processes: the one place a new process is listed. Each line names
//! a process as scenarios write it and the type of its scenario entry (a
//! [`ProcessSpec`](super::ProcessSpec)); the macro generates the rest.

use super::iid::IidSpec;
use super::markov::MarkovSpec;
use super::on_off::OnOffSpec;
use super::piecewise::PiecewiseSpec;
use super::trace::TraceSpec;
use super::{Process, ProcessSpec, ProcessStats, SpecContext, SpecProblem};

occupancy_processes! {
    Iid(IidSpec),
    Markov(MarkovSpec),
    OnOff(OnOffSpec),
    Trace(TraceSpec),
    Piecewise(PiecewiseSpec),
}
