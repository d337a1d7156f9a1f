//! What an ingestion reports while it runs, across the batches of one run,
//! and the time it estimates is left.
//!
//! Counts are cumulative over the whole run: a reader read in batches
//! ([`RunProgress`]) does not start again at zero with each batch. The time
//! left is estimated from the embedder's work, in word pieces: what is left
//! in the batch being embedded, plus the input not yet read at the word
//! pieces per input byte (or per document) seen so far, at the word pieces
//! per second seen so far, end to end (reading, chunking and writing
//! included). Before any word piece is embedded there is no estimate.

use std::time::Duration;

use verity_core::EmbedderId;

/// What the pipeline is doing, for progress displays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IngestPhase {
    /// Asking the store which documents are unchanged.
    #[default]
    Checking,
    /// Splitting documents into chunks.
    Chunking,
    /// Computing vectors.
    Embedding,
    /// Writing to the store.
    Writing,
    /// Finished.
    Done,
}

/// Progress of an ingestion, reported after each step of each batch.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct IngestProgress {
    /// Documents fully handled (written or skipped).
    pub docs_done: usize,
    /// Total documents, when the input knows its length (inline documents).
    pub docs_total: Option<usize>,
    /// Content bytes of the documents handled.
    pub bytes_done: u64,
    /// Texts embedded so far in this run (chunks, and sentences when
    /// sentence vectors are on).
    pub chunks_embedded: usize,
    /// Current phase.
    pub phase: IngestPhase,
    /// The batch being worked on, from 1 (0 before the first).
    pub batch: usize,
    /// Documents read from the input so far (the current batch included).
    pub docs_read: usize,
    /// Documents of the batches chunked so far.
    pub docs_chunked: usize,
    /// Bytes of input files read so far (0 for documents given inline).
    pub input_bytes_read: u64,
    /// Input bytes of the batches chunked so far.
    pub input_bytes_chunked: u64,
    /// Size of the input files, when known.
    pub input_bytes_total: Option<u64>,
    /// Word pieces of the texts embedded so far (each text counted up to the
    /// embedder's window): the embedder's work, which sets the pace.
    pub word_pieces_embedded: u64,
    /// Word pieces of the current batch's texts not embedded yet.
    pub word_pieces_pending: u64,
    /// The embedder, as it knows itself now (a remote embedder learns its
    /// dimension from its first answer).
    pub embedder: Option<EmbedderId>,
    /// Word pieces the texts seen so far (embedded or pending) would cost
    /// with sentence vectors pooled from the chunk's pass (each chunk's
    /// windows only): the work of the fast profile, for
    /// [`IngestProgress::fast_estimate`].
    pub pooled_word_pieces: u64,
    /// How many times faster the embedder's 8-bit products would embed a
    /// word piece, as it reports it ([`Embedder::int8_speedup`]); the
    /// estimate takes [`INT8_SPEEDUP`] when it does not say.
    ///
    /// [`Embedder::int8_speedup`]: verity_core::Embedder::int8_speedup
    pub int8_speedup: Option<f64>,
}

/// Speed of the local embedder's 8-bit products over f32 per word piece
/// on this project's AVX2 machine: median of 8 interleaved runs
/// (docs/benchmarks.d/embed.md, "Second form").
pub const INT8_SPEEDUP: f64 = 1.23;

/// Elapsed time below which no rate is trusted.
const MIN_ELAPSED: Duration = Duration::from_millis(500);

impl IngestProgress {
    /// Word pieces embedded per second over `elapsed` (the whole run so
    /// far), `None` before any.
    pub fn word_pieces_per_second(&self, elapsed: Duration) -> Option<f64> {
        (elapsed >= MIN_ELAPSED && self.word_pieces_embedded > 0)
            .then(|| self.word_pieces_embedded as f64 / elapsed.as_secs_f64())
    }

