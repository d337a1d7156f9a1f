//! Typed, read-only result objects. Each wraps the Rust value it came from
//! and only exposes it: getters, `to_dict()` (plain Python data through
//! serde), `__repr__` and `__eq__`. No logic lives here.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde::Serialize;

use crate::conv::{self, Json};

/// `Name(field=value, …)` from the serialized fields listed.
pub(crate) fn repr<T: Serialize>(name: &str, v: &T, fields: &[&str]) -> String {
    let json = serde_json::to_value(v).unwrap_or_default();
    let parts: Vec<String> = fields
        .iter()
        .filter_map(|f| json.get(*f).map(|x| (f, x)))
        .map(|(f, x)| {
            let mut s = x.to_string();
            if s.len() > 60 {
                let cut = (0..=57).rev().find(|i| s.is_char_boundary(*i)).unwrap_or(0);
                s.truncate(cut);
                s.push('…');
            }
            format!("{f}={s}")
        })
        .collect();
    format!("{name}({})", parts.join(", "))
}

/// A Rust value as the Python value of an attribute: a typed result object
/// for the types wrapped here (every [`wrapper!`] implements it for its
/// inner type), plain data for the rest (numbers, strings, enums by their
/// serde names, timestamps as RFC 3339 strings), lists and `None` around them.
pub(crate) trait Attr {
    fn attr<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>>;
}

impl<T: Attr> Attr for Option<T> {
    fn attr<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Some(v) => v.attr(py),
            None => Ok(py.None().into_bound(py)),
        }
    }
}

impl<T: Attr> Attr for Vec<T> {
    fn attr<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let list = pyo3::types::PyList::empty(py);
        for v in self {
            list.append(v.attr(py)?)?;
        }
        Ok(list.into_any())
    }
}

/// [`Attr`] through serde: the value as `to_dict()` shows it.
macro_rules! plain_attr {
    ($($t:ty),* $(,)?) => {
        $(impl Attr for $t {
            fn attr<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                $crate::conv::to_py(py, self)
            }
        })*
    };
}
pub(crate) use plain_attr;

plain_attr!(
    String,
    bool,
    u16,
    i32,
    i64,
    u32,
    u64,
    usize,
    f32,
    f64,
    chrono::DateTime<chrono::Utc>,
    verity::fetch::Url,
    serde_json::Value,
);

/// A typed, read-only result class over a `verity::api` serde type.
/// `fields [a, b as "type"]` generates one getter per serde field (named as
/// serialized, its value through [`Attr`]) and `__getitem__` (dict-style
/// access, see [`item`]); a `{ … }` body lists hand-written methods instead.
macro_rules! wrapper {
    ($(#[$m:meta])* $name:ident($ty:ty) repr [$($f:literal),*] fields [$($field:ident $(as $py:literal)?),* $(,)?]) => {
        $crate::types::wrapper! {
            $(#[$m])* $name($ty) repr [$($f),*] {
                $(
                    #[getter] $(#[pyo3(name = $py)])?
                    fn $field<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                        $crate::types::Attr::attr(&self.inner.$field, py)
                    }
                )*
                fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
                    $crate::types::item(py, &self.inner, key)
                }
            }
        }
    };
    ($(#[$m:meta])* $name:ident($ty:ty) repr [$($f:literal),*] { $($body:tt)* }) => {
        $crate::types::wrapper! { $(#[$m])* $name($ty as &$ty) repr [$($f),*] { $($body)* } }
    };
    // `as View`: the object is shown (`to_dict()`, `repr`) as the api's
    // view of it, `View::from(&inner)`, the shape the REST and MCP JSON have.
    ($(#[$m:meta])* $name:ident($ty:ty as $view:ty) repr [$($f:literal),*] { $($body:tt)* }) => {
        $(#[$m])*
        #[pyclass(frozen, module = "verity")]
        #[derive(Clone)]
        pub struct $name {
            pub(crate) inner: $ty,
        }

        impl From<$ty> for $name {
            fn from(inner: $ty) -> Self {
                Self { inner }
            }
        }

        impl $crate::types::Attr for $ty {
            fn attr<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                Ok(Bound::new(py, $name::from(self.clone()))?.into_any())
            }
        }

        #[pymethods]
        impl $name {
            /// The object as plain Python data (dicts, lists, str, numbers, None).
            fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                $crate::conv::to_py(py, &<$view>::from(&self.inner))
            }

            fn __repr__(&self) -> String {
                $crate::types::repr(stringify!($name), &<$view>::from(&self.inner), &[$($f),*])
            }

            fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
                other.cast::<Self>().map(|o| o.get().inner == self.inner).unwrap_or(false)
            }

            $($body)*
        }
    };
}
pub(crate) use wrapper;

/// JSON of a sub-value, for getters returning plain data.
fn data<'py, T: Serialize>(py: Python<'py>, v: &T) -> PyResult<Bound<'py, PyAny>> {
    conv::to_py(py, v)
}

