//! Calendar dates in text, English and French: `April 26, 2016`,
//! `Nov. 18`, `26 April 2016`, `February 2016`, `le 26 avril 2016`,
//! `14 février`, `1er mai`, a month alone (`in October`, `en octobre`).
//!
//! A date is compared field by field with another date (the fields both
//! state), and its year with a bare year: `March 14` ≠ `Feb. 14`, `April 26,
//! 2017` ≠ `April 26, 2016`, `in 2016` = `April 26, 2016`.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

/// The fields a date states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateParts {
    /// Year, when stated.
    pub year: Option<i32>,
    /// Month 1–12, when stated.
    pub month: Option<u8>,
    /// Day of the month, when stated.
    pub day: Option<u8>,
}

impl DateParts {
    /// Whether `self` and `other` state at least one field in common and
    /// agree on every field they both state.
    pub fn agrees(&self, other: &DateParts) -> Option<bool> {
        let pairs = [
            self.year.zip(other.year).map(|(a, b)| a == b),
            self.month.zip(other.month).map(|(a, b)| a == b),
            self.day.zip(other.day).map(|(a, b)| a == b),
        ];
        let shared: Vec<bool> = pairs.into_iter().flatten().collect();
        if shared.is_empty() {
            None
        } else {
            Some(shared.iter().all(|x| *x))
        }
    }

    /// A sortable value (year × 10⁴ + month × 100 + day; missing fields 0).
    pub fn value(&self) -> f64 {
        f64::from(self.year.unwrap_or(0)) * 1e4
            + f64::from(self.month.unwrap_or(0)) * 100.0
            + f64::from(self.day.unwrap_or(0))
    }
}

/// A date found in text: its fields, the text as written, its byte range.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundDate {
    /// Fields.
    pub parts: DateParts,
    /// As written.
    pub raw: String,
    /// Byte range.
    pub span: Range<usize>,
}

const EN_MONTHS: &[(&str, u8)] = &[
    ("january", 1),
    ("jan", 1),
    ("february", 2),
    ("feb", 2),
    ("march", 3),
    ("mar", 3),
    ("april", 4),
    ("apr", 4),
    ("may", 5),
    ("june", 6),
    ("jun", 6),
    ("july", 7),
    ("jul", 7),
    ("august", 8),
    ("aug", 8),
    ("september", 9),
    ("sept", 9),
    ("sep", 9),
    ("october", 10),
    ("oct", 10),
    ("november", 11),
    ("nov", 11),
    ("december", 12),
    ("dec", 12),
];

const FR_MONTHS: &[(&str, u8)] = &[
    ("janvier", 1),
    ("février", 2),
    ("fevrier", 2),
    ("mars", 3),
    ("avril", 4),
    ("mai", 5),
    ("juin", 6),
    ("juillet", 7),
    ("août", 8),
    ("aout", 8),
    ("septembre", 9),
    ("octobre", 10),
    ("novembre", 11),
    ("décembre", 12),
    ("decembre", 12),
];

#[allow(clippy::expect_used)] // literal patterns, covered by tests
fn re(cell: &'static OnceLock<Regex>, pat: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pat).expect("valid date regex"))
}

/// English: `Month[.] [D[st|nd|rd|th]][,] [YYYY]` or `D Month [YYYY]`.
fn english_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"(?x)
        \b(?:(?P<d1>[0-3]?\d)(?:st|nd|rd|th)?\s+)?
        (?P<m>(?:January|February|March|April|May|June|July|August|September|October|November|December
          |Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\b\.?)
        (?:\s+(?P<d2>[0-3]?\d)(?:st|nd|rd|th)?\b)?
        (?:,?\s+(?P<y>1[6-9]\d\d|20\d\d)\b)?",
    )
}

/// French: `[le] D[er] mois [YYYY]`, `mois YYYY`, `mois`.
fn french_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"(?x)
        (?:\b(?P<d>[0-3]?\d)(?:er)?\s+)?
        \b(?P<m>janvier|février|fevrier|mars|avril|mai|juin|juillet|août|aout|septembre|octobre|novembre|décembre|decembre)\b
        (?:\s+(?P<y>1[6-9]\d\d|20\d\d)\b)?",
    )
}

fn month_of(name: &str, table: &[(&str, u8)]) -> Option<u8> {
    let n = name.trim_end_matches('.').to_lowercase();
    table.iter().find(|(k, _)| *k == n).map(|(_, m)| *m)
}

