//! Deterministic, explainable scoring (`score_article`): every article
//! starts at the guide's base score, each matched rule adds its modifier
//! once, the total is clamped to `0..=max_score`.
//!
//! Matching is done on folded text ([`crate::text::fold`]: case- and
//! accent-insensitive, `-`/`_`/whitespace equivalent) with one Aho-Corasick
//! pass over all keywords; a hit counts only on word boundaries (a keyword
//! edge that is a letter or digit must not touch another letter or digit),
//! so `llm` does not match `llms` and `local llm` matches `Local-LLM`.

use aho_corasick::{AhoCorasick, MatchKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use verity_core::{Error, Priority, RelevanceRule, Result, RuleKind, ScoringGuide};

use crate::text::{fold, is_word_char};

/// Longest content scored, in bytes (the rest is ignored and flagged).
pub const MAX_SCORED_BYTES: usize = 2 << 20;

/// Input of `score_article`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScoreRequest {
    /// Article title.
    #[serde(default)]
    pub title: String,
    /// Article text.
    #[serde(default)]
    pub content: String,
    /// Article URL (its host and path words are matched too).
    #[serde(default)]
    pub url: String,
}

/// Where a keyword was found.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Field {
    /// The title.
    Title,
    /// The content.
    Content,
    /// The URL.
    Url,
}

/// A keyword of a rule that matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct KeywordHit {
    /// The keyword as written in the rule.
    pub keyword: String,
    /// Occurrences over all fields.
    pub count: usize,
    /// Fields it occurs in.
    pub fields: Vec<Field>,
}

/// A rule that matched and what it did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RuleMatch {
    /// Rule name.
    pub rule: String,
    /// Rule type.
    #[serde(rename = "type")]
    pub kind: RuleKind,
    /// Rule priority.
    pub priority: Priority,
    /// Modifier applied (once per rule).
    pub score_modifier: i32,
    /// Keywords that matched.
    pub keywords: Vec<KeywordHit>,
}

/// Result of `score_article`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScoreResult {
    /// Final score, clamped to `0..=scoring_guide.max_score`.
    pub score: i32,
    /// Base score plus modifiers, before clamping.
    pub raw_score: i32,
    /// `score >= min_valid_score` and no exclude rule matched.
    pub valid: bool,
    /// Whether an exclude rule matched.
    pub excluded: bool,
    /// Rules that matched, by priority then name.
    pub matched_rules: Vec<RuleMatch>,
    /// One line per step: base, each rule, clamping, verdict.
    pub explanation: Vec<String>,
    /// The guide used.
    pub scoring_guide: ScoringGuide,
    /// Content beyond [`MAX_SCORED_BYTES`] was not read.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// Rules compiled for matching.
#[derive(Debug)]
pub struct Scorer {
    rules: Vec<RelevanceRule>,
    guide: ScoringGuide,
    /// Pattern i → every (rule index, keyword index) it stands for: a
    /// keyword shared by several rules is one pattern, so that the matches
    /// at one position are at most one per distinct keyword length.
    patterns: Vec<Vec<(usize, usize)>>,
    /// Pattern i: (must check the boundary before, after).
    edges: Vec<(bool, bool)>,
    ac: Option<AhoCorasick>,
}

impl Scorer {
    /// Compile the active rules.
    pub fn new(rules: Vec<RelevanceRule>, guide: ScoringGuide) -> Result<Self> {
        let rules: Vec<RelevanceRule> = rules.into_iter().filter(|r| r.active).collect();
        let mut folded: Vec<String> = Vec::new();
        let mut index: std::collections::HashMap<String, usize> = Default::default();
        let mut patterns: Vec<Vec<(usize, usize)>> = Vec::new();
        let mut edges = Vec::new();
        for (ri, r) in rules.iter().enumerate() {
            for (ki, k) in r.keywords.iter().enumerate() {
                let f = fold(k);
                let (Some(first), Some(last)) = (f.chars().next(), f.chars().last()) else {
                    continue;
                };
                if let Some(&p) = index.get(&f) {
                    if let Some(targets) = patterns.get_mut(p) {
                        targets.push((ri, ki));
                    }
                    continue;
                }
                index.insert(f.clone(), folded.len());
                edges.push((is_word_char(first), is_word_char(last)));
                folded.push(f);
                patterns.push(vec![(ri, ki)]);
            }
        }
        let ac = if folded.is_empty() {
            None
        } else {
            // An NFA, never a DFA: built in time linear in the keywords'
            // length (a DFA multiplies states by the alphabet).
            Some(
                AhoCorasick::builder()
                    .match_kind(MatchKind::Standard)
                    .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
                    .build(&folded)
                    .map_err(|e| {
                        Error::invalid_input(format!("cannot compile rule keywords: {e}"))
                    })?,
            )
        };
        Ok(Self {
            rules,
            guide,
            patterns,
            edges,
            ac,
        })
    }

