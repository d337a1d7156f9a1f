//! Numbers written out in words (`thirteen`, `twenty-five`, `treize`,
//! `vingt-cinq`) and ordinals (`6th`, `fifth`, `6e`, `cinquième`), English
//! and French.
//!
//! `one`/`un`/`une` and `first`/`second`/`premier` are left out: they are
//! articles, pronouns and ordinary words far more often than figures
//! ("one of the first", "a second look"), and reading them as figures made
//! faithful claims look as if they stated a figure the source lacks.

use std::ops::Range;

/// A written-out number or an ordinal.
#[derive(Debug, Clone, PartialEq)]
pub struct WordNumber {
    /// Its value.
    pub value: f64,
    /// An ordinal (`fifth`, `6th`) rather than a cardinal.
    pub ordinal: bool,
    /// As written.
    pub raw: String,
    /// Byte range.
    pub span: Range<usize>,
}

const EN_UNITS: &[(&str, u32)] = &[
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("eleven", 11),
    ("twelve", 12),
    ("thirteen", 13),
    ("fourteen", 14),
    ("fifteen", 15),
    ("sixteen", 16),
    ("seventeen", 17),
    ("eighteen", 18),
    ("nineteen", 19),
    ("twenty", 20),
    ("thirty", 30),
    ("forty", 40),
    ("fifty", 50),
    ("sixty", 60),
    ("seventy", 70),
    ("eighty", 80),
    ("ninety", 90),
    ("hundred", 100),
    ("dozen", 12),
];

const FR_UNITS: &[(&str, u32)] = &[
    ("deux", 2),
    ("trois", 3),
    ("quatre", 4),
    ("cinq", 5),
    ("six", 6),
    ("sept", 7),
    ("huit", 8),
    ("neuf", 9),
    ("dix", 10),
    ("onze", 11),
    ("douze", 12),
    ("treize", 13),
    ("quatorze", 14),
    ("quinze", 15),
    ("seize", 16),
    ("vingt", 20),
    ("trente", 30),
    ("quarante", 40),
    ("cinquante", 50),
    ("soixante", 60),
    ("cent", 100),
];

const EN_ORDINALS: &[(&str, u32)] = &[
    ("third", 3),
    ("fourth", 4),
    ("fifth", 5),
    ("sixth", 6),
    ("seventh", 7),
    ("eighth", 8),
    ("ninth", 9),
    ("tenth", 10),
    ("eleventh", 11),
    ("twelfth", 12),
];

const FR_ORDINALS: &[(&str, u32)] = &[
    ("troisième", 3),
    ("quatrième", 4),
    ("cinquième", 5),
    ("sixième", 6),
    ("septième", 7),
    ("huitième", 8),
    ("neuvième", 9),
    ("dixième", 10),
];

fn lookup(w: &str, table: &[(&str, u32)]) -> Option<u32> {
    table.iter().find(|(k, _)| *k == w).map(|(_, v)| *v)
}

/// The value of one written word (possibly hyphenated: `twenty-five`,
/// `dix-sept`, `vingt-deux`).
fn word_value(w: &str, french: bool) -> Option<u32> {
    let table = if french { FR_UNITS } else { EN_UNITS };
    if let Some(v) = lookup(w, table) {
        return Some(v);
    }
    let (a, b) = w.split_once('-')?;
    let (x, y) = (lookup(a, table)?, lookup(b, table)?);
    (x >= 10 && y < 10).then_some(x + y)
}

/// Written-out numbers and ordinals in `text`, in order.
pub fn word_numbers(text: &str, french: bool) -> Vec<WordNumber> {
    let mut out = Vec::new();
    let mut i = 0;
    let bytes = text.as_bytes();
    while i < text.len() {
        // The next word: letters and inner hyphens / digits (for `6th`).
        let Some(rel) = text[i..].find(|c: char| c.is_alphanumeric()) else {
            break;
        };
        let start = i + rel;
        let end = text[start..]
            .find(|c: char| !(c.is_alphanumeric() || c == '-'))
            .map_or(text.len(), |e| start + e);
        let word = text[start..end].trim_end_matches('-');
        let wend = start + word.len();
        i = end.max(start + 1);
        while !text.is_char_boundary(i) {
            i += 1;
        }
        // Inside an identifier (`COVID-19`, `e-tron`): not a number word.
        if start > 0
            && bytes
                .get(start - 1)
                .is_some_and(|b| b.is_ascii_alphanumeric())
        {
            continue;
        }
        let lower = word.to_lowercase();
        // Digit ordinals: 6th, 21st, 6e, 6ème, 1er.
        let digits = lower.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && digits < lower.len() {
            let suffix = &lower[digits..];
            let ord = if french {
                matches!(suffix, "e" | "ème" | "eme" | "er" | "re")
            } else {
                matches!(suffix, "st" | "nd" | "rd" | "th")
            };
            if ord {
                if let Ok(v) = lower[..digits].parse::<u32>() {
                    out.push(WordNumber {
                        value: f64::from(v),
                        ordinal: true,
                        raw: word.to_string(),
                        span: start..wend,
                    });
                }
            }
            continue;
        }
        let ordinals = if french { FR_ORDINALS } else { EN_ORDINALS };
        if let Some(v) = lookup(&lower, ordinals) {
            out.push(WordNumber {
                value: f64::from(v),
                ordinal: true,
                raw: word.to_string(),
                span: start..wend,
            });
            continue;
        }
        if let Some(v) = word_value(&lower, french) {
            // English `hundred` alone is not a figure; `cent` alone is.
            if !french && v == 100 && lower == "hundred" {
                continue;
            }
            out.push(WordNumber {
                value: f64::from(v),
                ordinal: false,
                raw: word.to_string(),
                span: start..wend,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(t: &str, fr: bool) -> Vec<(f64, bool)> {
        word_numbers(t, fr)
            .into_iter()
            .map(|w| (w.value, w.ordinal))
            .collect()
    }

    #[test]
    fn reads_number_words_and_ordinals() {
        assert_eq!(
            vals("in thirteen different finishes", false),
            vec![(13.0, false)]
        );
        assert_eq!(vals("twenty-five people", false), vec![(25.0, false)]);
        assert_eq!(
            vals("James is fifth, the 6th time", false),
            vec![(5.0, true), (6.0, true)]
        );
        assert_eq!(vals("one of the first", false), vec![]);
        assert_eq!(
            vals("en treize finitions, dix-sept fois", true),
            vec![(13.0, false), (17.0, false)]
        );
        assert_eq!(
            vals("le 6e décès, la cinquième", true),
            vec![(6.0, true), (5.0, true)]
        );
        assert_eq!(vals("COVID-19 and e-tron", false), vec![]);
        assert_eq!(vals("Sept. 30 nine", false), vec![(9.0, false)]);
    }
}
