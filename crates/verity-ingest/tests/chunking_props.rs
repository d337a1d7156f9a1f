//! Property tests for the chunker: coverage, budgets, overlap, code fences.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use verity_core::Chunk;
use verity_ingest::{Chunker, ChunkerConfig};

/// A generated Markdown document and the byte ranges of its code blocks.
#[derive(Debug, Clone)]
struct Doc {
    text: String,
    code: Vec<(usize, usize)>,
}

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => "[a-z]{1,10}",
        2 => "[A-Z][a-z]{2,8}",
        1 => "[0-9]{1,4}(\\.[0-9])?",
        1 => prop::sample::select(vec![
            "café", "naïve", "日本語", "中文", "😀", "https://ex.com/a?b=1", "e.g.", "α-synuclein", "[CLS]", "x_y", "—"
        ])
        .prop_map(str::to_string),
    ]
}

fn sentence() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(word(), 3..20),
        prop::sample::select(vec![".", "!", "?", ";", ""]),
    )
        .prop_map(|(w, end)| format!("{}{end}", w.join(" ")))
}

fn paragraph() -> impl Strategy<Value = String> {
    prop::collection::vec(sentence(), 1..8).prop_map(|s| s.join(" "))
}

#[derive(Debug, Clone)]
enum Block {
    Heading(usize, String),
    Para(String),
    List(Vec<String>),
    Fence(Vec<String>),
    Indented(Vec<String>),
    Rule,
}

fn block() -> impl Strategy<Value = Block> {
    prop_oneof![
        2 => (1usize..4, sentence()).prop_map(|(l, t)| Block::Heading(l, t)),
        6 => paragraph().prop_map(Block::Para),
        2 => prop::collection::vec(sentence(), 1..6).prop_map(Block::List),
        2 => prop::collection::vec("[a-z_]{1,8}\\([a-z0-9, ]{0,20}\\);?", 1..40).prop_map(Block::Fence),
        1 => prop::collection::vec("\\$ [a-z]{2,6} --[a-z]{2,8}", 1..5).prop_map(Block::Indented),
        1 => Just(Block::Rule),
    ]
}

fn render(blocks: Vec<Block>) -> Doc {
    let mut text = String::new();
    let mut code = Vec::new();
    for b in blocks {
        match b {
            Block::Heading(l, t) => text.push_str(&format!("{} {t}\n\n", "#".repeat(l))),
            Block::Para(p) => text.push_str(&format!("{p}\n\n")),
            Block::List(items) => {
                for i in items {
                    text.push_str(&format!("- {i}\n"));
                }
                text.push('\n');
            }
            Block::Fence(lines) => {
                let start = text.len();
                text.push_str("```rust\n");
                text.push_str(&lines.join("\n"));
                text.push_str("\n```");
                code.push((start, text.len()));
                text.push_str("\n\n");
            }
            Block::Indented(lines) => {
                let start = text.len() + 4;
                let body: Vec<String> = lines.iter().map(|l| format!("    {l}")).collect();
                text.push_str(&body.join("\n"));
                code.push((start, text.len()));
                text.push_str("\n\n");
            }
            Block::Rule => text.push_str("---\n\n"),
        }
    }
    Doc { text, code }
}

fn markdown_doc() -> impl Strategy<Value = Doc> {
    prop::collection::vec(block(), 1..40).prop_map(render)
}

fn config() -> impl Strategy<Value = ChunkerConfig> {
    (20usize..300, 0usize..100, 0usize..50).prop_map(|(max, min_pct, ov_pct)| ChunkerConfig {
        max_tokens: max,
        min_tokens: (max * min_pct / 100).max(1),
        overlap_tokens: max * ov_pct / 100,
    })
}

fn chunker(cfg: ChunkerConfig) -> Chunker {
    Chunker::new(cfg).unwrap()
}