    /// Word pieces still to embed: the current batch's pending ones plus the
    /// input not chunked yet, at the word pieces per input byte (or per
    /// document, for inline input of known length) of the batches chunked so
    /// far. `None` when the size of the rest is unknown.
    pub fn word_pieces_left(&self) -> Option<f64> {
        let seen = (self.word_pieces_embedded + self.word_pieces_pending) as f64;
        let (done, total) = match (self.input_bytes_total, self.docs_total) {
            (Some(total), _) if self.input_bytes_chunked > 0 => {
                (self.input_bytes_chunked as f64, total as f64)
            }
            (None, Some(total)) if self.docs_chunked > 0 => {
                (self.docs_chunked as f64, total as f64)
            }
            _ => return None,
        };
        let rest = (total - done).max(0.0);
        Some(self.word_pieces_pending as f64 + seen / done * rest)
    }

    /// The whole run's estimated time (elapsed plus [`Self::eta`]) and what
    /// the same input would take with the fast profile: the pooled word
    /// pieces at the embedder's 8-bit speed-up ([`Self::int8_speedup`], else
    /// [`INT8_SPEEDUP`]) times the rate seen. `None` without an
    /// estimate, or when the run already reads no more than the fast
    /// profile would.
    pub fn fast_estimate(&self, elapsed: Duration) -> Option<(Duration, Duration)> {
        let eta = self.eta(elapsed)?;
        let seen = (self.word_pieces_embedded + self.word_pieces_pending) as f64;
        if seen <= 0.0 || self.pooled_word_pieces as f64 >= seen {
            return None;
        }
        let total = elapsed + eta;
        let ratio = self.pooled_word_pieces as f64 / seen;
        let speedup = self
            .int8_speedup
            .filter(|s| s.is_finite() && *s > 0.0)
            .unwrap_or(INT8_SPEEDUP);
        let fast = total.as_secs_f64() * ratio / speedup;
        fast.is_finite()
            .then(|| (total, Duration::from_secs_f64(fast.max(0.0))))
    }

    /// Estimated time left after `elapsed` since the run started: word
    /// pieces left at the word pieces per second so far. `None` until there
    /// is a rate and a known size, and once the run is done (zero).
    pub fn eta(&self, elapsed: Duration) -> Option<Duration> {
        if self.phase == IngestPhase::Done {
            return Some(Duration::ZERO);
        }
        let rate = self.word_pieces_per_second(elapsed)?;
        let left = self.word_pieces_left()?;
        let secs = left / rate;
        secs.is_finite()
            .then(|| Duration::from_secs_f64(secs.max(0.0)))
    }
}

/// The progress of a run made of several [`Ingestor::ingest`] calls (a
/// reader read in batches): adds the finished batches' counts to each
/// batch's own report so that displays see one run.
///
/// [`Ingestor::ingest`]: crate::Ingestor::ingest
#[derive(Debug, Clone, Default)]
pub struct RunProgress {
    /// Counts of the finished batches, and of the input read so far.
    base: IngestProgress,
}

impl RunProgress {
    /// A run over `docs_total` documents and input files of
    /// `input_bytes_total` bytes, each when known. A batch's own length is
    /// never taken for the run's.
    pub fn new(docs_total: Option<usize>, input_bytes_total: Option<u64>) -> Self {
        Self {
            base: IngestProgress {
                docs_total,
                input_bytes_total,
                ..IngestProgress::default()
            },
        }
    }

    /// A new batch of `docs` documents was read; `input_bytes_read` bytes of
    /// input have been read so far (0 for inline documents).
    pub fn start_batch(&mut self, docs: usize, input_bytes_read: u64) {
        self.base.batch += 1;
        self.base.docs_read += docs;
        self.base.input_bytes_read = self.base.input_bytes_read.max(input_bytes_read);
    }

