//! Relevance before contradiction: a source can only contradict a claim it
//! is about, and a name the claim states must be the one the source states
//! in the same place.
//!
//! * [`Subject`]: the names of the claim (products, people, places,
//!   organisations) and which of them the source never mentions. A source
//!   that mentions none of them does not discuss the claim: whatever its
//!   figures, the verdict is INCONCLUSIVE ("the source does not discuss
//!   Python 3.12"), never NOT_SUPPORTED. Without names, the passage's
//!   coverage of the claim's words decides (as the judge does).
//! * [`substitution`]: the claim and the passage aligned on the words they
//!   share (longest common subsequence); where the claim has a name the
//!   passage never states and the passage, in the same place, a name the
//!   claim never states, the source says something else ("the LA Auto Show",
//!   not "the Geneva Motor Show"). Only gaps framed by shared words on both
//!   sides, or short gaps at the ends of both, count: a claim that merely
//!   adds a name the passage omits is a framing word, not a substitution.

use crate::terms::{looks_like_name, source_words, tokens, Term, Token};

/// A range of token positions `(start, end)` in a text.
type Span = (usize, usize);

/// Names within the first words of a claim are its subject ("Python 3.12
/// was released …", "The Europa Clipper spacecraft will …"); names further
/// on are what it says of the subject ("… funded by the European Union").
pub const SUBJECT_WORDS: usize = 5;

/// The claim's names and those the source never mentions.
#[derive(Debug, Clone, PartialEq)]
pub struct Subject<'a> {
    /// The claim's names.
    pub names: Vec<&'a Term>,
    /// The names of its subject (within its first [`SUBJECT_WORDS`] words).
    pub lead: Vec<&'a Term>,
    /// The subject's names no word of the source matches.
    pub unmentioned: Vec<&'a Term>,
}

impl Subject<'_> {
    /// Whether the source discusses the claim: its subject has no names, or
    /// the source mentions at least one of them.
    pub fn discussed(&self) -> bool {
        self.lead.is_empty() || self.unmentioned.len() < self.lead.len()
    }

    /// The subject's names as written, joined for an explanation.
    pub fn names_text(&self) -> String {
        self.lead
            .iter()
            .map(|t| t.surface.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The subject of a claim with `terms` against a source whose (stemmed)
/// words are `source`.
pub fn subject<'a>(terms: &'a [Term], source: &[String]) -> Subject<'a> {
    let names: Vec<&Term> = terms.iter().filter(|t| t.name).collect();
    let lead: Vec<&Term> = names
        .iter()
        .copied()
        .filter(|t| t.token < SUBJECT_WORDS)
        .collect();
    let unmentioned = lead
        .iter()
        .copied()
        .filter(|t| !source.iter().any(|w| t.matches(w)))
        .collect();
    Subject {
        names,
        lead,
        unmentioned,
    }
}

/// A name of the claim where the source states another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Substitution {
    /// The claim's words.
    pub claim: String,
    /// The source's words.
    pub source: String,
}

