//! Stopping a run from outside: Ctrl-C, SIGTERM, or a library caller.
//!
//! A [`Cancel`] is a shared flag. The slot and sample loops look at it every few thousand steps
//! (a relaxed load, far below a nanosecond per slot), the runner between runs, and the writer
//! just before it swaps a result folder in; a cancelled run returns [`Cancelled`] and leaves
//! the earlier results exactly as they were. The command line sets the flag from its SIGINT and
//! SIGTERM handlers (storing the signal number, so that it can exit with 128 + signal).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The value stored by [`Cancel::cancel`] (a signal handler stores its signal number instead).
const BY_CALLER: usize = usize::MAX;

/// A shared cancellation flag; clones share it.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicUsize>);

impl Cancel {
    /// A flag that is not set.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Asks every run holding this flag (or a clone) to stop.
    pub fn cancel(&self) {
        let _ = self
            .0
            .compare_exchange(0, BY_CALLER, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// Whether a stop was asked for.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed) != 0
    }

    /// The signal that asked for the stop (`None` when not cancelled, or cancelled by
    /// [`Cancel::cancel`]).
    pub fn signal(&self) -> Option<i32> {
        match self.0.load(Ordering::Relaxed) {
            0 | BY_CALLER => None,
            s => i32::try_from(s).ok(),
        }
    }

    /// The shared cell itself, for signal handlers: storing a non-zero value (the signal's
    /// number) cancels. `signal_hook::flag::register_usize(SIGINT, cancel.flag(), SIGINT as usize)`.
    pub fn flag(&self) -> Arc<AtomicUsize> {
        Arc::clone(&self.0)
    }

    /// `Err(Cancelled)` once a stop was asked for.
    pub fn check(&self) -> Result<(), Cancelled> {
        if self.is_cancelled() {
            Err(Cancelled {
                signal: self.signal(),
            })
        } else {
            Ok(())
        }
    }
}

/// A run stopped because its [`Cancel`] flag was set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", match signal {
    Some(2) => "interrupted (SIGINT)".to_string(),
    Some(15) => "terminated (SIGTERM)".to_string(),
    Some(s) => format!("stopped by signal {s}"),
    None => "cancelled".to_string(),
})]
pub struct Cancelled {
    /// The signal that stopped it, if a signal did.
    pub signal: Option<i32>,
}

/// How often (in slots or samples) the single-user loops look at the flag: a power of two
/// minus one, used as a mask. The test of `t` against it is made every slot anyway; the
/// atomic load it guards costs ~1 ns every 2¹⁰ slots, nothing against a slot's ≥ 20 ns, and
/// 2¹⁰ slots of the slowest policy (Thompson sampling at K = 4096, ~0.6 ms a slot) take
/// 0.6 s. (Every 2¹⁶ slots, a slow slot held a stop for a minute.)
pub(crate) const CHECK_MASK: u64 = (1 << 10) - 1;

/// Channel-slots between two looks at the flag: a slot's work grows with K (Thompson sampling
/// draws K Betas), so a fixed 2¹⁰ slots at K = 65 536 held a Ctrl-C for a minute (issue 50).
const CHECK_WORK: u64 = 1 << 16;

/// The mask of [`CHECK_MASK`]'s kind for a loop over `k` channels: every 2¹⁰ slots up to
/// K = 64, then every 2¹⁶/K slots (rounded down to a power of two; every slot from K = 2¹⁶).
pub(crate) fn check_mask(k: usize) -> u64 {
    let slots = (CHECK_WORK / (k as u64).max(1)).max(1);
    (1u64 << slots.ilog2()).min(CHECK_MASK + 1) - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_is_bounded_in_channel_slots() {
        assert_eq!(check_mask(1), CHECK_MASK);
        assert_eq!(check_mask(64), CHECK_MASK);
        assert_eq!(check_mask(100), 511);
        assert_eq!(check_mask(4096), 15);
        assert_eq!(check_mask(65_536), 0);
        assert_eq!(check_mask(1 << 18), 0);
        for k in 1..5000 {
            let m = check_mask(k);
            assert!((m + 1).is_power_of_two());
            assert!((m + 1) * k as u64 <= CHECK_WORK.max(k as u64), "{k}");
        }
    }

    #[test]
    fn clones_share_the_flag_and_keep_the_first_reason() {
        let a = Cancel::new();
        let b = a.clone();
        assert!(a.check().is_ok());
        b.flag().store(15, Ordering::Relaxed);
        a.cancel();
        assert_eq!(a.check(), Err(Cancelled { signal: Some(15) }));
        assert_eq!(a.check().unwrap_err().to_string(), "terminated (SIGTERM)");
        let c = Cancel::new();
        c.cancel();
        assert_eq!(c.signal(), None);
        assert!(c.is_cancelled());
    }
}
