//! The type declarations of the Python and Node bindings, generated from
//! the JSON schemas of the `verity::api` types, and the check that the
//! checked-in files hold exactly what this generator writes.
//!
//! Each file has one generated section between [`BEGIN`] and [`END`]
//! lines (`python/verity/_verity.pyi`, `node/index.d.ts`): every type that
//! mirrors a serde type of the library — results, their nested objects,
//! request options. The rest (the `Store`/`Verity` classes with their
//! methods, Python's constructors and sequence methods, [`PY_MEMBERS`])
//! stays hand-written. After changing an api type, or adding one to
//! [`results`], [`options`] or a binding's own list, rewrite the sections with
//!
//! ```text
//! VERITY_WRITE_BINDING_TYPES=1 cargo nextest run --workspace -E 'package(verity-ai) & test(/^binding_types::/)'
//! ```
//!
//! and commit the result; without the variable the test fails when a
//! checked-in section differs from the generator's output.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::Value;
use verity::api;

mod python;
mod schema;
mod typescript;

use python::{py, python, rst_code};
use schema::{prose, Defs};
use typescript::typescript;

/// First line of a generated section (after the comment marker).
const BEGIN: &str = "---- generated from the verity::api schemas by crates/verity/tests/binding_types: do not edit (begin) ----";
/// Last line of a generated section.
const END: &str = "---- generated (end) ----";

/// Node's user-data keys: their values keep the keys they were written
/// with (`bindings/node/src/conv.rs`), so no generated type may sit under them.
const USER_DATA: &[&str] = &["metadata", "content", "arguments", "args"];

/// The schema of a response type as it is serialized (`Option` fields
/// present as `null`, skipped fields optional).
fn out<T: JsonSchema>() -> Value {
    let schema = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>();
    serde_json::to_value(schema).unwrap()
}

/// The result classes (Python: read-only classes whose attributes are the
/// serialized fields, `bindings/python/src/results.rs`; Node: plain objects
/// with camelCase keys): the binding's name and the api type's schema.
fn results() -> Vec<(&'static str, Value)> {
    use api::research as r;
    use api::verify as v;
    use api::watch as w;
    use verity::core as c;
    vec![
        ("Chunk", out::<verity::Chunk>()),
        ("Hit", out::<api::HitView>()),
        ("SearchResults", out::<api::SearchResultsView>()),
        ("Citation", out::<verity::Citation>()),
        ("Answer", out::<verity::Answer>()),
        ("IngestOutcome", out::<api::IngestOutcome>()),
        ("StoreStats", out::<c::StoreStats>()),
        ("Stats", out::<api::StatsResponse>()),
        ("FetchedSource", out::<api::FetchResponse>()),
        ("ParsedDocument", out::<c::ParsedDocument>()),
        ("PageSpan", out::<c::PageSpan>()),
        ("CheckReport", out::<v::Report>()),
        ("CheckSummary", out::<v::Summary>()),
        ("CheckStatistics", out::<v::Statistics>()),
        ("UnavailableSource", out::<v::UnavailableSource>()),
        ("CheckResult", out::<v::CheckResult>()),
        ("CheckLocation", out::<v::Location>()),
        ("QuoteContext", out::<v::QuoteContext>()),
        ("Passage", out::<c::Passage>()),
        ("AnswerVerification", out::<c::AnswerVerification>()),
        ("SentenceVerdict", out::<c::SentenceVerdict>()),
        ("ResearchReport", out::<r::ResearchResponse>()),
        ("ThemeCoverage", out::<r::ThemeCoverageView>()),
        ("ResearchReference", out::<r::ReferenceView>()),
        ("StepTiming", out::<r::StepTimingView>()),
        ("KnowledgeEntry", out::<r::KnowledgeEntryView>()),
        ("AddReferenceResult", out::<r::AddReferenceResponse>()),
        ("RulesResponse", out::<w::RulesResponse>()),
        ("RelevanceRule", out::<c::RelevanceRule>()),
        ("ScoringGuide", out::<c::ScoringGuide>()),
        ("UpdateRuleResponse", out::<w::UpdateRuleResponse>()),
        ("ScoreResult", out::<w::ScoreResult>()),
        ("RuleMatch", out::<w::RuleMatch>()),
        ("KeywordHit", out::<w::KeywordHit>()),
        ("CheckArticleResult", out::<w::CheckArticleResponse>()),
        ("ArticleBrief", out::<w::ArticleBrief>()),
        ("LogArticleResult", out::<w::LogArticleResponse>()),
        ("ArticlesResponse", out::<w::ArticlesResponse>()),
        ("Article", out::<c::Article>()),
        ("LogDecisionResult", out::<w::LogDecisionResponse>()),
        ("WatchDecisionsResponse", out::<w::WatchDecisionsResponse>()),
        ("WatchDecision", out::<c::Decision>()),
        ("WebSearchResponse", out::<w::WebSearchResponse>()),
        ("WebResult", out::<w::WebResult>()),
        ("CrawlResponse", out::<w::CrawlResponse>()),
        ("CrawlLink", out::<w::CrawlLink>()),
        ("VerifyFactResult", out::<w::VerifyFactResponse>()),
        ("FactSource", out::<w::FactSource>()),
        ("UnreadSource", out::<w::UnreadSource>()),
        ("Project", out::<c::Project>()),
        ("ContextEntry", out::<c::ContextEntry>()),
        ("Task", out::<c::Task>()),
        ("ProjectDecision", out::<c::ProjectDecision>()),
        ("ProjectsResponse", out::<w::ProjectsResponse>()),
        ("ProjectOverview", out::<w::ProjectOverview>()),
        ("StoreContextResult", out::<w::StoreContextResponse>()),
        ("QueryContextResult", out::<w::QueryContextResponse>()),
        ("ContextHit", out::<w::ContextHit>()),
        ("DeleteContextResult", out::<w::DeleteContextResponse>()),
        ("NextTasksResult", out::<w::NextTasksResponse>()),
        (
            "ProjectDecisionsResponse",
            out::<w::ProjectDecisionsResponse>(),
        ),
    ]
}

