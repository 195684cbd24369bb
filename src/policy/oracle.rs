//! The offline optimum UCR-T1 (Theorem 1), given the true θ and c.

use super::{Builtin, ParamError, Policy};
use crate::channel::Environment;
use crate::rng::SimRng;
use serde::{Deserialize, Serialize};

/// Probes the UCR-T1 list every slot; learns nothing.
#[derive(Clone, Debug)]
pub struct Oracle {
    list: Vec<usize>,
}

impl Oracle {
    /// The oracle for an environment.
    pub fn new(env: &Environment) -> Oracle {
        Oracle {
            list: env.optimum().list.clone(),
        }
    }
}

/// `Oracle`: UCR-T1 with the true θ and c.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OracleSpec {}

impl Builtin for OracleSpec {
    const NAME: &'static str = "Oracle";
    const SUMMARY: &'static str = "UCR-T1 (Theorem 1) with the true θ and c; zero pseudo-regret";
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
    fn plan(&mut self, _t: u64, list: &mut Vec<usize>, _rng: &mut SimRng) {
        list.extend_from_slice(&self.list);
    }

    #[inline]
    fn observe(&mut self, _channel: usize, _idle: bool, _cost: f64) {}
}
