//! Token-aware, Markdown-aware chunking (seed-001 rules).
//!
//! * Chunks target `min_tokens..=max_tokens` tokens (700–900 by default) of the
//!   chunking tokenizer, counted without special tokens, with about
//!   `overlap_tokens` (120) tokens repeated from the end of the previous chunk.
//! * Cut points are chosen by preference: before a heading, then at a section
//!   break (`---`, `***`), a blank line or a list item, then between
//!   sentences, then between lines, and only then between words.
//! * Fenced code blocks (```` ``` ```` / `~~~`) and indented command blocks
//!   (4 spaces or a tab after a blank line) are never cut. **The only
//!   exception is a block that alone exceeds `max_tokens`:** it is split at
//!   line boundaries (and a single line longer than the budget at word, then
//!   character boundaries), since it could not fit in any chunk otherwise.
//! * Every chunk satisfies `text == content[start..end]`, starts and ends on
//!   non-whitespace, and carries the enclosing Markdown headings
//!   (`heading_path`, outermost first).
//! * The overlap never reaches back across a heading, so a chunk that starts a
//!   section starts with its heading.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use verity_core::{Chunk, ConfigError, Document, Error, Result};

use crate::tokens::{for_each_word, is_word_space, Memo, TokenCounter, BUNDLED_TOKENIZER};

/// Break preferences, higher is better. Stored on the unit that follows the break.
const WORD: u8 = 0;
const LINE: u8 = 1;
const SENTENCE: u8 = 2;
const BLOCK: u8 = 3;
const SECTION: u8 = 4;
const HEADING: u8 = 5;

/// Revision of the cutting algorithm, part of [`Chunker::fingerprint`]: bump it
/// when a change moves chunk boundaries, so that stores re-chunk on ingest.
const CHUNKER_REVISION: u32 = 1;

/// Chunk sizes, in tokens of the chunking tokenizer, without special tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkerConfig {
    /// Hard budget: no chunk has more tokens (default 900).
    pub max_tokens: usize,
    /// Preferred minimum: cut points are sought once a chunk has this many (default 700).
    pub min_tokens: usize,
    /// Tokens repeated from the end of the previous chunk (default 120).
    pub overlap_tokens: usize,
}

impl Default for ChunkerConfig {
    fn default() -> Self {
        Self {
            max_tokens: 900,
            min_tokens: 700,
            overlap_tokens: 120,
        }
    }
}

impl ChunkerConfig {
    /// The default sizes capped for an embedder that reads `max_tokens` tokens
    /// including its two special tokens (`[CLS]`, `[SEP]`): the budget becomes
    /// `min(900, max_tokens - 2)` and min/overlap scale in proportion
    /// (`for_embedder(256)` → 254 / 197 / 33).
    pub fn for_embedder(max_tokens: usize) -> Self {
        let d = Self::default();
        let cap = max_tokens.saturating_sub(2).max(1);
        if cap >= d.max_tokens {
            return d;
        }
        Self {
            max_tokens: cap,
            min_tokens: (cap * d.min_tokens / d.max_tokens).max(1),
            overlap_tokens: cap * d.overlap_tokens / d.max_tokens,
        }
    }

    /// Check that the sizes are consistent (`0 < min <= max`, `overlap < max`).
    pub fn validate(&self) -> Result<()> {
        let bad = |message: String| {
            Err(Error::Config(ConfigError::Invalid {
                key: "chunker".into(),
                message,
            }))
        };
        if self.max_tokens == 0 {
            return bad("max_tokens must be positive".into());
        }
        if self.min_tokens == 0 || self.min_tokens > self.max_tokens {
            return bad(format!(
                "min_tokens ({}) must be in 1..=max_tokens ({})",
                self.min_tokens, self.max_tokens
            ));
        }
        if self.overlap_tokens >= self.max_tokens {
            return bad(format!(
                "overlap_tokens ({}) must be below max_tokens ({})",
                self.overlap_tokens, self.max_tokens
            ));
        }
        Ok(())
    }
}

