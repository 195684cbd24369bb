//! The identification loop: samples whatever the algorithm asks for, enforces the sample cap and
//! checks the answer.

use super::Identifier;
use super::instance::Arms;
use crate::util::cancel::{CHECK_MASK, Cancel};
use crate::util::rng::SimRng;

/// What one identification run ended with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct IdentifyOutcome {
    /// Samples drawn (initialisation included).
    pub samples: u64,
    /// The run reached the sample cap before the algorithm stopped.
    pub capped: bool,
    /// The answer (at the stop, or as it stood at the cap) is the true top-K set.
    pub correct: bool,
}

/// Runs one identification: samples whatever the algorithm asks for until it stops or `cap`
/// samples have been drawn; `answer` is a reusable buffer.
pub(crate) fn identify<I: Identifier>(
    arms: &Arms,
    algorithm: &mut I,
    cap: u64,
    rng: &mut SimRng,
    answer: &mut Vec<usize>,
    cancel: &Cancel,
) -> IdentifyOutcome {
    let mut samples = 0u64;
    let mut capped = false;
    while let Some(arm) = algorithm.next(rng) {
        if samples == cap {
            capped = true;
            break;
        }
        if samples & CHECK_MASK == CHECK_MASK && cancel.is_cancelled() {
            break;
        }
        let reward = arms.sample(arm, rng);
        algorithm.observe(arm, reward);
        samples += 1;
    }
    answer.clear();
    algorithm.answer(answer);
    IdentifyOutcome {
        samples,
        capped,
        correct: arms.is_correct(answer),
    }
}
