//! # verity-ingest
//!
//! Getting documents into a Verity index:
//!
//! * [`read_paths`] / [`JsonlReader`]: streaming readers for the seed-001 JSONL
//!   schema (and the BEIR corpus format), Markdown (front matter), text in any
//!   encoding, HTML and PDF files through `verity-extract`, and whole
//!   directories, with the files left out and why ([`SkippedFile`]);
//! * [`detect_lang`]: ISO 639-1 language detection (verity-extract's, the one detector);
//! * [`Chunker`]: token-aware, Markdown-aware chunking (700–900 tokens,
//!   overlap 120, cuts on headings / sections / sentences, code blocks kept whole);
//! * [`Ingestor`]: the resumable pipeline fingerprint → chunk → embed → upsert;
//! * [`reindex`](reindex::reindex): shadow re-index, evaluation gate and atomic
//!   alias cutover on any backend's [`IndexCatalog`](verity_core::IndexCatalog).
//!
//! Chunking and reading are synchronous, `Send` and CPU-bound: async callers
//! can move them to `spawn_blocking`.

pub mod chunk;
pub mod pipeline;
pub mod progress;
pub mod read;
pub mod reindex;
pub mod sentences;
mod tokens;

pub use chunk::{Chunker, ChunkerConfig};
pub use pipeline::{
    chunking_fingerprint, embedding_input, fit_chunker, IngestReport, IngestSettings, Ingestor,
    IngestorBuilder,
};
pub use progress::{IngestPhase, IngestProgress, RunProgress};
pub use read::{
    read_file, read_paths, read_text_file, InputKind, JsonlReader, PathReader, SkipReason,
    SkippedFile,
};
pub use verity_extract::detect_lang;

/// The bundled bert-base-uncased WordPiece `tokenizer.json` (all-MiniLM-L6-v2's),
/// used by [`Chunker::new`].
pub const BUNDLED_TOKENIZER_JSON: &[u8] = tokens::BUNDLED_TOKENIZER;
