//! The simple sensing orders the sequential-sensing papers compare the optimum with (Jiang,
//! Lai, Fan & Poor, IEEE TWC 2009), with the true statistics: every channel, probed in
//! decreasing availability (`AvailabilityOrder`), or in decreasing availability × rate
//! (`RateOrder`, the rate of `reward: TimeLeft`, 1 without it). Availability is P(idle and
//! sensed idle) at the first slot; ties by channel index. They learn nothing.

use super::{Builtin, ParamError, Policy, sort_by_key_desc};
use crate::model::channel::Environment;
use crate::util::rng::SimRng;
use serde::{Deserialize, Serialize};

/// A fixed list, probed every slot.
#[derive(Clone, Debug)]
pub(crate) struct KnownOrder {
    list: Vec<usize>,
}

impl KnownOrder {
    /// Every channel by decreasing `key`.
    fn by(key: &[f64]) -> KnownOrder {
        let mut list: Vec<usize> = (0..key.len()).collect();
        sort_by_key_desc(&mut list, key);
        KnownOrder { list }
    }
}

impl Policy for KnownOrder {
    #[inline]
    fn plan(&mut self, _t: u64, list: &mut Vec<usize>, _rng: &mut SimRng) {
        list.extend_from_slice(&self.list);
    }

    #[inline]
    fn observe(&mut self, _channel: usize, _idle: bool, _cost: f64) {}
}

/// `AvailabilityOrder`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AvailabilityOrderSpec {}

impl Builtin for AvailabilityOrderSpec {
    const NS_PER_SLOT: (f64, f64) = (43.0, 0.1);
    const NAME: &'static str = "AvailabilityOrder";
    const SUMMARY: &'static str =
        "every channel in decreasing availability, with the true statistics (Jiang et al.'s simple order)";
    type Policy = KnownOrder;

    fn bare() -> Result<Self, &'static str> {
        Ok(AvailabilityOrderSpec {})
    }
    fn example() -> Self {
        AvailabilityOrderSpec {}
    }
    fn label(&self) -> &'static str {
        "availability-order"
    }
    fn check(&self, _k: usize) -> Vec<ParamError> {
        Vec::new()
    }
    fn build(&self, env: &Environment) -> KnownOrder {
        KnownOrder::by(&env.epochs()[0].success)
    }
}

/// `RateOrder`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RateOrderSpec {}

impl Builtin for RateOrderSpec {
    const NS_PER_SLOT: (f64, f64) = (43.0, 0.1);
    const NAME: &'static str = "RateOrder";
    const SUMMARY: &'static str =
        "every channel in decreasing availability × rate, with the true statistics";
    type Policy = KnownOrder;

    fn bare() -> Result<Self, &'static str> {
        Ok(RateOrderSpec {})
    }
    fn example() -> Self {
        RateOrderSpec {}
    }
    fn label(&self) -> &'static str {
        "rate-order"
    }
    fn check(&self, _k: usize) -> Vec<ParamError> {
        Vec::new()
    }
    fn build(&self, env: &Environment) -> KnownOrder {
        let success = &env.epochs()[0].success;
        let key: Vec<f64> = match env.time_left() {
            None => success.clone(),
            Some(tl) => success.iter().zip(tl.rates()).map(|(s, r)| s * r).collect(),
        };
        KnownOrder::by(&key)
    }
}
