//! The tools of seed 000: the technology watch (rules, scoring, articles,
//! decisions, web search, page extraction, fact verification) and the
//! AuraCore project tools, with the seed's names and input schemas (their
//! descriptions in English). Each one calls [`crate::Verity::watch`].

pub(super) mod articles;
pub(super) mod auracore;
pub(super) mod rules;
pub(super) mod web;

use serde::Serialize;

/// Pretty JSON: the seed's clients read the structured response as text.
pub(super) fn json_text<T: Serialize>(r: &T) -> String {
    serde_json::to_string_pretty(r).unwrap_or_default()
}

/// Hints for a tool that only reads the watch store.
pub(super) const READS: super::ToolHints = super::ToolHints {
    read_only: true,
    open_world: false,
    idempotent: true,
};

/// Hints for a tool that writes the watch store.
pub(super) const WRITES: super::ToolHints = super::ToolHints {
    read_only: false,
    open_world: false,
    idempotent: false,
};

/// Hints for a tool that reads the web.
pub(super) const WEB: super::ToolHints = super::ToolHints {
    read_only: true,
    open_world: true,
    idempotent: true,
};
