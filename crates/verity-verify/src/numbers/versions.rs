//! Versions (`Python 3.12`, `iOS 17.4`, `1.80`): which numbers name one,
//! their components, and how a claim's version compares with a source's.

use super::{bound_before, same_kind, Kind, Quantity};

/// Capitalised words that precede ordinary numbers (sentence starts,
/// labels; months and days are [`crate::terms::is_calendar`]): a number
/// after them is not a version.
const NOT_PRODUCTS: &[&str] = &[
    "about",
    "above",
    "after",
    "almost",
    "along",
    "also",
    "among",
    "and",
    "approximately",
    "around",
    "article",
    "at",
    "before",
    "below",
    "between",
    "but",
    "by",
    "chapter",
    "circa",
    "class",
    "cohort",
    "day",
    "during",
    "each",
    "eq",
    "equation",
    "every",
    "exactly",
    "fig",
    "figure",
    "for",
    "from",
    "grade",
    "group",
    "hour",
    "in",
    "issue",
    "item",
    "just",
    "level",
    "line",
    "model",
    "month",
    "nearly",
    "no",
    "note",
    "number",
    "of",
    "on",
    "only",
    "or",
    "over",
    "page",
    "paragraph",
    "part",
    "patient",
    "phase",
    "question",
    "room",
    "roughly",
    "round",
    "rule",
    "sample",
    "section",
    "since",
    "some",
    "stage",
    "step",
    "study",
    "table",
    "than",
    "the",
    "then",
    "to",
    "total",
    "trial",
    "type",
    "under",
    "until",
    "up",
    "visit",
    "vol",
    "volume",
    "wave",
    "week",
    "with",
    "within",
    "year",
];

/// Whether `word` (the word right before a number) names a version: `version`,
/// `release`, or a product-like name — mixed case (`Python`, `PostgreSQL`,
/// `iOS`, `Node.js`), not an all-capitals abbreviation (`HR 0.85`, `BMI 27.5`
/// are measurements) nor an ordinary capitalised word.
fn names_version(word: &str) -> bool {
    let w = word.trim_end_matches([',', ':']);
    if w.len() != word.len() && !w.eq_ignore_ascii_case("version") {
        return false;
    }
    let lower = w.to_lowercase();
    if matches!(lower.as_str(), "version" | "release" | "ver") {
        return true;
    }
    let Some(first) = w.chars().next() else {
        return false;
    };
    let letters = || w.chars().filter(|c| c.is_alphabetic());
    first.is_alphabetic()
        && w.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '+' | '#' | '-'))
        && letters().any(char::is_uppercase)
        && letters().any(char::is_lowercase)
        && !NOT_PRODUCTS.contains(&lower.as_str())
        && !crate::terms::is_calendar(&lower)
}

/// Components of a dotted number as written (`1.80` → `[1, 80]`); `None`
/// for anything else (thousands separators, units, signs).
pub fn version_components(raw: &str) -> Option<Vec<u32>> {
    let raw = raw.strip_prefix(['v', 'V']).unwrap_or(raw);
    raw.split('.')
        .map(|p| {
            if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
                None
            } else {
                p.parse().ok()
            }
        })
        .collect()
}

