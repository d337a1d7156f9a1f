//! Retrieval (search, re-rank, guardrail) and the grounded RAG pipeline.
