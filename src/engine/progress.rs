//! Progress of a simulation: a tracing span that the binary's indicatif layer draws as a bar
//! (built with the `cli` feature; without it, or when stderr is not a terminal, nothing is
//! drawn and counting costs nothing).

/// Counts finished units of work under a tracing span.
#[derive(Debug)]
pub(crate) struct Progress {
    span: tracing::Span,
}

impl Progress {
    /// A bar of `total` units called `unit`, labelled `name`.
    pub(crate) fn new(span: tracing::Span, name: &str, total: u64, unit: &str) -> Progress {
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
        Progress { span }
    }

    /// The span work runs under.
    pub(crate) fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// One more unit done.
    pub(crate) fn inc(&self) {
        #[cfg(feature = "cli")]
        tracing_indicatif::span_ext::IndicatifSpanExt::pb_inc(&self.span, 1);
    }
}
