//! Progress display for long ingestions (indicatif, on stderr).

use indicatif::{ProgressBar, ProgressStyle};
use verity::IngestProgress;

/// A spinner/bar fed by [`IngestProgress`] callbacks; silent when disabled.
/// It turns into a bar with an ETA once the number of documents is known,
/// and shows the embedding rate (texts/s: chunks and sentences).
pub struct IngestBar {
    bar: Option<ProgressBar>,
    started: std::time::Instant,
}

impl IngestBar {
    /// A bar on stderr, or nothing when `quiet`.
    pub fn new(quiet: bool) -> Self {
        let started = std::time::Instant::now();
        if quiet {
            return Self { bar: None, started };
        }
        let bar = ProgressBar::new_spinner();
        let style = ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        bar.set_style(style);
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        Self {
            bar: Some(bar),
            started,
        }
    }

    /// Show the latest progress.
    pub fn update(&self, p: &IngestProgress) {
        let Some(bar) = &self.bar else { return };
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        let rate = p.chunks_embedded as f64 / secs;
        match p.docs_total {
            Some(total) => {
                if bar.length().is_none() {
                    bar.set_length(total as u64);
                    let style = ProgressStyle::with_template(
                        "{elapsed_precise} [{bar:30}] {pos}/{len} documents, ETA {eta} · {msg}",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> ");
                    bar.set_style(style);
                }
                bar.set_position(p.docs_done as u64);
                bar.set_message(format!(
                    "{:?}, {:.1} MB, {} texts embedded ({rate:.0}/s)",
                    p.phase,
                    p.bytes_done as f64 / 1e6,
                    p.chunks_embedded
                ));
            }
            None => bar.set_message(format!(
                "{:?}: {} documents, {:.1} MB, {} texts embedded ({rate:.0}/s)",
                p.phase,
                p.docs_done,
                p.bytes_done as f64 / 1e6,
                p.chunks_embedded
            )),
        }
    }

    /// Remove the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
