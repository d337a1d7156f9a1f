//! Streaming readers: seed-001 JSONL (and BEIR corpus JSONL), and whole
//! files — Markdown (front matter), plain text in any encoding, HTML (main
//! content), PDF — read through `verity-extract`, the parsers `verity fetch`
//! uses, and whole directories.
//!
//! Every reader yields `Result<Document, InputError>` one record at a time, so
//! large files are never held in memory as a whole, and a bad record does not
//! stop the others: callers decide whether to skip it or refuse the batch.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use verity_core::record::RecordDefaults;
use verity_core::{stable_uid, Document, InputError};

use verity_extract::detect_lang;

/// The file extensions [`read_paths`] reads (see [`InputKind::from_path`]),
/// for messages that list them.
pub const SUPPORTED_EXTENSIONS: &[&str] = &[
    "jsonl", "ndjson", "md", "markdown", "txt", "text", "html", "htm", "xhtml", "pdf",
];

/// What kind of input a file is, by extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// `.jsonl`, `.ndjson`: one record per line.
    Jsonl,
    /// `.md`, `.markdown`.
    Markdown,
    /// `.txt`, `.text`.
    Text,
    /// `.html`, `.htm`, `.xhtml`: the page's main content.
    Html,
    /// `.pdf`: the text layer.
    Pdf,
}

impl InputKind {
    /// The kind for a path's extension (case-insensitive), `None` when unsupported.
    pub fn from_path(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "jsonl" | "ndjson" => Some(Self::Jsonl),
            "md" | "markdown" => Some(Self::Markdown),
            "txt" | "text" => Some(Self::Text),
            "html" | "htm" | "xhtml" => Some(Self::Html),
            "pdf" => Some(Self::Pdf),
            _ => None,
        }
    }
}

/// Streams documents from a JSONL file.
///
/// Each non-empty line is one record, in the seed-001 schema
/// (`uid, source, ts, lang, title, content, tags, url` + any other field) or
/// the BEIR corpus format (`_id, title, text`). Fields that are not part of
/// [`Document`] go to `metadata`, and the entries of a `metadata` object are
/// merged into it. A missing `lang` is detected; a missing `uid` is derived
/// from the path and content ([`stable_uid`]); a missing `source` is the file
/// path.
///
/// A malformed line yields [`InputError::MalformedRecord`] (1-based line
/// number) and reading goes on with the next line.
pub struct JsonlReader<R> {
    reader: R,
    path: PathBuf,
    line: usize,
    buf: Vec<u8>,
    detect_lang: bool,
    done: bool,
    consumed: u64,
}

impl JsonlReader<BufReader<File>> {
    /// Open a JSONL file.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, InputError> {
        Self::open_in(path.as_ref(), None)
    }

    /// Open a JSONL file that must be a regular file (inside `roots` when
    /// given: see [`verity_extract::open::open_document`]).
    fn open_in(path: &Path, roots: Option<&[PathBuf]>) -> Result<Self, InputError> {
        let file = verity_extract::open::open_document(path, roots)?;
        Ok(Self::new(BufReader::with_capacity(256 * 1024, file), path))
    }
}

impl<R: BufRead> JsonlReader<R> {
    /// Read records from any buffered reader; `path` is used in errors and as default source.
    pub fn new(reader: R, path: impl Into<PathBuf>) -> Self {
        Self {
            reader,
            path: path.into(),
            line: 0,
            buf: Vec::new(),
            detect_lang: true,
            done: false,
            consumed: 0,
        }
    }

    /// Bytes read from the input so far.
    pub fn bytes_read(&self) -> u64 {
        self.consumed
    }

    /// Whether to detect `lang` when a record has none (default `true`).
    pub fn detect_lang(mut self, yes: bool) -> Self {
        self.detect_lang = yes;
        self
    }

    fn malformed(&self, message: impl Into<String>) -> InputError {
        InputError::MalformedRecord {
            path: self.path.clone(),
            line: self.line,
            message: message.into(),
        }
    }
}

