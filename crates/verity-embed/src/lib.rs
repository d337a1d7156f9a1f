//! Embedders: local BERT-family models (candle), Ollama and OpenAI-compatible servers.
