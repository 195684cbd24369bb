//! A uniformly random ordered list of `L` distinct channels each slot: the sanity baseline that
//! learns nothing.

use super::{Builtin, ParamError, Policy};
use crate::model::channel::Environment;
use crate::util::rng::SimRng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

/// `RandomList(list_len: 2)`; all K channels when `list_len` is left out.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RandomListSpec {
    /// List length (default K; left out when written back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_len: Option<usize>,
}

impl Builtin for RandomListSpec {
    const NS_PER_SLOT: (f64, f64) = (114.0, 0.01);
    const NAME: &'static str = "RandomList";
    const NOTE: &'static str = "RandomList's list_len defaults to all channels.";
    const SUMMARY: &'static str =
        "uniformly random ordered list of list_len channels (default all K): sanity baseline";
    type Policy = RandomList;

    fn bare() -> Result<Self, &'static str> {
        Ok(RandomListSpec::default())
    }
    fn example() -> Self {
        RandomListSpec::default()
    }
    fn label(&self) -> &'static str {
        "random"
    }
    fn check(&self, k: usize) -> Vec<ParamError> {
        self.list_len
            .and_then(|len| ParamError::list_len("list_len", len, k).err())
            .into_iter()
            .collect()
    }
    fn build(&self, env: &Environment) -> RandomList {
        RandomList::new(env.len(), self.list_len.unwrap_or(env.len()))
    }
}

/// Uniformly random list of fixed length.
#[derive(Clone, Debug)]
pub(crate) struct RandomList {
    list_len: usize,
    perm: Vec<usize>,
}

impl RandomList {
    /// `k` channels, lists of `list_len` (at most `k`).
    pub(crate) fn new(k: usize, list_len: usize) -> RandomList {
        RandomList {
            list_len: list_len.min(k),
            perm: (0..k).collect(),
        }
    }
}

impl Policy for RandomList {
    #[inline]
    fn plan(&mut self, _t: u64, list: &mut Vec<usize>, rng: &mut SimRng) {
        // A partial Fisher–Yates pass from any permutation yields a uniform ordered sample.
        let (chosen, _) = self.perm.partial_shuffle(rng, self.list_len);
        list.extend_from_slice(chosen);
    }

    #[inline]
    fn observe(&mut self, _channel: usize, _idle: bool, _cost: f64) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each of the 3·2 = 6 ordered pairs from 3 channels should appear about 1/6 of the time:
    /// over 60 000 slots each count has mean 10 000 and sd ≈ 91; ±600 is over six sd.
    #[test]
    fn ordered_pairs_are_uniform() {
        let mut p = RandomList::new(3, 2);
        let mut rng = crate::util::rng::stream(5, 5, 5);
        let mut counts = std::collections::BTreeMap::new();
        for _ in 0..60_000 {
            let mut list = Vec::new();
            p.plan(1, &mut list, &mut rng);
            assert_eq!(list.len(), 2);
            assert_ne!(list[0], list[1]);
            *counts.entry((list[0], list[1])).or_insert(0) += 1;
        }
        assert_eq!(counts.len(), 6);
        for (pair, n) in counts {
            assert!((n as i64 - 10_000).abs() < 600, "{pair:?}: {n}");
        }
    }
}
