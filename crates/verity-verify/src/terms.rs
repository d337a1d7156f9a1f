//! The words a judge compares: a claim's content words as written (for
//! explanations in the claim's own words) with the stems each may match in
//! the source — its own stem, and for a French claim the English words it
//! translates to ([`crate::lexicon`]) — and which of them are names.

use std::collections::HashSet;
use std::ops::Range;

use verity_core::text::is_stopword;

use crate::lexicon::{self, fold};
use crate::text::{is_function_word, stem};

/// A word of a text with where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// As written.
    pub surface: String,
    /// Lower case, accents folded.
    pub folded: String,
    /// Byte range in the text.
    pub span: Range<usize>,
}

/// The words of `text`: runs of letters and digits (apostrophes and hyphens
/// split words: `l'IA` → `l`, `IA`; `787-9` → `787`, `9`).
pub fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if c.is_alphanumeric() {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            out.push(token(text, s..i));
        }
    }
    if let Some(s) = start {
        out.push(token(text, s..text.len()));
    }
    out
}

fn token(text: &str, span: Range<usize>) -> Token {
    let surface = text[span.clone()].to_string();
    Token {
        folded: fold(&surface),
        surface,
        span,
    }
}

/// Whether `passage` states `claim` word for word: the same words (lower
/// case, accents folded) in the same order, the whole passage or all of it
/// after a dateline (`HONG KONG — `, `(Reuters) -`). Four words at least.
pub fn states_verbatim(claim: &str, passage: &str) -> bool {
    let ct = tokens(claim);
    let pt = tokens(passage);
    if ct.len() < 4 || pt.len() < ct.len() {
        return false;
    }
    let extra = pt.len() - ct.len();
    if pt[extra..]
        .iter()
        .zip(&ct)
        .any(|(p, c)| p.folded != c.folded)
    {
        return false;
    }
    if extra == 0 {
        return true;
    }
    let head = passage.get(..pt[extra].span.start).unwrap_or("").trim_end();
    head.chars().count() <= 60 && ["—", "–", " -", "--"].iter().any(|d| head.ends_with(d))
}

/// Whether `folded` (lower case) names a month or a day of the week.
pub(crate) fn is_calendar(folded: &str) -> bool {
    CALENDAR.contains(&folded)
}

/// Month and day names: capitalised, but dates, not names (dates are compared as figures).
const CALENDAR: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// Whether the token `t` (the `i`-th of its sentence) looks like a name:
/// capitalised inside the sentence, all capitals, or letters and digits.
pub fn looks_like_name(t: &Token, first: bool) -> bool {
    let s = &t.surface;
    let letters = s.chars().filter(|c| c.is_alphabetic()).count();
    let upper = s.chars().filter(|c| c.is_uppercase()).count();
    let digits = s.chars().any(|c| c.is_ascii_digit());
    if letters == 0 || is_calendar(&t.folded) {
        return false;
    }
    if digits {
        return true; // A380, TNG50, COVID19
    }
    const SHOUTED: &[&str] = &[
        "the", "and", "of", "to", "in", "for", "on", "at", "by", "or", "an", "is", "it", "as",
        "be", "we", "he", "she", "a", "i", "not", "no", "but", "with", "from", "this", "that",
    ];
    if letters >= 2 && upper == letters && !SHOUTED.contains(&t.folded.as_str()) {
        return true; // NASA, LA, IA
    }
    if is_stopword(&t.folded) {
        return false;
    }
    let capital = s.chars().next().is_some_and(char::is_uppercase);
    let inner_capital = s.chars().skip(1).any(char::is_uppercase);
    (letters >= 2 && upper == letters) || inner_capital || (capital && !first)
}

/// Word prefixes written with a hyphen.
const PREFIXES: &[&str] = &[
    "anti", "non", "pre", "post", "co", "ex", "self", "multi", "semi", "re", "pro", "mid", "sub",
];

/// A content word of a claim.
#[derive(Debug, Clone, PartialEq)]
pub struct Term {
    /// As written in the claim.
    pub surface: String,
    /// Stems it may match in a source.
    pub alts: Vec<String>,
    /// A name (see [`looks_like_name`]).
    pub name: bool,
    /// Index of its token in the claim.
    pub token: usize,
    /// Read from a French claim.
    pub french: bool,
}

impl Term {
    /// Whether this term matches the (folded, stemmed) source word `s`.
    pub fn matches(&self, s: &str) -> bool {
        self.alts.iter().any(|a| stems_match(a, s, self.french))
            || (self.name && self.alts.first().is_some_and(|a| one_typo(a, s)))
    }
}

/// Whether two stems are the same word: equal, one a prefix of the other
/// (five letters or more shared), or — across languages — cognates sharing
/// a prefix of five letters and 70 % of the shorter (`campagne`/`campaign`).
pub fn stems_match(a: &str, b: &str, cognates: bool) -> bool {
    if a == b {
        return true;
    }
    let (la, lb) = (a.chars().count(), b.chars().count());
    let n = la.min(lb);
    if n >= 5 && (a.starts_with(b) || b.starts_with(a)) {
        return true;
    }
    // Short words and their inflections: use/uses/used, cut/cuts.
    let (short, long) = if la < lb { (a, b) } else { (b, a) };
    if short.len() >= 3
        && long
            .strip_prefix(short)
            .is_some_and(|rest| matches!(rest, "s" | "es" | "d" | "ed" | "ing"))
    {
        return true;
    }
    if !cognates || n < 5 {
        return false;
    }
    let shared = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    shared >= 5 && shared * 10 >= n * 7
}