    /// The run's progress given the current batch's own `batch` report.
    pub fn view(&self, batch: &IngestProgress) -> IngestProgress {
        let b = &self.base;
        let chunked = batch.phase != IngestPhase::Checking && batch.phase != IngestPhase::Chunking;
        IngestProgress {
            docs_done: b.docs_done + batch.docs_done,
            docs_total: b.docs_total,
            bytes_done: b.bytes_done + batch.bytes_done,
            chunks_embedded: b.chunks_embedded + batch.chunks_embedded,
            phase: batch.phase,
            batch: b.batch.max(1),
            docs_read: b.docs_read.max(b.docs_done + batch.docs_done),
            docs_chunked: b.docs_chunked + if chunked { batch.docs_chunked } else { 0 },
            input_bytes_read: b.input_bytes_read,
            input_bytes_chunked: if chunked {
                b.input_bytes_read
            } else {
                b.input_bytes_chunked
            },
            input_bytes_total: b.input_bytes_total,
            word_pieces_embedded: b.word_pieces_embedded + batch.word_pieces_embedded,
            word_pieces_pending: batch.word_pieces_pending,
            embedder: batch.embedder.clone().or_else(|| b.embedder.clone()),
            pooled_word_pieces: b.pooled_word_pieces + batch.pooled_word_pieces,
            int8_speedup: batch.int8_speedup.or(b.int8_speedup),
        }
    }