impl<R: BufRead> Iterator for JsonlReader<R> {
    type Item = Result<Document, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done {
                return None;
            }
            self.buf.clear();
            match self.reader.read_until(b'\n', &mut self.buf) {
                Ok(0) => {
                    self.done = true;
                    return None;
                }
                Ok(n) => {
                    self.line += 1;
                    self.consumed += n as u64;
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(unreadable(&self.path, &e)));
                }
            }
            let raw = self
                .buf
                .strip_prefix(b"\xEF\xBB\xBF".as_slice())
                .unwrap_or(&self.buf);
            if raw.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let value: Value = match serde_json::from_slice(raw) {
                Ok(v) => v,
                Err(e) => {
                    let msg = if std::str::from_utf8(raw).is_err() {
                        "invalid UTF-8".to_string()
                    } else {
                        e.to_string()
                    };
                    return Some(Err(self.malformed(msg)));
                }
            };
            let Value::Object(map) = value else {
                return Some(Err(self.malformed("a record must be a JSON object")));
            };
            return Some(
                record_to_document(map, &self.path, self.detect_lang)
                    .map_err(|m| self.malformed(m)),
            );
        }
    }
}

fn unreadable(path: &Path, e: &std::io::Error) -> InputError {
    InputError::Unreadable {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Map one JSON object to a [`Document`]: the one record conversion
/// ([`Document::from_record`]) with a file's defaults, then language detection.
fn record_to_document(
    map: Map<String, Value>,
    path: &Path,
    detect: bool,
) -> Result<Document, String> {
    let mut doc = Document::from_record(map, &RecordDefaults::file(path.display().to_string()))?;
    if doc.lang.is_none() && detect {
        doc.lang = detect_lang(&doc.content);
    }
    Ok(doc)
}

/// Why a file gave no document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// Not a type Verity reads (by extension), or binary content.
    Unsupported,
    /// It could not be opened or read.
    Unreadable,
    /// A PDF without a text layer (scanned or encrypted).
    NoTextLayer,
    /// Damaged or not in the format its name says.
    Malformed,
    /// It was read but holds no text.
    Empty,
}

impl SkipReason {
    /// Stable machine-readable name (`unsupported`, `unreadable`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::Unsupported => "unsupported",
            SkipReason::Unreadable => "unreadable",
            SkipReason::NoTextLayer => "no_text_layer",
            SkipReason::Malformed => "malformed",
            SkipReason::Empty => "empty",
        }
    }
}

/// A file left out of a read, and why; hosts report these (the CLI exits 7).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SkippedFile {
    /// The file.
    pub path: PathBuf,
    /// The class of problem.
    pub reason: SkipReason,
    /// Human-readable detail.
    pub detail: String,
}

/// A file that could not be read into a document: the error to report and
/// the reason it was skipped.
fn file_error(path: &Path, e: verity_core::Error) -> (InputError, SkipReason) {
    use verity_core::{Error, ParseError};
    let reason = match &e {
        Error::Input(InputError::Unreadable { .. }) => SkipReason::Unreadable,
        Error::Input(InputError::Unsupported { .. }) => SkipReason::Unsupported,
        Error::Parse(ParseError::NoTextLayer { .. }) => SkipReason::NoTextLayer,
        Error::Parse(ParseError::Unsupported(_)) => SkipReason::Unsupported,
        _ => SkipReason::Malformed,
    };
    let input = match e {
        Error::Input(i) => i,
        Error::Parse(ParseError::Unsupported(detail)) => InputError::Unsupported {
            path: path.to_path_buf(),
            detail,
        },
        other => InputError::Unsupported {
            path: path.to_path_buf(),
            detail: other.to_string(),
        },
    };
    (input, reason)
}

