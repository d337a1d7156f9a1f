//! Quantities in text (numbers, percentages, money, years, units) and how a
//! claim's figure compares with a source's.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

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
}

fn number_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        #[allow(clippy::expect_used)] // a literal pattern, tested
        Regex::new(
            r"(?ix)
            (?P<cur>[$€£¥]|\b(?:usd|eur|gbp|us\$)\s?)?
            (?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)
            (?P<pct>\s?(?:%|percent\b|per\s?cent\b|pct\b))?
            (?P<scale>\s?(?:thousand|million|billion|trillion|bn|mn|m|k)\b)?
            (?P<cur2>\s?(?:dollars|euros|pounds|usd|eur|gbp)\b)?
            (?P<unit>\s?(?:km|kilometers|kilometres|miles|mph|kg|kilograms|tons|tonnes|mw|gw|kw|kwh|gwh|twh|°c|°f|degrees|years|year-old|months|weeks|days|hours|minutes|seconds|people|patients|participants|employees|users|cases|deaths|times|fold)\b)?",
        )
        .expect("valid number regex")
    })
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
    let ends = |ws: &[&str]| ws.iter().any(|w| tail.ends_with(w));
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

/// Quantities in `text`, in order. Citation markers (`[3]`) and numbers
/// inside words or identifiers (`COVID-19`, `v2`, `H1N1`) are skipped.
pub fn quantities(text: &str) -> Vec<Quantity> {
    let mut out = Vec::new();
    for caps in number_re().captures_iter(text) {
        let (Some(all), Some(num)) = (caps.get(0), caps.get(2)) else {
            continue;
        };
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
        let digits = num.as_str().replace(',', "");
        let Ok(mut value) = digits.parse::<f64>() else {
            continue;
        };
        let decimals = digits.split_once('.').map_or(0, |(_, d)| d.len() as u32);
        let scale = caps.get(4).map(|m| m.as_str().trim().to_lowercase());
        let currency = caps
            .get(1)
            .or(caps.get(5))
            .map(|m| currency_code(m.as_str().trim()));
        match scale.as_deref() {
            Some("thousand" | "k") => value *= 1e3,
            Some("million" | "mn") => value *= 1e6,
            Some("m") if currency.is_some() => value *= 1e6,
            Some("billion" | "bn") => value *= 1e9,
            Some("trillion") => value *= 1e12,
            _ => {}
        }
        let kind = if caps.get(3).is_some() {
            Kind::Percent
        } else if let Some(c) = currency {
            Kind::Money(c)
        } else if let Some(u) = caps.get(6) {
            Kind::Unit(unit_norm(u.as_str().trim()))
        } else if decimals == 0
            && scale.is_none()
            && (1800.0..=2100.0).contains(&value)
            && !num.as_str().contains(',')
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
        });
    }
    out
}

fn currency_code(s: &str) -> String {
    match s.to_lowercase().as_str() {
        "$" | "usd" | "us$" | "dollars" => "USD".into(),
        "€" | "eur" | "euros" => "EUR".into(),
        "£" | "gbp" | "pounds" => "GBP".into(),
        "¥" => "JPY".into(),
        other => other.to_uppercase(),
    }
}

fn unit_norm(u: &str) -> String {
    match u.to_lowercase().as_str() {
        "kilometers" | "kilometres" => "km".into(),
        "kilograms" => "kg".into(),
        "tonnes" => "tons".into(),
        "fold" => "times".into(),
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
    let same: Vec<&Quantity> = passage
        .iter()
        .filter(|p| same_kind(&c.kind, &p.kind))
        .collect();
    if let Some(m) = same.iter().find(|p| consistent(c, p)) {
        return NumberCheck::Matches((*m).clone());
    }
    // The closest figure of the same kind is the one the source "says".
    let best = same.into_iter().min_by(|a, b| {
        let da = (a.value - c.value).abs();
        let db = (b.value - c.value).abs();
        da.total_cmp(&db)
    });
    match best {
        Some(s) => NumberCheck::Differs {
            source: s.clone(),
            relative: (c.value - s.value).abs() / s.value.abs().max(1e-9),
        },
        None => NumberCheck::Absent,
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
