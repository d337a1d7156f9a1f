//! Citation markers: `[n]` (or `[n, m]`) in generated text ↔ context blocks.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use regex::Regex;
use verity_core::{Citation, ScoredChunk};

/// The text with markers that point to no block removed, and what was found.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedCitations {
    /// Text with invalid markers removed.
    pub text: String,
    /// Valid block numbers cited, ascending.
    pub cited: Vec<usize>,
    /// Numbers that pointed to no block.
    pub invalid: Vec<usize>,
}

fn marker_re() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\[(\s*\d{1,4}\s*(?:[,;]\s*\d{1,4}\s*)*)\]").ok())
        .as_ref()
}

/// Find `[n]` markers; keep those in `1..=n_blocks`, drop the others.
pub fn parse(text: &str, n_blocks: usize) -> ParsedCitations {
    let mut cited = BTreeSet::new();
    let mut invalid = BTreeSet::new();
    let Some(re) = marker_re() else {
        return ParsedCitations {
            text: text.to_string(),
            cited: vec![],
            invalid: vec![],
        };
    };
    let out = re.replace_all(text, |caps: &regex::Captures<'_>| {
        let inner = caps.get(1).map_or("", |m| m.as_str());
        let mut keep = Vec::new();
        for n in inner
            .split([',', ';'])
            .filter_map(|s| s.trim().parse::<usize>().ok())
        {
            if (1..=n_blocks).contains(&n) {
                cited.insert(n);
                keep.push(n.to_string());
            } else {
                invalid.insert(n);
            }
        }
        if keep.is_empty() {
            String::new()
        } else {
            format!("[{}]", keep.join(", "))
        }
    });
    // Removing a marker can leave "word ." or double spaces behind.
    let cleaned = out.replace(" .", ".").replace("  ", " ");
    ParsedCitations {
        text: cleaned.trim().to_string(),
        cited: cited.into_iter().collect(),
        invalid: invalid.into_iter().collect(),
    }
}

/// Build [`Citation`]s for the cited blocks; `quote` is the sentence of the
/// block that the answer reproduces, when it does so verbatim.
pub fn resolve(parsed: &ParsedCitations, hits: &[ScoredChunk]) -> Vec<Citation> {
    parsed
        .cited
        .iter()
        .filter_map(|&n| {
            let h = hits.get(n - 1)?;
            Some(Citation {
                index: n,
                chunk_id: h.chunk.id.clone(),
                doc_uid: h.doc.uid.clone(),
                source: h.doc.source.clone(),
                title: h.doc.title.clone(),
                url: h.doc.url.clone(),
                quote: verbatim_quote(&parsed.text, n, &h.chunk.text),
                span: Some((h.chunk.start, h.chunk.end)),
            })
        })
        .collect()
}

/// The longest sentence of `answer` cited with `[n]` that appears verbatim in `chunk`.
fn verbatim_quote(answer: &str, n: usize, chunk: &str) -> Option<String> {
    let re = marker_re()?;
    let mut best: Option<String> = None;
    let mut last = 0;
    for m in re.find_iter(answer) {
        let cites_n = m
            .as_str()
            .trim_matches(['[', ']'])
            .split([',', ';'])
            .any(|s| s.trim().parse::<usize>().ok() == Some(n));
        let sentence = answer[last..m.start()]
            .trim()
            .trim_start_matches(['.', ' '])
            .trim();
        let sentence = sentence
            .trim_matches('"')
            .trim_matches('«')
            .trim_matches('»')
            .trim();
        if cites_n
            && sentence.len() > 10
            && chunk.contains(sentence)
            && best.as_ref().is_none_or(|b| b.len() < sentence.len())
        {
            best = Some(sentence.to_string());
        }
        last = m.end();
    }
    best
}

/// Share of sentences of `text` that carry at least one citation marker.
pub fn cited_sentence_ratio(text: &str) -> f32 {
    let Some(re) = marker_re() else { return 0.0 };
    // The workspace's splitter keeps a marker written after the full stop
    // (`… here. [2]`) with the sentence it follows.
    let sentences: Vec<&str> = verity_core::text::sentence_spans(text)
        .into_iter()
        .filter_map(|r| text.get(r))
        .filter(|s| s.chars().filter(|c| c.is_alphanumeric()).count() > 3)
        .collect();
    if sentences.is_empty() {
        return 0.0;
    }
    // A marker placed right after the full stop belongs to the previous sentence.
    let mut cited = 0usize;
    for (i, s) in sentences.iter().enumerate() {
        let next_starts_with_marker = sentences
            .get(i + 1)
            .is_some_and(|n| n.starts_with('[') && re.is_match(n));
        if re.is_match(s) || next_starts_with_marker {
            cited += 1;
        }
    }
    cited as f32 / sentences.len() as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_valid_and_removes_invented_markers() {
        let p = parse(
            "Fees are per channel [1]. Base fee is 1 sat [7]. Both apply [2, 9].",
            3,
        );
        assert_eq!(p.cited, vec![1, 2]);
        assert_eq!(p.invalid, vec![7, 9]);
        assert_eq!(
            p.text,
            "Fees are per channel [1]. Base fee is 1 sat. Both apply [2]."
        );
    }

    #[test]
    fn zero_and_huge_indexes_are_invalid() {
        let p = parse("x [0] y [99999] z [3]", 3);
        assert_eq!(p.cited, vec![3]);
        assert_eq!(p.invalid, vec![0]);
        // 99999 has five digits: not a marker at all, left as written.
        assert!(p.text.contains("[99999]"));
    }

    #[test]
    fn ratio_counts_cited_sentences() {
        assert_eq!(cited_sentence_ratio("One fact [1]. Another fact [2]."), 1.0);
        assert_eq!(
            cited_sentence_ratio("One fact [1]. Unsupported claim here."),
            0.5
        );
        assert_eq!(cited_sentence_ratio(""), 0.0);
    }

    #[test]
    fn ratio_does_not_cut_at_decimals_or_abbreviations() {
        // Cutting at every period counted "Fees rose 3." and "Dr." as
        // uncited sentences of their own.
        assert_eq!(
            cited_sentence_ratio("Fees rose 3.5 percent in 2020 [1]. Dr. Smith et al. agree [2]."),
            1.0
        );
        assert_eq!(
            cited_sentence_ratio("One fact here. [1] Another fact [2]."),
            1.0
        );
    }

    #[test]
    fn verbatim_quotes_are_found() {
        let q = verbatim_quote(
            "\"Fees are set per channel.\" [1]",
            1,
            "Intro. Fees are set per channel. More.",
        );
        assert_eq!(q.as_deref(), Some("Fees are set per channel."));
        assert!(verbatim_quote("Something invented entirely [1]", 1, "Other text").is_none());
    }
}