/// The name the claim states where `passage` states another (see the module doc).
pub fn substitution(claim: &str, terms: &[Term], passage: &str) -> Option<Substitution> {
    let words = source_words(passage);
    if terms.is_empty() || words.is_empty() {
        return None;
    }
    let stems: Vec<&str> = words.iter().map(|(s, _)| s.as_str()).collect();
    // Longest common subsequence of claim terms and passage words.
    let (n, m) = (terms.len(), words.len());
    let mut dp = vec![vec![0u16; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            dp[i][j] = if terms[i].matches(stems[j]) {
                dp[i + 1][j + 1] + 1
            } else {
                dp[i + 1][j].max(dp[i][j + 1])
            };
        }
    }
    let mut anchors: Vec<(usize, usize)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if terms[i].matches(stems[j]) && dp[i][j] == dp[i + 1][j + 1] + 1 {
            anchors.push((i, j));
            i += 1;
            j += 1;
        } else if dp[i + 1][j] >= dp[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    if anchors.is_empty() {
        return None;
    }
    let first_token = tokens(passage).first().map(|t| t.span.start);
    let is_name = |t: &Token| looks_like_name(t, Some(t.span.start) == first_token);
    let claim_toks = tokens(claim);
    // Gaps: (claim terms, passage words, framed on both sides).
    let mut bounds: Vec<(Option<Span>, Option<Span>)> = Vec::new();
    bounds.push((None, anchors.first().copied()));
    for w in anchors.windows(2) {
        bounds.push((Some(w[0]), Some(w[1])));
    }
    bounds.push((anchors.last().copied(), None));
    for (a, b) in bounds {
        let (ci0, pj0) = a.map_or((0, 0), |(x, y)| (x + 1, y + 1));
        let (ci1, pj1) = b.unwrap_or((n, m));
        let (cgap, pgap) = (&terms[ci0..ci1.max(ci0)], &words[pj0..pj1.max(pj0)]);
        let framed = a.is_some() && b.is_some();
        let ok = if framed {
            cgap.len() <= 4 && pgap.len() <= 8
        } else {
            cgap.len() <= 3 && pgap.len() <= 3
        };
        if !ok || cgap.is_empty() || pgap.is_empty() {
            continue;
        }
        let cnames: Vec<&Term> = cgap
            .iter()
            .filter(|t| t.name && !stems.iter().any(|s| t.matches(s)))
            .collect();
        let pnames: Vec<&(String, Token)> = pgap
            .iter()
            .filter(|(s, t)| is_name(t) && !terms.iter().any(|c| c.matches(s)))
            .collect();
        let (Some(c0), Some(p0)) = (cnames.first(), pnames.first()) else {
            continue;
        };
        let claim_words = name_run(claim, &claim_toks, c0.token, |t| {
            looks_like_name(t, false) || t.surface.starts_with(|c: char| c.is_ascii_digit())
        });
        let ptoks = tokens(passage);
        let start = ptoks.iter().position(|t| t.span == p0.1.span).unwrap_or(0);
        let source_words = name_run(passage, &ptoks, start, is_name);
        return Some(Substitution {
            claim: claim_words,
            source: source_words,
        });
    }
    None
}

/// The text of the run of names around token `i` of `toks` (one
/// lower-case word may sit between two names: "Airbus' iconic A380").
fn name_run(text: &str, toks: &[Token], i: usize, is_name: impl Fn(&Token) -> bool) -> String {
    let joined = |a: &Token, b: &Token| {
        !text
            .get(a.span.end..b.span.start)
            .unwrap_or(" ")
            .contains([',', ';', '.', '(', ')', '—', ':'])
    };
    let mut i = i;
    while i > 0 && i < toks.len() && is_name(&toks[i - 1]) && joined(&toks[i - 1], &toks[i]) {
        i -= 1;
    }
    let Some(first) = toks.get(i) else {
        return String::new();
    };
    let mut end = first.span.end;
    let mut k = i + 1;
    while k < toks.len() {
        let gap = text
            .get(toks[k - 1].span.end..toks[k].span.start)
            .unwrap_or(" ");
        if gap.contains([',', ';', '.', '(', ')', '—', ':']) {
            break;
        }
        if is_name(&toks[k]) {
            end = toks[k].span.end;
            k += 1;
        } else if toks.get(k + 1).is_some_and(&is_name)
            && !text
                .get(toks[k].span.end..toks[k + 1].span.start)
                .unwrap_or(" ")
                .contains([',', ';', '.', '(', ')', '—', ':'])
        {
            end = toks[k + 1].span.end;
            k += 2;
        } else {
            break;
        }
    }
    text.get(first.span.start..end).unwrap_or("").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terms::claim_terms;

    fn sub(claim: &str, passage: &str) -> Option<(String, String)> {
        substitution(claim, &claim_terms(claim), passage).map(|s| (s.claim, s.source))
    }

    #[test]
    fn a_name_in_place_of_another_is_found() {
        assert_eq!(
            sub(
                "The e-tron Sportback made its debut at the Geneva Motor Show.",
                "Audi revealed it, with the e-tron Sportback making its debut at the LA Auto Show."
            ),
            Some(("Geneva Motor Show".into(), "LA Auto Show".into()))
        );
        assert_eq!(
            sub(
                "Its lander is based on Blue Moon, which Elon Musk announced earlier this year.",
                "Its lander is based on its Blue Moon vehicle, which the company's billionaire founder Jeff Bezos announced earlier this year."
            ),
            Some(("Elon Musk".into(), "Jeff Bezos".into()))
        );
        assert_eq!(
            sub(
                "Emirates is the number one buyer of the Boeing 747, with 123 of the planes in its fleet.",
                "Emirates is the number one buyer of Airbus' iconic A380, the world's largest airliner, with 123 of the planes in its fleet."
            ),
            Some(("Boeing 747".into(), "Airbus' iconic A380".into()))
        );
    }

    #[test]
    fn framing_names_and_extra_facts_are_not_substitutions() {
        assert_eq!(
            sub(
                "NASA scientists confirmed traces of water vapor above the surface of Europa.",
                "A team led by researchers out of NASA's Goddard Space Flight Center in Greenbelt, Maryland, has confirmed traces of water vapor above the surface of Jupiter's icy moon Europa."
            ),
            None
        );
        assert_eq!(
            sub(
                "Titan has a diameter of 3,200 miles and is larger than the planet Mercury.",
                "Titan, with a diameter of 3,200 miles (5,150 km), is the Solar System's second-biggest moon behind Jupiter's Ganymede."
            ),
            None
        );
    }

    #[test]
    fn a_source_without_the_claims_names_does_not_discuss_it() {
        let terms = claim_terms("Python 3.12 was released in 2023");
        let words: Vec<String> = source_words("Rust 1.0 was released on May 15, 2015.")
            .into_iter()
            .map(|(s, _)| s)
            .collect();
        let s = subject(&terms, &words);
        assert!(!s.discussed());
        assert_eq!(s.names_text(), "Python");
        let terms = claim_terms("Ollama 0.5 is 50% faster");
        let words: Vec<String> = source_words("Ollama v0.5.0 runs models 40-50% faster.")
            .into_iter()
            .map(|(s, _)| s)
            .collect();
        assert!(subject(&terms, &words).discussed());
    }
}