/// Read one file — Markdown, text, HTML or PDF — as one [`Document`],
/// through `verity-extract` (the parsers of `verity fetch`).
///
/// `source` is the path, `uid` = [`stable_uid`]`(path, content)`. Markdown
/// front matter fills `title`, `ts` (`date`), `tags`, `url` and `lang`
/// (other keys go to `metadata`) and is not part of the content; HTML gives
/// its main content as Markdown with the page's metadata; PDF its text
/// layer. Text is decoded whatever its encoding (BOM, UTF-8, else
/// Windows-1252/Latin-1). The title falls back to the file stem; `lang` is
/// detected when not declared; `metadata.format` names the format. Binary
/// content is [`InputError::Unsupported`].
pub fn read_file(path: impl AsRef<Path>) -> Result<Document, InputError> {
    read_document(path.as_ref(), None).map_err(|(e, _)| e)
}

/// [`read_file`] under its former name.
pub fn read_text_file(path: impl AsRef<Path>) -> Result<Document, InputError> {
    read_file(path)
}

fn read_document(
    path: &Path,
    roots: Option<&[PathBuf]>,
) -> Result<Document, (InputError, SkipReason)> {
    let kind = InputKind::from_path(path);
    // One open, checked (regular file; inside the roots when confined), one read.
    let bytes = verity_extract::read_document_bytes(path, roots).map_err(|e| {
        let reason = match e {
            InputError::Unsupported { .. } => SkipReason::Unsupported,
            _ => SkipReason::Unreadable,
        };
        (e, reason)
    })?;
    if matches!(kind, Some(InputKind::Markdown | InputKind::Text)) {
        // A NUL byte outside UTF-16 text means binary content under a text name.
        let head = &bytes;
        let utf16 = head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]);
        if let Some(pos) = head.iter().position(|&b| b == 0).filter(|_| !utf16) {
            return Err((
                InputError::Unsupported {
                    path: path.to_path_buf(),
                    detail: format!("binary content (NUL byte at offset {pos})"),
                },
                SkipReason::Unsupported,
            ));
        }
    }
    let parsed = verity_extract::parse_file_bytes(path, &bytes).map_err(|e| file_error(path, e))?;
    let format = match parsed.format {
        verity_core::SourceFormat::Markdown => "markdown",
        verity_core::SourceFormat::Html => "html",
        verity_core::SourceFormat::Pdf => "pdf",
        _ => "text",
    };
    let pages = parsed.pages.len();
    let mut doc = parsed.document;
    if doc.content.trim().is_empty() {
        return Err((
            InputError::Unsupported {
                path: path.to_path_buf(),
                detail: format!("no text in this {format} file"),
            },
            SkipReason::Empty,
        ));
    }
    doc.source = path.display().to_string();
    doc.uid = stable_uid(&doc.source, &doc.content);
    // Plain text has no heading: its title is the file name, not its first line.
    if format == "text" || doc.title.as_deref().is_none_or(|t| t.trim().is_empty()) {
        doc.title = path
            .file_stem()
            .and_then(|s| s.to_str())
            .map(str::to_string);
    }
    if doc.url.is_none() {
        if let Some(Value::String(u)) = doc.metadata.remove("url") {
            doc.url = Some(u);
        }
    }
    if doc.lang.is_none() {
        doc.lang = detect_lang(&doc.content);
    }
    doc.metadata
        .insert("format".into(), Value::String(format.into()));
    if pages > 0 {
        doc.metadata.insert("pages".into(), Value::from(pages));
    }
    Ok(doc)
}

/// Iterator over the documents under a list of files and directories; see [`read_paths`].
pub struct PathReader {
    /// Paths still to visit, in order.
    queue: VecDeque<PathBuf>,
    current: Option<JsonlReader<BufReader<File>>>,
    skipped: Vec<SkippedFile>,
    skipped_paths: Vec<PathBuf>,
    files: usize,
    /// Directories never entered by a walk (the store's own home).
    excluded: Vec<PathBuf>,
    /// Canonical directories every file must lie in when opened.
    roots: Option<Vec<PathBuf>>,
    /// Bytes of the files finished so far.
    finished_bytes: u64,
}

