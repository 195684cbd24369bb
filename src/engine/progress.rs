//! Progress of a simulation: a tracing span that the binary's indicatif layer draws as a bar
//! (built with the `cli` feature; without it, or when stderr is not a terminal, nothing is
//! drawn and counting costs nothing).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Runs finished and runs started so far, shared with whoever watches a simulation from another
/// thread: the Python extension prints them (the command line draws its bar from the tracing
/// span instead). A sweep adds each cell's runs to the total as the cell starts.
#[derive(Clone, Debug, Default)]
pub struct RunCounter(Arc<[AtomicU64; 2]>);

impl RunCounter {
    /// A counter at 0 of 0.
    pub fn new() -> RunCounter {
        RunCounter::default()
    }

    /// Runs finished.
    pub fn done(&self) -> u64 {
        self.0[0].load(Ordering::Relaxed)
    }

    /// Runs of the simulation's parts started so far.
    pub fn total(&self) -> u64 {
        self.0[1].load(Ordering::Relaxed)
    }
}

/// Counts finished units of work under a tracing span (and into a [`RunCounter`] when given).
#[derive(Debug)]
pub(crate) struct Progress {
    span: tracing::Span,
    counter: Option<RunCounter>,
}

impl Progress {
    /// A bar of `total` units called `unit`, labelled `name`.
    pub(crate) fn new(
        span: tracing::Span,
        name: &str,
        total: u64,
        unit: &str,
        counter: Option<RunCounter>,
    ) -> Progress {
        if let Some(c) = &counter {
            c.0[1].fetch_add(total, Ordering::Relaxed);
        }
        // "1 run", not "1 runs".
        let unit = if total == 1 {
            unit.trim_end_matches('s')
        } else {
            unit
        };
        #[cfg(feature = "cli")]
        {
            use tracing_indicatif::span_ext::IndicatifSpanExt;
            if let Ok(style) = indicatif::ProgressStyle::with_template(&format!(
                "{{msg}} [{{bar:40}}] {{pos}}/{{len}} {unit}, {{elapsed}} elapsed, about {{eta}} left"
            )) {
                span.pb_set_style(&style.progress_chars("=> "));
            }
            span.pb_set_length(total);
            span.pb_set_message(name);
        }
        #[cfg(not(feature = "cli"))]
        let _ = (name, total, unit);
        Progress { span, counter }
    }

    /// The span work runs under.
    pub(crate) fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// One more unit done.
    pub(crate) fn inc(&self) {
        if let Some(c) = &self.counter {
            c.0[0].fetch_add(1, Ordering::Relaxed);
        }
        #[cfg(feature = "cli")]
        tracing_indicatif::span_ext::IndicatifSpanExt::pb_inc(&self.span, 1);
    }
}
