//! Verity: a source of truth for LLM applications. Facade crate re-exporting the pipelines and providers.