impl PathReader {
    /// Leave `dir` out of directory walks (a store's home inside the
    /// ingested tree is not a document source).
    pub fn excluding(mut self, dir: &Path) -> Self {
        if let Ok(d) = dir.canonicalize() {
            self.excluded.push(d);
        }
        self
    }

    /// Read only files that lie in one of `roots` (canonical directories)
    /// when they are opened: no symbolic link is followed at open time and
    /// the opened file's real path is checked, so a link swapped in after
    /// the paths were checked leads nowhere (the file is reported unreadable).
    pub fn confined_to(mut self, roots: &[PathBuf]) -> Self {
        self.roots = Some(roots.to_vec());
        self
    }

    /// Paths of the files that gave no document (see [`Self::skipped_files`]).
    pub fn skipped(&self) -> &[PathBuf] {
        &self.skipped_paths
    }

    /// The files that gave no document, each with its reason: unsupported
    /// type, unreadable, no text layer, malformed, empty. A file that failed
    /// (anything but an unsupported extension) was also yielded once as an
    /// `Err`, so strict callers can refuse the batch.
    pub fn skipped_files(&self) -> &[SkippedFile] {
        &self.skipped
    }

    fn skip(&mut self, path: PathBuf, reason: SkipReason, detail: impl Into<String>) {
        self.skipped_paths.push(path.clone());
        self.skipped.push(SkippedFile {
            path,
            reason,
            detail: detail.into(),
        });
    }

    /// Number of supported files opened so far.
    pub fn files_read(&self) -> usize {
        self.files
    }

    /// Bytes of input read so far: the files finished, plus what has been
    /// read of the JSONL file being read.
    pub fn bytes_read(&self) -> u64 {
        self.finished_bytes + self.current.as_ref().map_or(0, JsonlReader::bytes_read)
    }

    /// Total size of the supported files under the paths still to read
    /// (the one being read included, whole), walking directories the way
    /// reading does; unreadable entries count 0. For progress displays.
    pub fn bytes_total(&self) -> u64 {
        let mut total = self.bytes_read();
        let mut stack: Vec<PathBuf> = self.queue.iter().cloned().collect();
        if let Some(r) = &self.current {
            total += std::fs::metadata(&r.path)
                .map_or(0, |m| m.len())
                .saturating_sub(r.bytes_read());
        }
        while let Some(p) = stack.pop() {
            let Ok(meta) = std::fs::metadata(&p) else {
                continue;
            };
            if meta.is_dir() {
                let is_link =
                    std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink());
                let excluded = p.canonicalize().is_ok_and(|c| self.excluded.contains(&c));
                if is_link || excluded {
                    continue;
                }
                if let Ok(entries) = std::fs::read_dir(&p) {
                    stack.extend(
                        entries
                            .filter_map(|e| e.ok())
                            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                            .map(|e| e.path()),
                    );
                }
            } else if InputKind::from_path(&p).is_some() {
                total += meta.len();
            }
        }
        total
    }

    /// List a directory: sorted, hidden entries left out.
    fn expand_dir(&mut self, dir: &Path) -> Result<(), InputError> {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| unreadable(dir, &e))?
            .filter_map(|e| e.ok())
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .map(|e| e.path())
            .filter(|p| {
                self.excluded.is_empty()
                    || p.canonicalize()
                        .ok()
                        .is_none_or(|c| !self.excluded.contains(&c))
            })
            .collect();
        entries.sort();
        for p in entries.into_iter().rev() {
            self.queue.push_front(p);
        }
        Ok(())
    }
}

