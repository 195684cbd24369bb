//! The offline optimum UCR-T1 (Theorem 1), given the true θ and c.

use super::Policy;
use crate::channel::Environment;
use rand::Rng;

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

impl Policy for Oracle {
    #[inline]
    fn plan<R: Rng + ?Sized>(&mut self, _t: u64, list: &mut Vec<usize>, _rng: &mut R) {
        list.extend_from_slice(&self.list);
    }

    #[inline]
    fn observe(&mut self, _channel: usize, _idle: bool, _cost: f64) {}
}
