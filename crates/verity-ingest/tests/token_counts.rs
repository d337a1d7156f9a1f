//! The fast token counter must agree exactly with `tokenizers`' own `encode`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers outside #[test] fns

use std::path::{Path, PathBuf};

use tokenizers::Tokenizer;
use verity_ingest::{Chunker, ChunkerConfig, JsonlReader};

fn reference() -> Tokenizer {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/tokenizer.json");
    let mut t = Tokenizer::from_file(path).unwrap();
    t.with_truncation(None).unwrap();
    t.with_padding(None);
    t
}

fn data_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("VERITY_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    dir.is_dir().then_some(dir)
}

#[test]
fn counts_match_encode_on_scifact_abstracts() {
    let Some(dir) = data_dir() else {
        verity_testkit::skip(
            "counts_match_encode_on_scifact_abstracts: shared/data not found (set VERITY_DATA_DIR)",
        );
        return;
    };
    let tok = reference();
    let chunker = Chunker::new(ChunkerConfig::default()).unwrap();
    let reader = JsonlReader::open(dir.join("scifact/corpus.jsonl"))
        .unwrap()
        .detect_lang(false);
    let mut checked = 0;
    let mut tokens = 0;
    // Every 10th abstract: ~500 documents from across the corpus.
    for doc in reader.step_by(10) {
        let doc = doc.unwrap();
        let expected = tok.encode(doc.content.as_str(), false).unwrap().len();
        assert_eq!(
            chunker.count_tokens(&doc.content),
            expected,
            "mismatch on doc {}",
            doc.uid
        );
        if let Some(t) = &doc.title {
            assert_eq!(
                chunker.count_tokens(t),
                tok.encode(t.as_str(), false).unwrap().len()
            );
        }
        checked += 1;
        tokens += expected;
    }
    assert!(checked > 400, "only {checked} abstracts checked");
    eprintln!("{checked} abstracts, {tokens} tokens: exact match");
}

#[test]
fn counts_match_encode_on_tricky_text() {
    let tok = reference();
    let chunker = Chunker::new(ChunkerConfig::default()).unwrap();
    let cases = [
        "Ünïcödé àccents: élève, Ærøskøbing, Straße, İstanbul, ǅemal",
        "混合文本：中文、日本語（ひらがな・カタカナ）、한국어 and English.",
        "Emoji 😀 🇫🇷 👩🏽‍💻 ❤️ ✓ ★",
        "URLs https://example.org/a/b?c=d&e=f#g, mailto:a@b.co, 10.1038/nature12373",
        "```rust\nfn main() { println!(\"{}\", x.iter().map(|v| v * 2).sum::<u32>()); }\n```",
        "Control\u{1}chars\u{7f} and\u{200b}zero\u{200d}width\u{feff} and \u{a0}nbsp and\u{2028}line sep",
        "Special tokens: [CLS] [SEP] [MASK] [PAD] [UNK] [cls] [[SEP]] a[SEP]b",
        "Math: ∑ᵢ xᵢ² ≤ 10⁻³ ± 0.5 µm, 37 °C, H₂O, α/β, ½ ¼",
        "Very long word: pneumonoultramicroscopicsilicovolcanoconiosis antidisestablishmentarianism",
        &"x".repeat(150),
        "tabs\tand\r\nwindows\r\nlines\u{b}vertical\u{c}formfeed\u{85}nel",
    ];
    for case in cases {
        let expected = tok.encode(case, false).unwrap().len();
        assert_eq!(chunker.count_tokens(case), expected, "mismatch on {case:?}");
    }
}

#[test]
fn user_supplied_tokenizer_file_is_used() {
    let model_dir = std::env::var_os("VERITY_MODEL_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/verity/models"))
        });
    let Some(path) = model_dir
        .map(|d| d.join("all-MiniLM-L6-v2/tokenizer.json"))
        .filter(|p| p.is_file())
    else {
        verity_testkit::skip("user_supplied_tokenizer_file_is_used: all-MiniLM-L6-v2 not found (scripts/fetch-models.sh)");
        return;
    };
    let c = Chunker::from_tokenizer_file(&path, ChunkerConfig::for_embedder(256)).unwrap();
    // The model's tokenizer.json truncates at 128 tokens: the chunker must switch that off.
    let text = "word ".repeat(300);
    assert_eq!(c.count_tokens(&text), 300);
    assert!(
        Chunker::from_tokenizer_file("/nonexistent/tokenizer.json", ChunkerConfig::default())
            .is_err()
    );
    assert!(Chunker::from_tokenizer_bytes(b"{not json", ChunkerConfig::default()).is_err());
}

#[test]
fn non_bert_tokenizer_uses_exact_generic_path() {
    use tokenizers::models::wordlevel::WordLevel;
    use tokenizers::pre_tokenizers::whitespace::Whitespace;
    let vocab = [("[UNK]", 0), ("hello", 1), ("world", 2), (".", 3)]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v));
    let model = WordLevel::builder()
        .vocab(vocab.collect())
        .unk_token("[UNK]".into())
        .build()
        .unwrap();
    let mut tok = Tokenizer::new(model);
    tok.with_pre_tokenizer(Some(Whitespace));
    let json = tok.to_string(false).unwrap();
    let cfg = ChunkerConfig {
        max_tokens: 10,
        min_tokens: 5,
        overlap_tokens: 2,
    };
    let c = Chunker::from_tokenizer_bytes(json.as_bytes(), cfg).unwrap();
    let text = "hello world. ".repeat(20);
    assert_eq!(c.count_tokens(&text), 60);
    let chunks = c.chunk("d", &text);
    assert!(chunks.len() >= 6);
    for ch in &chunks {
        assert!(ch.token_count <= 10);
        assert_eq!(
            ch.token_count as usize,
            tok.encode(ch.text.as_str(), false).unwrap().len()
        );
    }
}