wrapper! {
    /// A source document (Verity's document schema).
    Document(verity::Document) repr ["uid", "title", "source", "lang"] {
        #[new]
        #[pyo3(signature = (uid, content, *, source = String::new(), ts = None, lang = None, title = None, tags = None, url = None, metadata = None))]
        #[allow(clippy::too_many_arguments)]
        fn new(
            py: Python<'_>,
            uid: String,
            content: String,
            source: String,
            ts: Option<&Bound<'_, PyAny>>,
            lang: Option<String>,
            title: Option<String>,
            tags: Option<Vec<String>>,
            url: Option<String>,
            metadata: Option<&Bound<'_, PyDict>>,
        ) -> PyResult<Self> {
            let mut d = verity::Document::new(uid, content);
            d.source = source;
            d.ts = match ts {
                Some(t) if !t.is_none() => Some(conv::from_py(py, t, "ts (RFC 3339 or datetime)")?),
                _ => None,
            };
            d.lang = lang;
            d.title = title;
            d.tags = tags.unwrap_or_default();
            d.url = url;
            if let Some(m) = metadata {
                d.metadata = conv::from_py(py, m.as_any(), "metadata")?;
            }
            Ok(Self { inner: d })
        }
        #[getter] fn uid(&self) -> &str { &self.inner.uid }
        #[getter] fn source(&self) -> &str { &self.inner.source }
        /// RFC 3339, as `to_dict()` and the JSON of every host write it (`…Z`).
        #[getter] fn ts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> { Attr::attr(&self.inner.ts, py) }
        #[getter] fn lang(&self) -> Option<&str> { self.inner.lang.as_deref() }
        #[getter] fn title(&self) -> Option<&str> { self.inner.title.as_deref() }
        #[getter] fn content(&self) -> &str { &self.inner.content }
        #[getter] fn tags(&self) -> Vec<String> { self.inner.tags.clone() }
        #[getter] fn url(&self) -> Option<&str> { self.inner.url.as_deref() }
        #[getter] fn metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> { data(py, &self.inner.metadata) }
        fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> { item(py, &self.inner, key) }
    }
}

wrapper! {
    /// A piece of a document, with its byte span in the document content.
    Chunk(verity::Chunk) repr ["id", "start", "end", "text"] {
        #[getter] fn id(&self) -> &str { &self.inner.id }
        #[getter] fn doc_uid(&self) -> &str { &self.inner.doc_uid }
        #[getter] fn index(&self) -> u32 { self.inner.index }
        #[getter] fn text(&self) -> &str { &self.inner.text }
        #[getter] fn start(&self) -> usize { self.inner.start }
        #[getter] fn end(&self) -> usize { self.inner.end }
        #[getter] fn heading_path(&self) -> Vec<String> { self.inner.heading_path.clone() }
        #[getter] fn token_count(&self) -> u32 { self.inner.token_count }
        fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> { item(py, &self.inner, key) }
    }
}

