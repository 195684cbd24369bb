//! A factor every channel's index shares in a slot (`sqrt(α ln t)`), computed one slot ahead.
//!
//! The logarithm and the square root do not depend on what the slot's probes find, but they
//! sit at the start of the next decision, and a classic bandit's slot is short enough that the
//! processor does not reach them early on its own: the next decision then waits for them.
//! Computed right after a decision, for the next slot, they run while that slot's probe is made
//! and observed. The value is the same expression of the same `t`, so the lists are the same.

/// The factor `f(t)` of the slot it was prepared for.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SlotAhead {
    /// The slot prepared for (0: none; slots count from 1).
    t: u64,
    value: f64,
}

impl SlotAhead {
    /// `f(t)`: the prepared value when it was prepared for `t`, else computed now.
    #[inline]
    pub(crate) fn get(&self, t: u64, f: impl Fn(u64) -> f64) -> f64 {
        if self.t == t { self.value } else { f(t) }
    }

    /// Computes `f(t + 1)` for the next slot.
    #[inline]
    pub(crate) fn prepare_next(&mut self, t: u64, f: impl Fn(u64) -> f64) {
        self.t = t + 1;
        self.value = f(t + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::math;

    #[test]
    fn gives_the_value_of_the_slot_asked_for() {
        let f = |t: u64| (1.5 * math::ln(t as f64)).sqrt();
        let mut a = SlotAhead::default();
        assert_eq!(a.get(1, f), f(1));
        a.prepare_next(1, f);
        assert_eq!(a.get(2, f).to_bits(), f(2).to_bits());
        // A slot other than the prepared one (a policy asked out of order) is computed.
        assert_eq!(a.get(7, f).to_bits(), f(7).to_bits());
    }
}
