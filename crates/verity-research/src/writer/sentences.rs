//! The sentences of a retrieved passage, in source order, with what the
//! writer needs to quote them: can the sentence stand alone, or does it
//! lean on the one before it ("Because …", "But …", "It is for that reason
//! …", "This mission …", "…, he said.": [`leans_on_previous`])?

use verity_core::text::sentence_spans;

/// Whether a sentence leans on the one before it: the workspace's one rule
/// ([`verity_core::text::leaning`]).
pub use verity_core::text::leans_on_previous;

/// `WASHINGTON (Reuters) - Scientists …` → `Scientists …`; also `BERLIN --`,
/// `(Reuters) —`, `DUBAI, United Arab Emirates — `. The rest is verbatim.
pub fn strip_dateline(sentence: &str) -> &str {
    let s = sentence.trim_start();
    for dash in [" — ", " – ", " -- ", " - "] {
        let Some((head, rest)) = s.split_once(dash) else {
            continue;
        };
        if head.chars().count() > 60 || rest.trim().is_empty() {
            continue;
        }
        let place = head.split(['(', ',']).next().unwrap_or_default().trim();
        let agency_only = place.is_empty() && head.trim_start().starts_with('(');
        let caps = !place.is_empty()
            && place.chars().any(char::is_alphabetic)
            && place
                .chars()
                .all(|c| c.is_uppercase() || c.is_whitespace() || ".'’-".contains(c));
        let rest = rest.trim_start();
        let sentence_follows = rest
            .chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit() || "\"“'‘".contains(c));
        if sentence_follows
            && ((caps && place.chars().filter(|c| c.is_alphabetic()).count() >= 3) || agency_only)
        {
            return rest;
        }
    }
    s
}

/// One sentence of a passage.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceSentence {
    /// The sentence, white space collapsed, dateline removed.
    pub text: String,
    /// Fit to quote: prose, 6–60 words, no markup or link, a capital or a
    /// digit first, a full stop last.
    pub quotable: bool,
    /// Leans on the sentence before it (see [`leans_on_previous`]).
    pub leans: bool,
}

/// The sentences of a Markdown passage in order (headings, code, tables,
/// block quotes and list markers dropped; a dropped line still separates
/// the sentences around it, so leaning is judged against what is really
/// before).
pub fn source_sentences(text: &str) -> Vec<SourceSentence> {
    let mut prose = String::new();
    let mut in_code = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("```") {
            in_code = !in_code;
            prose.push_str("\n\n");
            continue;
        }
        if in_code || t.starts_with('#') || t.starts_with('|') || t.starts_with('>') {
            // A marker sentence: never quotable, and what follows does not
            // lean on what came before it.
            prose.push_str("\n\n\u{1}.\n\n");
            continue;
        }
        let t = t.trim_start_matches(['-', '*', '+']).trim_start();
        prose.push_str(t);
        prose.push('\n');
    }
    let mut out = Vec::new();
    for r in sentence_spans(&prose) {
        let raw = prose[r].split_whitespace().collect::<Vec<_>>().join(" ");
        if raw.starts_with('\u{1}') {
            out.push(SourceSentence {
                text: String::new(),
                quotable: false,
                leans: false,
            });
            continue;
        }
        let text = strip_dateline(&raw).to_string();
        let n = text.split_whitespace().count();
        let clean = !text.contains(['[', ']', '`', '|', '*', '_', '<', '>', '\u{1}'])
            && !text.contains("http")
            && text
                .chars()
                .next()
                .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit());
        let quotable = (6..=60).contains(&n) && clean && text.ends_with(['.', '!', '?']);
        out.push(SourceSentence {
            leans: leans_on_previous(&text),
            text,
            quotable,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datelines_are_dropped() {
        assert_eq!(
            strip_dateline("WASHINGTON (Reuters) - Scientists on Monday unveiled the map."),
            "Scientists on Monday unveiled the map."
        );
        assert_eq!(
            strip_dateline("(Reuters) — The New York State Attorney General is investigating."),
            "The New York State Attorney General is investigating."
        );
        assert_eq!(
            strip_dateline("DUBAI, United Arab Emirates — Dubai's flagship carrier bought jets."),
            "Dubai's flagship carrier bought jets."
        );
        assert_eq!(
            strip_dateline("BERLIN -- The agency said so."),
            "The agency said so."
        );
        assert_eq!(
            strip_dateline("NASA - the agency - said so."),
            "NASA - the agency - said so."
        );
        assert_eq!(
            strip_dateline("Titan - a moon - is cold."),
            "Titan - a moon - is cold."
        );
    }

    #[test]
    fn sentences_keep_their_order_and_what_separates_them() {
        let s = source_sentences(
            "# Title\n\nEuropa has water vapour above its surface today. Because it is cold, ice forms there.\n\n\
             ## Next\n\nBut the plumes are rare and hard to see from Earth.",
        );
        let texts: Vec<&str> = s.iter().map(|x| x.text.as_str()).collect();
        assert_eq!(texts[1], "Europa has water vapour above its surface today.");
        assert!(s[1].quotable && !s[1].leans);
        assert!(s[2].leans && s[2].quotable);
        // The heading between them is a separator: "But …" has no sentence before it to lean on.
        assert_eq!(s[3].text, "");
        assert!(s[4].leans);
    }
}
