//! Offline text helpers: extractive summaries, keyword extraction and the
//! sentences of a Markdown excerpt that can stand alone in a report.

use std::collections::{HashMap, HashSet};

use verity_verify::text::{content_terms, is_stopword, sentence_spans, words};

/// Sentences of `text` fit to be quoted as prose: not headings, list
/// markers, tables or code, 6–60 words, ending with a full stop.
pub fn prose_sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    let mut prose = String::new();
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("```") {
            in_code = !in_code;
            prose.push('\n');
            continue;
        }
        if in_code || t.starts_with('#') || t.starts_with('|') || t.starts_with('>') {
            prose.push('\n');
            continue;
        }
        let t = t.trim_start_matches(['-', '*', '+']).trim_start();
        prose.push_str(t);
        prose.push('\n');
    }
    for r in sentence_spans(&prose) {
        let s = prose[r].split_whitespace().collect::<Vec<_>>().join(" ");
        let n = s.split_whitespace().count();
        let clean = !s.contains(['[', ']', '`', '|', '*', '_', '<', '>'])
            && !s.contains("http")
            && s.chars()
                .next()
                .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit());
        if (6..=60).contains(&n) && clean && s.ends_with(['.', '!', '?']) {
            out.push(s);
        }
    }
    out
}

/// Share of `query`'s content terms found in `text` (0–1).
pub fn overlap(query_terms: &HashSet<String>, text: &str) -> f32 {
    if query_terms.is_empty() {
        return 0.0;
    }
    let t = terms(text);
    query_terms.iter().filter(|q| t.contains(*q)).count() as f32 / query_terms.len() as f32
}

/// Characters of a stem a term keeps: the crude stemmer leaves
/// `hibernat-ing` and `hibern-ation` apart, their first six letters agree.
const TERM_CHARS: usize = 6;

/// The matching key of a content word: its stem, cut to [`TERM_CHARS`].
pub fn term_key(stemmed: &str) -> String {
    stemmed.chars().take(TERM_CHARS).collect()
}

/// Content terms of `text` (stop words dropped, stemmed, cut to a common
/// prefix), in order, repeats kept.
pub fn term_list(text: &str) -> Vec<String> {
    content_terms(text).iter().map(|t| term_key(t)).collect()
}

/// Content terms of `text`, as a set (see [`term_list`]).
pub fn terms(text: &str) -> HashSet<String> {
    term_list(text).into_iter().collect()
}

/// Content words of `text` in their written form (stop words and one-letter
/// words dropped), each once, in order: the words of a search query.
pub fn content_words(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    words(text)
        .into_iter()
        .filter(|w| !is_stopword(w) && w.chars().count() > 1)
        .filter(|w| seen.insert(term_key(&verity_verify::text::stem(w))))
        .collect()
}

/// An extractive summary: the `n` sentences carrying the document's most
/// frequent content terms, in document order.
pub fn summarize(text: &str, n: usize) -> String {
    let sents = prose_sentences(text);
    if sents.is_empty() {
        return text
            .split_whitespace()
            .take(60)
            .collect::<Vec<_>>()
            .join(" ");
    }
    let mut freq: HashMap<String, f32> = HashMap::new();
    for t in content_terms(text) {
        *freq.entry(t).or_default() += 1.0;
    }
    let mut scored: Vec<(usize, f32)> = sents
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let ts = terms(s);
            let score: f32 = ts.iter().map(|t| freq.get(t).copied().unwrap_or(0.0)).sum();
            // Earlier sentences introduce; favour them a little.
            (
                i,
                score / (ts.len() as f32 + 1.0).sqrt() / (1.0 + i as f32 * 0.02),
            )
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut keep: Vec<usize> = scored.into_iter().take(n).map(|(i, _)| i).collect();
    keep.sort_unstable();
    keep.into_iter()
        .map(|i| sents[i].as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `n` most characteristic words of `text` (frequency, stop words and
/// short words dropped, title words counted twice), in surface form.
pub fn keywords(title: &str, text: &str, n: usize) -> Vec<String> {
    let mut freq: HashMap<String, f32> = HashMap::new();
    let mut first: HashMap<String, usize> = HashMap::new();
    let body = words(text);
    let title_words = words(title);
    for (i, w) in title_words.iter().chain(body.iter()).enumerate() {
        if w.chars().count() < 4 || is_stopword(w) || w.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let weight = if i < title_words.len() { 2.0 } else { 1.0 };
        *freq.entry(w.clone()).or_default() += weight;
        first.entry(w.clone()).or_insert(i);
    }
    let mut ranked: Vec<(String, f32)> = freq.into_iter().filter(|(_, f)| *f >= 2.0).collect();
    ranked.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then_with(|| first.get(&a.0).cmp(&first.get(&b.0)))
    });
    ranked.into_iter().take(n).map(|(w, _)| w).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const DOC: &str = "# Agents\n\nAgents plan their work in steps. An agent calls tools to observe the world.\n\n\
        - Planning agents decompose a task into subtasks before acting.\n\n```\ncode here.\n```\n\
        Agents that reflect on their plans make fewer errors in long tasks.";

    #[test]
    fn prose_skips_headings_and_code() {
        let s = prose_sentences(DOC);
        assert_eq!(s.len(), 4, "{s:?}");
        assert!(s.iter().all(|x| !x.contains("code here")));
    }

    #[test]
    fn summary_and_keywords_come_from_the_text() {
        let sum = summarize(DOC, 2);
        assert!(sum.contains("Agents"), "{sum}");
        let kw = keywords("Agents", DOC, 3);
        assert_eq!(kw[0], "agents");
    }
}
