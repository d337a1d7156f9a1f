//! The type declarations of the Python and Node bindings, generated from
//! the JSON schemas of the `verity::api` types, and the check that the
//! checked-in files hold exactly what this generator writes.
//!
//! Each file has one generated section between [`BEGIN`] and [`END`]
//! lines (`python/verity/_verity.pyi`, `node/index.d.ts`); the rest (the
//! `Store`/`Verity` classes and their method signatures, the types whose
//! binding adds members of its own such as `Hit`'s shortcuts) stays
//! hand-written. After changing an api type, or adding one to [`results`] or
//! [`options`], rewrite the sections with
//!
//! ```text
//! VERITY_WRITE_BINDING_TYPES=1 cargo nextest run --workspace -E 'package(verity-ai) & test(/^binding_types::/)'
//! ```
//!
//! and commit the result; without the variable the test fails when a
//! checked-in section differs from the generator's output.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::Value;
use verity::api;

/// First line of a generated section (after the comment marker).
const BEGIN: &str = "---- generated from the verity::api schemas by crates/verity/tests/binding_types.rs: do not edit (begin) ----";
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

/// Api types Python exposes through a hand-written class (`Document`, with
/// a constructor) that generated types refer to.
const PY_HAND_WRITTEN: &[(&str, &str)] = &[("Document", "Document")];

/// Result types only TypeScript declares: a document as results hold it
/// (`source` always there), apart from the hand-written input `Document`.
fn ts_results() -> Vec<(&'static str, Value)> {
    vec![("StoredDocument", out::<verity::Document>())]
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
];

/// Python keyword types wider than the JSON one: a time filter also takes
/// a `datetime` or a `date` (`bindings/python/src/conv.rs`).
const PY_KWARG_TYPES: &[(&str, &str)] = &[
    ("since", "_Time"),
    ("until", "_Time"),
    ("ts_start", "_Time"),
    ("ts_end", "_Time"),
];

// ------------------------------------------------------------------ types

/// A schema reduced to what a type declaration needs.
#[derive(Debug, Clone, PartialEq)]
enum Ty {
    Str,
    Int,
    Float,
    Bool,
    Any,
    List(Box<Ty>),
    Tuple(Vec<Ty>),
    Map(Box<Ty>),
    /// A generated or hand-written class / interface.
    Class(String),
    /// A string enumeration, by its alias name.
    Enum(String),
    /// String values of an enumeration with no name of its own.
    Lit(Vec<String>),
    /// An object with no name of its own (inline in TypeScript).
    Object(Vec<Field>),
    Nullable(Box<Ty>),
    Union(Vec<Ty>),
}

#[derive(Debug, Clone, PartialEq)]
struct Field {
    name: String,
    ty: Ty,
    required: bool,
    doc: Option<String>,
}

/// Every definition met, by its schema name, and what it becomes.
struct Defs {
    schemas: BTreeMap<String, Value>,
    /// Schema name → binding name of the result classes and hand-written classes.
    classes: BTreeMap<String, String>,
    /// Enumerations met: alias name → values (and their docs).
    enums: BTreeMap<String, (Vec<String>, Option<String>)>,
    /// Object definitions met that are not classes (TypeScript declares them).
    objects: BTreeSet<String>,
}

