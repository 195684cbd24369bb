//! The rule a list obeys, enforced where a user's policy enters: the channels of one slot's
//! list are distinct indices below K.
//!
//! Built-in policies keep the rule by construction. A policy written outside specprobe (Rust
//! through [`super::CustomPolicy`], or Python) could break it, and the slot loop would index
//! out of bounds in a worker thread, or probe a channel twice. [`Checked`] wraps such a policy:
//! the first list that breaks the rule is recorded with the policy's label, the slot and the
//! list ([`ListFault`]), the run is cancelled, and the policy is asked for nothing more (its
//! lists are empty from then on), so that the run ends with that error instead of a panic.

use super::Policy;
use crate::util::cancel::Cancel;
use crate::util::rng::SimRng;
use std::sync::{Arc, Mutex};

/// A list that broke the rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListFault {
    /// The policy's label.
    pub label: String,
    /// The slot (from 1).
    pub slot: u64,
    /// The list as the policy gave it, up to and including the first offending entry.
    pub list: Vec<usize>,
    /// K.
    pub channels: usize,
    /// Whether the list broke the policy's own declaration that it lists one channel a slot
    /// (`one_channel`), rather than the rule every list obeys.
    pub one_channel: bool,
}

impl std::fmt::Display for ListFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rule = if self.one_channel {
            "it is declared one_channel, so a list holds at most one channel".to_string()
        } else {
            format!("channels must be distinct indices below {}", self.channels)
        };
        write!(
            f,
            "policy {:?} at slot {} listed {:?}: {rule}",
            self.label, self.slot, self.list
        )
    }
}

impl std::error::Error for ListFault {}

/// The first entry of `list[from..]` that breaks the one-channel declaration (`one_channel`:
/// at most one channel a slot), if declared.
pub(crate) fn beyond_one_channel(one_channel: bool, list: &[usize]) -> Option<usize> {
    (one_channel && list.len() > 1).then_some(1)
}

/// The first fault of any run, shared by the workers of one simulation.
#[derive(Clone, Debug, Default)]
pub(crate) struct ListFaults(Arc<Mutex<Option<ListFault>>>);

impl ListFaults {
    pub(crate) fn record(&self, fault: ListFault, cancel: &Cancel) {
        let mut first = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if first.is_none() {
            *first = Some(fault);
        }
        cancel.cancel();
    }

    /// The first fault recorded, if any.
    pub(crate) fn take(&self) -> Option<ListFault> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// The first entry of `list[from..]` that breaks the rule, marking the channels before it as
/// listed in `slot` (`listed_in[c]`: the last slot channel c was listed in; its length is K).
pub(crate) fn first_offence(
    listed_in: &mut [u64],
    slot: u64,
    list: &[usize],
    from: usize,
) -> Option<usize> {
    for (j, &c) in list.iter().enumerate().skip(from) {
        if c >= listed_in.len() || listed_in[c] == slot {
            return Some(j);
        }
        listed_in[c] = slot;
    }
    None
}

/// A user's policy whose lists are checked (see the module docs).
pub(crate) struct Checked {
    inner: Box<dyn Policy>,
    label: String,
    /// Declared to list at most one channel a slot.
    one_channel: bool,
    /// Per channel, the last slot it was listed in (0: never), for the duplicate check.
    listed_in: Vec<u64>,
    slot: u64,
    failed: bool,
    faults: ListFaults,
    cancel: Cancel,
}

impl Checked {
    /// `inner`, labelled `label`, on `k` channels; faults go to `faults` and cancel `cancel`.
    pub(crate) fn new(
        inner: Box<dyn Policy>,
        label: &str,
        k: usize,
        one_channel: bool,
        faults: ListFaults,
        cancel: Cancel,
    ) -> Checked {
        Checked {
            inner,
            label: label.to_string(),
            one_channel,
            listed_in: vec![0; k],
            slot: 0,
            failed: false,
            faults,
            cancel,
        }
    }

    /// Checks `list[from..]`; on the first offending entry records the fault, keeps the valid
    /// prefix and stops the policy.
    fn check(&mut self, list: &mut Vec<usize>, from: usize) {
        let fault = first_offence(&mut self.listed_in, self.slot, list, from)
            .map(|j| (j, false))
            .or_else(|| beyond_one_channel(self.one_channel, list).map(|j| (j, true)));
        if let Some((j, one_channel)) = fault {
            self.faults.record(
                ListFault {
                    label: self.label.clone(),
                    slot: self.slot,
                    list: list[..=j].to_vec(),
                    channels: self.listed_in.len(),
                    one_channel,
                },
                &self.cancel,
            );
            self.failed = true;
            list.truncate(j);
        }
    }
}

impl Policy for Checked {
    fn plan(&mut self, t: u64, list: &mut Vec<usize>, rng: &mut SimRng) {
        self.slot = t;
        if !self.failed {
            self.inner.plan(t, list, rng);
            self.check(list, 0);
        }
    }

    fn observe(&mut self, channel: usize, idle: bool, cost: f64) {
        if !self.failed {
            self.inner.observe(channel, idle, cost);
        }
    }

    fn extend(&mut self, list: &mut Vec<usize>) -> bool {
        // A one-channel policy's list is complete after `plan` (as a built-in one's is).
        if self.failed || self.one_channel {
            return false;
        }
        let from = list.len();
        let more = self.inner.extend(list);
        self.check(list, from);
        more && !self.failed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::stream;

    /// Lists what it is told to.
    struct Fixed(Vec<Vec<usize>>);

    impl Policy for Fixed {
        fn plan(&mut self, t: u64, list: &mut Vec<usize>, _rng: &mut SimRng) {
            list.extend_from_slice(&self.0[(t - 1) as usize % self.0.len()]);
        }
        fn observe(&mut self, _: usize, _: bool, _: f64) {}
    }

    fn first_fault(lists: Vec<Vec<usize>>, k: usize, slots: u64) -> Option<ListFault> {
        let (faults, cancel) = (ListFaults::default(), Cancel::new());
        let mut p = Checked::new(
            Box::new(Fixed(lists)),
            "mine",
            k,
            false,
            faults.clone(),
            cancel.clone(),
        );
        for t in 1..=slots {
            let mut list = Vec::new();
            p.plan(t, &mut list, &mut stream(0, 0, 0));
            assert!(list.iter().all(|&c| c < k), "only valid entries pass");
        }
        let fault = faults.take();
        assert_eq!(fault.is_some(), cancel.is_cancelled());
        fault
    }

    #[test]
    fn valid_lists_pass_and_repeat_across_slots() {
        assert_eq!(first_fault(vec![vec![0, 1, 2], vec![2, 1, 0]], 3, 10), None);
    }

    #[test]
    fn out_of_range_and_duplicates_name_the_policy_slot_and_list() {
        let f = first_fault(vec![vec![0, 1], vec![1, 3]], 3, 5).unwrap();
        assert_eq!((f.slot, f.list.clone()), (2, vec![1, 3]));
        assert_eq!(
            f.to_string(),
            "policy \"mine\" at slot 2 listed [1, 3]: channels must be distinct indices below 3"
        );
        let f = first_fault(vec![vec![0], vec![0], vec![2, 0, 2, 1]], 3, 5).unwrap();
        assert_eq!((f.slot, f.list), (3, vec![2, 0, 2]));
    }
}