impl Iterator for PathReader {
    type Item = Result<Document, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(reader) = &mut self.current {
                match reader.next() {
                    Some(item) => return Some(item),
                    None => {
                        self.finished_bytes += reader.bytes_read();
                        self.current = None;
                    }
                }
            }
            let path = self.queue.pop_front()?;
            let meta = match std::fs::symlink_metadata(&path) {
                Ok(m) => m,
                Err(e) => {
                    let err = unreadable(&path, &e);
                    self.skip(path, SkipReason::Unreadable, err.to_string());
                    return Some(Err(err));
                }
            };
            // Symlinked directories are not followed (no cycles); symlinked files are.
            let meta = if meta.file_type().is_symlink() {
                match std::fs::metadata(&path) {
                    Ok(m) if m.is_dir() => {
                        self.skip(
                            path,
                            SkipReason::Unsupported,
                            "symbolic link to a directory (not followed)",
                        );
                        continue;
                    }
                    Ok(m) => m,
                    Err(e) => {
                        let err = unreadable(&path, &e);
                        self.skip(path, SkipReason::Unreadable, err.to_string());
                        return Some(Err(err));
                    }
                }
            } else {
                meta
            };
            if meta.is_dir() {
                if let Err(e) = self.expand_dir(&path) {
                    return Some(Err(e));
                }
                continue;
            }
            // FIFOs, sockets and devices are never opened (a FIFO blocks the
            // reader); the open below checks again, on the file itself.
            if let Some(kind) = verity_extract::open::special_kind(&meta) {
                let err = InputError::Unsupported {
                    path: path.clone(),
                    detail: format!("{kind}, not a regular file: skipped"),
                };
                self.skip(path, SkipReason::Unsupported, err.to_string());
                return Some(Err(err));
            }
            let roots = self.roots.clone();
            match InputKind::from_path(&path) {
                Some(InputKind::Jsonl) => {
                    self.files += 1;
                    match JsonlReader::open_in(&path, roots.as_deref()) {
                        Ok(r) => self.current = Some(r),
                        Err(e) => {
                            self.skip(path, SkipReason::Unreadable, e.to_string());
                            return Some(Err(e));
                        }
                    }
                }
                Some(_) => {
                    self.files += 1;
                    self.finished_bytes += meta.len();
                    return Some(match read_document(&path, roots.as_deref()) {
                        Ok(d) => Ok(d),
                        Err((e, reason)) => {
                            self.skip(path, reason, e.to_string());
                            Err(e)
                        }
                    });
                }
                None => {
                    let supported = SUPPORTED_EXTENSIONS
                        .iter()
                        .map(|e| format!(".{e}"))
                        .collect::<Vec<_>>()
                        .join(", ");
                    let ext = path
                        .extension()
                        .map(|e| format!("`.{}` files are not read", e.to_string_lossy()))
                        .unwrap_or_else(|| "no file extension".into());
                    let ext = format!("{ext} (supported: {supported})");
                    self.skip(path, SkipReason::Unsupported, ext);
                }
            }
        }
    }
}

