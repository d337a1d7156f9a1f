//! Paywall and login-wall heuristics.
//!
//! Signals, from the strongest:
//! - schema.org JSON-LD / microdata `isAccessibleForFree: false`;
//! - class / id markers of paywall vendors and metered content (`paywall`,
//!   `piano`, `tp-modal`, `meteredContent`, `subscriber-only`, `regwall`, …);
//! - wall phrases ("subscribe to continue", "log in to continue reading", …).
//!
//! A page is called paywalled when a signal comes with a truncated article
//! (little main text), or when two different kinds of signals agree. A long
//! article that merely carries a marker (the full text was served) stays
//! `fetched`: for verification what matters is whether the text is there.

/// Main text shorter than this (in words) counts as truncated.
pub const TRUNCATED_WORDS: usize = 250;

const MARKERS: &[&str] = &[
    "paywall",
    "pay-wall",
    "meteredcontent",
    "metered-content",
    "metered_content",
    "piano-",
    "tp-modal",
    "tp-container",
    "tp-backdrop",
    "subscriber-only",
    "subscribers-only",
    "premium-content",
    "regwall",
    "registration-wall",
    "loginwall",
    "login-wall",
    "article-locked",
    "content-locked",
    "locked-content",
    "gated-content",
];

const PHRASES: &[&str] = &[
    "subscribe to continue",
    "subscribe to read",
    "subscribe now to continue",
    "subscribe to unlock",
    "subscribers only",
    "this article is for subscribers",
    "this content is for subscribers",
    "exclusive to subscribers",
    "available to subscribers",
    "to continue reading",
    "continue reading with a subscription",
    "log in to continue",
    "login to continue",
    "sign in to continue",
    "sign in to read",
    "log in to read",
    "create a free account to continue",
    "register to continue reading",
    "you have reached your limit",
    "you've reached your limit",
    "free articles remaining",
    "you have used all of your free",
    "already a subscriber",
    "abonnez-vous pour lire",
    "réservé aux abonnés",
    "article réservé",
    "pour lire la suite",
];

/// What the heuristics saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PaywallSignals {
    /// `isAccessibleForFree` is false.
    pub not_free: bool,
    /// First paywall class/id marker found.
    pub marker: Option<&'static str>,
    /// First wall phrase found.
    pub phrase: Option<&'static str>,
}

impl PaywallSignals {
    /// Judge with the length of the extracted main text; returns a reason when paywalled.
    pub fn verdict(&self, main_text_words: usize) -> Option<String> {
        let truncated = main_text_words < TRUNCATED_WORDS;
        let kinds = usize::from(self.not_free)
            + usize::from(self.marker.is_some())
            + usize::from(self.phrase.is_some());
        if kinds == 0 || (!truncated && kinds < 2) || (!truncated && !self.not_free) {
            return None;
        }
        let mut why = Vec::new();
        if self.not_free {
            why.push("isAccessibleForFree=false".to_string());
        }
        if let Some(m) = self.marker {
            why.push(format!("marker `{m}`"));
        }
        if let Some(p) = self.phrase {
            why.push(format!("\"{p}\""));
        }
        if truncated {
            why.push(format!("only {main_text_words} words of text"));
        }
        Some(format!(
            "paywall or login wall detected: {}",
            why.join(", ")
        ))
    }
}

/// Look for paywall signals in an HTML page.
pub fn html_signals(html: &str) -> PaywallSignals {
    let lower = html.to_ascii_lowercase();
    PaywallSignals {
        not_free: not_accessible_for_free(&lower),
        marker: find_marker(&lower),
        phrase: find_phrase(&visible_text(&lower)),
    }
}

/// Look for wall phrases in plain text or Markdown (no markup signals).
pub fn text_signals(text: &str) -> PaywallSignals {
    PaywallSignals {
        not_free: false,
        marker: None,
        phrase: find_phrase(&text.to_lowercase()),
    }
}

fn not_accessible_for_free(lower: &str) -> bool {
    let mut rest = lower;
    while let Some(pos) = rest.find("isaccessibleforfree") {
        let after = rest.get(pos + "isaccessibleforfree".len()..).unwrap_or("");
        // JSON-LD: "isAccessibleForFree": false / "False" / "false"
        let value: String = after
            .trim_start_matches(|c: char| c == '"' || c == '\'' || c.is_whitespace() || c == ':')
            .chars()
            .take(8)
            .collect();
        if value.starts_with("false") || value.starts_with("\"false") || value.starts_with("'false")
        {
            return true;
        }
        // microdata: <meta itemprop="isAccessibleForFree" content="false">
        let tag_tail: String = after.chars().take(60).collect();
        if tag_tail.contains("content=\"false\"") || tag_tail.contains("content='false'") {
            return true;
        }
        rest = after;
    }
    false
}