/// The day as written (an impossible day, `September 39`, is kept: a claim
/// stating it states something else than the source's day).
fn day(s: Option<regex::Match<'_>>) -> Option<u8> {
    s.and_then(|m| m.as_str().parse::<u8>().ok())
        .filter(|d| *d >= 1)
}

/// Dates in `text` (`french`: read French month names; English ones are
/// read in any text, capitalised).
pub fn dates(text: &str, french: bool) -> Vec<FoundDate> {
    let mut out = Vec::new();
    for c in english_re().captures_iter(text) {
        let (Some(all), Some(m)) = (c.get(0), c.name("m")) else {
            continue;
        };
        let name = m.as_str().trim_end_matches('.');
        let d = day(c.name("d1")).or(day(c.name("d2")));
        let y = c.name("y").and_then(|y| y.as_str().parse::<i32>().ok());
        // "May" and "March" alone are a verb as often as a month; an
        // abbreviation alone is too short to trust.
        let lone = d.is_none() && y.is_none();
        let full = name.len() > 4 || name == "June" || name == "July";
        if lone && (!full || name == "May" || name == "March") {
            continue;
        }
        let Some(month) = month_of(name, EN_MONTHS) else {
            continue;
        };
        out.push(FoundDate {
            parts: DateParts {
                year: y,
                month: Some(month),
                day: d,
            },
            raw: all.as_str().trim().to_string(),
            span: all.range(),
        });
    }
    if french {
        for c in french_re().captures_iter(text) {
            let (Some(all), Some(m)) = (c.get(0), c.name("m")) else {
                continue;
            };
            let Some(month) = month_of(m.as_str(), FR_MONTHS) else {
                continue;
            };
            let d = day(c.name("d"));
            let y = c.name("y").and_then(|y| y.as_str().parse::<i32>().ok());
            if d.is_none() && y.is_none() && matches!(m.as_str(), "mars" | "mai") {
                continue; // the planet, a name
            }
            if out
                .iter()
                .any(|o| o.span.start < all.end() && all.start() < o.span.end)
            {
                continue;
            }
            out.push(FoundDate {
                parts: DateParts {
                    year: y,
                    month: Some(month),
                    day: d,
                },
                raw: all.as_str().trim().to_string(),
                span: all.range(),
            });
        }
    }
    out.sort_by_key(|d| d.span.start);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(t: &str, fr: bool) -> Vec<(Option<i32>, Option<u8>, Option<u8>)> {
        dates(t, fr)
            .into_iter()
            .map(|d| (d.parts.year, d.parts.month, d.parts.day))
            .collect()
    }

    #[test]
    fn reads_english_and_french_dates() {
        assert_eq!(
            parts("On April 26, 2016, they saw it", false),
            vec![(Some(2016), Some(4), Some(26))]
        );
        assert_eq!(
            parts("Sentencing is scheduled for Feb. 14.", false),
            vec![(None, Some(2), Some(14))]
        );
        assert_eq!(
            parts("from February 2016 through May 2017", false),
            vec![(Some(2016), Some(2), None), (Some(2017), Some(5), None)]
        );
        assert_eq!(
            parts("released on 15 May 2015 in London", false),
            vec![(Some(2015), Some(5), Some(15))]
        );
        assert_eq!(
            parts("In October, he visited", false),
            vec![(None, Some(10), None)]
        );
        assert_eq!(
            parts("on September 39 after", false),
            vec![(None, Some(9), Some(39))]
        );
        assert_eq!(parts("It may rain. March on.", false), vec![]);
        assert_eq!(
            parts("Le 26 avril 2016, les chercheurs", true),
            vec![(Some(2016), Some(4), Some(26))]
        );
        assert_eq!(
            parts("prévue le 14 février", true),
            vec![(None, Some(2), Some(14))]
        );
        assert_eq!(parts("jusqu'à Mars d'ici 10 ans", true), vec![]);
        assert_eq!(parts("en octobre", true), vec![(None, Some(10), None)]);
    }

    #[test]
    fn dates_agree_on_the_fields_both_state() {
        let d = |y, m, dd| DateParts {
            year: y,
            month: m,
            day: dd,
        };
        assert_eq!(
            d(None, Some(3), Some(14)).agrees(&d(None, Some(2), Some(14))),
            Some(false)
        );
        assert_eq!(
            d(Some(2016), None, None).agrees(&d(Some(2016), Some(4), Some(26))),
            Some(true)
        );
        assert_eq!(
            d(Some(2016), None, None).agrees(&d(None, Some(4), None)),
            None
        );
    }
}