/// Splits documents into token-bounded chunks. Cheap to clone; `Send + Sync`.
#[derive(Clone)]
pub struct Chunker {
    counter: Arc<TokenCounter>,
    config: ChunkerConfig,
}

impl std::fmt::Debug for Chunker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chunker")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

fn bundled_counter() -> Result<Arc<TokenCounter>> {
    static BUNDLED: OnceLock<std::result::Result<Arc<TokenCounter>, String>> = OnceLock::new();
    BUNDLED
        .get_or_init(|| {
            TokenCounter::from_bytes(BUNDLED_TOKENIZER)
                .map(Arc::new)
                .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|message| {
            Error::Config(ConfigError::Invalid {
                key: "tokenizer".into(),
                message,
            })
        })
}

impl Chunker {
    /// A chunker using the bundled bert-base-uncased WordPiece tokenizer
    /// (the one of all-MiniLM-L6-v2). The tokenizer is loaded once per process.
    pub fn new(config: ChunkerConfig) -> Result<Self> {
        config.validate()?;
        Ok(Self {
            counter: bundled_counter()?,
            config,
        })
    }

    /// A chunker counting tokens with the given `tokenizer.json`.
    pub fn from_tokenizer_file(path: impl AsRef<Path>, config: ChunkerConfig) -> Result<Self> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| {
            Error::Config(ConfigError::Missing {
                what: "tokenizer.json".into(),
                detail: format!("{}: {e}", path.display()),
            })
        })?;
        Self::from_tokenizer_bytes(&bytes, config)
    }

    /// A chunker counting tokens with a `tokenizer.json` given as bytes.
    pub fn from_tokenizer_bytes(bytes: &[u8], config: ChunkerConfig) -> Result<Self> {
        config.validate()?;
        Ok(Self {
            counter: Arc::new(TokenCounter::from_bytes(bytes)?),
            config,
        })
    }

    /// The same tokenizer with other sizes.
    pub fn with_config(&self, config: ChunkerConfig) -> Result<Self> {
        config.validate()?;
        Ok(Self {
            counter: Arc::clone(&self.counter),
            config,
        })
    }

    /// The sizes in use.
    pub fn config(&self) -> &ChunkerConfig {
        &self.config
    }

    /// Identifies what this chunker produces: algorithm revision, tokenizer
    /// hash and sizes, e.g. `chunk/1 tok=8f2c0e… max=900 min=700 overlap=120`.
    /// Two chunkers with the same fingerprint cut any document identically.
    pub fn fingerprint(&self) -> String {
        format!(
            "chunk/{CHUNKER_REVISION} tok={} max={} min={} overlap={}",
            self.counter.fingerprint(),
            self.config.max_tokens,
            self.config.min_tokens,
            self.config.overlap_tokens
        )
    }

    /// Tokens of `text` for the chunking tokenizer, without special tokens.
    pub fn count_tokens(&self, text: &str) -> usize {
        self.counter.count(text)
    }

    /// Chunk a document's content.
    pub fn chunk_document(&self, doc: &Document) -> Vec<Chunk> {
        self.chunk(&doc.uid, &doc.content)
    }

    /// Chunk `content` of document `uid`. Whitespace-only content gives no chunk.
    pub fn chunk(&self, uid: &str, content: &str) -> Vec<Chunk> {
        let (units, paths) = self.counter.with_memo(|memo| {
            let mut s = Scanner {
                counter: &self.counter,
                memo,
                max: self.config.max_tokens,
                units: Vec::new(),
            };
            let paths = s.scan(content);
            (s.units, paths)
        });
        let mut chunks = Vec::new();
        for (i, (s, e)) in pack(&units, &self.config, |s, e| {
            self.exact_count(content, &units, s, e)
        })
        .into_iter()
        .enumerate()
        {
            let (Some(first), Some(last)) = (units.get(s), units.get(e.saturating_sub(1))) else {
                continue;
            };
            let (start, end) = (first.start, last.end);
            let Some(text) = content.get(start..end) else {
                continue;
            };
            let token_count = self.exact_count(content, &units, s, e);
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            chunks.push(Chunk {
                id: Chunk::make_id(uid, index),
                doc_uid: uid.to_string(),
                index,
                text: text.to_string(),
                start,
                end,
                heading_path: paths.get(first.path).cloned().unwrap_or_default(),
                token_count: u32::try_from(token_count).unwrap_or(u32::MAX),
            });
        }
        chunks
    }

    /// Exact token count of units `s..e`: the sum for BERT tokenizers, a real
    /// encode otherwise.
    fn exact_count(&self, content: &str, units: &[Unit], s: usize, e: usize) -> usize {
        let slice = units.get(s..e).unwrap_or(&[]);
        if self.counter.is_exact_per_word() && !slice.iter().any(|u| u.split) {
            slice.iter().map(|u| u.tokens as usize).sum()
        } else {
            match (units.get(s), units.get(e.saturating_sub(1))) {
                (Some(a), Some(b)) => self
                    .counter
                    .encode_len(content.get(a.start..b.end).unwrap_or("")),
                _ => 0,
            }
        }
    }
}