wrapper! {
    /// One search hit: a chunk, its document (without content) and its scores.
    Hit(verity::ScoredChunk as verity::api::HitView<'_>) repr ["score", "relevance"] {
        #[getter] fn chunk(&self) -> Chunk { self.inner.chunk.clone().into() }
        #[getter] fn chunk_id(&self) -> &str { &self.inner.chunk.id }
        #[getter] fn uid(&self) -> &str { &self.inner.doc.uid }
        #[getter] fn text(&self) -> &str { &self.inner.chunk.text }
        #[getter] fn title(&self) -> Option<&str> { self.inner.doc.title.as_deref() }
        #[getter] fn source(&self) -> &str { &self.inner.doc.source }
        #[getter] fn url(&self) -> Option<&str> { self.inner.doc.url.as_deref() }
        #[getter] fn doc<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> { data(py, &self.inner.doc) }
        #[getter] fn score(&self) -> f32 { self.inner.score }
        #[getter] fn relevance(&self) -> f32 { self.inner.relevance }
        #[getter] fn lexical(&self) -> Option<f32> { self.inner.lexical }
        #[getter] fn dense(&self) -> Option<f32> { self.inner.dense }
        #[getter] fn freshness(&self) -> Option<f32> { self.inner.freshness }
        fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> { item(py, &verity::api::HitView::from(&self.inner), key) }
    }
}

wrapper! {
    /// Search results: hits best first, the mode used, and the guardrail verdict.
    SearchResults(verity::SearchResults as verity::api::SearchResultsView<'_>) repr ["mode", "not_enough_evidence"] {
        #[getter] fn hits(&self) -> Vec<Hit> { self.inner.hits.iter().cloned().map(Hit::from).collect() }
        #[getter] fn mode(&self) -> String { self.inner.mode.to_string() }
        #[getter] fn not_enough_evidence(&self) -> bool { self.inner.not_enough_evidence }
        #[getter] fn notes(&self) -> Vec<String> { self.inner.notes.clone() }
        fn __len__(&self) -> usize { self.inner.hits.len() }
        fn __getitem__(&self, i: isize) -> PyResult<Hit> {
            let n = self.inner.hits.len() as isize;
            let j = if i < 0 { i + n } else { i };
            usize::try_from(j)
                .ok()
                .and_then(|j| self.inner.hits.get(j))
                .cloned()
                .map(Hit::from)
                .ok_or_else(|| pyo3::exceptions::PyIndexError::new_err("hit index out of range"))
        }
        fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyIterator>> {
            self.hits().into_pyobject(py)?.try_iter()
        }
    }
}

wrapper! {
    /// A source cited by an answer: `[index]` ↔ chunk ↔ document ↔ URL.
    Citation(verity::Citation) repr ["index", "doc_uid", "title"] {
        #[getter] fn index(&self) -> usize { self.inner.index }
        #[getter] fn chunk_id(&self) -> &str { &self.inner.chunk_id }
        #[getter] fn doc_uid(&self) -> &str { &self.inner.doc_uid }
        #[getter] fn source(&self) -> &str { &self.inner.source }
        #[getter] fn title(&self) -> Option<&str> { self.inner.title.as_deref() }
        #[getter] fn url(&self) -> Option<&str> { self.inner.url.as_deref() }
        #[getter] fn quote(&self) -> Option<&str> { self.inner.quote.as_deref() }
        #[getter] fn span(&self) -> Option<(usize, usize)> { self.inner.span }
        fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> { item(py, &self.inner, key) }
    }
}

wrapper! {
    /// A grounded answer with `[n]` markers and its citations.
    Answer(verity::Answer) repr ["text", "confidence", "not_enough_evidence", "model"] {
        #[getter] fn text(&self) -> &str { &self.inner.text }
        #[getter] fn citations(&self) -> Vec<Citation> { self.inner.citations.iter().cloned().map(Citation::from).collect() }
        #[getter] fn confidence(&self) -> f32 { self.inner.confidence }
        #[getter] fn degraded(&self) -> bool { self.inner.degraded }
        #[getter] fn not_enough_evidence(&self) -> bool { self.inner.not_enough_evidence }
        #[getter] fn invalid_citations(&self) -> Vec<usize> { self.inner.invalid_citations.clone() }
        #[getter] fn model(&self) -> &str { &self.inner.model }
        #[getter] fn cached(&self) -> bool { self.inner.cached }
        #[getter] fn timings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> { data(py, &self.inner.timings) }
        #[getter] fn notes(&self) -> Vec<String> { self.inner.notes.clone() }
        /// The answer checked against its sources (`None` with `verify="off"`).
        #[getter] fn verification<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> { Attr::attr(&self.inner.verification, py) }
        fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> { item(py, &self.inner, key) }
    }
}