impl Defs {
    fn new(
        roots: &[(&str, Value)],
        options: &[(&str, Value, &[&str])],
        hand_written: &[(&str, &str)],
    ) -> Self {
        let mut schemas = BTreeMap::new();
        let mut classes = BTreeMap::new();
        let all = roots
            .iter()
            .map(|(n, s)| (*n, s))
            .chain(options.iter().map(|(n, s, _)| (*n, s)));
        for (name, schema) in all {
            for (k, v) in schema
                .get("$defs")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let is_result = roots.iter().any(|(n, _)| *n == name);
                match schemas.get(k) {
                    // Request schemas (deserialized) may differ from the
                    // serialized one of the same type in `required` only.
                    Some(_) if !is_result => {}
                    Some(old) => assert_eq!(old, v, "two api types are both named `{k}`"),
                    None => {
                        schemas.insert(k.clone(), v.clone());
                    }
                }
            }
            let title = schema["title"].as_str().unwrap().to_string();
            if roots.iter().any(|(n, _)| *n == name) {
                let mut own = schema.clone();
                for key in ["$defs", "$schema", "title"] {
                    own.as_object_mut().unwrap().remove(key);
                }
                if let Some(old) = schemas.insert(title.clone(), own.clone()) {
                    assert_eq!(old, own, "two api types are both named `{title}`");
                }
                assert!(
                    classes.insert(title.clone(), name.to_string()).is_none(),
                    "api type `{title}` is listed twice"
                );
            }
        }
        for (schema_name, binding) in hand_written {
            classes.insert(schema_name.to_string(), binding.to_string());
        }
        Self {
            schemas,
            classes,
            enums: BTreeMap::new(),
            objects: BTreeSet::new(),
        }
    }

    fn ty(&mut self, s: &Value) -> Ty {
        if s == &Value::Bool(true) || s.as_object().is_some_and(|o| o.is_empty()) {
            return Ty::Any;
        }
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            let name = r.rsplit('/').next().unwrap().to_string();
            return self.named(&name);
        }
        if let Some(values) = string_enum(s) {
            // An inline enumeration (no definition of its own).
            return Ty::Lit(values.into_iter().map(|(v, _)| v).collect());
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(alts) = s.get(key).and_then(Value::as_array) {
                let null = alts.iter().any(|a| a["type"] == "null");
                let rest: Vec<Ty> = alts
                    .iter()
                    .filter(|a| a["type"] != "null")
                    .map(|a| self.ty(a))
                    .collect();
                let t = if rest.len() == 1 {
                    rest.into_iter().next().unwrap()
                } else {
                    Ty::Union(rest)
                };
                return if null { Ty::Nullable(Box::new(t)) } else { t };
            }
        }
        match &s["type"] {
            Value::Array(types) => {
                let null = types.iter().any(|t| t == "null");
                let rest: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
                let mut one = s.clone();
                let t = if rest.len() == 1 {
                    one["type"] = rest[0].clone();
                    self.ty(&one)
                } else {
                    Ty::Union(
                        rest.iter()
                            .map(|t| {
                                one["type"] = (*t).clone();
                                self.ty(&one)
                            })
                            .collect(),
                    )
                };
                if null {
                    Ty::Nullable(Box::new(t))
                } else {
                    t
                }
            }
            Value::String(t) => match t.as_str() {
                "string" => Ty::Str,
                "integer" => Ty::Int,
                "number" => Ty::Float,
                "boolean" => Ty::Bool,
                "array" => {
                    if let Some(items) = s.get("prefixItems").and_then(Value::as_array) {
                        Ty::Tuple(items.iter().map(|i| self.ty(i)).collect())
                    } else {
                        Ty::List(Box::new(s.get("items").map_or(Ty::Any, |i| self.ty(i))))
                    }
                }
                "object" => {
                    if s.get("properties").is_some() {
                        Ty::Object(self.fields(s))
                    } else {
                        match s.get("additionalProperties") {
                            Some(Value::Bool(false)) => Ty::Object(Vec::new()),
                            Some(v) => Ty::Map(Box::new(self.ty(v))),
                            None => Ty::Map(Box::new(Ty::Any)),
                        }
                    }
                }
                other => panic!("unhandled schema type `{other}` in {s}"),
            },
            _ => Ty::Any,
        }
    }

    /// A definition by name: a class, an enumeration or a plain object.
    fn named(&mut self, name: &str) -> Ty {
        if let Some(b) = self.classes.get(name) {
            return Ty::Class(b.clone());
        }
        let s = self
            .schemas
            .get(name)
            .unwrap_or_else(|| panic!("no definition `{name}`"))
            .clone();
        if let Some(values) = string_enum(&s) {
            let doc = description(&s);
            self.enums.insert(
                name.to_string(),
                (values.into_iter().map(|v| v.0).collect(), doc),
            );
            return Ty::Enum(name.to_string());
        }
        if s.get("properties").is_some() {
            self.objects.insert(name.to_string());
            return Ty::Class(name.to_string());
        }
        self.ty(&s)
    }

    fn fields(&mut self, s: &Value) -> Vec<Field> {
        let required: BTreeSet<&str> = s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let props = s["properties"].as_object().cloned().unwrap_or_default();
        props
            .iter()
            .map(|(name, p)| Field {
                name: name.clone(),
                ty: self.ty(p),
                required: required.contains(name.as_str()),
                doc: description(p),
            })
            .collect()
    }
}

