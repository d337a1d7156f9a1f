//! The sentences of a retrieved passage, in source order, with what the
//! writer needs to quote them: can the sentence stand alone, or does it
//! lean on the one before it ("Because …", "But …", "It is for that reason
//! …", "This mission …", "…, he said.")?

use verity_verify::text::sentence_spans;

/// Openings that make a sentence depend on the sentence before it:
/// connectives, and pronouns or demonstratives whose antecedent is there.
/// Matched on whole words at the start, case-insensitively.
const LEANING_OPENINGS: &[&str] = &[
    // Connectives.
    "because",
    "but",
    "and",
    "or",
    "so",
    "yet",
    "nor",
    "however",
    "therefore",
    "thus",
    "hence",
    "consequently",
    "accordingly",
    "also",
    "still",
    "instead",
    "otherwise",
    "meanwhile",
    "moreover",
    "furthermore",
    "besides",
    "nevertheless",
    "nonetheless",
    "likewise",
    "similarly",
    "conversely",
    "indeed",
    "then",
    "later",
    "afterwards",
    "again",
    "even so",
    "in addition",
    "in fact",
    "in turn",
    "in that regard",
    "in this regard",
    "in that case",
    "in this case",
    "as a result",
    "as such",
    "for that reason",
    "for this reason",
    "it is for that reason",
    "it is for this reason",
    "that is why",
    "this is why",
    "that's why",
    "which is why",
    "for example",
    "for instance",
    "on the other hand",
    "on top of that",
    "after that",
    "at the same time",
    "by contrast",
    "second",
    "secondly",
    "third",
    "thirdly",
    "finally",
    "lastly",
    // Pronouns and demonstratives.
    "this",
    "that",
    "these",
    "those",
    "such",
    "it",
    "its",
    "it's",
    "he",
    "she",
    "they",
    "his",
    "her",
    "their",
    "them",
    "there",
    "here",
    "both",
    "neither",
    "another",
    "others",
    "the latter",
    "the former",
    "the same",
    "the other",
];

/// Third-person pronouns that, with no name before them in the sentence,
/// point back at someone named earlier (`…, he said.`).
const BACK_POINTING: &[&str] = &[
    "he", "she", "him", "his", "her", "hers", "they", "them", "their",
];

/// Whether `sentence` leans on the sentence before it.
pub fn leans_on_previous(sentence: &str) -> bool {
    let s = sentence
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    let opens = LEANING_OPENINGS.iter().any(|w| {
        s.strip_prefix(w).is_some_and(|rest| {
            rest.is_empty() || rest.starts_with(|c: char| !c.is_alphanumeric() && c != '-')
        })
    });
    opens || pronoun_before_any_name(sentence)
}

/// A back-pointing pronoun (`he`, `their`, …) that comes before any
/// capitalised name after the first word: `…, he said.` with no name.
fn pronoun_before_any_name(sentence: &str) -> bool {
    let words: Vec<&str> = sentence
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .collect();
    for (i, w) in words.iter().enumerate() {
        let lower = w.to_lowercase();
        if BACK_POINTING.contains(&lower.as_str()) {
            return true;
        }
        // A capitalised word after the first one is a name: the pronouns after it may be its.
        if i > 0 && w.chars().next().is_some_and(char::is_uppercase) {
            return false;
        }
    }
    false
}

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
    fn connectives_and_anaphors_lean() {
        for s in [
            "Because space travel and sustaining life off Earth are anything but easy.",
            "But while that sounds like a lot, it was only just enough to be detected.",
            "It is for that reason that the agency waited.",
            "In that regard, they're very different from the constant plume.",
            "This surge in air pollution is an alarmingly regular occurrence.",
            "They range from the truly massive to the small.",
            "The larger landers could deliver tools, he said.",
            "However, the other 28 people have showed no signs.",
        ] {
            assert!(leans_on_previous(s), "{s}");
        }
        for s in [
            "NASA announced the selection of five companies on Monday.",
            "Thishas no space.",
            "Butterflies migrate south in winter.",
            "Gwynne Shotwell said that she expects Starship to fly soon.",
            "Theyre is a typo but not a pronoun.",
            "Titan is larger than the planet Mercury.",
        ] {
            assert!(!leans_on_previous(s), "{s}");
        }
    }

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