/// The version starting at byte `start` (the first digit), if the number
/// there is one (see [`Kind::Version`]).
pub(super) fn version_at(text: &str, start: usize) -> Option<Quantity> {
    let rest = &text[start..];
    // Digits and dots followed by a digit: the whole dotted number.
    let mut end = 0;
    let bytes = rest.as_bytes();
    while end < bytes.len()
        && (bytes[end].is_ascii_digit()
            || (bytes[end] == b'.' && bytes.get(end + 1).is_some_and(u8::is_ascii_digit)))
    {
        end += 1;
    }
    let digits = &rest[..end];
    let after = rest[end..].chars().next();
    if after.is_some_and(|c| c.is_alphanumeric() || c == '%') {
        return None;
    }
    let dots = digits.matches('.').count();
    let head = &text[..start];
    let prefixed = (head.ends_with('v') || head.ends_with('V'))
        && !head[..head.len() - 1]
            .chars()
            .last()
            .is_some_and(char::is_alphanumeric);
    let named = || {
        let gap = head.len() - head.trim_end().len();
        let word = head
            .trim_end()
            .rsplit(char::is_whitespace)
            .next()
            .unwrap_or("");
        (1..=2).contains(&gap) && names_version(word)
    };
    let comps = version_components(digits)?;
    let year_like = dots == 0 && comps.first().is_some_and(|y| (1800..=2100).contains(y));
    if !(dots >= 2 || prefixed || (named() && !year_like)) {
        return None;
    }
    let begin = if prefixed { start - 1 } else { start };
    let value = comps
        .iter()
        .take(3)
        .enumerate()
        .map(|(i, c)| f64::from(*c) / 1000f64.powi(i as i32))
        .sum();
    Some(Quantity {
        value,
        kind: Kind::Version(comps),
        bound: bound_before(text, begin),
        decimals: 0,
        raw: text[begin..start + end].to_string(),
        span: begin..start + end,
        low: None,
    })
}

/// Whether version `c` (the claim's) is consistent with `s`: the same
/// components, missing ones counting as zero (`1.80` = `1.80.0`), or a
/// prefix of `s` (`Python 3.12` covers `3.12.4`); `1.8` ≠ `1.80`.
pub(super) fn same_version(c: &[u32], s: &[u32]) -> bool {
    if c.len() <= s.len() {
        c == &s[..c.len()]
    } else {
        &c[..s.len()] == s && c[s.len()..].iter().all(|x| *x == 0)
    }
}

/// Version `a` against `b`, missing components counting as zero.
pub(super) fn version_cmp(a: &[u32], b: &[u32]) -> std::cmp::Ordering {
    let n = a.len().max(b.len());
    let at = |v: &[u32], i: usize| v.get(i).copied().unwrap_or(0);
    (0..n)
        .map(|i| at(a, i).cmp(&at(b, i)))
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

/// The components of `q` when it can be read as a version: a version, or a
/// bare dotted number (`the 1.80 release`); a bare integer only against a
/// one-component version (`JDK 21` for `Java 21`).
fn as_version<'a>(q: &'a Quantity, other: &[u32]) -> Option<std::borrow::Cow<'a, [u32]>> {
    match &q.kind {
        Kind::Version(v) => Some(std::borrow::Cow::Borrowed(v)),
        Kind::Plain if q.decimals > 0 || other.len() == 1 => {
            version_components(&q.raw).map(std::borrow::Cow::Owned)
        }
        _ => None,
    }
}

/// Whether quantities `a` and `b` can be compared (see [`same_kind`]; a
/// version compares with versions and, as a version, with bare numbers).
pub(super) fn comparable(a: &Quantity, b: &Quantity) -> bool {
    match (&a.kind, &b.kind) {
        (Kind::Date(x), Kind::Date(y)) => x.agrees(y).is_some(),
        (Kind::Date(d), Kind::Year) | (Kind::Year, Kind::Date(d)) => d.year.is_some(),
        (Kind::Date(_), _) | (_, Kind::Date(_)) => false,
        (Kind::Version(_), Kind::Version(_)) => true,
        (Kind::Version(v), _) => as_version(b, v).is_some(),
        (_, Kind::Version(v)) => as_version(a, v).is_some(),
        (x, y) => same_kind(x, y),
    }
}

/// `c` and `s` as versions when either is one and both read as versions.
pub(super) fn versions(c: &Quantity, s: &Quantity) -> Option<(Vec<u32>, Vec<u32>)> {
    let (cv, sv) = match (&c.kind, &s.kind) {
        (Kind::Version(cv), _) => (cv.clone(), as_version(s, cv)?.into_owned()),
        (_, Kind::Version(sv)) => (as_version(c, sv)?.into_owned(), sv.clone()),
        _ => return None,
    };
    Some((cv, sv))
}