/// An atomic piece of text: a word, or a whole code block.
#[derive(Debug, Clone, Copy)]
struct Unit {
    start: usize,
    end: usize,
    tokens: u32,
    /// Preference for cutting just before this unit.
    score: u8,
    /// Index of the heading path in effect.
    path: usize,
    /// A piece of a word cut because the word exceeded the budget: token
    /// counts are then not additive, chunks holding it are re-counted.
    split: bool,
}

struct Scanner<'a> {
    counter: &'a TokenCounter,
    memo: &'a mut Memo,
    max: usize,
    units: Vec<Unit>,
}

/// Per-line facts for the Markdown scan.
fn line_ranges(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut pos = 0;
    std::iter::from_fn(move || {
        if pos >= text.len() {
            return None;
        }
        let rest = text.get(pos..)?;
        let len = rest.find('\n').map_or(rest.len(), |i| i + 1);
        let r = (pos, pos + len);
        pos += len;
        Some(r)
    })
}

fn leading_spaces(line: &str) -> usize {
    line.bytes().take_while(|&b| b == b' ').count()
}

/// `Some((char, len))` when the line opens/closes a code fence.
fn fence_marker(line: &str) -> Option<(u8, usize)> {
    let ind = leading_spaces(line);
    if ind > 3 {
        return None;
    }
    let rest = line.get(ind..)?;
    let c = *rest.as_bytes().first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = rest.bytes().take_while(|&b| b == c).count();
    if n < 3 {
        return None;
    }
    // A backtick fence's info string may not contain backticks.
    if c == b'`' && rest.get(n..).is_some_and(|r| r.contains('`')) {
        return None;
    }
    Some((c, n))
}

fn is_closing_fence(line: &str, c: u8, n: usize) -> bool {
    let ind = leading_spaces(line);
    if ind > 3 {
        return false;
    }
    let rest = line.get(ind..).unwrap_or("");
    let m = rest.bytes().take_while(|&b| b == c).count();
    m >= n && rest.get(m..).is_some_and(|r| r.trim().is_empty())
}

/// `Some((level, text))` for an ATX heading line.
fn atx_heading(line: &str) -> Option<(usize, String)> {
    let ind = leading_spaces(line);
    if ind > 3 {
        return None;
    }
    let rest = line.get(ind..)?.trim_end();
    let level = rest.bytes().take_while(|&b| b == b'#').count();
    if level == 0 || level > 6 {
        return None;
    }
    let body = rest.get(level..)?;
    if !body.is_empty() && !body.starts_with([' ', '\t']) {
        return None;
    }
    let body = body.trim();
    // Optional closing sequence of #s.
    let trimmed = body.trim_end_matches('#');
    let body = if trimmed.is_empty() || trimmed.ends_with([' ', '\t']) {
        trimmed.trim_end()
    } else {
        body
    };
    Some((level, body.to_string()))
}

