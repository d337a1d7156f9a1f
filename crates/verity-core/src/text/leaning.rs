//! Sentences that lean on the one before them: an opening connective
//! ("Because …", "But …", "It is for that reason …", "Meanwhile, …"), an
//! opening anaphor ("This mission …", "These …", "Such …", "They …") or a
//! third-person pronoun with no name before it ("…, he said."). Quoted
//! alone, such a sentence is a fragment: the research writer takes it only
//! with the sentence it leans on, the research report check drops it when
//! that sentence is not right before it, and the research evaluation counts
//! it. One list, here, for all three.

/// Openings that make a sentence depend on the sentence before it:
/// connectives, and pronouns or demonstratives whose antecedent is there.
/// Matched on whole words at the start, case-insensitively (after opening
/// quotes and brackets). English only: a French rule goes beside it.
pub const LEANING_OPENINGS: &[&str] = &[
    // Cause and consequence.
    "because",
    "so",
    "therefore",
    "thus",
    "hence",
    "consequently",
    "accordingly",
    "as a result",
    "as a consequence",
    "as such",
    "for that reason",
    "for this reason",
    "it is for that reason",
    "it is for this reason",
    "that is why",
    "this is why",
    "that's why",
    "which is why",
    "to that end",
    "to this end",
    "if so",
    "if not",
    // Contrast and concession.
    "but",
    "yet",
    "however",
    "still",
    "instead",
    "rather",
    "otherwise",
    "nevertheless",
    "nonetheless",
    "even so",
    "even then",
    "all the same",
    "regardless",
    "anyway",
    "either way",
    "conversely",
    "by contrast",
    "in contrast",
    "on the contrary",
    "on the other hand",
    "despite this",
    "despite that",
    "despite these",
    "in spite of this",
    "in spite of that",
    // Addition.
    "and",
    "or",
    "nor",
    "also",
    "plus",
    "besides",
    "moreover",
    "furthermore",
    "additionally",
    "likewise",
    "similarly",
    "equally",
    "indeed",
    "in addition",
    "in fact",
    "in turn",
    "on top of that",
    "what's more",
    "not only that",
    "above all",
    "after all",
    // Time and sequence.
    "then",
    "now",
    "meanwhile",
    "in the meantime",
    "later",
    "afterwards",
    "afterward",
    "subsequently",
    "after that",
    "since then",
    "by then",
    "until then",
    "at the same time",
    "again",
    "second",
    "secondly",
    "third",
    "thirdly",
    "finally",
    "lastly",
    // Example, restatement, summary.
    "for example",
    "for instance",
    "in particular",
    "namely",
    "in other words",
    "in short",
    "in sum",
    "in that regard",
    "in this regard",
    "in that case",
    "in this case",
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

/// Whether `sentence` leans on the sentence before it (see the module doc).
///
/// ```
/// use verity_core::text::leans_on_previous;
/// assert!(leans_on_previous("It is for that reason that the agency waited."));
/// assert!(leans_on_previous("“But the plumes are rare,” she said."));
/// assert!(!leans_on_previous("NASA chose five companies on Monday."));
/// assert!(!leans_on_previous("Butterflies migrate south in winter."));
/// ```
pub fn leans_on_previous(sentence: &str) -> bool {
    let s = sentence
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
        .replace(['’', '‘'], "'");
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
    let words = sentence
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .filter(|w| !w.is_empty());
    for (i, w) in words.enumerate() {
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

#[cfg(test)]
mod tests {
    use super::leans_on_previous;
    use proptest::prelude::*;

    #[test]
    fn connectives_and_anaphors_lean() {
        for s in [
            "Because space travel and sustaining life off Earth are anything but easy.",
            "But while that sounds like a lot, it was only just enough to be detected.",
            "However, the other 28 people have showed no signs.",
            "It is for that reason that the agency waited.",
            "This surge in air pollution is an alarmingly regular occurrence.",
            "These results are preliminary.",
            "That changed in April.",
            "Such claims are hard to check.",
            "Also on the agenda was the budget.",
            "So the launch slipped to March.",
            "Thus the mission ended early.",
            "Yet the agency pressed on.",
            "Still, the plan went ahead.",
            "Instead, the crew waited.",
            "Meanwhile, prices rose.",
            "In that regard, they're very different from the constant plume.",
            "Now Assange faces 18 criminal charges in the US.",
            "Despite this, the company grew.",
            "They range from the truly massive to the small.",
            "The larger landers could deliver tools, he said.",
            "“But we must ask who we are,” she wrote.",
            "(However, the results held.)",
            "That’s why the launch slipped.",
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
            "Nowhere is the effect larger than in Delhi.",
            "Sofia said it would take years.",
            "Earlier this month, NASA announced a milestone.",
            "",
            "…",
        ] {
            assert!(!leans_on_previous(s), "{s}");
        }
    }

    proptest! {
        #[test]
        fn any_text_is_read_without_panicking(s in any::<String>()) {
            let _ = leans_on_previous(&s);
        }
    }
}
