//! Parsers: HTML main content to Markdown, PDF, Markdown and plain text, into ParsedDocument.