/// Dict-style access to a typed result (`outcome["inserted"]`), kept so that
/// code written when these results were dicts keeps working.
pub(crate) fn item<'py, T: Serialize>(
    py: Python<'py>,
    v: &T,
    key: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let d = conv::to_py(py, v)?;
    d.get_item(key)
        .map_err(|_| pyo3::exceptions::PyKeyError::new_err(key.to_string()))
}

wrapper! {
    /// What an ingestion did (`Store.ingest`, `Store.ingest_paths`).
    IngestOutcome(verity::IngestOutcome) repr ["inserted", "replaced", "unchanged", "chunks", "lexical_only"] {
        #[getter] fn inserted(&self) -> usize { self.inner.inserted }
        #[getter] fn replaced(&self) -> usize { self.inner.replaced }
        #[getter] fn unchanged(&self) -> usize { self.inner.unchanged }
        #[getter] fn chunks(&self) -> usize { self.inner.chunks }
        #[getter] fn read_errors(&self) -> Vec<String> { self.inner.read_errors.clone() }
        #[getter] fn rejected(&self) -> Vec<String> { self.inner.rejected.clone() }
        #[getter] fn skipped_files(&self) -> Vec<String> { self.inner.skipped_files.iter().map(|p| p.display().to_string()).collect() }
        #[getter] fn lexical_only(&self) -> bool { self.inner.lexical_only }
        #[getter] fn embedder(&self) -> Option<String> { self.inner.embedder.as_ref().map(|e| e.to_string()) }
        #[getter] fn seconds(&self) -> f64 { self.inner.seconds }
        #[getter] fn bytes(&self) -> u64 { self.inner.bytes }
        #[getter] fn reprocessed(&self) -> usize { self.inner.reprocessed }
        /// Whether something was left out (a record, a file or a URL).
        #[getter] fn partial(&self) -> bool { self.inner.partial() }
        fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> { item(py, &self.inner, key) }
    }
}

wrapper! {
    /// Counts of the store's index.
    StoreStats(verity::core::StoreStats) repr ["backend", "index", "documents", "chunks", "vectors"] {
        #[getter] fn backend(&self) -> &str { &self.inner.backend }
        #[getter] fn index(&self) -> &str { &self.inner.index }
        #[getter] fn documents(&self) -> usize { self.inner.documents }
        #[getter] fn chunks(&self) -> usize { self.inner.chunks }
        #[getter] fn vectors(&self) -> usize { self.inner.vectors }
        #[getter] fn embedder(&self) -> Option<String> { self.inner.embedder.as_ref().map(|e| e.to_string()) }
        #[getter] fn size_bytes(&self) -> Option<u64> { self.inner.size_bytes }
        fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> { item(py, &self.inner, key) }
    }
}

wrapper! {
    /// What the store holds and how it is configured (`Store.stats`).
    Stats(verity::api::StatsResponse) repr ["store", "embedder", "generator", "home"] {
        #[getter] fn store(&self) -> StoreStats { self.inner.store.clone().into() }
        #[getter] fn embedder(&self) -> Option<String> { self.inner.embedder.as_ref().map(|e| e.to_string()) }
        #[getter] fn generator(&self) -> &str { &self.inner.generator }
        #[getter] fn home(&self) -> String { self.inner.home.display().to_string() }
        #[getter] fn redis(&self) -> Option<&str> { self.inner.redis.as_deref() }
        #[getter] fn notes(&self) -> Vec<String> { self.inner.notes.clone() }
        fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> { item(py, &self.inner, key) }
    }
}

/// Wrap a value for an async result.
pub fn wrap<T, W: From<T>>(v: T) -> PyResult<W> {
    Ok(W::from(v))
}

/// Optional document for `get`.
pub fn maybe_document(v: Option<verity::Document>) -> PyResult<Option<Document>> {
    Ok(v.map(Document::from))
}

/// Plain data for an async result.
pub fn plain<T: Serialize>(v: T) -> PyResult<Json> {
    conv::json(&v)
}