/// Whether two words of six letters or more differ by one letter (a typo
/// in a name: `Starhip` for `Starship`).
fn one_typo(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len().min(b.len()) < 6 || a.len().abs_diff(b.len()) > 1 || a == b {
        return false;
    }
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    let prefix = short
        .iter()
        .zip(long.iter())
        .take_while(|(x, y)| x == y)
        .count();
    if short.len() == long.len() {
        short[prefix + 1..] == long[prefix + 1..]
    } else {
        short[prefix..] == long[prefix + 1..]
    }
}

/// The stem a source word is compared by.
pub fn source_stem(folded: &str) -> String {
    stem(folded)
}

/// The content words of `claim` (function words and bare numbers left out:
/// figures are compared as quantities), each with the stems it may match.
pub fn claim_terms(claim: &str) -> Vec<Term> {
    let french = lexicon::is_french(claim);
    let toks = tokens(claim);
    let mut seen: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let w = t.folded.as_str();
        if w.chars().all(|c| c.is_ascii_digit()) || w.chars().count() < 2 {
            continue;
        }
        if is_function_word(w, french) {
            continue;
        }
        // A prefix bound to the next word (`anti-meth`, `non-profit`) says
        // nothing on its own.
        let bound = claim[t.span.end..].starts_with('-');
        if bound && PREFIXES.contains(&w) {
            continue;
        }
        if !seen.insert(w.to_string()) {
            continue;
        }
        let mut alts = vec![source_stem(w)];
        if french {
            for e in lexicon::english(w) {
                let s = source_stem(e);
                if !alts.contains(&s) {
                    alts.push(s);
                }
            }
        }
        out.push(Term {
            surface: t.surface.clone(),
            alts,
            name: looks_like_name(t, i == 0) || first_word_is_name(&toks, i),
            token: i,
            french,
        });
    }
    out
}

/// A sentence's first word counts as a name when a version or model number
/// follows it (`Python 3.12`, `Rust 1.0`).
fn first_word_is_name(toks: &[Token], i: usize) -> bool {
    i == 0
        && toks[0]
            .surface
            .chars()
            .next()
            .is_some_and(char::is_uppercase)
        && toks
            .get(1)
            .is_some_and(|n| n.surface.starts_with(|c: char| c.is_ascii_digit()))
}

/// The (folded, stemmed) content words of a source text, with their tokens.
pub fn source_words(text: &str) -> Vec<(String, Token)> {
    tokens(text)
        .into_iter()
        .filter(|t| {
            let w = t.folded.as_str();
            !w.chars().all(|c| c.is_ascii_digit()) && w.chars().count() >= 2 && !is_stopword(w)
        })
        .map(|t| (source_stem(&t.folded), t))
        .collect()
}

/// Share of `terms` matched by `words`, and the terms not matched.
pub fn coverage<'a>(terms: &'a [Term], words: &[String]) -> (f32, Vec<&'a Term>) {
    if terms.is_empty() {
        return (1.0, Vec::new());
    }
    let missing: Vec<&Term> = terms
        .iter()
        .filter(|t| !words.iter().any(|w| t.matches(w)))
        .collect();
    (1.0 - missing.len() as f32 / terms.len() as f32, missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_stated_word_for_word() {
        let s = "The September quarter earnings were not a complete disappointment.";
        assert!(states_verbatim(s, s));
        assert!(states_verbatim(
            "the september quarter earnings were NOT a complete disappointment",
            s
        ));
        assert!(states_verbatim(
            "Police fired tear gas at the protesters.",
            "HONG KONG — Police fired tear gas at the protesters."
        ));
        assert!(states_verbatim(
            "Police fired tear gas at the protesters.",
            "(Reuters) - Police fired tear gas at the protesters."
        ));
        // Part of a sentence is not the sentence: what comes before may deny it.
        assert!(!states_verbatim(
            "the vaccine prevents infection in children",
            "It is false that the vaccine prevents infection in children."
        ));
        assert!(!states_verbatim(
            "the vaccine prevents infection in children",
            "Nobody says — as some did — that the vaccine prevents infection in children."
        ));
        assert!(!states_verbatim("Mars has moons", "Mars has moons."));
        assert!(!states_verbatim(
            "The vaccine prevents infection in children",
            "The vaccine prevents infection in children under five."
        ));
    }

    #[test]
    fn terms_keep_surfaces_names_and_translations() {
        let ts = claim_terms("Selon McKinsey, 85% des entreprises utilisent l'IA");
        let surf: Vec<&str> = ts.iter().map(|t| t.surface.as_str()).collect();
        assert_eq!(surf, vec!["McKinsey", "entreprises", "utilisent", "IA"]);
        assert!(ts[0].name && ts[3].name && !ts[1].name);
        assert!(ts[1].matches("company"), "{:?}", ts[1]);
        assert!(ts[2].matches(&source_stem("used")));
        let en = claim_terms("Python 3.12 was released in 2023");
        assert!(en[0].name, "{en:?}");
        assert!(!claim_terms("Plains cover 65 percent of Titan")[0].name);
    }

    #[test]
    fn cognates_match_across_languages_only() {
        assert!(stems_match("campagn", "campaign", true));
        assert!(!stems_match("campagn", "campaign", false));
        assert!(stems_match("release", "released", false));
        assert!(!stems_match("cat", "catalog", true));
        let starship = &claim_terms("SpaceX says Starship will fly")[1];
        assert!(starship.matches("starhip") && !starship.matches("starlink"));
    }
}