impl Ty {
    /// The generated or hand-written classes this type names.
    fn names(&self, out: &mut BTreeSet<String>) {
        match self {
            Ty::Class(n) => {
                out.insert(n.clone());
            }
            Ty::List(t) | Ty::Map(t) | Ty::Nullable(t) => t.names(out),
            Ty::Tuple(ts) | Ty::Union(ts) => ts.iter().for_each(|t| t.names(out)),
            Ty::Object(fs) => fs.iter().for_each(|f| f.ty.names(out)),
            _ => {}
        }
    }
}

/// The values of a string enumeration (`enum` or `oneOf`/`anyOf` of `const`s).
fn string_enum(s: &Value) -> Option<Vec<(String, Option<String>)>> {
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        return e
            .iter()
            .map(|v| v.as_str().map(|v| (v.to_string(), None)))
            .collect();
    }
    let alts = s
        .get("oneOf")
        .or_else(|| s.get("anyOf"))
        .and_then(Value::as_array)?;
    alts.iter()
        .map(|a| {
            a.get("const")
                .and_then(Value::as_str)
                .map(|v| (v.to_string(), description(a)))
                .or_else(|| {
                    let e = a.get("enum")?.as_array()?;
                    let v = e.first().filter(|_| e.len() == 1)?.as_str()?;
                    Some((v.to_string(), description(a)))
                })
        })
        .collect()
}

fn description(s: &Value) -> Option<String> {
    s.get("description")
        .and_then(Value::as_str)
        .map(|d| prose(d.trim()))
}

