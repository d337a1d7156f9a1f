//! [`LocalAnswerFormat`]: how a local model writes a grounded answer.

use std::fmt;
use std::str::FromStr;

/// How a [`LocalGgufGenerator`](crate::LocalGgufGenerator) writes the answer
/// to a grounded request (one that carries a
/// [`Grounding`](verity_core::Grounding), as every RAG answer does).
/// Decoding is constrained to the format token by token, so the model
/// cannot leave it; other requests are never constrained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LocalAnswerFormat {
    /// Sentences copied from the passages, each followed by the citation of
    /// the passage it comes from (`… sentence. [2]`): the model chooses which
    /// sentences answer, in which order and how many. Every sentence is then
    /// true to the passage it cites by construction. The default: small
    /// models (SmolLM2-135M) write few supported sentences of their own
    /// (docs/benchmarks.d/generate.md).
    #[default]
    Quoted,
    /// Sentences in the model's own words, each ending with the citation of
    /// a passage it was given (`… text [2].`). For larger models; the answer
    /// check judges every sentence against what it cites.
    Cited,
    /// Free text: the prompt asks for citations, nothing enforces them.
    Free,
}

impl LocalAnswerFormat {
    /// `quoted`, `cited` or `free`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Quoted => "quoted",
            Self::Cited => "cited",
            Self::Free => "free",
        }
    }
}

impl fmt::Display for LocalAnswerFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for LocalAnswerFormat {
    type Err = verity_core::Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "quoted" | "quote" => Ok(Self::Quoted),
            "cited" => Ok(Self::Cited),
            "free" => Ok(Self::Free),
            other => Err(verity_core::ConfigError::Invalid {
                key: "local answer format".into(),
                message: format!("`{other}`: expected `quoted`, `cited` or `free`"),
            }
            .into()),
        }
    }
}