    /// The rules this scorer applies.
    pub fn rules(&self) -> &[RelevanceRule] {
        &self.rules
    }

    /// Score an article.
    pub fn score(&self, req: &ScoreRequest) -> ScoreResult {
        let mut content = req.content.as_str();
        let truncated = content.len() > MAX_SCORED_BYTES;
        if truncated {
            let mut end = MAX_SCORED_BYTES;
            while !content.is_char_boundary(end) {
                end -= 1;
            }
            content = content.get(..end).unwrap_or("");
        }
        // hits[rule][keyword] = (count, fields)
        let mut hits: Vec<Vec<(usize, Vec<Field>)>> = self
            .rules
            .iter()
            .map(|r| vec![(0, Vec::new()); r.keywords.len()])
            .collect();
        let url_text = url_words(&req.url);
        for (field, text) in [
            (Field::Title, req.title.as_str()),
            (Field::Content, content),
            (Field::Url, url_text.as_str()),
        ] {
            self.scan(field, &fold(text), &mut hits);
        }
        let mut matched: Vec<RuleMatch> = Vec::new();
        for (ri, r) in self.rules.iter().enumerate() {
            let kws: Vec<KeywordHit> = r
                .keywords
                .iter()
                .zip(hits.get(ri).map(Vec::as_slice).unwrap_or(&[]))
                .filter(|(_, (n, _))| *n > 0)
                .map(|(k, (n, f))| KeywordHit {
                    keyword: k.clone(),
                    count: *n,
                    fields: f.clone(),
                })
                .collect();
            if !kws.is_empty() {
                matched.push(RuleMatch {
                    rule: r.name.clone(),
                    kind: r.kind,
                    priority: r.priority,
                    score_modifier: r.score_modifier,
                    keywords: kws,
                });
            }
        }
        matched.sort_by(|a, b| {
            a.priority
                .cmp(&b.priority)
                .then_with(|| a.rule.cmp(&b.rule))
        });
        let g = self.guide;
        let mut explanation = vec![format!("base score {}", g.base_score)];
        let mut raw = g.base_score;
        for m in &matched {
            raw = raw.saturating_add(m.score_modifier);
            let words: Vec<&str> = m.keywords.iter().map(|k| k.keyword.as_str()).collect();
            explanation.push(format!(
                "{:+} {} rule `{}` ({}) matched: {}",
                m.score_modifier,
                m.kind,
                m.rule,
                m.priority,
                words.join(", ")
            ));
        }
        let score = raw.clamp(0, g.max_score);
        if score != raw {
            explanation.push(format!("{raw} clamped to {score} (0…{})", g.max_score));
        }
        let excluded = matched.iter().any(|m| m.kind == RuleKind::Exclude);
        let valid = score >= g.min_valid_score && !excluded;
        explanation.push(if excluded {
            format!(
                "not valid: an exclude rule matched (score {score}/{})",
                g.max_score
            )
        } else if valid {
            format!("valid: {score}/{} >= {}", g.max_score, g.min_valid_score)
        } else {
            format!("not valid: {score}/{} < {}", g.max_score, g.min_valid_score)
        });
        ScoreResult {
            score,
            raw_score: raw,
            valid,
            excluded,
            matched_rules: matched,
            explanation,
            scoring_guide: g,
            truncated,
        }
    }

    fn scan(&self, field: Field, text: &str, hits: &mut [Vec<(usize, Vec<Field>)>]) {
        let Some(ac) = &self.ac else { return };
        for m in ac.find_overlapping_iter(text) {
            let p = m.pattern().as_usize();
            let (Some(targets), Some(&(check_before, check_after))) =
                (self.patterns.get(p), self.edges.get(p))
            else {
                continue;
            };
            let before_ok = !check_before
                || text
                    .get(..m.start())
                    .and_then(|s| s.chars().next_back())
                    .is_none_or(|c| !is_word_char(c));
            let after_ok = !check_after
                || text
                    .get(m.end()..)
                    .and_then(|s| s.chars().next())
                    .is_none_or(|c| !is_word_char(c));
            if !(before_ok && after_ok) {
                continue;
            }
            for &(ri, ki) in targets {
                if let Some((n, fields)) = hits.get_mut(ri).and_then(|r| r.get_mut(ki)) {
                    *n += 1;
                    if !fields.contains(&field) {
                        fields.push(field);
                    }
                }
            }
        }
    }
}

