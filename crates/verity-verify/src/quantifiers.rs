//! Quantifiers: a claim's universal or majority word ("all", "most") where
//! the source states a weaker one ("more than half", "some") is PARTIAL in
//! the local judge.

use crate::terms::{tokens, Token};

/// Universal or majority quantifiers, and weaker ones a source may state instead.
const STRONG_QUANTIFIERS: &[&str] = &[
    "all",
    "every",
    "entire",
    "whole",
    "always",
    "most",
    "majority",
    "tous",
    "toutes",
    "toute",
    "plupart",
    "majorité",
];
/// Weak quantifiers that also name periods, ranks or shares: they quantify
/// only before `of`, `the`, `de` ([`is_weak_quantifier`]).
const FRACTIONS: &[&str] = &["half", "third", "quarter", "part"];
const WEAK_QUANTIFIERS: &[&str] = &[
    "half",
    "some",
    "several",
    "many",
    "few",
    "only",
    "minority",
    "part",
    "third",
    "quarter",
    "moitié",
    "certains",
    "certaines",
    "plusieurs",
    "quelques",
    "seulement",
    "minorité",
];

/// A weaker quantifier in `clause` (of `passage`) where `claim` has a
/// universal or majority one the passage does not state: (claim word,
/// source phrase).
pub(crate) fn weaker_quantifier(
    claim: &str,
    clause: &str,
    passage: &str,
) -> Option<(String, String)> {
    let ct = tokens(claim);
    let strong = ct
        .iter()
        .find(|t| STRONG_QUANTIFIERS.contains(&t.folded.as_str()))?;
    // The passage's own "most", in another clause of its sentence, is the claim's.
    if tokens(passage).iter().any(|t| t.folded == strong.folded) {
        return None;
    }
    let st = tokens(clause);
    let k = (0..st.len()).find(|&k| is_weak_quantifier(&st, k))?;
    // "more than half": the words before the quantifier that bound it.
    let mut from = k;
    while from > 0
        && matches!(
            st[from - 1].folded.as_str(),
            "than" | "more" | "less" | "about" | "nearly" | "a" | "de" | "plus" | "moins" | "la"
        )
    {
        from -= 1;
    }
    let to = (k + 6).min(st.len());
    let phrase = clause
        .get(st[from].span.start..st[to - 1].span.end)
        .unwrap_or("")
        .to_string();
    Some((strong.surface.clone(), phrase))
}

/// Whether token `k` is a weak quantifier: a fraction word only when it
/// quantifies (`half of`, `a third of the`, `part of`), not when it names a
/// period, a rank or a share in something else (`the September quarter`,
/// `a third case`, `took part in`).
fn is_weak_quantifier(toks: &[Token], k: usize) -> bool {
    let w = toks[k].folded.as_str();
    if !WEAK_QUANTIFIERS.contains(&w) {
        return false;
    }
    !FRACTIONS.contains(&w)
        || toks.get(k + 1).is_some_and(|n| {
            matches!(
                n.folded.as_str(),
                "of" | "the" | "their" | "its" | "de" | "des" | "du" | "d"
            )
        })
}

#[cfg(test)]
mod tests {
    use super::weaker_quantifier;

    #[test]
    fn a_weaker_quantifier_of_the_source_is_found() {
        let c = "The strike closed more than half of the schools in the state.";
        let (claim, source) = weaker_quantifier("The strike closed all the schools", c, c).unwrap();
        assert_eq!(claim, "all");
        assert!(
            source.starts_with("more than half of the schools"),
            "{source}"
        );
        assert!(weaker_quantifier(
            "Most companies met forecasts",
            "Only a quarter of the companies met forecasts",
            "Only a quarter of the companies met forecasts."
        )
        .is_some());
    }

    #[test]
    fn periods_ranks_and_the_passages_own_quantifier_are_not_weaker() {
        // "quarter" names a period; the passage says "most" in its other clause.
        let p = "The September quarter earnings were not a complete disappointment, as most of the companies reported in-line or better than expected results.";
        let clause = "The September quarter earnings were not a complete disappointment";
        assert_eq!(weaker_quantifier(p, clause, p), None);
        assert_eq!(
            weaker_quantifier(
                "Most analysts expected the third quarter to be weak",
                "the third quarter was weak",
                "Analysts said the third quarter was weak."
            ),
            None
        );
        // "part" names no share here, but "several" is weaker than "all".
        let (claim, source) = weaker_quantifier(
            "All the teams took part in the final",
            "Several teams took part in the final",
            "Several teams took part in the final.",
        )
        .unwrap();
        assert_eq!(claim, "All");
        assert!(source.starts_with("Several teams"), "{source}");
        assert_eq!(
            weaker_quantifier(
                "All the teams played in the final",
                "teams took part in the final",
                "Teams took part in the final."
            ),
            None
        );
    }
}
