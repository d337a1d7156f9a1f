//! Tech-watch scoring: rules compiled from any keywords, articles of any
//! text. The input is split at NUL bytes: keywords (one per line), title,
//! content, URL. Scoring must not panic and must stay linear (libFuzzer's
//! `-timeout` catches runaway inputs).
#![no_main]

use libfuzzer_sys::fuzz_target;
use verity_core::{Priority, RelevanceRule, RuleKind, ScoringGuide};
use verity_watch::{ScoreRequest, Scorer};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\0');
    let keywords: Vec<String> = parts
        .next()
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect();
    let title = parts.next().unwrap_or_default().to_string();
    let content = parts.next().unwrap_or_default().to_string();
    let url = parts.next().unwrap_or_default().to_string();
    let _ = verity_watch::text::fold(&content);
    let rule = RelevanceRule {
        name: "fuzz".into(),
        kind: RuleKind::Include,
        keywords,
        score_modifier: 2,
        priority: Priority::High,
        active: true,
        description: None,
    };
    let Ok(rule) = rule.validated() else { return };
    let Ok(scorer) = Scorer::new(vec![rule], ScoringGuide::default()) else {
        return;
    };
    let r = scorer.score(&ScoreRequest { title, content, url });
    assert!(r.score >= 0 && r.score <= r.scoring_guide.max_score);
});
