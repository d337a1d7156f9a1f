//! Reading and chunking any text: Markdown, HTML and plain-text parsing,
//! language detection, sentence splitting, token-aware chunking.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use verity_core::Document;
use verity_ingest::{Chunker, ChunkerConfig};

fn chunker() -> &'static Chunker {
    static C: OnceLock<Chunker> = OnceLock::new();
    C.get_or_init(|| {
        let config = ChunkerConfig {
            max_tokens: 60,
            min_tokens: 40,
            overlap_tokens: 8,
        };
        Chunker::new(config).unwrap_or_else(|e| panic!("bundled tokenizer: {e}"))
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = verity_extract::detect_lang(&text);
    let _ = verity_extract::parse_markdown(&text);
    let _ = verity_extract::parse_html(&text, None);
    let _ = verity_extract::parse_text(&text);
    for r in verity_ingest::sentences::sentence_spans(&text) {
        assert!(text.get(r).is_some());
    }
    let doc = Document::new("fuzz", text.as_ref());
    for c in chunker().chunk_document(&doc) {
        assert!(doc.content.get(c.start..c.end).is_some(), "chunk off char boundaries");
    }
});
