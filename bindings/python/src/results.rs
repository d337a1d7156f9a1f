//! The typed results of `fetch`, `Store.check`, `Store.research` (and its
//! knowledge base), `store.watch` and `store.projects`: one read-only class per
//! `verity::api` serde type, each field a getter named as serialized (the
//! same names the REST and MCP JSON use), nested values typed in turn.
//! No logic lives here.

use pyo3::prelude::*;

use crate::types::{plain_attr, wrapper, Attr};

plain_attr!(
    verity::api::verify::CitationType,
    verity::api::verify::SourceStatus,
    verity::core::FetchStatus,
    verity::core::Refusal,
    verity::core::SourceFormat,
    verity::core::Verdict,
    verity::core::VerifyMode,
    verity::core::Priority,
    verity::core::RuleKind,
    verity::core::ProjectStatus,
    verity::core::TaskStatus,
    verity::core::SourceType,
    verity::core::DecisionLlm,
    verity::core::DecisionType,
    verity::api::watch::MatchedBy,
    verity::api::watch::ContextRanking,
    verity::api::watch::Field,
);

wrapper! {
    /// Output of `fetch`: the source fetched (or the local file read), how
    /// that went, and its parsed content.
    FetchedSource(verity::api::FetchResponse) repr ["url", "status", "http_status", "content_type"]
    fields [url, final_url, status, http_status, content_type, parsed, detail, refusal, fetched_at]
}

wrapper! {
    /// A parsed source: the document (content in Markdown) and where its pieces came from.
    ParsedDocument(verity::core::ParsedDocument) repr ["format", "pages"]
    fields [document, format, pages]
}

wrapper! {
    /// Where a page of the original (PDF) sits in the document content.
    PageSpan(verity::core::PageSpan) repr ["page", "start", "end"]
    fields [page, start, end]
}

wrapper! {
    /// The report of one verification run.
    CheckReport(verity::api::verify::Report) repr ["document", "cancelled"]
    fields [document, summary, results, statistics, cancelled]
}

wrapper! {
    /// Counts per verdict.
    CheckSummary(verity::api::verify::Summary) repr ["total", "supported", "issues", "partial"]
    fields [total, supported, issues, partial, not_supported, inconclusive, unavailable, message]
}

wrapper! {
    /// Run statistics.
    CheckStatistics(verity::api::verify::Statistics) repr ["sentences", "claims", "distinct_sources", "sources_fetched"]
    fields [sentences, claims, distinct_sources, sources_fetched, unavailable_sources, missing_entries, quotes_replaced, downgraded, judge_errors, atomic_dropped, skipped, elapsed_ms, fetch_ms, ms_per_citation, total_ms_per_citation, judge_tokens, judge, dense]
}

wrapper! {
    /// A source that could not be read, and why.
    UnavailableSource(verity::api::verify::UnavailableSource) repr ["source", "status", "reason", "claims"]
    fields [source, status, reason, claims]
}

wrapper! {
    /// The verdict on one claim, with the claim and citation it is about.
    CheckResult(verity::api::verify::CheckResult) repr ["claim", "citation_ref", "citation_type", "source_url"]
    fields [claim, citation_ref, citation_type, source_url, verdict, confidence, explanation, source_quote, quote_context, location, judge, checks, passages, elapsed_ms]
}

wrapper! {
    /// Where a claim sits in the document text.
    CheckLocation(verity::api::verify::Location) repr ["line", "start", "end"]
    fields [line, start, end]
}

wrapper! {
    /// The quote with a little of the source around it.
    QuoteContext(verity::api::verify::QuoteContext) repr ["before", "quote", "after", "start"]
    fields [before, quote, after, start, end]
}

wrapper! {
    /// A passage of a source handed to a judge, with where it sits in the source.
    Passage(verity::core::Passage) repr ["text", "start", "end", "score"]
    fields [text, start, end, score, source_url]
}

wrapper! {
    /// The check of an answer against its sources.
    AnswerVerification(verity::core::AnswerVerification) repr ["mode", "judge", "checked", "supported"]
    fields [mode, judge, sentences, checked, supported, flagged, removed]
}

wrapper! {
    /// One sentence of an answer and what its cited sources say of it.
    SentenceVerdict(verity::core::SentenceVerdict) repr ["text", "verdict", "confidence", "explanation"]
    fields [text, citations, verdict, confidence, explanation, source_quote, quote_citation, judge, flagged, removed]
}

