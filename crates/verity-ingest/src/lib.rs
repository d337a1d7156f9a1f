//! Readers for the seed-001 JSONL schema, text and Markdown; language detection; token-aware chunking; the ingest pipeline.
