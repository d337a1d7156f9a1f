//! Progress display for long ingestions (indicatif, on stderr).

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use verity::IngestProgress;

/// A spinner with one line of progress fed by [`IngestProgress`] callbacks;
/// silent when disabled. The line is [`line`].
pub struct IngestBar {
    bar: Option<ProgressBar>,
    started: std::time::Instant,
    /// Suggest the fast profile once the estimate says the run is long.
    suggest_fast: std::sync::atomic::AtomicBool,
}

/// Estimated ingest time above which `--fast` is suggested.
const SUGGEST_FAST_ABOVE: Duration = Duration::from_secs(180);

impl IngestBar {
    /// A bar on stderr, or nothing when `quiet`.
    pub fn new(quiet: bool) -> Self {
        let started = std::time::Instant::now();
        if quiet {
            return Self {
                bar: None,
                started,
                suggest_fast: false.into(),
            };
        }
        let bar = ProgressBar::new_spinner();
        let style = ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(120));
        Self {
            bar: Some(bar),
            started,
            suggest_fast: false.into(),
        }
    }

    /// Print, once, what the fast profile would take when the run looks
    /// long (only where `--fast` would change the embedding).
    pub fn suggest_fast(self, yes: bool) -> Self {
        self.suggest_fast
            .store(yes, std::sync::atomic::Ordering::Relaxed);
        self
    }

    /// Show the latest progress.
    pub fn update(&self, p: &IngestProgress) {
        let Some(bar) = &self.bar else { return };
        let elapsed = self.started.elapsed();
        bar.set_message(line(p, elapsed));
        if self.suggest_fast.load(std::sync::atomic::Ordering::Relaxed) {
            if let Some(note) = fast_note(p, elapsed) {
                self.suggest_fast
                    .store(false, std::sync::atomic::Ordering::Relaxed);
                bar.println(note);
            }
        }
    }

    /// Remove the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// `12,345`.
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1.2k`, `3.4M`.
fn short(n: f64) -> String {
    if n >= 1e6 {
        format!("{:.1}M", n / 1e6)
    } else if n >= 1e3 {
        format!("{:.1}k", n / 1e3)
    } else {
        format!("{n:.0}")
    }
}

/// `45 s`, `12 min 5 s`, `2 h 3 min`.
fn duration(d: Duration) -> String {
    let s = d.as_secs();
    if s < 60 {
        format!("{s} s")
    } else if s < 3600 {
        format!("{} min {} s", s / 60, s % 60)
    } else {
        format!("{} h {} min", s / 3600, (s % 3600) / 60)
    }
}

/// The progress line: the batch, documents read and written, input read
/// (of its total), word pieces embedded and their rate, the time left
/// estimated from that rate ([`IngestProgress::eta`]; none until there is
/// one), and what is running.
pub fn line(p: &IngestProgress, elapsed: Duration) -> String {
    let mut parts = Vec::new();
    if p.batch > 0 {
        parts.push(format!("batch {}", p.batch));
    }
    let docs = match p.docs_total {
        Some(total) => format!(
            "{}/{} documents written",
            thousands(p.docs_done as u64),
            thousands(total as u64)
        ),
        None => format!(
            "{} documents read, {} written",
            thousands(p.docs_read as u64),
            thousands(p.docs_done as u64)
        ),
    };
    parts.push(docs);
    match p.input_bytes_total {
        Some(total) if total > 0 => parts.push(format!(
            "{:.1}/{:.1} MB read",
            p.input_bytes_read as f64 / 1e6,
            total as f64 / 1e6
        )),
        _ => parts.push(format!("{:.1} MB", p.bytes_done as f64 / 1e6)),
    }
    if p.word_pieces_embedded > 0 || p.embedder.is_some() {
        let rate = p
            .word_pieces_per_second(elapsed)
            .map(|r| format!(" ({}/s)", short(r)))
            .unwrap_or_default();
        parts.push(format!(
            "{} word pieces embedded{rate}",
            short(p.word_pieces_embedded as f64)
        ));
    }
    if let Some(eta) = p.eta(elapsed) {
        parts.push(format!("about {} left", duration(eta)));
    }
    let phase = format!("{:?}", p.phase).to_lowercase();
    let what = match (&p.embedder, p.phase) {
        (Some(e), verity::IngestPhase::Embedding) if e.dim == 0 => {
            format!(
                "{phase} with {}@{} (dimension from its first answer)",
                e.model, e.version
            )
        }
        (Some(e), verity::IngestPhase::Embedding) => format!("{phase} with {e}"),
        _ => phase,
    };
    parts.push(what);
    parts.join(" · ")
}

/// The suggestion of `--fast` for a long run, with both estimates; `None`
/// while the run looks short or has no estimate yet.
pub fn fast_note(p: &IngestProgress, elapsed: Duration) -> Option<String> {
    let (total, fast) = p.fast_estimate(elapsed)?;
    (total > SUGGEST_FAST_ABOVE).then(|| {
        format!(
            "note: this ingest needs about {} in all; `verity ingest --fast` would need about {} \
             (8-bit products and sentence vectors pooled from the chunk's pass: hybrid nDCG@10 \
             0.742 instead of 0.748 on SciFact) — into a new index (--home or --index)",
            duration(total),
            duration(fast)
        )
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use verity::core::EmbedderId;
    use verity::IngestPhase;

    #[test]
    fn numbers_read_well() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(5183), "5,183");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(short(950.0), "950");
        assert_eq!(short(5_100.0), "5.1k");
        assert_eq!(short(4_020_000.0), "4.0M");
        assert_eq!(duration(Duration::from_secs(45)), "45 s");
        assert_eq!(duration(Duration::from_secs(725)), "12 min 5 s");
        assert_eq!(duration(Duration::from_secs(7_380)), "2 h 3 min");
    }

    #[test]
    fn a_file_read_in_batches_shows_batches_bytes_and_no_false_total() {
        let p = IngestProgress {
            batch: 2,
            docs_read: 4000,
            docs_done: 2100,
            input_bytes_read: 6_000_000,
            input_bytes_chunked: 6_000_000,
            input_bytes_total: Some(7_800_000),
            word_pieces_embedded: 100_000,
            word_pieces_pending: 20_000,
            phase: IngestPhase::Embedding,
            embedder: Some(EmbedderId::new("fake-embed", "1", 384)),
            ..IngestProgress::default()
        };
        let l = line(&p, Duration::from_secs(20));
        assert_eq!(
            l,
            "batch 2 · 4,000 documents read, 2,100 written · 6.0/7.8 MB read · \
             100.0k word pieces embedded (5.0k/s) · about 11 s left · embedding with fake-embed@1/384d"
        );
        assert!(!l.contains("/2000"), "a batch's length is not the total");
    }

    #[test]
    fn long_runs_suggest_the_fast_profile_with_both_times() {
        let p = IngestProgress {
            input_bytes_total: Some(8_000_000),
            input_bytes_read: 800_000,
            input_bytes_chunked: 800_000,
            word_pieces_embedded: 400_000,
            pooled_word_pieces: 160_000,
            phase: IngestPhase::Embedding,
            ..IngestProgress::default()
        };
        // 10 % of the input in 100 s: 1,000 s in all.
        let note = fast_note(&p, Duration::from_secs(100)).unwrap();
        assert!(note.contains("about 16 min 40 s in all"), "{note}");
        assert!(
            note.contains("--fast` would need about 5 min 25 s"),
            "{note}"
        );
        // A short run is left alone.
        assert_eq!(fast_note(&p, Duration::from_secs(10)), None);
    }

    #[test]
    fn an_embedder_without_a_dimension_yet_says_so() {
        let p = IngestProgress {
            batch: 1,
            docs_read: 2000,
            phase: IngestPhase::Embedding,
            embedder: Some(EmbedderId::new("fake-embed", "1", 0)),
            ..IngestProgress::default()
        };
        let l = line(&p, Duration::from_secs(1));
        assert!(!l.contains("/0d"), "{l}");
        assert!(
            l.contains("fake-embed@1 (dimension from its first answer)"),
            "{l}"
        );
        assert!(
            !l.contains("left"),
            "no estimate before any word piece: {l}"
        );
    }
}
