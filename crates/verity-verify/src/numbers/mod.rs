//! Quantities in text (numbers, percentages, money, years, units) and how a
//! claim's figure compares with a source's.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

mod versions;

pub use versions::version_components;
use versions::{comparable, same_version, version_at, version_cmp, versions};

/// What a number measures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// `85 %`, `85 percent`.
    Percent,
    /// `$2.5 billion`, `€300`, `40 USD`.
    Money(String),
    /// A year (1800–2100) standing alone.
    Year,
    /// A number with a unit (`km`, `kg`, `people`…): the unit as written.
    Unit(String),
    /// A version: digits with two or more dots (`1.80.0`), `v`-prefixed
    /// (`v0.5`), or right after `version`/`release` or a product-like name
    /// (`Python 3.12`, `Rust 1.80`, `iOS 17`). Compared component by component.
    Version(Vec<u32>),
    /// A calendar date ([`crate::dates`]): compared field by field.
    Date(crate::dates::DateParts),
    /// An ordinal (`6th`, `fifth`): a rank, compared exactly.
    Ordinal,
    /// A bare number.
    Plain,
}

/// How the claim qualifies its figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// Stated as exact.
    Exact,
    /// "about", "around", "nearly", "~".
    Approx,
    /// "more than", "over", "at least".
    AtLeast,
    /// "less than", "under", "at most".
    AtMost,
}

/// A quantity found in text.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantity {
    /// Value with scale words applied (`2.5 billion` → 2.5e9).
    pub value: f64,
    /// What it measures.
    pub kind: Kind,
    /// Qualifier before it.
    pub bound: Bound,
    /// Decimal places written (for rounding tolerance).
    pub decimals: u32,
    /// The text as written.
    pub raw: String,
    /// Byte range in the text.
    pub span: Range<usize>,
    /// For a range (`40-50%`, `3 to 5 years`): its low end; `value` is the high end.
    pub low: Option<f64>,
}

