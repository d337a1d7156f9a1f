//! Figures: whether a sentence holds one, and the short verbatim clause
//! around it that the "Key figures" line quotes.

use verity_core::text::leans_on_previous;

const MONTHS: &[&str] = &[
    "jan",
    "january",
    "feb",
    "february",
    "mar",
    "march",
    "apr",
    "april",
    "may",
    "jun",
    "june",
    "jul",
    "july",
    "aug",
    "august",
    "sep",
    "sept",
    "september",
    "oct",
    "october",
    "nov",
    "november",
    "dec",
    "december",
];

/// Words opening a clause that depends on the rest of its sentence (the
/// connectives and anaphors that make any sentence lean on the one before
/// it are [`leans_on_previous`]'s).
const DEPENDENT_OPENINGS: &[&str] = &[
    "which",
    "who",
    "whom",
    "whose",
    "where",
    "when",
    "while",
    "as",
    "since",
    "if",
    "although",
    "though",
    "said",
    "says",
    "according",
    "including",
    "than",
    "to",
    "of",
    "with",
    "from",
    "in",
    "on",
    "at",
    "by",
    "for",
];

/// The figures of `s`: numbers that are not a day of a month nor a lone year.
fn figures(s: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let words: Vec<&str> = s.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        let core =
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '%' && c != '$' && c != '.');
        let core = core.trim_end_matches('.');
        if !core.chars().any(|c| c.is_ascii_digit()) {
            continue;
        }
        let prev = i
            .checked_sub(1)
            .map(|p| {
                words[p]
                    .trim_matches(|c: char| !c.is_alphabetic())
                    .to_lowercase()
            })
            .unwrap_or_default();
        let digits: String = core.chars().filter(char::is_ascii_digit).collect();
        let is_year = digits.len() == 4
            && core.len() == 4
            && (digits.starts_with("19") || digits.starts_with("20"));
        let is_day = MONTHS.contains(&prev.as_str()) && digits.len() <= 2;
        if is_year || is_day {
            continue;
        }
        out.push((i, core.to_string()));
    }
    out
}

/// Whether `s` holds a figure (not only a date).
pub fn has_figure(s: &str) -> bool {
    !figures(s).is_empty()
}

/// The clause of `s` around its first figure (verbatim, 4–18 words, not
/// opening with a word that needs the rest of the sentence), and the
/// figure. `None` when no such clause exists.
pub fn figure_clause(s: &str) -> Option<(String, String)> {
    let (_, number) = figures(s).into_iter().next()?;
    // Clauses: split at `, `, `; `, `: ` and dashes between spaces.
    let mut clauses: Vec<String> = vec![String::new()];
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied().unwrap_or(' ');
        let dash = matches!(c, '—' | '–') && next == ' ';
        let sep = (matches!(c, ',' | ';' | ':')
            && next == ' '
            && !chars.get(i + 2).is_some_and(char::is_ascii_digit))
            || dash;
        if sep {
            clauses.push(String::new());
            i += 1;
            continue;
        }
        if let Some(last) = clauses.last_mut() {
            last.push(c);
        }
        i += 1;
    }
    let pos = clauses.iter().position(|c| c.contains(number.as_str()))?;
    let mut clause = clauses[pos].trim().to_string();
    // Too short alone: join the next clause.
    if clause.split_whitespace().count() < 4 {
        let next = clauses.get(pos + 1)?;
        clause = format!("{clause}, {}", next.trim());
    }
    let clause = clause
        .trim()
        .trim_end_matches(['.', '!', '?', ';', ':', ','])
        .trim()
        .to_string();
    let clause = clause
        .strip_suffix(" and")
        .or_else(|| clause.strip_suffix(" but"))
        .unwrap_or(&clause)
        .to_string();
    let n = clause.split_whitespace().count();
    let first = clause
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    let balanced = clause.matches('(').count() == clause.matches(')').count()
        && clause.matches('"').count() % 2 == 0
        && !clause.contains(['“', '”']);
    let words_beside_number = clause
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphabetic) && !w.contains(number.as_str()))
        .count();
    ((4..=18).contains(&n)
        && balanced
        && words_beside_number >= 2
        && !DEPENDENT_OPENINGS.contains(&first.as_str())
        && !leans_on_previous(&clause))
    .then_some((clause, number))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_not_dates() {
        assert!(has_figure(
            "The order is valued at $8.8 billion at list prices."
        ));
        assert!(has_figure("Seven companies bid for 14 contracts."));
        assert!(!has_figure(
            "NASA announced the selection on Nov. 18 in 2019."
        ));
    }

    #[test]
    fn clauses_hold_their_figure_and_stand_alone() {
        let s = "The five companies join nine others selected by CLPS in November 2018, bringing the total number of private moon lander hopefuls to 14 firms.";
        let (c, n) = figure_clause(s).unwrap();
        assert_eq!(n, "14");
        assert_eq!(
            c,
            "bringing the total number of private moon lander hopefuls to 14 firms"
        );
        let s = "Dubai's flagship carrier finalized a deal to purchase 30 of Boeing's 787-9 Dreamliner jets, executives announced.";
        let (c, _) = figure_clause(s).unwrap();
        assert_eq!(c, "Dubai's flagship carrier finalized a deal to purchase 30 of Boeing's 787-9 Dreamliner jets");
        // A clause opening on "which" needs its sentence.
        assert!(figure_clause("Europa has plumes, which are fed by 100 geysers.").is_none());
        // Nor does one opening on a connective or an anaphor.
        let (c, _) = figure_clause("Because of the delays, the agency chose 14 firms.").unwrap();
        assert_eq!(c, "the agency chose 14 firms");
        assert!(figure_clause("However the agency chose 14 firms in the end.").is_none());
        assert!(figure_clause("This programme chose 14 firms in the end.").is_none());
        assert!(figure_clause("They chose 14 firms for the programme in the end.").is_none());
        // Thousands separators do not split clauses.
        let (c, n) = figure_clause("Researchers surveyed 505,796 people in total.").unwrap();
        assert_eq!(
            (c.as_str(), n.as_str()),
            ("Researchers surveyed 505,796 people in total", "505,796")
        );
    }
}
