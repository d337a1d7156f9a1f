//! # verity-verify
//!
//! Citation verification (seed 002): take a document, find every claim that
//! cites a source, fetch each source once, find the sentences of the source
//! that speak of the claim, and let a [`Judge`] say
//! whether the source supports it — with the exact sentence that decides it.
//!
//! | stage | module |
//! |---|---|
//! | claims that cite (links, URLs, DOIs, arXiv, `[3]`, `[^2]`, author–year) | [`claims`], [`refs`] |
//! | sources, fetched once each | [`sources`] |
//! | sentence-level passages (BM25 ⊕ dense, rhetorical role, short forms), cached by content hash | [`evidence`], [`rank`] |
//! | **the one judging path**: passages → judge → checks → verdict | [`assess`] ([`Assessor`]) |
//! | a source's text as a reader sees it (quotes come from it) | [`reader`] ([`SourceText`]) |
//! | judges: [`LocalJudge`] (default), [`LlmJudge`] | [`judge_local`], [`judge_llm`] |
//! | what the local judge compares: words and names, French, figures and dates, relevance | [`terms`], [`lexicon`], [`numbers`], [`dates`], [`numwords`], [`relevance`] |
//! | deterministic checks after any judge | [`checks`] |
//! | explanations in the claim's language | [`explain`] |
//! | is a quote the source's characters? (what tests check on every quote) | [`audit`] |
//! | answers that check themselves: each cited sentence against its passage | [`answer`] |
//! | report: JSON, Markdown, terminal, HTML | [`report`], [`render`] |
//!
//! Entry point: [`Verifier::builder`].

pub mod align;
pub mod answer;
pub mod assess;
pub mod audit;
pub mod checks;
pub mod claims;
pub mod dates;
pub mod eval;
pub mod evidence;
pub mod explain;
pub mod forest;
pub mod judge_llm;
pub mod judge_local;
pub mod lexicon;
pub mod numbers;
pub mod numwords;
mod quantifiers;
pub mod rank;
pub mod reader;
pub mod refs;
pub mod relevance;
pub mod render;
pub mod report;
pub mod sources;
pub mod terms;
pub mod text;
pub mod types;
mod verifier;

pub use assess::{Assessment, Assessor, AssessorBuilder};
pub use judge_llm::LlmJudge;
pub use judge_local::{LocalJudge, LocalJudgeConfig};
pub use reader::SourceText;
pub use report::{Report, Statistics, Summary, UnavailableSource};
pub use types::{
    CheckResult, CitationType, ClaimCitation, Location, QuoteContext, SourceContent, SourceStatus,
};
pub use verifier::{Progress, Stage, Verifier, VerifierBuilder};
pub use verity_core::{Judge, Judgement, Passage, Verdict};
