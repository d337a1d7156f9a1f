//! Progress display for long ingestions (indicatif, on stderr).

use indicatif::{ProgressBar, ProgressStyle};
use verity::IngestProgress;

/// A spinner/bar fed by [`IngestProgress`] callbacks; silent when disabled.
pub struct IngestBar {
    bar: Option<ProgressBar>,
}

impl IngestBar {
    /// A bar on stderr, or nothing when `quiet`.
    pub fn new(quiet: bool) -> Self {
        if quiet {
            return Self { bar: None };
        }
        let bar = ProgressBar::new_spinner();
        let style = ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        bar.set_style(style);
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        Self { bar: Some(bar) }
    }

    /// Show the latest progress.
    pub fn update(&self, p: &IngestProgress) {
        if let Some(bar) = &self.bar {
            let total = p.docs_total.map(|t| format!("/{t}")).unwrap_or_default();
            bar.set_message(format!(
                "{:?}: {}{} documents, {:.1} MB, {} texts embedded",
                p.phase,
                p.docs_done,
                total,
                p.bytes_done as f64 / 1e6,
                p.chunks_embedded
            ));
        }
    }

    /// Remove the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
