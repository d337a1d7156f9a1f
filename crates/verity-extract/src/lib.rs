//! Parsers: HTML main content to Markdown, PDF, Markdown and plain text, into `ParsedDocument`.

#[cfg(feature = "pdf")]
pub mod pdf;
