//! Generators: Ollama, OpenAI-compatible, local GGUF (candle) and the extractive generator.
