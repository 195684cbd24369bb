//! The offline optimum UCR-T1 (Theorem 1), given the true θ and c: the benchmark policy. With
//! imperfect sensing it probes the sensing-aware optimal list, and when some channel is
//! piecewise-stationary it switches lists at the segment boundaries (the dynamic oracle).

use super::{Builtin, ParamError, Policy};
use crate::model::channel::Environment;
use crate::util::rng::SimRng;
use serde::{Deserialize, Serialize};

/// Probes the benchmark's optimal list every slot; learns nothing.
#[derive(Clone, Debug)]
pub(crate) struct Oracle {
    /// (last slot, list) per benchmark epoch.
    epochs: Vec<(u64, Vec<usize>)>,
    current: usize,
}

impl Oracle {
    /// The oracle for an environment.
    pub(crate) fn new(env: &Environment) -> Oracle {
        Oracle {
            epochs: env
                .epochs()
                .iter()
                .map(|e| (e.last, e.optimum.list.clone()))
                .collect(),
            current: 0,
        }
    }
}

/// `Oracle`: UCR-T1 with the true θ and c.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OracleSpec {}

impl Builtin for OracleSpec {
    const NS_PER_SLOT: (f64, f64) = (43.0, 0.1);
    const NAME: &'static str = "Oracle";
    const SUMMARY: &'static str = "UCR-T1 (Theorem 1) with the true θ and c (sensing-aware; per segment when piecewise): the benchmark";
    type Policy = Oracle;

    fn bare() -> Result<Self, &'static str> {
        Ok(OracleSpec {})
    }
    fn example() -> Self {
        OracleSpec {}
    }
    fn label(&self) -> &'static str {
        "oracle"
    }
    fn check(&self, _k: usize) -> Vec<ParamError> {
        Vec::new()
    }
    fn build(&self, env: &Environment) -> Oracle {
        Oracle::new(env)
    }
}

impl Policy for Oracle {
    #[inline]
    fn plan(&mut self, t: u64, list: &mut Vec<usize>, _rng: &mut SimRng) {
        while t > self.epochs[self.current].0 {
            self.current += 1;
        }
        list.extend_from_slice(&self.epochs[self.current].1);
    }

    #[inline]
    fn observe(&mut self, _channel: usize, _idle: bool, _cost: f64) {}
}
