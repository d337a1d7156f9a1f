//! Sentences that lean on the one before them: an opening connective
//! ("Because …", "But …", "It is for that reason …", "Meanwhile, …"), an
//! opening anaphor ("This mission …", "These …", "Such …", "They …") or a
//! third-person pronoun with nothing before it in the sentence that it
//! could stand for ("…, he said."). Quoted
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
    "due to this",
    "due to that",
    "in response",
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
    "alternatively",
    "by contrast",
    "by comparison",
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
    "as noted",
    "as mentioned",
    "elsewhere",
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

/// Singular third-person pronouns: their antecedent is a person, named
/// (a capitalised word) or designated (`the minister`, `a hunter`).
const PERSONAL: &[&str] = &[
    "he", "she", "him", "his", "her", "hers", "himself", "herself",
];

/// Plural third-person pronouns: their antecedent is a name or a plural noun.
const PLURAL: &[&str] = &["they", "them", "their", "theirs", "themselves"];

/// Nouns that designate a person, so that `he` or `she` after them in the
/// sentence has its antecedent there (`The man said he …`).
const PERSON_NOUNS: &[&str] = &[
    "actor",
    "actress",
    "analyst",
    "artist",
    "astronaut",
    "author",
    "baby",
    "boy",
    "candidate",
    "ceo",
    "chairman",
    "chairwoman",
    "chief",
    "child",
    "coach",
    "daughter",
    "director",
    "doctor",
    "driver",
    "executive",
    "father",
    "founder",
    "friend",
    "girl",
    "governor",
    "head",
    "hunter",
    "husband",
    "judge",
    "king",
    "lawmaker",
    "lawyer",
    "leader",
    "man",
    "manager",
    "mayor",
    "minister",
    "mother",
    "officer",
    "official",
    "owner",
    "patient",
    "person",
    "pilot",
    "player",
    "premier",
    "president",
    "prince",
    "princess",
    "professor",
    "queen",
    "representative",
    "researcher",
    "resident",
    "scientist",
    "senator",
    "singer",
    "son",
    "spokesman",
    "spokesperson",
    "spokeswoman",
    "student",
    "suspect",
    "teacher",
    "victim",
    "wife",
    "woman",
    "worker",
    "writer",
];

/// Plural or collective nouns without a final `s`.
const COLLECTIVES: &[&str] = &[
    "children",
    "men",
    "women",
    "people",
    "police",
    "staff",
    "crew",
    "team",
    "government",
    "company",
    "family",
    "public",
    "authorities",
];

/// Capitalised first words that are not names (`Last week, he …`).
const OPENERS: &[&str] = &[
    "last",
    "earlier",
    "later",
    "yesterday",
    "today",
    "tomorrow",
    "recently",
    "previously",
    "initially",
    "eventually",
    "ultimately",
    "currently",
    "separately",
    "elsewhere",
    "next",
    "first",
    "overall",
    "asked",
    "despite",
    "following",
    "speaking",
    "addressing",
    "once",
    "until",
    "unlike",
    "like",
    "although",
    "though",
    "whether",
    "instead",
    "still",
    "now",
    "here",
    "there",
    "what",
    "who",
    "why",
    "how",
    "where",
    "when",
    "which",
    "whose",
];

/// Verbs after which `there` is existential (`There are five moons.`) and
/// points at nothing before.
const EXISTENTIAL: &[&str] = &[
    "is", "are", "was", "were", "has", "have", "had", "will", "would", "may", "might", "could",
    "can", "must", "should", "seem", "seems", "seemed", "appear", "appears", "appeared", "remain",
    "remains", "remained", "exist", "exists", "existed", "isn't", "aren't", "wasn't", "weren't",
    "used", "came", "comes", "lies", "lay", "stands",
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
            (rest.is_empty() || rest.starts_with(|c: char| !c.is_alphanumeric() && c != '-'))
                && !(*w == "there" && existential(rest))
        })
    });
    opens || pronoun_without_antecedent(sentence)
}

/// `rest` (after an opening `there`) makes it existential: `there are …`,
/// `there's …`.
fn existential(rest: &str) -> bool {
    if rest.starts_with("'s ") || rest.starts_with("'re ") {
        return true;
    }
    let Some(after) = rest.strip_prefix(char::is_whitespace) else {
        return false;
    };
    let next = after
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .next()
        .unwrap_or_default();
    EXISTENTIAL.contains(&next)
}

/// A third-person pronoun with nothing before it in the sentence that it
/// could stand for: `he` or `she` with no name and no noun designating a
/// person before it (`…, he said.`), `they` with no name and no plural
/// noun (`In a statement, they said …`).
fn pronoun_without_antecedent(sentence: &str) -> bool {
    let words: Vec<&str> = sentence
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .map(|w| w.trim_matches(|c| c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
        .collect();
    let (mut person, mut plural) = (false, false);
    for (i, w) in words.iter().enumerate() {
        let lower = w.to_lowercase();
        let base = lower
            .strip_suffix("'s")
            .or_else(|| lower.strip_suffix("’s"))
            .unwrap_or(&lower);
        if PERSONAL.contains(&base) && !person {
            return true;
        }
        if PLURAL.contains(&base) && !plural {
            return true;
        }
        if is_name(w, &lower, i) {
            person = true;
            plural = true;
        } else if PERSON_NOUNS.contains(&base) {
            person = true;
        } else if COLLECTIVES.contains(&base)
            || is_plural_noun(base)
            || PERSON_NOUNS
                .iter()
                .any(|p| base.strip_suffix('s') == Some(*p))
        {
            plural = true;
        }
    }
    false
}

/// A capitalised word that names someone or something: after the first
/// word, any; as the first word, one that is not a function word, an
/// opening adverb (`Last`, `Speaking`), a pronoun or a plural noun.
fn is_name(word: &str, lower: &str, i: usize) -> bool {
    if !word.chars().next().is_some_and(char::is_uppercase) {
        return false;
    }
    if i > 0 {
        return !PERSONAL.contains(&lower) && !PLURAL.contains(&lower);
    }
    !super::is_stopword(lower)
        && !OPENERS.contains(&lower)
        && !PERSONAL.contains(&lower)
        && !PLURAL.contains(&lower)
        && !LEANING_OPENINGS.contains(&lower)
        && !lower.ends_with("ing")
        && !lower.ends_with("ly")
        // `Officials said he …`: a plural noun, not a name.
        && !is_plural_noun(lower)
}

/// A word that looks like a plural noun: four letters or more ending in
/// `s` (not `ss`, `us`, `is`), not a function word.
fn is_plural_noun(lower: &str) -> bool {
    lower.chars().count() >= 4
        && lower.ends_with('s')
        && !lower.ends_with("ss")
        && !lower.ends_with("us")
        && !lower.ends_with("is")
        && !super::is_stopword(lower)
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
            "There, the crew waited for a week.",
            "In a statement, they said the plant would close.",
            "Last week, he said the deal was off.",
            "Officials said he would resign in May.",
            "The agency gave her the award on Monday.",
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
            "There are five moons of interest to the mission.",
            "There’s no cure for the disease.",
            "The man was quarantined along with 28 people who he came into contact with.",
            "Residents said they were afraid of the smoke.",
            "Scientists believe their findings explain the plumes.",
            "Biden said he would sign the bill.",
            "The minister said she would resign.",
            "So-called neo-banks have been all the rage in Europe.",
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