fn find_marker(lower: &str) -> Option<&'static str> {
    // Only look inside class / id attribute values, not in scripts or prose.
    for attr in ["class=\"", "id=\"", "class='", "id='"] {
        let quote = attr.chars().last().unwrap_or('"');
        let mut rest = lower;
        while let Some(pos) = rest.find(attr) {
            let after = rest.get(pos + attr.len()..).unwrap_or("");
            let end = after.find(quote).unwrap_or(after.len()).min(300);
            let value = after.get(..end).unwrap_or("");
            if let Some(m) = MARKERS.iter().find(|m| value.contains(**m)) {
                return Some(m);
            }
            rest = after;
        }
    }
    None
}

/// Text outside `<script>` / `<style>` and tags (rough, lower-cased input).
fn visible_text(lower: &str) -> String {
    let mut out = String::with_capacity(lower.len() / 2);
    let mut rest = lower;
    loop {
        let Some(lt) = rest.find('<') else {
            out.push_str(rest);
            break;
        };
        out.push_str(rest.get(..lt).unwrap_or(""));
        out.push(' ');
        let tail = rest.get(lt..).unwrap_or("");
        let skip_to = if tail.starts_with("<script") {
            tail.find("</script>").map(|p| p + 9)
        } else if tail.starts_with("<style") {
            tail.find("</style>").map(|p| p + 8)
        } else if tail.starts_with("<!--") {
            tail.find("-->").map(|p| p + 3)
        } else {
            tail.find('>').map(|p| p + 1)
        };
        match skip_to {
            Some(n) => rest = tail.get(n..).unwrap_or(""),
            None => break,
        }
    }
    out.replace("&nbsp;", " ")
        .replace('\u{a0}', " ")
        .replace('’', "'")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn find_phrase(text: &str) -> Option<&'static str> {
    let text = text.replace('’', "'");
    PHRASES.iter().find(|p| text.contains(**p)).copied()
}

/// Word count of a text.
pub fn word_count(s: &str) -> usize {
    s.split_whitespace().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_ld_and_markers() {
        let html = r#"<html><head><script type="application/ld+json">{"@type":"NewsArticle","isAccessibleForFree": false,"hasPart":{"cssSelector":".paywall"}}</script></head>
            <body><article><p>First paragraph only.</p></article><div class="article-paywall tp-modal">Subscribe to continue reading</div></body></html>"#;
        let s = html_signals(html);
        assert!(s.not_free);
        assert_eq!(s.marker, Some("paywall"));
        assert_eq!(s.phrase, Some("subscribe to continue"));
        assert!(s.verdict(40).unwrap().contains("isAccessibleForFree=false"));
        // Full text present: a marker plus the flag still counts (two kinds agree)…
        assert!(s.verdict(2000).is_some());
        // …but one marker alone on a long article does not.
        let lone = PaywallSignals {
            marker: Some("paywall"),
            ..Default::default()
        };
        assert!(lone.verdict(2000).is_none());
        assert!(lone.verdict(30).is_some());
    }

    #[test]
    fn string_false_and_microdata() {
        assert!(html_signals(r#"{"isAccessibleForFree":"False"}"#).not_free);
        assert!(html_signals(r#"<meta itemprop="isAccessibleForFree" content="false">"#).not_free);
        assert!(!html_signals(r#"{"isAccessibleForFree": true}"#).not_free);
    }

    #[test]
    fn phrases_in_scripts_do_not_count() {
        let s = html_signals("<script>var t = 'subscribe to continue';</script><p>Hello world</p>");
        assert_eq!(s.phrase, None);
        let s = html_signals("<p>Already a subscriber? Log in</p>");
        assert_eq!(s.phrase, Some("already a subscriber"));
        assert_eq!(PaywallSignals::default().verdict(10), None);
        assert_eq!(
            text_signals("You’ve reached your limit of free articles").phrase,
            Some("you've reached your limit")
        );
    }
}