wrapper! {
    /// Answer of `research`: the checked report and how the run went.
    ResearchReport(verity::api::research::ResearchResponse) repr ["run_dir", "coverage", "supported_share", "degraded"]
    fields [run_dir, markdown, coverage, supported_share, cited_sentences, supported_sentences, themes, writer, judge, degraded, missing, notes, tasks_ok, tasks_failed, tasks_skipped, planner, plan_attempts, unresolved_citations, references, timings]
}

wrapper! {
    /// Coverage of one theme of the brief.
    ThemeCoverage(verity::api::research::ThemeCoverageView) repr ["id", "title", "cited", "supported"]
    fields [id, title, cited, supported, covered]
}

wrapper! {
    /// One reference of the report.
    ResearchReference(verity::api::research::ReferenceView) repr ["n", "title", "url", "filename"]
    fields [n, title, url, filename]
}

wrapper! {
    /// Duration of one step of a run.
    StepTiming(verity::api::research::StepTimingView) repr ["step", "ms"]
    fields [step, ms]
}

wrapper! {
    /// One knowledge-base entry.
    KnowledgeEntry(verity::api::research::KnowledgeEntryView) repr ["filename", "url", "title", "summary"]
    fields [filename, url, title, keywords, summary, file_id]
}

wrapper! {
    /// Answer of `add_reference`.
    AddReferenceResult(verity::api::research::AddReferenceResponse) repr ["downloaded", "indexed", "enriched_by"]
    fields [entry, downloaded, indexed, enriched_by]
}

wrapper! {
    /// Output of `get_veille_rules`.
    RulesResponse(verity::api::watch::RulesResponse) repr ["rules"]
    fields [rules, scoring_guide]
}

wrapper! {
    /// A relevance rule (`update_veille_rule`).
    RelevanceRule(verity::core::RelevanceRule) repr ["name", "type", "score_modifier", "priority"]
    fields [name, kind as "type", keywords, score_modifier, priority, active, description]
}

wrapper! {
    /// How scores read (`scoring_guide`): every article starts at `base_score`, matched rules add their modifiers, the result is clamped to `0..=max_score`, and `min_valid_score` or more is relevant.
    ScoringGuide(verity::core::ScoringGuide) repr ["base_score", "min_valid_score", "max_score"]
    fields [base_score, min_valid_score, max_score]
}

wrapper! {
    /// Output of `update_veille_rule`.
    UpdateRuleResponse(verity::api::watch::UpdateRuleResponse) repr ["updated", "created"]
    fields [updated, created, rule]
}

wrapper! {
    /// Result of `score_article`.
    ScoreResult(verity::api::watch::ScoreResult) repr ["score", "raw_score", "valid", "excluded"]
    fields [score, raw_score, valid, excluded, matched_rules, explanation, scoring_guide, truncated]
}

wrapper! {
    /// A rule that matched and what it did.
    RuleMatch(verity::api::watch::RuleMatch) repr ["rule", "type", "priority", "score_modifier"]
    fields [rule, kind as "type", priority, score_modifier, keywords]
}

wrapper! {
    /// A keyword of a rule that matched.
    KeywordHit(verity::api::watch::KeywordHit) repr ["keyword", "count"]
    fields [keyword, count, fields]
}

wrapper! {
    /// Output of `check_article_exists`.
    CheckArticleResult(verity::api::watch::CheckArticleResponse) repr ["exists", "matched_by", "distance", "url"]
    fields [exists, article, matched_by, distance, url, canonical_url, message]
}

wrapper! {
    /// A logged article in short (`check_article_exists.article`).
    ArticleBrief(verity::api::watch::ArticleBrief) repr ["id", "title", "url", "source"]
    fields [id, title, url, source, processed_at, qwen_score, phi_validated]
}

wrapper! {
    /// Output of `log_article`.
    LogArticleResult(verity::api::watch::LogArticleResponse) repr ["logged", "article_id", "created", "duplicate_of"]
    fields [logged, article_id, created, duplicate_of, canonical_url, ingested, ingest_error]
}

wrapper! {
    /// Output of `get_articles`.
    ArticlesResponse(verity::api::watch::ArticlesResponse) repr ["total", "period"]
    fields [articles, total, period]
}

wrapper! {
    /// A logged article: every field of `log_article`, plus what the watch derives from it.
    Article(verity::core::Article) repr ["id", "url", "canonical_url", "title"]
    fields [id, url, canonical_url, aliases, title, source, source_type, qwen_score, qwen_keywords, phi_validated, phi_confidence, summary_fr, impact, hashtags, linkedin_draft, content_sha1, simhash, word_count, processed_at, updated_at]
}

wrapper! {
    /// Output of `log_veille_decision` and `log_decision`.
    LogDecisionResult(verity::api::watch::LogDecisionResponse) repr ["logged", "decision_id", "created_at"]
    fields [logged, decision_id, created_at]
}

