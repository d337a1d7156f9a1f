//! One meaning for `since` / `until` in every host: RFC 3339 timestamps or
//! `YYYY-MM-DD` dates; a date-only `since` starts at 00:00 UTC that day and a
//! date-only `until` **includes** that day (ends at 23:59:59.999 UTC).

use chrono::{DateTime, Duration, NaiveDate, Utc};

use crate::core::TimeRange;
use crate::{Error, Result};

fn parse(field: &str, s: &str) -> Result<(DateTime<Utc>, bool)> {
    let s = s.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Ok((t.with_timezone(&Utc), false));
    }
    NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| (t.and_utc(), true))
        .ok_or_else(|| {
            Error::invalid_input(format!(
                "{field}: `{s}` is not a date (use RFC 3339 or YYYY-MM-DD)"
            ))
        })
}

/// Start of a window: the instant, or 00:00 UTC of a bare date.
pub fn parse_since(s: &str) -> Result<DateTime<Utc>> {
    parse("since", s).map(|(t, _)| t)
}

/// End of a window: the instant, or the last millisecond of a bare date.
pub fn parse_until(s: &str) -> Result<DateTime<Utc>> {
    let (t, date_only) = parse("until", s)?;
    Ok(if date_only {
        t + Duration::days(1) - Duration::milliseconds(1)
    } else {
        t
    })
}

/// The [`TimeRange`] of optional `since` / `until` strings; refuses an empty window.
pub fn range(since: Option<&str>, until: Option<&str>) -> Result<TimeRange> {
    let r = TimeRange {
        since: since.map(parse_since).transpose()?,
        until: until.map(parse_until).transpose()?,
    };
    if let (Some(s), Some(u)) = (r.since, r.until) {
        if s > u {
            return Err(Error::invalid_input(format!(
                "since ({s}) is after until ({u})"
            )));
        }
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn date_only_until_includes_the_day() {
        let r = range(Some("2024-01-01"), Some("2024-01-01")).unwrap();
        let noon = Utc.with_ymd_and_hms(2024, 1, 1, 12, 0, 0).unwrap();
        assert!(r.contains(Some(noon)));
        let next = Utc.with_ymd_and_hms(2024, 1, 2, 0, 0, 0).unwrap();
        assert!(!r.contains(Some(next)));
        let exact = range(None, Some("2024-01-01T00:00:00Z")).unwrap();
        assert!(!exact.contains(Some(noon)), "an instant is taken as given");
    }

    #[test]
    fn bad_dates_are_invalid_input() {
        for bad in ["last tuesday", "2024-13-01", ""] {
            let e = range(Some(bad), None).unwrap_err();
            assert_eq!(e.code(), "invalid_input");
            assert!(e.to_string().contains("since"), "{e}");
        }
        assert!(range(Some("2024-02-01"), Some("2024-01-01")).is_err());
    }
}