/// Host and path of a URL as words (`https://blog.ollama.com/ollama-0-5` →
/// `blog ollama com ollama 0 5`); a string that is not a URL is used as is.
fn url_words(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(u) => format!("{} {}", u.host_str().unwrap_or(""), u.path()).replace(['/', '.'], " "),
        Err(_) => url.replace(['/', '.'], " "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(name: &str, kind: RuleKind, kws: &[&str], m: i32, p: Priority) -> RelevanceRule {
        RelevanceRule {
            name: name.into(),
            kind,
            keywords: kws.iter().map(|s| s.to_string()).collect(),
            score_modifier: m,
            priority: p,
            active: true,
            description: None,
        }
    }

    fn seed_rules() -> Vec<RelevanceRule> {
        vec![
            rule(
                "local_llm",
                RuleKind::Include,
                &["ollama", "llama.cpp", "local llm", "on-device ai"],
                3,
                Priority::Critical,
            ),
            rule(
                "n8n_automation",
                RuleKind::Include,
                &["n8n", "workflow automation", "no-code"],
                2,
                Priority::High,
            ),
            rule(
                "crypto_spam",
                RuleKind::Exclude,
                &["crypto", "blockchain", "nft", "web3"],
                -10,
                Priority::Critical,
            ),
            rule(
                "francais",
                RuleKind::Boost,
                &["intelligence artificielle", "modèle"],
                1,
                Priority::Low,
            ),
        ]
    }

    fn score(title: &str, content: &str, url: &str) -> ScoreResult {
        Scorer::new(seed_rules(), ScoringGuide::default())
            .unwrap()
            .score(&ScoreRequest {
                title: title.into(),
                content: content.into(),
                url: url.into(),
            })
    }

    fn names(r: &ScoreResult) -> Vec<&str> {
        r.matched_rules.iter().map(|m| m.rule.as_str()).collect()
    }

    #[test]
    fn seed_example_scores_eight() {
        let r = score(
            "Ollama 0.5 brings 50% faster inference",
            "Today we're releasing Ollama 0.5, our biggest update yet.",
            "https://blog.ollama.com/ollama-0-5",
        );
        assert_eq!(r.score, 8);
        assert!(r.valid);
        assert_eq!(names(&r), ["local_llm"]);
        let k = &r.matched_rules[0].keywords[0];
        assert_eq!(k.keyword, "ollama");
        assert_eq!(k.count, 4); // title, content, host, path
        assert_eq!(k.fields, [Field::Title, Field::Content, Field::Url]);
        assert!(
            r.explanation[1].contains("+3 include rule `local_llm`"),
            "{:?}",
            r.explanation
        );
    }

    #[test]
    fn accents_case_and_phrases() {
        let r = score(
            "",
            "Les MODELES d'Intelligence Artificielle tournent en LOCAL-LLM",
            "",
        );
        assert_eq!(names(&r), ["local_llm", "francais"]);
        // "modèle" (accented keyword) does not match the plural "modeles": word boundary.
        let fr = &r.matched_rules[1];
        assert_eq!(fr.keywords.len(), 1);
        assert_eq!(fr.keywords[0].keyword, "intelligence artificielle");
        let r = score("Un modèle ouvert", "", "");
        assert_eq!(r.matched_rules[0].keywords[0].keyword, "modèle");
        let r = score("UN MODELE", "", "");
        assert_eq!(names(&r), ["francais"]);
        // A phrase split across a line break still matches.
        let r = score("", "workflow\n  automation", "");
        assert_eq!(names(&r), ["n8n_automation"]);
    }

    #[test]
    fn word_boundaries() {
        for text in ["ollamas", "cryptography", "nfts", "myn8n", "xllama.cpp"] {
            let r = score(text, "", "");
            assert!(r.matched_rules.is_empty(), "{text}: {:?}", names(&r));
        }
        for text in ["(ollama)", "llama.cpp!", "#n8n", "NFT-drop", "crypto's"] {
            let r = score(text, "", "");
            assert_eq!(r.matched_rules.len(), 1, "{text}");
        }
    }

    #[test]
    fn clamping_and_exclusion() {
        let r = score(
            "Ollama n8n llama.cpp workflow automation",
            "intelligence artificielle",
            "",
        );
        assert_eq!(r.raw_score, 5 + 3 + 2 + 1);
        assert_eq!(r.score, 10);
        assert!(r.explanation.iter().any(|l| l.contains("clamped")));
        let r = score("Ollama on the blockchain", "", "");
        assert_eq!(r.raw_score, 5 + 3 - 10);
        assert_eq!(r.score, 0);
        assert!(r.excluded && !r.valid);
        assert_eq!(names(&r), ["crypto_spam", "local_llm"]);
        let r = score("Nothing relevant", "", "");
        assert_eq!((r.score, r.valid), (5, false));
    }

    #[test]
    fn inactive_rules_and_custom_guide() {
        let mut rules = seed_rules();
        rules[0].active = false;
        let guide = ScoringGuide {
            base_score: 50,
            min_valid_score: 60,
            max_score: 100,
        };
        let s = Scorer::new(rules, guide).unwrap();
        let r = s.score(&ScoreRequest {
            title: "Ollama n8n".into(),
            ..Default::default()
        });
        assert_eq!((r.score, r.valid), (52, false));
    }
}