    /// The current batch finished with `last` as its final report.
    pub fn end_batch(&mut self, last: &IngestProgress) {
        let mut v = self.view(last);
        v.phase = IngestPhase::Checking;
        v.input_bytes_chunked = self.base.input_bytes_read;
        v.word_pieces_pending = 0;
        self.base = v;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    #[test]
    fn no_estimate_before_any_word_piece() {
        let p = IngestProgress {
            input_bytes_total: Some(1000),
            input_bytes_chunked: 100,
            word_pieces_pending: 500,
            phase: IngestPhase::Embedding,
            ..IngestProgress::default()
        };
        assert_eq!(p.eta(secs(10.0)), None);
        assert_eq!(p.word_pieces_per_second(secs(10.0)), None);
    }

    #[test]
    fn estimate_from_word_pieces_and_input_left() {
        // 1,000 input bytes; the first 250 gave 1,000 word pieces, 600 embedded
        // in 6 s (100/s): 400 left in the batch, 3,000 expected from the 750
        // bytes not read → 3,400 word pieces, 34 s.
        let p = IngestProgress {
            input_bytes_total: Some(1000),
            input_bytes_read: 250,
            input_bytes_chunked: 250,
            word_pieces_embedded: 600,
            word_pieces_pending: 400,
            phase: IngestPhase::Embedding,
            ..IngestProgress::default()
        };
        assert_eq!(p.word_pieces_left(), Some(3400.0));
        let eta = p.eta(secs(6.0)).unwrap();
        assert!((eta.as_secs_f64() - 34.0).abs() < 1e-6, "{eta:?}");
        let done = IngestProgress {
            phase: IngestPhase::Done,
            ..p
        };
        assert_eq!(done.eta(secs(60.0)), Some(Duration::ZERO));
    }

    #[test]
    fn inline_documents_estimate_per_document() {
        let p = IngestProgress {
            docs_total: Some(100),
            docs_chunked: 10,
            word_pieces_embedded: 1000,
            phase: IngestPhase::Writing,
            ..IngestProgress::default()
        };
        // 100 word pieces per document, 90 documents left.
        assert_eq!(p.word_pieces_left(), Some(9000.0));
        assert!((p.eta(secs(10.0)).unwrap().as_secs_f64() - 90.0).abs() < 1e-6);
        // Unknown size: no estimate rather than a wrong one.
        let unknown = IngestProgress {
            docs_total: None,
            ..p
        };
        assert_eq!(unknown.eta(secs(10.0)), None);
    }

    #[test]
    fn the_estimate_is_steady_at_a_steady_pace() {
        // Two batches of 500 input bytes, 2,000 word pieces each, embedded at a
        // steady 100 word pieces/s: the estimate falls by one second per second.
        let mut run = RunProgress::new(None, Some(1000));
        let mut last_eta = f64::INFINITY;
        let mut t = 0.0;
        for batch in 0..2u64 {
            run.start_batch(50, 500 * (batch + 1));
            let mut p = IngestProgress {
                docs_chunked: 50,
                phase: IngestPhase::Embedding,
                word_pieces_pending: 2000,
                ..IngestProgress::default()
            };
            for _ in 0..20 {
                t += 1.0;
                p.word_pieces_embedded += 100;
                p.word_pieces_pending -= 100;
                let v = run.view(&p);
                let eta = v.eta(secs(t)).unwrap().as_secs_f64();
                assert!((eta - (40.0 - t)).abs() < 1e-6, "t={t}: {eta}");
                assert!(eta < last_eta);
                last_eta = eta;
            }
            p.phase = IngestPhase::Done;
            p.docs_done = 50;
            run.end_batch(&p);
        }
    }

    #[test]
    fn the_fast_profile_is_estimated_from_the_pooled_work() {
        // 100 s in, 100 s left; the fast profile reads 40 % of the word pieces,
        // each INT8_SPEEDUP times faster.
        let p = IngestProgress {
            input_bytes_total: Some(1000),
            input_bytes_read: 500,
            input_bytes_chunked: 500,
            word_pieces_embedded: 1000,
            pooled_word_pieces: 400,
            phase: IngestPhase::Embedding,
            ..IngestProgress::default()
        };
        let (total, fast) = p.fast_estimate(secs(100.0)).unwrap();
        assert!((total.as_secs_f64() - 200.0).abs() < 1e-6);
        assert!((fast.as_secs_f64() - 200.0 * 0.4 / INT8_SPEEDUP).abs() < 1e-6);
        // The embedder's own figure for its CPU wins; a nonsense one is ignored.
        let reported = IngestProgress {
            int8_speedup: Some(2.0),
            ..p.clone()
        };
        let (_, fast) = reported.fast_estimate(secs(100.0)).unwrap();
        assert!((fast.as_secs_f64() - 200.0 * 0.4 / 2.0).abs() < 1e-6);
        let nonsense = IngestProgress {
            int8_speedup: Some(0.0),
            ..p.clone()
        };
        let (_, fast) = nonsense.fast_estimate(secs(100.0)).unwrap();
        assert!((fast.as_secs_f64() - 200.0 * 0.4 / INT8_SPEEDUP).abs() < 1e-6);
        // A run already pooled gains nothing.
        let pooled = IngestProgress {
            pooled_word_pieces: 1000,
            ..p
        };
        assert_eq!(pooled.fast_estimate(secs(100.0)), None);
    }

    #[test]
    fn counts_add_up_across_batches() {
        let mut run = RunProgress::new(None, Some(10_000));
        run.start_batch(2000, 4_000);
        let first = IngestProgress {
            docs_done: 2000,
            docs_total: Some(2000),
            docs_chunked: 2000,
            bytes_done: 3_000,
            chunks_embedded: 9_000,
            word_pieces_embedded: 100_000,
            phase: IngestPhase::Done,
            ..IngestProgress::default()
        };
        let v = run.view(&first);
        assert_eq!(v.batch, 1);
        assert_eq!(v.docs_read, 2000);
        run.end_batch(&first);
        run.start_batch(1183, 10_000);
        let second = IngestProgress {
            docs_done: 500,
            docs_total: Some(1183),
            docs_chunked: 1183,
            chunks_embedded: 10,
            word_pieces_embedded: 1_000,
            word_pieces_pending: 40_000,
            phase: IngestPhase::Embedding,
            ..IngestProgress::default()
        };
        let v = run.view(&second);
        assert_eq!(v.batch, 2);
        assert_eq!(v.docs_done, 2500);
        assert_eq!(v.docs_read, 3183);
        // A batch's own length is not the run's total.
        assert_eq!(v.docs_total, None);
        assert_eq!(v.docs_chunked, 3183);
        assert_eq!(v.chunks_embedded, 9_010);
        assert_eq!(v.word_pieces_embedded, 101_000);
        assert_eq!(v.input_bytes_read, 10_000);
        assert_eq!(v.input_bytes_chunked, 10_000);
        // All input is chunked: what is left is the batch's pending work.
        assert_eq!(v.word_pieces_left(), Some(40_000.0));
    }
}