/// Read documents from files and directories, lazily.
///
/// Directories are walked recursively in sorted order, hidden files and
/// directories (`.name`) are left out, and files are read by extension:
/// `.jsonl`/`.ndjson` ([`JsonlReader`]), `.md`/`.markdown`/`.txt`/`.html`/
/// `.htm`/`.pdf` ([`read_file`]). Files of other types are listed by
/// [`PathReader::skipped_files`] (reason `unsupported`); each bad record or
/// file yields an `Err`, is listed there too when it is a whole file, and
/// reading continues.
pub fn read_paths(paths: &[PathBuf]) -> PathReader {
    PathReader {
        queue: paths.iter().cloned().collect(),
        excluded: Vec::new(),
        roots: None,
        current: None,
        skipped: Vec::new(),
        skipped_paths: Vec::new(),
        files: 0,
        finished_bytes: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn jsonl(text: &str) -> Vec<Result<Document, InputError>> {
        JsonlReader::new(Cursor::new(text.as_bytes().to_vec()), "mem.jsonl").collect()
    }

    #[test]
    fn seed_record_maps_fields_and_metadata() {
        let line = r#"{"uid":"a1","source":"amboss","ts":"2025-10-01T12:00:00+02:00","lang":"EN","title":"Fees","content":"Routing fees went up.","tags":["lightning","fees"],"url":"https://x.test/a","node_pubkey":"02ab","channel_id":"123x1x0","metrics":{"fee_ppm":42},"metadata":{"author":"bob"}}"#;
        let docs = jsonl(line);
        let d = docs[0].as_ref().unwrap();
        assert_eq!(d.uid, "a1");
        assert_eq!(d.source, "amboss");
        assert_eq!(d.ts.unwrap().to_rfc3339(), "2025-10-01T10:00:00+00:00");
        assert_eq!(d.lang.as_deref(), Some("en"));
        assert_eq!(d.title.as_deref(), Some("Fees"));
        assert_eq!(d.tags, vec!["lightning", "fees"]);
        assert_eq!(d.url.as_deref(), Some("https://x.test/a"));
        assert_eq!(d.metadata["node_pubkey"], "02ab");
        assert_eq!(d.metadata["channel_id"], "123x1x0");
        assert_eq!(d.metadata["metrics"]["fee_ppm"], 42);
        assert_eq!(d.metadata["author"], "bob");
        assert!(!d.metadata.contains_key("metadata"));
        assert!(!d.metadata.contains_key("uid"));
    }

    #[test]
    fn beir_record() {
        let line = r#"{"_id": "4983", "title": "Microstructural development", "text": "Alterations of the architecture of cerebral white matter in the developing human brain can affect cortical development.", "sentences": ["a"]}"#;
        let d = jsonl(line).remove(0).unwrap();
        assert_eq!(d.uid, "4983");
        assert_eq!(d.title.as_deref(), Some("Microstructural development"));
        assert!(d.content.starts_with("Alterations"));
        assert_eq!(d.source, "mem.jsonl");
        assert_eq!(d.lang.as_deref(), Some("en"));
        assert!(d.metadata.contains_key("sentences"));
    }

    #[test]
    fn malformed_lines_are_reported_with_line_numbers_and_reading_continues() {
        let text = "{\"uid\":\"a\",\"content\":\"x\"}\n\n{not json\n{\"uid\":\"b\"}\n[1,2]\n{\"uid\":\"c\",\"content\":\"y\",\"ts\":\"yesterday\"}\n{\"uid\":\"d\",\"content\":\"z\"}\n";
        let out = jsonl(text);
        assert_eq!(out.len(), 6);
        let lines: Vec<usize> = out
            .iter()
            .filter_map(|r| match r {
                Err(InputError::MalformedRecord { line, path, .. }) => {
                    assert_eq!(path, Path::new("mem.jsonl"));
                    Some(*line)
                }
                _ => None,
            })
            .collect();
        assert_eq!(lines, vec![3, 4, 5, 6]);
        let ok: Vec<&str> = out
            .iter()
            .filter_map(|r| r.as_ref().ok())
            .map(|d| d.uid.as_str())
            .collect();
        assert_eq!(ok, vec!["a", "d"]);
        let msg = out[2].as_ref().unwrap_err().to_string();
        assert!(
            msg.contains("mem.jsonl:4") && msg.contains("content"),
            "{msg}"
        );
    }

    #[test]
    fn invalid_utf8_line_is_malformed_not_fatal() {
        let mut bytes = b"{\"uid\":\"a\",\"content\":\"\xff\xfe\"}\n".to_vec();
        bytes.extend_from_slice(b"{\"uid\":\"b\",\"content\":\"ok\"}\n");
        let out: Vec<_> = JsonlReader::new(Cursor::new(bytes), "x.jsonl").collect();
        assert!(
            matches!(&out[0], Err(InputError::MalformedRecord { line: 1, message, .. }) if message.contains("UTF-8"))
        );
        assert_eq!(out[1].as_ref().unwrap().uid, "b");
    }

    #[test]
    fn missing_uid_is_stable() {
        let a = jsonl(r#"{"content":"same text"}"#).remove(0).unwrap();
        let b = jsonl(r#"{"content":"same text"}"#).remove(0).unwrap();
        let c = jsonl(r#"{"content":"other text"}"#).remove(0).unwrap();
        assert_eq!(a.uid, b.uid);
        assert_ne!(a.uid, c.uid);
        assert_eq!(a.uid, stable_uid("mem.jsonl", "same text"));
    }

    #[test]
    fn text_and_markdown_files() {
        let dir = tempfile::tempdir().unwrap();
        let md = dir.path().join("guide.md");
        std::fs::write(
            &md,
            "intro\n```\n# not a title\n```\n# Real Title #\n\nBody text.",
        )
        .unwrap();
        let d = read_text_file(&md).unwrap();
        assert_eq!(d.title.as_deref(), Some("Real Title"));
        assert_eq!(d.source, md.display().to_string());
        assert_eq!(d.uid, stable_uid(&d.source, &d.content));
        assert_eq!(d.metadata["format"], "markdown");
        let txt = dir.path().join("notes.txt");
        std::fs::write(&txt, "\u{feff}# plain\nhello").unwrap();
        let d = read_text_file(&txt).unwrap();
        assert_eq!(d.title.as_deref(), Some("notes"));
        assert_eq!(d.content, "# plain\nhello");
    }

    #[test]
    fn binary_invalid_and_missing_files() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("x.txt");
        std::fs::write(&bin, b"abc\0def").unwrap();
        assert!(
            matches!(read_text_file(&bin), Err(InputError::Unsupported { path, .. }) if path == bin)
        );
        // Not UTF-8: decoded as Windows-1252 instead of refused.
        let latin = dir.path().join("y.md");
        std::fs::write(&latin, b"caf\xe9 au lait").unwrap();
        assert_eq!(read_text_file(&latin).unwrap().content, "caf\u{e9} au lait");
        let missing = dir.path().join("nope.md");
        assert!(matches!(
            read_text_file(&missing),
            Err(InputError::Unreadable { .. })
        ));
    }

    #[test]
    fn directory_walk_is_sorted_recursive_and_skips_hidden_and_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("sub/deeper")).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join("b.md"), "# B\ntext b").unwrap();
        std::fs::write(root.join("a.txt"), "text a").unwrap();
        std::fs::write(root.join(".hidden.md"), "hidden").unwrap();
        std::fs::write(root.join(".git/c.md"), "git").unwrap();
        std::fs::write(root.join("image.png"), [0u8, 1, 2]).unwrap();
        std::fs::write(
            root.join("sub/c.jsonl"),
            "{\"uid\":\"j1\",\"content\":\"one\"}\nbad\n{\"uid\":\"j2\",\"content\":\"two\"}\n",
        )
        .unwrap();
        std::fs::write(root.join("sub/deeper/d.markdown"), "# D\nbody").unwrap();
        let mut reader = read_paths(&[root.to_path_buf(), root.join("missing.md")]);
        let items: Vec<_> = reader.by_ref().collect();
        let names: Vec<String> = items
            .iter()
            .map(|r| match r {
                Ok(d) => d.title.clone().unwrap_or_else(|| d.uid.clone()),
                Err(e) => format!("ERR {e}"),
            })
            .collect();
        assert_eq!(names.len(), 7, "{names:?}");
        assert_eq!(names[0], "a");
        assert_eq!(names[1], "B");
        assert_eq!(names[2], "j1");
        assert_eq!(names[4], "j2");
        assert!(
            names[3].starts_with("ERR") && names[3].contains(":2:"),
            "{names:?}"
        );
        assert_eq!(names[5], "D");
        assert!(names[6].starts_with("ERR cannot read"), "{names:?}");
        assert_eq!(
            reader.skipped(),
            &[root.join("image.png"), root.join("missing.md")]
        );
        let reasons: Vec<SkipReason> = reader.skipped_files().iter().map(|s| s.reason).collect();
        assert_eq!(
            reasons,
            vec![SkipReason::Unsupported, SkipReason::Unreadable]
        );
        assert_eq!(reader.files_read(), 4);
    }
}