/// Invariants every chunking must satisfy.
fn check_common(c: &Chunker, content: &str, chunks: &[Chunk]) -> Result<(), TestCaseError> {
    let cfg = *c.config();
    let has_content = !content.trim().is_empty();
    prop_assert_eq!(chunks.is_empty(), !has_content);
    let mut covered_to = 0usize;
    for (i, ch) in chunks.iter().enumerate() {
        prop_assert_eq!(&ch.text, &content[ch.start..ch.end]);
        prop_assert_eq!(ch.index as usize, i);
        prop_assert_eq!(&ch.id, &Chunk::make_id("doc", i as u32));
        prop_assert!(
            ch.token_count as usize <= cfg.max_tokens,
            "chunk {} has {} tokens > {}",
            i,
            ch.token_count,
            cfg.max_tokens
        );
        prop_assert_eq!(ch.token_count as usize, c.count_tokens(&ch.text));
        prop_assert!(
            !ch.text.starts_with(char::is_whitespace) && !ch.text.ends_with(char::is_whitespace)
        );
        // Coverage: whatever lies between the covered prefix and this chunk is whitespace.
        if ch.start > covered_to {
            prop_assert!(
                content[covered_to..ch.start].trim().is_empty(),
                "uncovered text before chunk {}",
                i
            );
        }
        if i > 0 {
            let prev = &chunks[i - 1];
            prop_assert!(
                ch.start > prev.start && ch.end > prev.end,
                "chunks out of order at {}",
                i
            );
            if ch.start < prev.end {
                let ov = c.count_tokens(&content[ch.start..prev.end]);
                prop_assert!(
                    ov <= cfg.overlap_tokens,
                    "overlap {} > {}",
                    ov,
                    cfg.overlap_tokens
                );
            }
        }
        covered_to = covered_to.max(ch.end);
    }
    prop_assert!(content[covered_to..].trim().is_empty(), "uncovered tail");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn markdown_chunking_invariants(doc in markdown_doc(), cfg in config()) {
        let c = chunker(cfg);
        let chunks = c.chunk("doc", &doc.text);
        check_common(&c, &doc.text, &chunks)?;
        // Code blocks are never cut, unless a single block exceeds the budget.
        // CommonMark: indented code blocks separated only by blank lines are one block.
        let mut blocks: Vec<(usize, usize)> = Vec::new();
        for &(s, e) in &doc.code {
            let indented = s >= 4 && doc.text.get(s - 4..s) == Some("    ");
            match blocks.last_mut() {
                Some(last) if indented && doc.text.get(last.1..s).is_some_and(|g| g.trim().is_empty()) && last.0 >= 4 && doc.text.get(last.0 - 4..last.0) == Some("    ") => last.1 = e,
                _ => blocks.push((s, e)),
            }
        }
        for &(s, e) in &blocks {
            if c.count_tokens(&doc.text[s..e]) <= cfg.max_tokens {
                for ch in &chunks {
                    prop_assert!(!(ch.start > s && ch.start < e), "chunk starts inside code block {}..{}", s, e);
                    prop_assert!(!(ch.end > s && ch.end < e), "chunk ends inside code block {}..{}", s, e);
                }
            } else {
                // Oversized blocks are cut at line boundaries only (unless one line exceeds the budget).
                let longest_line = doc.text[s..e].lines().map(|l| c.count_tokens(l)).max().unwrap_or(0);
                if longest_line <= cfg.max_tokens {
                    for ch in &chunks {
                        if ch.start > s && ch.start < e {
                            prop_assert_eq!(&doc.text[..ch.start].trim_end_matches(' ').chars().last(), &Some('\n'));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn prose_overlap_is_close_to_target(paras in prop::collection::vec(paragraph(), 1..30)) {
        let cfg = ChunkerConfig { max_tokens: 120, min_tokens: 90, overlap_tokens: 24 };
        let c = chunker(cfg);
        let text = paras.join("\n\n");
        let chunks = c.chunk("doc", &text);
        check_common(&c, &text, &chunks)?;
        for w in chunks.windows(2) {
            prop_assert!(w[1].start < w[0].end, "no overlap between consecutive prose chunks");
            let ov = c.count_tokens(&text[w[1].start..w[0].end]);
            // The overlap is a cap: it stops short of the target by at most one word
            // (a URL can be a dozen word pieces), never by more.
            let word_start = text[..w[1].start].trim_end().rfind(char::is_whitespace).map_or(0, |i| i + 1);
            let extended = c.count_tokens(&text[word_start..w[0].end]);
            prop_assert!(
                ov * 2 >= cfg.overlap_tokens || extended > cfg.overlap_tokens,
                "overlap {} far below {} although one more word gives {}", ov, cfg.overlap_tokens, extended
            );
        }
        // Chunks other than the last reach the preferred minimum (or end at a better break).
        for ch in chunks.iter().rev().skip(1) {
            prop_assert!(ch.token_count as usize >= cfg.min_tokens / 2, "tiny chunk: {}", ch.token_count);
        }
    }

    #[test]
    fn arbitrary_text_never_breaks_invariants(text in "\\PC{0,600}", max in 5usize..60) {
        let cfg = ChunkerConfig { max_tokens: max, min_tokens: max / 2 + 1, overlap_tokens: max / 5 };
        let c = chunker(cfg);
        let chunks = c.chunk("doc", &text);
        check_common(&c, &text, &chunks)?;
    }
}

#[test]
fn for_embedder_256_chunks_fit_minilm() {
    let c = Chunker::new(ChunkerConfig::for_embedder(256)).unwrap();
    let para = "Chronic inflammation of the airways, assessed by sputum eosinophil counts, predicts exacerbations. ";
    let text = format!(
        "# Results\n\n{}\n\n## Methods\n\n{}",
        para.repeat(40),
        para.repeat(25)
    );
    let chunks = c.chunk("d", &text);
    assert!(chunks.len() > 3);
    for ch in &chunks {
        // 254 word pieces + [CLS] + [SEP] = 256: nothing truncated.
        assert!(ch.token_count <= 254, "{}", ch.token_count);
    }
}