/// Result classes only Python has: its `Document` (a result, also built
/// by hand with its constructor) and the event memory's results, whose page
/// holds the envelope's `meta` fields as attributes.
fn py_results() -> Vec<(&'static str, Value)> {
    use api::memory as m;
    vec![
        ("Document", out::<verity::Document>()),
        ("Event", out::<m::Event>()),
        ("EventPage", out::<m::EventPage>()),
    ]
}

/// Api types Python shows as their display string (`model@version`), not
/// as the serialized object `to_dict()` holds.
const PY_DISPLAYED: &[&str] = &["EmbedderId"];

/// The members a Python result class has besides its field getters and
/// `to_dict()`, where they are not the default `__getitem__(key)`: the
/// constructor of `Document`, the sequence methods of the pages, derived
/// properties (`bindings/python/src/types.rs`, `memory.rs`).
const PY_MEMBERS: &[(&str, &str)] = &[
    (
        "Document",
        r#"    def __init__(
        self,
        uid: str,
        content: str,
        *,
        source: str = "",
        ts: Optional[_Time] = None,
        lang: Optional[str] = None,
        title: Optional[str] = None,
        tags: Optional[Sequence[str]] = None,
        url: Optional[str] = None,
        metadata: Optional[Mapping[str, Any]] = None,
    ) -> None: ...
    def __getitem__(self, key: str) -> Any: ...
"#,
    ),
    (
        "SearchResults",
        "    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> Hit: ...
    def __iter__(self) -> Iterator[Hit]: ...
",
    ),
    (
        "IngestOutcome",
        r#"    @property
    def partial(self) -> bool:
        """Whether something was left out (a record, a file or a URL)."""
    def __getitem__(self, key: str) -> Any: ...
"#,
    ),
    (
        "EventPage",
        "    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> Event: ...
",
    ),
];

/// Result types only TypeScript declares: a document as results hold it
/// (`source` always there), the event memory's results under their Node
/// names, the tools' own responses, the error table's rows.
fn ts_results() -> Vec<(&'static str, Value)> {
    use api::memory as m;
    vec![
        ("StoredDocument", out::<verity::Document>()),
        ("ScoredChunk", out::<verity::core::ScoredChunk>()),
        ("MemoryEvent", out::<m::Event>()),
        ("MemoryPage", out::<m::EventSearchResponse>()),
        ("Remembered", out::<m::Added>()),
        ("ForgetResponse", out::<m::ForgetResponse>()),
        ("RetrieveResponse", out::<api::RetrieveResponse>()),
        ("GetDocumentResponse", out::<api::GetDocumentResponse>()),
        (
            "FindByNameResponse",
            out::<api::research::FindByNameResponse>(),
        ),
        ("ErrorMapping", out::<api::ErrorMapping>()),
    ]
}