fn is_thematic_break(line: &str) -> bool {
    let t = line.trim();
    let Some(c) = t.bytes().next() else {
        return false;
    };
    if !matches!(c, b'-' | b'*' | b'_') {
        return false;
    }
    let mut n = 0;
    for b in t.bytes() {
        if b == c {
            n += 1;
        } else if b != b' ' && b != b'\t' {
            return false;
        }
    }
    n >= 3
}

fn is_list_item(line: &str) -> bool {
    let t = line.trim_start();
    let b = t.as_bytes();
    match b.first() {
        Some(b'-' | b'*' | b'+') => matches!(b.get(1), Some(b' ' | b'\t') | None),
        Some(c) if c.is_ascii_digit() => {
            let d = b.iter().take_while(|c| c.is_ascii_digit()).count();
            d <= 9
                && matches!(b.get(d), Some(b'.' | b')'))
                && matches!(b.get(d + 1), Some(b' ' | b'\t') | None)
        }
        _ => false,
    }
}

fn is_blank(line: &str) -> bool {
    line.chars().all(is_word_space)
}

fn is_indented(line: &str) -> bool {
    line.starts_with("    ") || line.starts_with('\t')
}

/// Does this word end a sentence? Abbreviations
/// ([`verity_core::text::abbrev`]: `e.g.`, `al.`, `Fig.`), words of one or
/// two letters (initials, units: `J.`, `mg.`) and dotted words are not ends.
pub(crate) fn ends_sentence(word: &str) -> bool {
    let w = word.trim_end_matches(['"', '\'', ')', ']', '”', '’', '»', '*', '_']);
    match w.chars().last() {
        Some('!' | '?' | '。' | '！' | '？' | '…') => true,
        Some('.') => {
            let core = w.trim_end_matches('.');
            core.chars().count() > 2
                && !core.contains('.')
                && !verity_core::text::abbrev::is_abbreviation(core, "")
        }
        _ => false,
    }
}