/// A Rust doc comment as prose for another language's doc: intra-doc link
/// brackets removed (`[`MAX_K`]` → `` `MAX_K` ``), `[text](path)` → text.
fn prose(d: &str) -> String {
    let mut out = String::with_capacity(d.len());
    let chars: Vec<char> = d.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '[' {
            if let Some(close) = chars[i + 1..].iter().position(|&c| c == ']') {
                let inner: String = chars[i + 1..i + 1 + close].iter().collect();
                let after = i + 2 + close;
                let link_target = chars.get(after) == Some(&'(');
                let is_link = inner.starts_with('`') || link_target;
                if is_link && !inner.contains('[') {
                    out.push_str(&inner);
                    i = after;
                    if link_target {
                        if let Some(end) = chars[after..].iter().position(|&c| c == ')') {
                            i = after + end + 1;
                        }
                    }
                    continue;
                }
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

// ----------------------------------------------------------------- python

fn py(t: &Ty) -> String {
    match t {
        Ty::Str => "str".into(),
        Ty::Int => "int".into(),
        Ty::Float => "float".into(),
        Ty::Bool => "bool".into(),
        Ty::Any => "Any".into(),
        Ty::List(t) => format!("list[{}]", py(t)),
        Ty::Tuple(ts) => format!(
            "tuple[{}]",
            ts.iter().map(py).collect::<Vec<_>>().join(", ")
        ),
        Ty::Map(t) => format!("dict[str, {}]", py(t)),
        Ty::Class(n) => n.clone(),
        Ty::Enum(n) => format!("_{n}"),
        Ty::Lit(vs) => format!(
            "Literal[{}]",
            vs.iter()
                .map(|v| format!("\"{v}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Ty::Object(_) => "dict[str, Any]".into(),
        Ty::Nullable(t) => format!("Optional[{}]", py(t)),
        Ty::Union(ts) => union_py(ts),
    }
}

fn union_py(ts: &[Ty]) -> String {
    format!(
        "Union[{}]",
        ts.iter().map(py).collect::<Vec<_>>().join(", ")
    )
}

/// A keyword argument's type: any sequence for a list, any mapping for an object.
fn py_kwarg(t: &Ty) -> String {
    match t {
        Ty::List(t) => format!("Sequence[{}]", py_kwarg(t)),
        Ty::Map(t) => format!("Mapping[str, {}]", py(t)),
        Ty::Object(_) => "Mapping[str, Any]".into(),
        Ty::Class(_) => "Mapping[str, Any]".into(),
        Ty::Nullable(t) => py_kwarg(t),
        other => py(other),
    }
}

fn py_doc(out: &mut String, indent: &str, doc: &str) {
    let doc = doc.replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"");
    let doc = rst_code(&doc);
    let mut lines = doc.lines();
    let first = lines.next().unwrap_or_default();
    let rest: Vec<&str> = lines.collect();
    if rest.is_empty() {
        let end = if first.ends_with('"') { " " } else { "" };
        out.push_str(&format!("{indent}\"\"\"{first}{end}\"\"\"\n"));
    } else {
        out.push_str(&format!("{indent}\"\"\"{first}\n"));
        for l in rest {
            if l.trim().is_empty() {
                out.push('\n');
            } else {
                out.push_str(&format!("{indent}{l}\n"));
            }
        }
        out.push_str(&format!("{indent}\"\"\"\n"));
    }
}

/// Markdown code spans as reStructuredText literals (`` `x` `` → ``` ``x`` ```).
fn rst_code(d: &str) -> String {
    let mut out = String::with_capacity(d.len() + 8);
    let mut rest = d;
    while let Some(start) = rest.find('`') {
        let ticks = rest[start..].chars().take_while(|&c| c == '`').count();
        out.push_str(&rest[..start]);
        let after = &rest[start + ticks..];
        let fence = "`".repeat(ticks);
        match after.find(&fence) {
            Some(end) if ticks == 1 => {
                out.push_str("``");
                out.push_str(&after[..end]);
                out.push_str("``");
                rest = &after[end + 1..];
            }
            _ => {
                out.push_str(&fence);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn python(
    defs: &mut Defs,
    results: &[(&str, Value)],
    options: &[(&str, Value, &[&str])],
) -> String {
    let mut classes = String::new();
    for (name, schema) in results {
        let fields = defs.fields(schema);
        classes.push_str(&format!("class {name}:\n"));
        if let Some(d) = description(schema) {
            py_doc(&mut classes, "    ", &d);
        }
        for f in &fields {
            classes.push_str("    @property\n");
            match &f.doc {
                Some(d) => {
                    classes.push_str(&format!("    def {}(self) -> {}:\n", f.name, py(&f.ty)));
                    py_doc(&mut classes, "        ", d);
                }
                None => {
                    classes.push_str(&format!("    def {}(self) -> {}: ...\n", f.name, py(&f.ty)))
                }
            }
        }
        classes.push_str("    def __getitem__(self, key: str) -> Any:\n");
        classes.push_str(
            "        \"\"\"The field as plain data (``r[\"field\"]``, as when results were dicts).\"\"\"\n",
        );
        classes.push_str("    def to_dict(self) -> dict[str, Any]: ...\n\n");
    }
    let mut typed = String::new();
    for (name, schema, positional) in options {
        let fields = defs.fields(schema);
        typed.push_str(&format!("class _{name}(TypedDict, total=False):\n"));
        if let Some(d) = description(schema) {
            py_doc(&mut typed, "    ", &d);
        }
        let py_only = |f: &str| PY_POSITIONAL.contains(&(*name, f));
        for f in fields
            .iter()
            .filter(|f| !positional.contains(&f.name.as_str()) && !py_only(&f.name))
        {
            let ty = PY_KWARG_TYPES
                .iter()
                .find(|(n, _)| *n == f.name)
                .map_or_else(|| py_kwarg(&f.ty), |(_, t)| t.to_string());
            typed.push_str(&format!("    {}: Optional[{ty}]\n", f.name));
            if let Some(d) = &f.doc {
                py_doc(&mut typed, "    ", d);
            }
        }
        typed.push('\n');
    }
    let mut enums = String::new();
    for (name, (values, doc)) in &defs.enums {
        let lits = values
            .iter()
            .map(|v| format!("\"{v}\""))
            .collect::<Vec<_>>()
            .join(", ");
        enums.push_str(&format!("_{name} = Literal[{lits}]\n"));
        if let Some(d) = doc {
            py_doc(&mut enums, "", d);
        }
    }
    format!("{enums}\n{typed}{classes}").trim_end().to_string()
}

// ------------------------------------------------------------- typescript

fn camel(k: &str) -> String {
    let mut out = String::with_capacity(k.len());
    let mut upper = false;
    for (i, c) in k.chars().enumerate() {
        if c == '_' && i > 0 {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// `keys_camel`: results are camelCase; request objects nested in a request
/// keep the schema's snake_case (Node converts top-level option names only).
fn ts(t: &Ty, defs: &Defs, keys_camel: bool) -> String {
    match t {
        Ty::Str => "string".into(),
        Ty::Int | Ty::Float => "number".into(),
        Ty::Bool => "boolean".into(),
        Ty::Any => "unknown".into(),
        Ty::List(t) => {
            let inner = ts(t, defs, keys_camel);
            if matches!(**t, Ty::Union(_) | Ty::Nullable(_)) {
                format!("Array<{inner}>")
            } else {
                format!("{inner}[]")
            }
        }
        Ty::Tuple(ts_) => format!(
            "[{}]",
            ts_.iter()
                .map(|t| ts(t, defs, keys_camel))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Ty::Map(t) => format!("Record<string, {}>", ts(t, defs, keys_camel)),
        Ty::Class(n) if !keys_camel => {
            let schema = defs.schemas[n].clone();
            let mut d = Defs {
                schemas: defs.schemas.clone(),
                classes: BTreeMap::new(),
                enums: BTreeMap::new(),
                objects: BTreeSet::new(),
            };
            ts(&Ty::Object(d.fields(&schema)), &d, false)
        }
        Ty::Class(n) => n.clone(),
        Ty::Enum(n) => n.clone(),
        Ty::Lit(vs) => vs
            .iter()
            .map(|v| format!("'{v}'"))
            .collect::<Vec<_>>()
            .join(" | "),
        Ty::Object(fs) => {
            let body = fs
                .iter()
                .map(|f| {
                    let key = if keys_camel {
                        camel(&f.name)
                    } else {
                        f.name.clone()
                    };
                    let opt = if f.required { "" } else { "?" };
                    format!("{key}{opt}: {}", ts(&f.ty, defs, keys_camel))
                })
                .collect::<Vec<_>>()
                .join("; ");
            if body.is_empty() {
                "Record<string, never>".into()
            } else {
                format!("{{ {body} }}")
            }
        }
        Ty::Nullable(t) => format!("{} | null", ts(t, defs, keys_camel)),
        Ty::Union(ts_) => ts_
            .iter()
            .map(|t| ts(t, defs, keys_camel))
            .collect::<Vec<_>>()
            .join(" | "),
    }
}

fn ts_doc(out: &mut String, indent: &str, doc: &str) {
    let doc = doc.replace("*/", "*\\/");
    let lines: Vec<&str> = doc.lines().collect();
    if lines.len() == 1 {
        out.push_str(&format!("{indent}/** {} */\n", lines[0]));
    } else {
        out.push_str(&format!("{indent}/**\n"));
        for l in lines {
            if l.trim().is_empty() {
                out.push_str(&format!("{indent} *\n"));
            } else {
                out.push_str(&format!("{indent} * {l}\n"));
            }
        }
        out.push_str(&format!("{indent} */\n"));
    }
}

fn ts_interface(
    out: &mut String,
    defs: &mut Defs,
    name: &str,
    schema: &Value,
    skip: &[&str],
    camel_keys: bool,
) {
    let fields = defs.fields(schema);
    if let Some(d) = description(schema) {
        ts_doc(out, "", &d);
    }
    out.push_str(&format!("export interface {name} {{\n"));
    for f in fields.iter().filter(|f| !skip.contains(&f.name.as_str())) {
        if camel_keys && USER_DATA.contains(&f.name.as_str()) {
            let mut named = BTreeSet::new();
            f.ty.names(&mut named);
            assert!(
                named.is_empty() && !matches!(f.ty, Ty::Object(_)),
                "`{name}.{}` holds a typed object under a user-data key, whose keys Node leaves in snake_case",
                f.name
            );
        }
        if let Some(d) = &f.doc {
            ts_doc(out, "  ", d);
        }
        // Top-level keys are camelCase (Node converts option names); objects
        // nested in a request keep the schema's snake_case keys.
        let key = camel(&f.name);
        let (opt, ty) = match (&f.ty, f.required) {
            (_, true) => ("", f.ty.clone()),
            // A result field that may be absent is skipped when `None`:
            // absent, never `null`.
            (Ty::Nullable(t), false) if camel_keys => ("?", (**t).clone()),
            (t, false) => ("?", t.clone()),
        };
        out.push_str(&format!("  {key}{opt}: {}\n", ts(&ty, defs, camel_keys)));
    }
    out.push_str("}\n\n");
}

fn typescript(
    defs: &mut Defs,
    results: &[(&str, Value)],
    options: &[(&str, Value, &[&str])],
) -> String {
    let mut body = String::new();
    for (name, schema) in results {
        ts_interface(&mut body, defs, name, schema, &[], true);
    }
    // Objects met that are neither results nor hand-written: declared too.
    let mut done = BTreeSet::new();
    loop {
        let todo: Vec<String> = defs.objects.difference(&done).cloned().collect();
        if todo.is_empty() {
            break;
        }
        for n in todo {
            let schema = defs.schemas[&n].clone();
            ts_interface(&mut body, defs, &n, &schema, &[], true);
            done.insert(n);
        }
    }
    for (name, schema, positional) in options {
        ts_interface(&mut body, defs, name, schema, positional, false);
    }
    let mut enums = String::new();
    for (name, (values, doc)) in &defs.enums {
        if let Some(d) = doc {
            ts_doc(&mut enums, "", d);
        }
        let lits = values
            .iter()
            .map(|v| format!("'{v}'"))
            .collect::<Vec<_>>()
            .join(" | ");
        enums.push_str(&format!("export type {name} = {lits}\n"));
    }
    format!("{enums}\n{body}").trim_end().to_string()
}

// ------------------------------------------------------------------ files

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
    let results = results();
    let options = options();
    let mut defs = Defs::new(&results, &options, PY_HAND_WRITTEN);
    let py = python(&mut defs, &results, &options);
    let results: Vec<_> = results.into_iter().chain(ts_results()).collect();
    let mut defs = Defs::new(&results, &options, &[]);
    let ts = typescript(&mut defs, &results, &options);
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
    let mut defs = Defs::new(&results, &options, PY_HAND_WRITTEN);
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