/// Inputs Node reads as written, without converting their keys (`ingest`'s
/// documents): declared with the schema's keys, which must therefore read
/// the same in camelCase.
fn ts_inputs() -> Vec<(&'static str, Value, &'static [&'static str])> {
    vec![("Document", api::schema_of::<verity::Document>(), &[])]
}

/// Request options: the binding's name, the request's schema, and the
/// fields the method takes as positional arguments (left out). Python
/// passes them as keyword arguments (`**kwargs: Unpack[_SearchOptions]`),
/// Node as an options object (`search(query, options?: SearchOptions)`).
/// Python's `check(content=None, **kwargs)` also takes `content` apart
/// ([`PY_POSITIONAL`]).
fn options() -> Vec<(&'static str, Value, &'static [&'static str])> {
    use api::memory as m;
    use api::watch as w;
    vec![
        (
            "SearchOptions",
            api::schema_of::<api::SearchRequest>(),
            &["query"],
        ),
        (
            "AskOptions",
            api::schema_of::<api::AskRequest>(),
            &["query"],
        ),
        (
            "ConfigOverrides",
            api::schema_of::<api::ConfigOverrides>(),
            &["home"],
        ),
        ("CheckRequest", api::schema_of::<api::CheckRequest>(), &[]),
        (
            "GetRulesRequest",
            api::schema_of::<w::GetRulesRequest>(),
            &[],
        ),
        ("RuleUpdate", api::schema_of::<w::RuleUpdate>(), &[]),
        ("ScoreRequest", api::schema_of::<w::ScoreRequest>(), &[]),
        (
            "CheckArticleRequest",
            api::schema_of::<w::CheckArticleRequest>(),
            &[],
        ),
        (
            "LogArticleRequest",
            api::schema_of::<w::LogArticleRequest>(),
            &[],
        ),
        (
            "GetArticlesRequest",
            api::schema_of::<w::GetArticlesRequest>(),
            &[],
        ),
        (
            "LogDecisionRequest",
            api::schema_of::<w::LogDecisionRequest>(),
            &[],
        ),
        (
            "GetWatchDecisionsRequest",
            api::schema_of::<w::GetWatchDecisionsRequest>(),
            &[],
        ),
        (
            "WebSearchOptions",
            api::schema_of::<w::WebSearchRequest>(),
            &["query"],
        ),
        (
            "VerifyFactRequest",
            api::schema_of::<w::VerifyFactRequest>(),
            &[],
        ),
        (
            "CreateProjectRequest",
            api::schema_of::<w::CreateProjectRequest>(),
            &[],
        ),
        (
            "ListProjectsRequest",
            api::schema_of::<w::ListProjectsRequest>(),
            &[],
        ),
        (
            "UpdateProjectRequest",
            api::schema_of::<w::UpdateProjectRequest>(),
            &[],
        ),
        (
            "StoreContextRequest",
            api::schema_of::<w::StoreContextRequest>(),
            &[],
        ),
        (
            "QueryContextRequest",
            api::schema_of::<w::QueryContextRequest>(),
            &[],
        ),
        (
            "CreateTaskRequest",
            api::schema_of::<w::CreateTaskRequest>(),
            &[],
        ),
        (
            "UpdateTaskRequest",
            api::schema_of::<w::UpdateTaskRequest>(),
            &[],
        ),
        (
            "NextTasksRequest",
            api::schema_of::<w::NextTasksRequest>(),
            &[],
        ),
        (
            "LogProjectDecisionRequest",
            api::schema_of::<w::LogProjectDecisionRequest>(),
            &[],
        ),
        (
            "GetProjectDecisionsRequest",
            api::schema_of::<w::GetProjectDecisionsRequest>(),
            &[],
        ),
        (
            "RememberRequest",
            api::schema_of::<m::RememberRequest>(),
            &[],
        ),
        ("RecallRequest", api::schema_of::<m::RecallRequest>(), &[]),
        ("ForgetRequest", api::schema_of::<m::ForgetRequest>(), &[]),
        (
            "ResearchOptions",
            api::schema_of::<api::research::ResearchOptions>(),
            &[],
        ),
        (
            "AddReferenceRequest",
            api::schema_of::<api::research::AddReferenceRequest>(),
            &[],
        ),
        (
            "FetchRequest",
            api::schema_of::<api::FetchRequest>(),
            &["target"],
        ),
        ("NewMemoryEvent", api::schema_of::<m::NewEvent>(), &[]),
        (
            "MemorySearchOptions",
            api::schema_of::<m::EventQuery>(),
            &[],
        ),
    ]
}

/// Fields a Python method takes as a positional argument besides the
/// ones [`options`] names (its `TypedDict` leaves them out).
const PY_POSITIONAL: &[(&str, &str)] = &[
    ("CheckRequest", "content"),
    ("GetRulesRequest", "type"),
    ("RuleUpdate", "name"),
    ("RuleUpdate", "type"),
    ("RuleUpdate", "keywords"),
    ("CheckArticleRequest", "url"),
    ("LogArticleRequest", "url"),
    ("LogArticleRequest", "title"),
    ("LogArticleRequest", "source"),
    ("LogArticleRequest", "source_type"),
    ("LogDecisionRequest", "llm"),
    ("LogDecisionRequest", "decision_type"),
    ("LogDecisionRequest", "decision"),
    ("VerifyFactRequest", "claim"),
    ("CreateProjectRequest", "name"),
    ("UpdateProjectRequest", "project_id"),
    ("StoreContextRequest", "project_id"),
    ("StoreContextRequest", "content"),
    ("QueryContextRequest", "project_id"),
    ("QueryContextRequest", "query"),
    ("CreateTaskRequest", "project_id"),
    ("CreateTaskRequest", "title"),
    ("UpdateTaskRequest", "task_id"),
    ("NextTasksRequest", "project_id"),
    ("LogProjectDecisionRequest", "project_id"),
    ("LogProjectDecisionRequest", "decision"),
    ("GetProjectDecisionsRequest", "project_id"),
    ("RememberRequest", "text"),
    ("RecallRequest", "query"),
    ("ForgetRequest", "id"),
    ("AddReferenceRequest", "url"),
    ("NewMemoryEvent", "content"),
    ("MemorySearchOptions", "vector_query"),
];

/// Python keyword types wider than the JSON one: a time filter also takes
/// a `datetime` or a `date`, a directory an `os.PathLike`
/// (`bindings/python/src/conv.rs`).
const PY_KWARG_TYPES: &[(&str, &str)] = &[
    ("since", "_Time"),
    ("until", "_Time"),
    ("ts_start", "_Time"),
    ("ts_end", "_Time"),
    ("timestamp", "_Time"),
    ("expires_at", "_Time"),
    ("run_dir", "_Path"),
    ("knowledge_dir", "_Path"),
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `text` with the section between the `comment`-prefixed markers replaced by `section`.
fn splice(text: &str, comment: &str, section: &str, file: &str) -> String {
    let begin = format!("{comment} {BEGIN}\n");
    let end = format!("{comment} {END}\n");
    let a = text
        .find(&begin)
        .unwrap_or_else(|| panic!("{file}: no line `{}`", begin.trim_end()));
    let b = text
        .find(&end)
        .unwrap_or_else(|| panic!("{file}: no line `{}`", end.trim_end()));
    assert!(
        a < b,
        "{file}: the generated section's markers are out of order"
    );
    format!(
        "{}{begin}{section}\n{end}{}",
        &text[..a],
        &text[b + end.len()..]
    )
}

fn generated() -> (String, String) {
    let options = options();
    let py_results: Vec<_> = results().into_iter().chain(py_results()).collect();
    let mut defs = Defs::new(&py_results, &options, PY_DISPLAYED);
    let py = python(&mut defs, &py_results, &options);
    let ts_results: Vec<_> = results().into_iter().chain(ts_results()).collect();
    let inputs = ts_inputs();
    let mut defs = Defs::new(&ts_results, &options, &[]);
    for (name, schema, _) in &inputs {
        for f in defs.fields(schema) {
            assert!(
                !f.name.contains('_'),
                "`{name}.{}`: Node reads this input's keys as written, so a snake_case key cannot be declared",
                f.name
            );
        }
    }
    let options: Vec<_> = options.into_iter().chain(inputs).collect();
    let ts = typescript(&mut defs, &ts_results, &options);
    (py, ts)
}

#[test]
fn checked_in_binding_types_match_the_api_schemas() {
    let (py, ts) = generated();
    let write = std::env::var_os("VERITY_WRITE_BINDING_TYPES").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for (file, comment, section) in [
        ("python/verity/_verity.pyi", "#", &py),
        ("node/index.d.ts", "//", &ts),
    ] {
        let path = repo().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let fresh = splice(&text, comment, section, file);
        if fresh != text {
            if write {
                std::fs::write(&path, &fresh).unwrap();
            } else {
                stale.push(file);
            }
        }
    }
    assert!(
        stale.is_empty(),
        "{stale:?} differ from the verity::api schemas: run\n  VERITY_WRITE_BINDING_TYPES=1 cargo nextest run --workspace -E 'package(verity-ai) & test(/^binding_types::/)'\nand commit the result"
    );
}

#[test]
fn splice_replaces_only_the_section() {
    let text = format!("head\n# {BEGIN}\nold\n# {END}\ntail\n");
    let out = splice(&text, "#", "new\nlines", "f");
    assert_eq!(out, format!("head\n# {BEGIN}\nnew\nlines\n# {END}\ntail\n"));
}

#[test]
fn optional_and_enum_fields_become_optional_and_literal_types() {
    let results = results();
    let options = options();
    let mut defs = Defs::new(&results, &options, PY_DISPLAYED);
    let (_, schema) = results.iter().find(|(n, _)| *n == "CheckResult").unwrap();
    let fields = defs.fields(schema);
    let get = |n: &str| fields.iter().find(|f| f.name == n).unwrap().ty.clone();
    assert_eq!(py(&get("source_url")), "Optional[str]");
    assert_eq!(py(&get("verdict")), "_Verdict");
    assert_eq!(py(&get("passages")), "list[Passage]");
    assert!(defs.enums["Verdict"].0.contains(&"SUPPORTED".to_string()));
    assert_eq!(
        prose("1 to [`MAX_K`] (see [the docs](crate::x))"),
        "1 to `MAX_K` (see the docs)"
    );
    assert_eq!(rst_code("`k` and ```x```"), "``k`` and ```x```");
}

#[test]
fn flattened_fields_plain_objects_and_tagged_enums_are_declared() {
    let (py_out, ts_out) = generated();
    let options = options();
    let py_results: Vec<_> = results().into_iter().chain(py_results()).collect();
    let mut defs = Defs::new(&py_results, &options, PY_DISPLAYED);
    let (_, hit) = py_results.iter().find(|(n, _)| *n == "Hit").unwrap();
    let fields = defs.fields(hit);
    let get = |n: &str| fields.iter().find(|f| f.name == n).map(|f| py(&f.ty));
    // `HitView` flattens the scored chunk: its fields are the hit's own.
    assert_eq!(get("chunk_id").as_deref(), Some("str"));
    assert_eq!(get("relevance").as_deref(), Some("float"));
    assert_eq!(get("chunk").as_deref(), Some("Chunk"));
    // A nested object that is no result class: a TypedDict in Python.
    assert_eq!(get("doc").as_deref(), Some("_DocumentMeta"));
    assert!(py_out.contains("class _DocumentMeta(TypedDict):\n"));
    assert!(py_out.contains("    title: NotRequired[Optional[str]]\n"));
    // Python shows an embedder id as a string; Node as the serialized object.
    assert!(py_out.contains("    def embedder(self) -> Optional[str]:"));
    assert!(ts_out.contains("  embedder: EmbedderId | null\n"));
    // A tagged enum: one object shape per variant, keys camelCase.
    assert!(ts_out.contains(
        "  embeddingSource: { kind: 'supplied' } | { field: string; kind: 'auto' } | { kind: 'none' }\n"
    ));
    // One declaration per type in each file.
    for (text, prefix) in [(&py_out, "class "), (&ts_out, "export interface ")] {
        let mut names: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix(prefix))
            .map(|l| l.split([' ', '(', ':']).next().unwrap())
            .collect();
        let all = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all, "a type is declared twice");
    }
}