impl Scanner<'_> {
    /// Scan `text`, filling `self.units`; returns the heading paths.
    fn scan(&mut self, text: &str) -> Vec<Vec<String>> {
        let mut paths: Vec<Vec<String>> = vec![Vec::new()];
        let mut stack: Vec<(usize, String)> = Vec::new();
        let mut pending = HEADING;
        let mut prev_blank = true;
        let mut lines = line_ranges(text).peekable();
        while let Some((ls, le)) = lines.next() {
            let line = text.get(ls..le).unwrap_or("");
            let path = paths.len() - 1;
            if is_blank(line) {
                pending = pending.max(BLOCK);
                prev_blank = true;
                continue;
            }
            if let Some((c, n)) = fence_marker(line) {
                let mut end = le;
                for (_, e2) in lines.by_ref() {
                    let l2 = text.get(end..e2).unwrap_or("");
                    end = e2;
                    if is_closing_fence(l2, c, n) {
                        break;
                    }
                }
                self.block(text, ls, end, pending.max(BLOCK), path);
                pending = BLOCK;
                prev_blank = false;
                continue;
            }
            if prev_blank && is_indented(line) {
                // Indented command block: indented lines, possibly with blank lines inside.
                let mut end = le;
                while let Some(&(s2, e2)) = lines.peek() {
                    let l2 = text.get(s2..e2).unwrap_or("");
                    if is_indented(l2) || is_blank(l2) {
                        end = e2;
                        lines.next();
                    } else {
                        break;
                    }
                }
                self.block(text, ls, end, pending.max(BLOCK), path);
                pending = BLOCK;
                prev_blank = true;
                continue;
            }
            prev_blank = false;
            if let Some((level, title)) = atx_heading(line) {
                stack.retain(|(l, _)| *l < level);
                stack.push((level, title));
                paths.push(stack.iter().map(|(_, t)| t.clone()).collect());
                self.words(text, ls, le, HEADING, paths.len() - 1);
                pending = LINE;
                continue;
            }
            if is_thematic_break(line) {
                self.words(text, ls, le, pending.max(SECTION), path);
                pending = SECTION;
                continue;
            }
            let first = if is_list_item(line) {
                pending.max(BLOCK)
            } else {
                pending.max(LINE)
            };
            self.words(text, ls, le, first, path);
            pending = WORD;
        }
        paths
    }

    fn count_range(&mut self, text: &str, s: usize, e: usize) -> usize {
        let mut total = 0usize;
        let slice = text.get(s..e).unwrap_or("");
        for_each_word(slice, |a, b| {
            total += self
                .counter
                .count_word(self.memo, slice.get(a..b).unwrap_or("")) as usize
        });
        total
    }

    /// Emit prose words of `text[s..e]`; the first gets score `first`.
    fn words(&mut self, text: &str, s: usize, e: usize, first: u8, path: usize) {
        let slice = text.get(s..e).unwrap_or("");
        let mut score = first;
        let mut spans = Vec::new();
        for_each_word(slice, |a, b| spans.push((s + a, s + b)));
        for (a, b) in spans {
            let word = text.get(a..b).unwrap_or("");
            let tokens = self.counter.count_word(self.memo, word);
            if tokens as usize > self.max {
                self.split_long(text, a, b, score, path);
            } else {
                self.units.push(Unit {
                    start: a,
                    end: b,
                    tokens,
                    score,
                    path,
                    split: false,
                });
            }
            score = if ends_sentence(word) { SENTENCE } else { WORD };
        }
    }

    /// Emit a code block `text[s..e]` as one unit, or line by line when it exceeds the budget.
    fn block(&mut self, text: &str, s: usize, e: usize, score: u8, path: usize) {
        let Some((s, e)) = trim_range(text, s, e) else {
            return;
        };
        let tokens = self.count_range(text, s, e);
        if tokens <= self.max {
            self.units.push(Unit {
                start: s,
                end: e,
                tokens: u32::try_from(tokens).unwrap_or(u32::MAX),
                score,
                path,
                split: false,
            });
            return;
        }
        // Oversized block: the only case where code is cut, at line boundaries.
        let mut first = score;
        let lines: Vec<(usize, usize)> = line_ranges(text.get(s..e).unwrap_or(""))
            .map(|(a, b)| (s + a, s + b))
            .collect();
        for (a, b) in lines {
            let Some((a, b)) = trim_range(text, a, b) else {
                continue;
            };
            let t = self.count_range(text, a, b);
            if t <= self.max {
                self.units.push(Unit {
                    start: a,
                    end: b,
                    tokens: u32::try_from(t).unwrap_or(u32::MAX),
                    score: first,
                    path,
                    split: false,
                });
            } else {
                self.words(text, a, b, first, path);
            }
            first = LINE;
        }
    }

    /// A single word longer than the budget (a long CJK run, a run of symbols,
    /// minified code): cut it at pre-token boundaries (each CJK character,
    /// symbol or punctuation mark alone, letter/digit runs together), and a
    /// letter run still over budget at character boundaries. Such pieces are
    /// flagged so that chunks holding them are re-counted as a whole.
    fn split_long(&mut self, text: &str, s: usize, e: usize, score: u8, path: usize) {
        let word = text.get(s..e).unwrap_or("");
        let mut pieces: Vec<(usize, usize)> = Vec::new();
        let mut run: Option<usize> = None;
        for (i, c) in word.char_indices() {
            if c.is_alphanumeric() && !is_cjk(c) {
                run.get_or_insert(i);
            } else {
                if let Some(r) = run.take() {
                    pieces.push((r, i));
                }
                pieces.push((i, i + c.len_utf8()));
            }
        }
        if let Some(r) = run {
            pieces.push((r, word.len()));
        }
        let mut score = score;
        for (a, b) in pieces {
            let piece = word.get(a..b).unwrap_or("");
            let t = self.counter.count_word(self.memo, piece);
            if t as usize <= self.max {
                self.units.push(Unit {
                    start: s + a,
                    end: s + b,
                    tokens: t,
                    score,
                    path,
                    split: true,
                });
            } else {
                self.split_chars(text, s + a, s + b, score, path);
            }
            score = WORD;
        }
    }

    /// Cut `text[s..e]` at character boundaries into pieces within budget (rare:
    /// only a letter run with more word pieces than the budget gets here).
    fn split_chars(&mut self, text: &str, s: usize, e: usize, score: u8, path: usize) {
        let word = text.get(s..e).unwrap_or("");
        let mut score = score;
        let mut piece_start = 0usize;
        let mut last_fit: Option<(usize, usize)> = None;
        let bounds: Vec<usize> = word
            .char_indices()
            .map(|(i, _)| i)
            .skip(1)
            .chain(std::iter::once(word.len()))
            .collect();
        let mut i = 0;
        while i < bounds.len() {
            let end = bounds.get(i).copied().unwrap_or(word.len());
            let t = self
                .counter
                .encode_len(word.get(piece_start..end).unwrap_or(""));
            if t <= self.max {
                last_fit = Some((end, t));
                i += 1;
                continue;
            }
            let (fit_end, fit_t) = match last_fit.take() {
                Some(f) => f,
                None => {
                    // A single character over budget: emit it anyway (cannot do better).
                    i += 1;
                    (end, t)
                }
            };
            let tokens = u32::try_from(fit_t).unwrap_or(u32::MAX);
            self.units.push(Unit {
                start: s + piece_start,
                end: s + fit_end,
                tokens,
                score,
                path,
                split: true,
            });
            score = WORD;
            piece_start = fit_end;
        }
        if let Some((fit_end, fit_t)) = last_fit {
            let tokens = u32::try_from(fit_t).unwrap_or(u32::MAX);
            self.units.push(Unit {
                start: s + piece_start,
                end: s + fit_end,
                tokens,
                score,
                path,
                split: true,
            });
        }
    }
}