/// Currency, number, percent, scale, currency word and unit around a figure;
/// `{num}` is the number pattern of the text's language.
const FIGURE_PATTERN: &str = r"(?ix)
    (?P<cur>[$€£¥]|\b(?:usd|eur|gbp|us\$)\s?)?
    (?P<num>{num})
    (?P<pct>\s?(?:%|percent\b|per\s?cent\b|pct\b|pour\s?cent\b))?
    (?P<scale>\s?(?:thousand|millions?|billions?|trillion|milliards?|mds?|bn|mn|m|k)\b)?
    (?P<cur2>\s?(?:d(?:e\s|['’]))?(?:dollars|euros|pounds|usd|eur|gbp)\b)?
    (?P<unit>\s?(?:km|kilometers|kilometres|miles|mph|kg|kilograms|tons|tonnes|mw|gw|kw|kwh|gwh|twh|°c|°f|degrees|years|year-old|months|weeks|days|hours|minutes|seconds|people|patients|participants|employees|users|cases|deaths|times|fold
        |ans|mois|semaines|jours|heures|secondes|personnes|employés|salariés|morts|décès|fois)\b)?";

/// English numbers: `1,200.5`, `1 200` with a no-break space, `3.5`.
const EN_NUMBER: &str =
    r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,3}(?:[\x{a0}\x{202f}]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?";
/// French numbers: `1 200,5`, `1.200`, `3,5`.
const FR_NUMBER: &str = r"\d{1,3}(?:[\x20\x{a0}\x{202f}.]\d{3})+(?:,\d+)?|\d+(?:,\d+)?";

fn number_re(french: bool) -> &'static Regex {
    static EN: OnceLock<Regex> = OnceLock::new();
    static FR: OnceLock<Regex> = OnceLock::new();
    let (cell, num) = if french {
        (&FR, FR_NUMBER)
    } else {
        (&EN, EN_NUMBER)
    };
    cell.get_or_init(|| {
        #[allow(clippy::expect_used)] // literal patterns, tested
        Regex::new(&FIGURE_PATTERN.replace("{num}", num)).expect("valid number regex")
    })
}

/// The digits of a number as written, in the text's convention, as a
/// decimal with a `.` point: (value text, decimals written).
fn normalised_digits(num: &str, french: bool) -> (String, u32) {
    let kept: String = if french {
        num.chars()
            .filter(|c| !matches!(c, ' ' | '\u{a0}' | '\u{202f}' | '.'))
            .map(|c| if c == ',' { '.' } else { c })
            .collect()
    } else {
        num.chars()
            .filter(|c| !matches!(c, ',' | '\u{a0}' | '\u{202f}'))
            .collect()
    };
    let decimals = kept.split_once('.').map_or(0, |(_, d)| d.len() as u32);
    (kept, decimals)
}

fn bound_before(text: &str, start: usize) -> Bound {
    let before = text[..start].trim_end().to_lowercase();
    let tail: String = before
        .chars()
        .rev()
        .take(24)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    // A whole word (or phrase) ending the text before the figure: "over",
    // not the end of "cover".
    let ends = |ws: &[&str]| {
        ws.iter().any(|w| {
            tail.strip_suffix(w).is_some_and(|rest| {
                w.starts_with(|c: char| !c.is_alphanumeric())
                    || !rest.ends_with(|c: char| c.is_alphanumeric())
            })
        })
    };
    if ends(&[
        "more than",
        "over",
        "above",
        "at least",
        "exceeding",
        "exceeds",
        "upwards of",
        "greater than",
        ">",
        "plus de",
    ]) {
        Bound::AtLeast
    } else if ends(&[
        "less than",
        "under",
        "below",
        "at most",
        "fewer than",
        "up to",
        "<",
        "moins de",
    ]) {
        Bound::AtMost
    } else if ends(&[
        "about",
        "around",
        "approximately",
        "nearly",
        "almost",
        "roughly",
        "some",
        "~",
        "circa",
        "environ",
        "près de",
        "an estimated",
        "estimated",
    ]) {
        Bound::Approx
    } else {
        Bound::Exact
    }
}

/// Quantities in `text`, in order: dates ([`crate::dates`]), numbers with
/// their currency, percent, scale and unit (in the text's language:
/// `1,200.5` in English, `1 200,5` / `1.200` in French), numbers written
/// out and ordinals ([`crate::numwords`]). Citation markers (`[3]`) and
/// numbers inside words or identifiers (`COVID-19`, `v2`, `H1N1`) are skipped.
pub fn quantities(text: &str) -> Vec<Quantity> {
    let french = crate::lexicon::is_french(text);
    let mut out: Vec<Quantity> = crate::dates::dates(text, french)
        .into_iter()
        .map(|d| Quantity {
            value: d.parts.value(),
            kind: Kind::Date(d.parts),
            bound: bound_before(text, d.span.start),
            decimals: 0,
            raw: d.raw,
            span: d.span,
            low: None,
        })
        .collect();
    let taken: Vec<Range<usize>> = out.iter().map(|q| q.span.clone()).collect();
    let inside = |r: &Range<usize>| taken.iter().any(|t| t.start < r.end && r.start < t.end);
    // End of the last version read (its later components match again).
    let mut skip_until = 0;
    for caps in number_re(french).captures_iter(text) {
        let (Some(all), Some(num)) = (caps.get(0), caps.get(2)) else {
            continue;
        };
        if num.start() < skip_until || inside(&num.range()) {
            continue;
        }
        let plain = [1, 3, 4, 5, 6].iter().all(|&g| caps.get(g).is_none())
            && !num.as_str().contains([',', ' ', '\u{a0}', '\u{202f}']);
        if plain {
            if let Some(v) = version_at(text, num.start()) {
                skip_until = v.span.end;
                out.push(v);
                continue;
            }
        }
        // The high end of a range (`40-50%`, `3 to 5 years`): merged with
        // the low end read just before.
        if let Some(prev) = out.last() {
            let gap = text.get(prev.span.end..num.start()).unwrap_or("x");
            let connector = matches!(gap.trim(), "-" | "–" | "—" | "to" | "à");
            if connector && prev.low.is_none() && !is_label(prev) && caps.get(1).is_none() {
                let (digits, decimals) = normalised_digits(num.as_str(), french);
                if let Ok(high) = digits.parse::<f64>() {
                    if prev.value < high && prev.kind == Kind::Plain {
                        let (lo, start) = (prev.value, prev.span.start);
                        out.pop();
                        let kind = if caps.get(3).is_some() {
                            Kind::Percent
                        } else if let Some(u) = caps.get(6) {
                            Kind::Unit(unit_norm(u.as_str().trim()))
                        } else {
                            Kind::Plain
                        };
                        out.push(Quantity {
                            value: high,
                            kind,
                            bound: bound_before(text, start),
                            decimals,
                            raw: text[start..all.end()].trim().to_string(),
                            span: start..all.end(),
                            low: Some(lo),
                        });
                        continue;
                    }
                }
            }
        }
        let before = text[..num.start()].chars().last();
        let after = text[num.end()..].chars().next();
        // Citation markers and identifiers.
        if before.is_some_and(|c| {
            c == '[' || c == '^' || c.is_alphabetic() || c == '-' || c == '/' || c == '.'
        }) && caps.get(1).is_none()
        {
            continue;
        }
        if after.is_some_and(|c| c.is_alphabetic() || c == ']')
            && caps.get(3).is_none()
            && caps.get(4).is_none()
            && caps.get(6).is_none()
        {
            continue;
        }
        let (digits, decimals) = normalised_digits(num.as_str(), french);
        let Ok(mut value) = digits.parse::<f64>() else {
            continue;
        };
        let scale = caps.get(4).map(|m| m.as_str().trim().to_lowercase());
        let currency = caps
            .get(1)
            .or(caps.get(5))
            .map(|m| currency_code(m.as_str().trim()));
        match scale.as_deref() {
            Some("thousand" | "k") => value *= 1e3,
            Some("million" | "millions" | "mn") => value *= 1e6,
            Some("m") if currency.is_some() => value *= 1e6,
            Some("billion" | "billions" | "bn" | "milliard" | "milliards" | "md" | "mds") => {
                value *= 1e9
            }
            Some("trillion") => value *= 1e12,
            _ => {}
        }
        let grouped = digits.len() < num.as_str().len() && decimals == 0;
        let kind = if caps.get(3).is_some() {
            Kind::Percent
        } else if let Some(c) = currency {
            Kind::Money(c)
        } else if let Some(u) = caps.get(6) {
            Kind::Unit(unit_norm(u.as_str().trim()))
        } else if decimals == 0 && scale.is_none() && (1800.0..=2100.0).contains(&value) && !grouped
        {
            Kind::Year
        } else {
            Kind::Plain
        };
        out.push(Quantity {
            value,
            kind,
            bound: bound_before(text, all.start()),
            decimals,
            raw: all.as_str().trim().to_string(),
            span: all.start()..all.end(),
            low: None,
        });
    }
    let taken: Vec<Range<usize>> = out.iter().map(|q| q.span.clone()).collect();
    for w in crate::numwords::word_numbers(text, french) {
        if taken
            .iter()
            .any(|t| t.start < w.span.end && w.span.start < t.end)
        {
            continue;
        }
        out.push(Quantity {
            value: w.value,
            kind: if w.ordinal {
                Kind::Ordinal
            } else {
                Kind::Plain
            },
            bound: bound_before(text, w.span.start),
            decimals: 0,
            raw: w.raw,
            span: w.span,
            low: None,
        });
    }
    out.sort_by_key(|q| q.span.start);
    out
}

fn currency_code(s: &str) -> String {
    match s.to_lowercase().as_str() {
        "$" | "usd" | "us$" | "dollars" => "USD".into(),
        "€" | "eur" | "euros" => "EUR".into(),
        "£" | "gbp" | "pounds" => "GBP".into(),
        "¥" => "JPY".into(),
        other => match other.rsplit([' ', '\'', '’']).next() {
            // French "de dollars", "d'euros".
            Some(last) if last != other => currency_code(last),
            _ => other.to_uppercase(),
        },
    }
}

fn unit_norm(u: &str) -> String {
    match u.to_lowercase().as_str() {
        "kilometers" | "kilometres" => "km".into(),
        "kilograms" => "kg".into(),
        "tonnes" => "tons".into(),
        "fold" | "fois" => "times".into(),
        "ans" => "years".into(),
        "mois" => "months".into(),
        "semaines" => "weeks".into(),
        "jours" => "days".into(),
        "heures" => "hours".into(),
        "secondes" => "seconds".into(),
        "personnes" => "people".into(),
        "employés" | "salariés" => "employees".into(),
        "morts" | "décès" => "deaths".into(),
        other => other.to_string(),
    }
}

/// Whether two kinds measure the same thing.
pub fn same_kind(a: &Kind, b: &Kind) -> bool {
    match (a, b) {
        (Kind::Money(x), Kind::Money(y)) => x == y,
        (Kind::Unit(x), Kind::Unit(y)) => x == y,
        (Kind::Unit(_), Kind::Plain) | (Kind::Plain, Kind::Unit(_)) => true,
        (x, y) => x == y,
    }
}

/// Whether the source's `s` is consistent with the claim's `c` (same kind
/// assumed): equal up to the claim's rounding, or within the claim's bound.
pub fn consistent(c: &Quantity, s: &Quantity) -> bool {
    if matches!(c.kind, Kind::Version(_)) || matches!(s.kind, Kind::Version(_)) {
        // A version is a name: exact (or a prefix), never rounded.
        let Some((cv, sv)) = versions(c, s) else {
            return false;
        };
        return match c.bound {
            Bound::Exact | Bound::Approx => same_version(&cv, &sv),
            Bound::AtLeast => version_cmp(&sv, &cv).is_ge(),
            Bound::AtMost => version_cmp(&sv, &cv).is_le(),
        };
    }
    match (&c.kind, &s.kind) {
        (Kind::Date(x), Kind::Date(y)) => return x.agrees(y) == Some(true),
        (Kind::Date(d), Kind::Year) => return d.year.map(f64::from) == Some(s.value),
        (Kind::Year, Kind::Date(d)) => {
            let Some(y) = d.year.map(f64::from) else {
                return false;
            };
            return match c.bound {
                Bound::Approx => (c.value - y).abs() <= 1.0,
                Bound::AtLeast => y >= c.value,
                Bound::AtMost => y <= c.value,
                Bound::Exact => y == c.value,
            };
        }
        (Kind::Ordinal, _) | (_, Kind::Ordinal) => return c.value == s.value,
        _ => {}
    }
    // A range states every value between its ends.
    let within = |x: f64, lo: f64, hi: f64| {
        let slack = hi.abs().max(lo.abs()) * 0.005 + 1e-9;
        x >= lo - slack && x <= hi + slack
    };
    match (c.low, s.low) {
        (None, Some(lo)) => return within(c.value, lo, s.value),
        (Some(lo), None) => return within(s.value, lo, c.value),
        (Some(a), Some(b)) => return within(a, b, s.value) && within(c.value, b, s.value),
        (None, None) => {}
    }
    let (cv, sv) = (c.value, s.value);
    if c.kind == Kind::Year {
        // A year is a label, not a measurement: no relative rounding (the
        // 0.5 % slack below let 2025 pass for 2028 in the distortion set).
        return match c.bound {
            Bound::Exact => cv == sv,
            Bound::Approx => (cv - sv).abs() <= 1.0,
            Bound::AtLeast => sv >= cv,
            Bound::AtMost => sv <= cv,
        };
    }
    let scale = cv.abs().max(sv.abs()).max(1e-9);
    // Rounding: the claim's written precision.
    let step = 10f64.powi(-(c.decimals as i32));
    let close = (cv - sv).abs() <= (step / 2.0).max(scale * 0.005) + 1e-9;
    match c.bound {
        Bound::Exact => close,
        // "up to 360 miles" against "up to 277 miles": two different limits.
        Bound::AtLeast | Bound::AtMost if s.bound == c.bound => close,
        Bound::Approx => (cv - sv).abs() <= scale * 0.1 + step / 2.0,
        Bound::AtLeast => sv >= cv - 1e-9 || close,
        Bound::AtMost => sv <= cv + 1e-9 || close,
    }
}

/// How a claim's figure relates to a source's figure of the same kind.
#[derive(Debug, Clone, PartialEq)]
pub enum NumberCheck {
    /// The source states a consistent figure.
    Matches(Quantity),
    /// The source states a different figure of the same kind.
    Differs {
        /// The source's figure.
        source: Quantity,
        /// Relative difference |claim − source| / |source|.
        relative: f64,
    },
    /// The source states no figure of that kind.
    Absent,
}

/// Compare claim quantity `c` with the quantities of a passage.
pub fn check(c: &Quantity, passage: &[Quantity]) -> NumberCheck {
    let same: Vec<&Quantity> = passage.iter().filter(|p| comparable(c, p)).collect();
    if let Some(m) = same.iter().find(|p| consistent(c, p)) {
        return NumberCheck::Matches((*m).clone());
    }
    // The closest figure of the same kind is the one the source "says".
    let best = same
        .into_iter()
        .min_by(|a, b| distance(c, a).total_cmp(&distance(c, b)));
    match best {
        // Another version, date or rank is another thing, whatever the numeric gap.
        Some(s) if versions(c, s).is_some() || is_label(c) || is_label(s) => NumberCheck::Differs {
            source: s.clone(),
            relative: 1.0,
        },
        Some(s) => NumberCheck::Differs {
            source: s.clone(),
            relative: (c.value - s.value).abs() / s.value.abs().max(1e-9),
        },
        None => NumberCheck::Absent,
    }
}

/// Whether `q` names rather than measures: a year, a date, a version, a rank.
pub fn is_label(q: &Quantity) -> bool {
    matches!(
        q.kind,
        Kind::Year | Kind::Date(_) | Kind::Version(_) | Kind::Ordinal
    )
}

/// How far `s` is from `c` (to pick the source figure the claim's stands for).
fn distance(c: &Quantity, s: &Quantity) -> f64 {
    let parts = |q: &Quantity| match &q.kind {
        Kind::Date(d) => Some(*d),
        Kind::Year => Some(crate::dates::DateParts {
            year: Some(q.value as i32),
            month: None,
            day: None,
        }),
        _ => None,
    };
    match (parts(c), parts(s)) {
        (Some(a), Some(b))
            if matches!(c.kind, Kind::Date(_)) || matches!(s.kind, Kind::Date(_)) =>
        {
            let gap = |x: Option<i64>, y: Option<i64>| match (x, y) {
                (Some(x), Some(y)) => (x - y).abs(),
                _ => 0,
            };
            (gap(a.year.map(i64::from), b.year.map(i64::from)) * 400
                + gap(a.month.map(i64::from), b.month.map(i64::from)) * 32
                + gap(a.day.map(i64::from), b.day.map(i64::from))) as f64
        }
        _ => (s.value - c.value).abs(),
    }
}

/// Largest overstatement of a measured figure read as an exaggeration
/// (PARTIAL) rather than another figure (NOT_SUPPORTED): the claim's figure
/// at most 15 % above the source's figure for the same quantity.
///
/// Seed 002 fixes the two ends: "85 % des entreprises" against "78 % of
/// companies" is PARTIAL (exaggeration, +9 %), "80 % des devs" against "62 %
/// of respondents" is NOT_SUPPORTED (+29 %). Any understatement, and every
/// year, date, version or rank that differs, is another figure.
pub const EXAGGERATION_MAX: f64 = 0.15;

/// A claim's figure against a passage's, under seed 002's rule.
#[derive(Debug, Clone, PartialEq)]
pub enum Figure {
    /// The source states the same figure (up to the claim's rounding and bound).
    Same(Quantity),
    /// The claim overstates the source's figure by at most [`EXAGGERATION_MAX`].
    Overstates(Quantity),
    /// The source states another figure for it.
    Differs(Quantity),
    /// The source states no figure of that kind.
    Absent,
}

/// Compare claim figure `c` with a passage's figures ([`Figure`]).
pub fn compare(c: &Quantity, passage: &[Quantity]) -> Figure {
    match check(c, passage) {
        NumberCheck::Matches(s) => Figure::Same(s),
        NumberCheck::Absent => Figure::Absent,
        NumberCheck::Differs { source, .. } => {
            let (cv, sv) = (c.value, source.value);
            let over = !is_label(c)
                && !is_label(&source)
                && sv != 0.0
                && cv.signum() == sv.signum()
                && cv.abs() > sv.abs()
                && (cv.abs() - sv.abs()) / sv.abs() <= EXAGGERATION_MAX + 1e-9;
            if over {
                Figure::Overstates(source)
            } else {
                Figure::Differs(source)
            }
        }
    }
}

/// `text` with its first figure changed (for building numeric-distortion
/// test sets): returns (distorted text, figure as written, new figure), or
/// `None` when `text` has no figure. Years move by 3, small numbers by 3,
/// others by +30 % (rounded to the written precision).
pub fn change_first_number(text: &str) -> Option<(String, String, String)> {
    let q = quantities(text).into_iter().next()?;
    let raw = &text[q.span.clone()];
    let m = NUM_ONLY.get_or_init(|| {
        #[allow(clippy::expect_used)] // a literal pattern
        Regex::new(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?").expect("valid regex")
    });
    let n = m.find(raw)?;
    let digits = n.as_str().replace(',', "");
    let v: f64 = digits.parse().ok()?;
    let decimals = digits.split_once('.').map_or(0, |(_, d)| d.len());
    let new = if q.kind == Kind::Year || v < 10.0 {
        v + 3.0
    } else {
        (v * 1.3 * 10f64.powi(decimals as i32)).round() / 10f64.powi(decimals as i32)
    };
    let new_s = format!("{new:.decimals$}");
    let start = q.span.start + n.start();
    let end = q.span.start + n.end();
    Some((
        format!("{}{}{}", &text[..start], new_s, &text[end..]),
        n.as_str().to_string(),
        new_s,
    ))
}

static NUM_ONLY: OnceLock<Regex> = OnceLock::new();

#[cfg(test)]
mod tests {
    use super::*;

    fn q(t: &str) -> Vec<(f64, Kind)> {
        quantities(t)
            .into_iter()
            .map(|q| (q.value, q.kind))
            .collect()
    }

    #[test]
    fn finds_percent_money_years_units() {
        assert_eq!(q("85 % of firms"), vec![(85.0, Kind::Percent)]);
        assert_eq!(
            q("78% in 2023"),
            vec![(78.0, Kind::Percent), (2023.0, Kind::Year)]
        );
        assert_eq!(q("$2.5 billion"), vec![(2.5e9, Kind::Money("USD".into()))]);
        assert_eq!(q("1,200 km away"), vec![(1200.0, Kind::Unit("km".into()))]);
        assert_eq!(q("COVID-19 and H1N1 cited [3]"), vec![]);
        assert_eq!(q("12 people"), vec![(12.0, Kind::Unit("people".into()))]);
    }

    #[test]
    fn reads_french_and_english_writing() {
        let v = |t: &str| -> Vec<(f64, Kind)> {
            quantities(t)
                .into_iter()
                .map(|q| (q.value, q.kind))
                .collect()
        };
        assert_eq!(
            v("WeWork se prépare à supprimer 4 000 emplois"),
            vec![(4000.0, Kind::Plain)]
        );
        assert_eq!(
            v("SoftBank s'est engagé à verser 9,5 milliards de dollars"),
            vec![(9.5e9, Kind::Money("USD".into()))]
        );
        assert_eq!(
            v("committed to a $9.5 billion lifeline, SoftBank's largest"),
            vec![(9.5e9, Kind::Money("USD".into()))]
        );
        assert_eq!(
            v("Le Nasdaq a gagné 20,72 points, soit 0,24 %, à 8 570,66."),
            vec![
                (20.72, Kind::Plain),
                (0.24, Kind::Percent),
                (8570.66, Kind::Plain)
            ]
        );
        assert_eq!(
            v("le rendement de 1.200 modules"),
            vec![(1200.0, Kind::Plain)]
        );
        assert_eq!(
            v("Titan's diameter of 3,200 miles is the System's second"),
            vec![(3200.0, Kind::Unit("miles".into()))]
        );
        assert_eq!(v("a 6th fatality"), vec![(6.0, Kind::Ordinal)]);
        let r = &quantities("runs models 40-50% faster")[0];
        assert_eq!(
            (r.low, r.value, &r.kind),
            (Some(40.0), 50.0, &Kind::Percent)
        );
        assert!(matches!(
            compare(&quantities("is 50% faster")[0], std::slice::from_ref(r)),
            Figure::Same(_)
        ));
        assert!(matches!(
            compare(&quantities("is 60% faster")[0], std::slice::from_ref(r)),
            Figure::Overstates(_) | Figure::Differs(_)
        ));
        assert_eq!(
            v("won 6-4, 7-6"),
            vec![(6.0, Kind::Plain), (7.0, Kind::Plain)]
        );
        assert_eq!(v("in thirteen finishes"), vec![(13.0, Kind::Plain)]);
        let d = quantities("Sentencing is scheduled for Feb. 14.");
        assert!(matches!(d[0].kind, Kind::Date(_)), "{d:?}");
        let c = &quantities("Dunes cover 27 percent of the surface of Titan.")[0];
        let s = quantities(
            "Plains (covering 65 percent of the surface) and dunes (covering 17 percent of the surface) made up of frozen bits",
        );
        assert!(
            matches!(compare(c, &s), Figure::Differs(_)),
            "{:?}",
            compare(c, &s)
        );
        assert_eq!(quantities("Dunes cover 27 percent")[0].bound, Bound::Exact);
        assert_eq!(quantities("it is over 27 percent")[0].bound, Bound::AtLeast);
        let c = &quantities("85 % des entreprises")[0];
        assert!(matches!(
            compare(c, &quantities("78% of companies")),
            Figure::Overstates(_)
        ));
        let c = &quantities("80% des devs")[0];
        assert!(matches!(
            compare(c, &quantities("62% of respondents")),
            Figure::Differs(_)
        ));
    }

    #[test]
    fn compares_with_rounding_and_bounds() {
        let claim = quantities("about 80% of users");
        let src = quantities("78 % of users");
        assert!(matches!(check(&claim[0], &src), NumberCheck::Matches(_)));
        let claim = quantities("85 % of companies");
        match check(&claim[0], &src) {
            NumberCheck::Differs { source, .. } => assert_eq!(source.raw, "78 %"),
            other => panic!("{other:?}"),
        }
        let claim = quantities("more than 70% of users");
        assert!(matches!(check(&claim[0], &src), NumberCheck::Matches(_)));
        let claim = quantities("78.4% of users");
        assert!(matches!(
            check(&claim[0], &src),
            NumberCheck::Differs { .. }
        ));
        let claim = quantities("78% of users");
        assert!(matches!(
            check(&claim[0], &quantities("78.4% did")),
            NumberCheck::Matches(_)
        ));
        assert_eq!(
            check(&claim[0], &quantities("in 2020")),
            NumberCheck::Absent
        );
    }

    #[test]
    fn the_same_bound_on_both_sides_compares_the_limits() {
        let c = &quantities("up to 360 miles")[0];
        assert!(!consistent(c, &quantities("up to 277 miles")[0]));
        assert!(consistent(c, &quantities("a range of 277 miles")[0]));
        assert!(consistent(c, &quantities("up to 360 miles")[0]));
    }

    #[test]
    fn years_match_exactly() {
        let c = &quantities("in 2028")[0];
        let s = &quantities("in 2025")[0];
        assert_eq!(c.kind, Kind::Year);
        assert!(!consistent(c, s), "2028 is not 2025");
        assert!(consistent(c, c));
        let around = &quantities("around 2024")[0];
        assert_eq!(around.bound, Bound::Approx);
        assert!(consistent(around, s), "around 2024 allows 2025");
        assert!(!consistent(around, &quantities("in 2027")[0]));
    }

    fn version(t: &str) -> Option<Vec<u32>> {
        quantities(t).into_iter().find_map(|q| match q.kind {
            Kind::Version(v) => Some(v),
            _ => None,
        })
    }

    #[test]
    fn reads_versions() {
        assert_eq!(version("Rust 1.80.0 is out"), Some(vec![1, 80, 0]));
        assert_eq!(version("Rust 1.80 released"), Some(vec![1, 80]));
        assert_eq!(version("Ollama v0.5 ships"), Some(vec![0, 5]));
        assert_eq!(version("see version 3.12"), Some(vec![3, 12]));
        assert_eq!(version("Python 3.12 adds it"), Some(vec![3, 12]));
        assert_eq!(
            version("on iOS 17, PostgreSQL 16.2 and Node.js 20"),
            Some(vec![17])
        );
        let all: Vec<Kind> = quantities("Rust 1.80.0 and v2 on 10.0.0.1")
            .into_iter()
            .map(|q| q.kind)
            .collect();
        assert_eq!(
            all,
            vec![
                Kind::Version(vec![1, 80, 0]),
                Kind::Version(vec![2]),
                Kind::Version(vec![10, 0, 0, 1])
            ]
        );
        assert_eq!(quantities("Rust 1.80.0")[0].raw, "1.80.0");
        assert_eq!(quantities("tag v0.5.1")[0].raw, "v0.5.1");
        // Measurements, labels and years stay numbers.
        assert_eq!(
            q("HR 0.85 (CI 0.7)"),
            vec![(0.85, Kind::Plain), (0.7, Kind::Plain)]
        );
        assert_eq!(q("The 3.5 mg dose"), vec![(3.5, Kind::Plain)]);
        assert_eq!(q("Figure 2.5 shows"), vec![(2.5, Kind::Plain)]);
        assert_eq!(q("Paris 2024 games"), vec![(2024.0, Kind::Year)]);
        assert_eq!(q("Python 3.12% faster"), vec![(3.12, Kind::Percent)]);
        assert_eq!(q("grew 3.5 times"), vec![(3.5, Kind::Unit("times".into()))]);
        assert_eq!(version("dev1.2 build"), None);
    }

    #[test]
    fn versions_compare_as_versions() {
        let matches = |c: &str, s: &str| {
            let c = quantities(c);
            matches!(check(&c[0], &quantities(s)), NumberCheck::Matches(_))
        };
        // Same version, written differently.
        assert!(matches("Rust 1.80 released", "Rust 1.80.0 is out"));
        assert!(matches("Rust 1.80.0 released", "Rust 1.80 is out"));
        assert!(matches("Ollama 0.5 ships", "Ollama v0.5.0 ships"));
        assert!(matches("Python 3.12 adds it", "the 3.12 release"));
        assert!(matches("Python 3.12 adds it", "Python 3.12.4 fixes it"));
        assert!(matches("Java 21 is LTS", "JDK 21 is LTS"));
        assert!(matches("more than v1.79", "Rust 1.80.0 is out"));
        assert!(!matches("more than v1.81", "Rust 1.80.0 is out"));
        // Different versions, however close the numbers.
        assert!(!matches("Python 3.12 adds it", "Python 3.13 adds it"));
        assert!(!matches("Kubernetes 1.30 ships", "Kubernetes 1.3 ships"));
        assert!(!matches("Rust 1.80.1 released", "Rust 1.80 is out"));
        assert!(!matches("Rust 1.80.1 released", "Rust 1.80.0 is out"));
        match check(
            &quantities("Python 3.12 adds it")[0],
            &quantities("Python 3.13.0 adds it"),
        ) {
            NumberCheck::Differs { source, relative } => {
                assert_eq!(source.raw, "3.13.0");
                assert_eq!(relative, 1.0, "a different version is a contradiction");
            }
            other => panic!("{other:?}"),
        }
        // A version does not match an unrelated measurement.
        assert_eq!(
            check(
                &quantities("Rust 1.80 released")[0],
                &quantities("80 % faster")
            ),
            NumberCheck::Absent
        );
    }

    #[test]
    fn changes_the_first_figure() {
        let (t, old, new) = change_first_number("Sales rose 12.5% in 2020.").unwrap_or_default();
        assert_eq!(
            (t.as_str(), old.as_str(), new.as_str()),
            ("Sales rose 16.3% in 2020.", "12.5", "16.3")
        );
        assert!(change_first_number("No figures here.").is_none());
    }
}