wrapper! {
    /// Watch decisions, oldest first.
    WatchDecisionsResponse(verity::api::watch::WatchDecisionsResponse) repr ["total"]
    fields [decisions, total]
}

wrapper! {
    /// One entry of the append-only decision audit log (`log_veille_decision`).
    WatchDecision(verity::core::Decision) repr ["id", "article_id", "llm", "decision_type"]
    fields [id, article_id, llm, decision_type, decision, confidence, reasoning, tools_used, created_at]
}

wrapper! {
    /// Output of `web_search`.
    WebSearchResponse(verity::api::watch::WebSearchResponse) repr ["query", "total_found"]
    fields [query, results, total_found]
}

wrapper! {
    /// One web result.
    WebResult(verity::api::watch::WebResult) repr ["title", "url", "snippet", "source"]
    fields [title, url, snippet, source]
}

wrapper! {
    /// Output of `crawl_url`.
    CrawlResponse(verity::api::watch::CrawlResponse) repr ["url", "title", "word_count"]
    fields [url, title, content, word_count, extracted_at, truncated, paywalled, links]
}

wrapper! {
    /// A link of a crawled page's main content.
    CrawlLink(verity::api::watch::CrawlLink) repr ["text", "url"]
    fields [text, url]
}

wrapper! {
    /// Output of `verify_fact` (`verified`, `confidence`, `sources`, `summary`, plus the verdict, the judge and the pages that could not be read).
    VerifyFactResult(verity::api::watch::VerifyFactResponse) repr ["claim", "verified", "confidence", "verdict"]
    fields [claim, verified, confidence, verdict, sources, summary, not_enough_evidence, searched, unavailable, judge]
}

wrapper! {
    /// One source of a `verify_fact` answer.
    FactSource(verity::api::watch::FactSource) repr ["url", "excerpt", "title", "verdict"]
    fields [url, excerpt, title, verdict, confidence, judge, notes]
}

wrapper! {
    /// A page `verify_fact` could not read.
    UnreadSource(verity::api::watch::UnreadSource) repr ["url", "code", "error"]
    fields [url, code, error]
}

wrapper! {
    /// A project.
    Project(verity::core::Project) repr ["id", "name", "description", "status"]
    fields [id, name, description, status, tags, created_at, updated_at]
}

wrapper! {
    /// A piece of project context (notes, specs, excerpts) that `query_context` retrieves from.
    ContextEntry(verity::core::ContextEntry) repr ["id", "project_id", "title", "content"]
    fields [id, project_id, title, content, tags, created_at]
}

wrapper! {
    /// A task.
    Task(verity::core::Task) repr ["id", "title", "status", "priority"]
    fields [id, project_id, title, description, priority, status, depends_on, created_at, updated_at]
}

wrapper! {
    /// A decision recorded on a project (`log_decision`).
    ProjectDecision(verity::core::ProjectDecision) repr ["id", "project_id", "decision", "reasoning"]
    fields [id, project_id, decision, reasoning, alternatives, tags, created_at]
}

wrapper! {
    /// Output of `list_projects`.
    ProjectsResponse(verity::api::watch::ProjectsResponse) repr ["total"]
    fields [projects, total]
}

wrapper! {
    /// Output of `get_project`.
    ProjectOverview(verity::api::watch::ProjectOverview) repr ["context_entries"]
    fields [project, tasks, context_entries, recent_decisions]
}

wrapper! {
    /// Output of `store_context`.
    StoreContextResult(verity::api::watch::StoreContextResponse) repr ["stored", "context_id", "indexed"]
    fields [stored, context_id, indexed]
}

wrapper! {
    /// Output of `query_context`.
    QueryContextResult(verity::api::watch::QueryContextResponse) repr ["ran", "degraded"]
    fields [results, ran, degraded]
}

wrapper! {
    /// One retrieved context entry.
    ContextHit(verity::api::watch::ContextHit) repr ["score"]
    fields [entry, score]
}

wrapper! {
    /// Output of `delete_context`.
    DeleteContextResult(verity::api::watch::DeleteContextResponse) repr ["deleted", "context_id"]
    fields [deleted, context_id]
}

wrapper! {
    /// Output of `get_next_tasks`.
    NextTasksResult(verity::api::watch::NextTasksResponse) repr ["waiting", "blocked"]
    fields [tasks, waiting, blocked]
}

wrapper! {
    /// Output of `get_decisions`.
    ProjectDecisionsResponse(verity::api::watch::ProjectDecisionsResponse) repr ["total"]
    fields [decisions, total]
}