/// CJK ideographs, which BERT tokenises one by one.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

/// Shrink `[s, e)` to exclude leading/trailing word-space.
fn trim_range(text: &str, s: usize, e: usize) -> Option<(usize, usize)> {
    let slice = text.get(s..e)?;
    let lead = slice.len() - slice.trim_start_matches(is_word_space).len();
    let trimmed = slice.trim_end_matches(is_word_space);
    let (a, b) = (s + lead, s + trimmed.len());
    (a < b).then_some((a, b))
}

/// Choose chunk boundaries as unit index ranges `[s, e)`.
fn pack(
    units: &[Unit],
    cfg: &ChunkerConfig,
    exact: impl Fn(usize, usize) -> usize,
) -> Vec<(usize, usize)> {
    let n = units.len();
    let mut prefix = Vec::with_capacity(n + 1);
    prefix.push(0usize);
    for u in units {
        let last = prefix.last().copied().unwrap_or(0);
        prefix.push(last + u.tokens as usize);
    }
    let sum = |a: usize, b: usize| {
        prefix.get(b).copied().unwrap_or(0) - prefix.get(a).copied().unwrap_or(0)
    };
    let mut out = Vec::new();
    let mut s = 0usize;
    let mut done = 0usize; // units before `done` are already in a chunk
    while s < n {
        // Largest e with sum(s..e) <= max (at least one unit).
        let target = prefix.get(s).copied().unwrap_or(0) + cfg.max_tokens;
        let mut e = prefix
            .partition_point(|&p| p <= target)
            .saturating_sub(1)
            .clamp(s + 1, n);
        let cut = if e >= n {
            n
        } else {
            // Candidates in (done, e] with at least min tokens; best score, latest on ties.
            let lo = (s + 1).max(done + 1);
            let mut best: Option<(u8, usize)> = None;
            for c in lo..=e {
                if sum(s, c) < cfg.min_tokens && c < e {
                    continue;
                }
                let sc = units.get(c).map_or(WORD, |u| u.score);
                if best.is_none_or(|(b, _)| sc >= b) {
                    best = Some((sc, c));
                }
            }
            best.map_or(e, |(_, c)| c)
        };
        let mut cut = cut.max(s + 1);
        // Generic tokenizers: verify with a real encode and shrink if needed.
        while cut > s + 1 && cut > done + 1 && exact(s, cut) > cfg.max_tokens {
            cut -= 1;
        }
        out.push((s, cut));
        if cut >= n {
            break;
        }
        done = cut;
        e = cut;
        // Overlap: start k in (s, cut] with sum(k..cut) <= overlap, not before the
        // last heading, and leaving room for the next unit.
        let floor = (s + 1..=e)
            .rev()
            .find(|&h| units.get(h).is_some_and(|u| u.score == HEADING))
            .unwrap_or(s + 1);
        let next_tokens = units.get(cut).map_or(0, |u| u.tokens as usize);
        let mut best: Option<(u8, usize)> = None;
        let mut k = cut;
        while k > floor {
            let cand = k - 1;
            let ov = sum(cand, cut);
            if ov > cfg.overlap_tokens || ov + next_tokens > cfg.max_tokens {
                break;
            }
            k = cand;
            if ov * 2 >= cfg.overlap_tokens {
                let sc = units.get(cand).map_or(WORD, |u| u.score);
                if best.is_none_or(|(b, _)| sc >= b) {
                    best = Some((sc, cand));
                }
            }
        }
        let mut next = best.map_or(k, |(_, c)| c);
        // Split words make counts non-additive: verify the overlap like the budget.
        while next < cut && exact(next, cut) > cfg.overlap_tokens {
            next += 1;
        }
        s = if next > s { next } else { cut };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunker(max: usize, min: usize, overlap: usize) -> Chunker {
        Chunker::new(ChunkerConfig {
            max_tokens: max,
            min_tokens: min,
            overlap_tokens: overlap,
        })
        .unwrap()
    }

    #[test]
    fn fingerprint_names_tokenizer_and_sizes() {
        let a = chunker(900, 700, 120);
        assert_eq!(a.fingerprint(), chunker(900, 700, 120).fingerprint());
        assert_ne!(a.fingerprint(), chunker(254, 197, 33).fingerprint());
        assert_ne!(a.fingerprint(), chunker(900, 700, 100).fingerprint());
        let fp = a.fingerprint();
        let tok = fp
            .split(' ')
            .find_map(|p| p.strip_prefix("tok="))
            .unwrap_or_default();
        assert_eq!(tok.len(), 12, "{fp}");
        assert!(tok.bytes().all(|b| b.is_ascii_hexdigit()), "{fp}");
        assert!(fp.ends_with("max=900 min=700 overlap=120"), "{fp}");
    }

    fn check_invariants(c: &Chunker, content: &str, chunks: &[Chunk]) {
        for ch in chunks {
            assert_eq!(ch.text, &content[ch.start..ch.end]);
            assert!(
                ch.token_count as usize <= c.config().max_tokens,
                "chunk over budget: {}",
                ch.token_count
            );
            assert_eq!(ch.token_count as usize, c.count_tokens(&ch.text));
        }
    }

    #[test]
    fn for_embedder_caps_and_scales() {
        let c = ChunkerConfig::for_embedder(256);
        assert_eq!(
            c,
            ChunkerConfig {
                max_tokens: 254,
                min_tokens: 197,
                overlap_tokens: 33
            }
        );
        assert_eq!(ChunkerConfig::for_embedder(8192), ChunkerConfig::default());
        assert!(ChunkerConfig {
            max_tokens: 10,
            min_tokens: 20,
            overlap_tokens: 1
        }
        .validate()
        .is_err());
        assert!(ChunkerConfig {
            max_tokens: 10,
            min_tokens: 5,
            overlap_tokens: 10
        }
        .validate()
        .is_err());
    }

    #[test]
    fn empty_and_small_documents() {
        let c = chunker(900, 700, 120);
        assert!(c.chunk("d", "").is_empty());
        assert!(c.chunk("d", " \n\t ").is_empty());
        let ch = c.chunk("d", "  Hello world.  ");
        assert_eq!(ch.len(), 1);
        assert_eq!(ch[0].text, "Hello world.");
        assert_eq!(ch[0].id, "d#0");
        assert_eq!(ch[0].token_count, 3);
    }

    #[test]
    fn prefers_heading_cuts_and_tracks_heading_path() {
        let c = chunker(60, 20, 10);
        let para = "This sentence has exactly some words in it. ".repeat(4);
        let doc = format!("# Top\n\n{para}\n\n## Sub A\n\n{para}\n\n## Sub B\n\n{para}\n");
        let chunks = c.chunk("d", &doc);
        check_invariants(&c, &doc, &chunks);
        assert!(chunks.len() >= 3);
        let subb = chunks
            .iter()
            .find(|ch| ch.text.starts_with("## Sub B"))
            .expect("a chunk starts at Sub B");
        assert_eq!(
            subb.heading_path,
            vec!["Top".to_string(), "Sub B".to_string()]
        );
        assert_eq!(chunks[0].heading_path, vec!["Top".to_string()]);
        // A chunk that starts a section starts with its heading (no overlap across headings).
        assert!(chunks
            .iter()
            .all(|ch| !ch.text.contains("## Sub B") || ch.text.starts_with("## Sub B")));
    }

    #[test]
    fn code_fences_are_not_cut() {
        let c = chunker(120, 60, 10);
        let code = (0..8)
            .map(|i| format!("let x{i} = compute({i});"))
            .collect::<Vec<_>>()
            .join("\n");
        let prose = "Some explanatory prose sentence here. ".repeat(8);
        let doc = format!("{prose}\n\n```rust\n{code}\n```\n\n{prose}");
        let chunks = c.chunk("d", &doc);
        check_invariants(&c, &doc, &chunks);
        let fence_start = doc.find("```rust").unwrap();
        let fence_end = doc.rfind("```").unwrap() + 3;
        assert!(c.count_tokens(&doc[fence_start..fence_end]) <= 120);
        assert!(chunks
            .iter()
            .any(|ch| ch.start <= fence_start && ch.end >= fence_end));
        for ch in &chunks {
            let inside = |p: usize| p > fence_start && p < fence_end;
            assert!(
                !inside(ch.start) && !inside(ch.end),
                "chunk {}..{} cuts the fence",
                ch.start,
                ch.end
            );
        }
    }

    #[test]
    fn oversized_fence_is_split_at_lines() {
        let c = chunker(50, 30, 5);
        let code = (0..60)
            .map(|i| format!("echo step number {i}"))
            .collect::<Vec<_>>()
            .join("\n");
        let doc = format!("~~~sh\n{code}\n~~~\n");
        let chunks = c.chunk("d", &doc);
        check_invariants(&c, &doc, &chunks);
        assert!(chunks.len() > 1);
        for ch in &chunks[1..] {
            // Cuts happen at line starts.
            assert_eq!(
                &doc[ch.start - 1..ch.start],
                "\n",
                "cut inside a line at {}",
                ch.start
            );
        }
    }

    #[test]
    fn indented_command_block_is_atomic() {
        let c = chunker(40, 20, 0);
        let doc = format!(
            "{}\n\n    $ cargo build --release\n    $ cargo test --workspace\n    $ ./target/release/verity ingest data\n\n{}",
            "Intro words go here. ".repeat(6),
            "Outro words go here. ".repeat(6)
        );
        let block_start = doc.find("$ cargo build").unwrap();
        let block_end = doc.find("ingest data").unwrap() + "ingest data".len();
        let chunks = c.chunk("d", &doc);
        check_invariants(&c, &doc, &chunks);
        for ch in &chunks {
            let inside = |p: usize| p > block_start && p < block_end;
            assert!(!inside(ch.start) && !inside(ch.end));
        }
    }

    #[test]
    fn giant_word_is_split_within_budget() {
        let c = chunker(20, 10, 0);
        let doc = "!".repeat(100);
        let chunks = c.chunk("d", &doc);
        check_invariants(&c, &doc, &chunks);
        assert_eq!(chunks.iter().map(|c| c.text.len()).sum::<usize>(), 100);
    }

    #[test]
    fn sentence_detection() {
        assert!(ends_sentence("end."));
        assert!(ends_sentence("really?\""));
        assert!(!ends_sentence("e.g."));
        assert!(!ends_sentence("al."));
        assert!(!ends_sentence("Prof."));
        assert!(!ends_sentence("Mme."));
        assert!(!ends_sentence("word"));
    }
}
