//! The [`RuleStore`] trait: relevance rules of the tech watch (seed 000),
//! their validation and the [`ScoringGuide`].

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Error, InputError, Result};

/// Error for a value outside an enumeration, naming the allowed values.
pub(crate) fn not_one_of(field: &str, got: &str, allowed: &[&str]) -> Error {
    Error::invalid_input(format!(
        "`{field}` must be one of {}, got `{got}`",
        allowed
            .iter()
            .map(|a| format!("`{a}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// Implements `FromStr` + `as_str` + `ALL` for a lower-case serde enum.
macro_rules! string_enum {
    ($ty:ident, $field:literal, { $($variant:ident => $s:literal),+ $(,)? }) => {
        impl $ty {
            /// Every value, in declaration order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];
            /// Names accepted on the wire.
            pub const NAMES: &'static [&'static str] = &[$($s),+];

            /// The wire name.
            pub fn as_str(self) -> &'static str {
                match self { $($ty::$variant => $s),+ }
            }
        }

        impl ::std::str::FromStr for $ty {
            type Err = $crate::Error;
            fn from_str(s: &str) -> $crate::Result<Self> {
                let t = s.trim().to_ascii_lowercase();
                match t.as_str() {
                    $($s => Ok($ty::$variant),)+
                    _ => Err($crate::rules::not_one_of($field, s, $ty::NAMES)),
                }
            }
        }

        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
pub(crate) use string_enum;

/// What a rule does to an article's score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RuleKind {
    /// Topic of interest.
    Include,
    /// Topic to reject.
    Exclude,
    /// Topic that raises the score.
    Boost,
}
string_enum!(RuleKind, "type", { Include => "include", Exclude => "exclude", Boost => "boost" });

impl RuleKind {
    /// Score modifier used when a rule does not give one.
    pub fn default_modifier(self) -> i32 {
        match self {
            RuleKind::Include => 2,
            RuleKind::Boost => 1,
            RuleKind::Exclude => -10,
        }
    }
}

/// Rule (and task) priority.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    /// Highest.
    Critical,
    /// High.
    High,
    /// Medium (default).
    Medium,
    /// Low.
    Low,
}
string_enum!(Priority, "priority", { Critical => "critical", High => "high", Medium => "medium", Low => "low" });

/// Lowest allowed [`RelevanceRule::score_modifier`].
pub const MIN_SCORE_MODIFIER: i32 = -10;
/// Highest allowed [`RelevanceRule::score_modifier`].
pub const MAX_SCORE_MODIFIER: i32 = 5;
/// Longest rule name, in bytes.
pub const MAX_RULE_NAME: usize = 128;
/// Most keywords per rule.
pub const MAX_RULE_KEYWORDS: usize = 256;
/// Longest keyword, in characters (seed 000's keywords are words and short
/// phrases; a bound keeps compiling and matching the rules cheap).
pub const MAX_KEYWORD_CHARS: usize = 128;
/// Most rules stored.
pub const MAX_RULES: usize = 1_000;
/// Most keywords over all stored rules: the matcher compiled from them stays
/// within ~1.3 M automaton states, built in well under a second.
pub const MAX_TOTAL_KEYWORDS: usize = 10_000;

/// A relevance rule (`update_veille_rule`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RelevanceRule {
    /// Unique name.
    pub name: String,
    /// Include, exclude or boost.
    #[serde(rename = "type")]
    pub kind: RuleKind,
    /// Keywords that trigger the rule (words or multi-word phrases).
    pub keywords: Vec<String>,
    /// Score change when it triggers (−10 … +5).
    #[serde(default)]
    pub score_modifier: i32,
    /// Priority.
    #[serde(default = "default_priority")]
    pub priority: Priority,
    /// Inactive rules are kept but ignored.
    #[serde(default = "default_active")]
    pub active: bool,
    /// Free description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

fn default_priority() -> Priority {
    Priority::Medium
}
fn default_active() -> bool {
    true
}

impl RelevanceRule {
    /// Check the invariants: a non-empty name, at least one non-blank
    /// keyword, a modifier in −10…+5. Keywords are trimmed and deduplicated.
    pub fn validated(mut self) -> Result<Self> {
        self.name = self.name.trim().to_string();
        if self.name.is_empty() {
            return Err(Error::invalid_input("rule `name` must not be empty"));
        }
        if self.name.len() > MAX_RULE_NAME {
            return Err(Error::invalid_input(format!(
                "rule `name` is longer than {MAX_RULE_NAME} bytes"
            )));
        }
        let mut kws: Vec<String> = Vec::with_capacity(self.keywords.len());
        for k in self.keywords {
            let n = k.chars().count();
            if n > MAX_KEYWORD_CHARS {
                return Err(Error::Input(InputError::field(
                    "keywords",
                    format!(
                        "a keyword of {n} characters; at most {MAX_KEYWORD_CHARS} are allowed \
                         (MAX_KEYWORD_CHARS)"
                    ),
                )));
            }
            let k = k.split_whitespace().collect::<Vec<_>>().join(" ");
            if !k.is_empty() && !kws.contains(&k) {
                kws.push(k);
            }
            // Stop early: `contains` above is linear in what was kept.
            if kws.len() > MAX_RULE_KEYWORDS {
                break;
            }
        }
        if kws.is_empty() {
            return Err(Error::invalid_input(
                "rule `keywords` must contain at least one non-blank keyword",
            ));
        }
        if kws.len() > MAX_RULE_KEYWORDS {
            return Err(Error::Input(InputError::field(
                "keywords",
                format!("more than {MAX_RULE_KEYWORDS} distinct keywords; at most {MAX_RULE_KEYWORDS} are allowed (MAX_RULE_KEYWORDS)"),
            )));
        }
        self.keywords = kws;
        check_modifier(self.score_modifier)?;
        Ok(self)
    }
}

fn check_modifier(m: i32) -> Result<()> {
    if !(MIN_SCORE_MODIFIER..=MAX_SCORE_MODIFIER).contains(&m) {
        return Err(Error::invalid_input(format!(
            "`score_modifier` must be between {MIN_SCORE_MODIFIER} and +{MAX_SCORE_MODIFIER}, got {m}"
        )));
    }
    Ok(())
}

/// Input of `update_veille_rule`: create or replace the rule `name`.
/// Omitted fields take defaults (modifier by kind: include +2, boost +1,
/// exclude −10; priority medium).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RuleUpdate {
    /// Unique identifier of the rule.
    #[schemars(description = "Unique name of the rule")]
    pub name: String,
    /// `include`, `exclude` or `boost`.
    #[serde(rename = "type")]
    #[schemars(description = "Rule type: include, exclude or boost")]
    pub kind: RuleKind,
    /// Keywords (words or phrases).
    #[schemars(description = "Keywords (words or phrases) the rule matches")]
    pub keywords: Vec<String>,
    /// −10 … +5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(description = "Score modifier (-10 to +5)", range(min = -10, max = 5))]
    pub score_modifier: Option<i32>,
    /// Priority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<Priority>,
    /// Whether the rule is applied (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
    /// Free description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl RuleUpdate {
    /// The validated rule.
    pub fn into_rule(self) -> Result<RelevanceRule> {
        RelevanceRule {
            score_modifier: self
                .score_modifier
                .unwrap_or_else(|| self.kind.default_modifier()),
            name: self.name,
            kind: self.kind,
            keywords: self.keywords,
            priority: self.priority.unwrap_or(Priority::Medium),
            active: self.active.unwrap_or(true),
            description: self.description,
        }
        .validated()
    }
}

/// How scores read (`scoring_guide`): every article starts at
/// `base_score`, matched rules add their modifiers, the result is clamped to
/// `0..=max_score`, and `min_valid_score` or more is relevant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ScoringGuide {
    /// Starting score (default 5).
    pub base_score: i32,
    /// Lowest relevant score (default 7).
    pub min_valid_score: i32,
    /// Highest score (default 10).
    pub max_score: i32,
}

impl Default for ScoringGuide {
    fn default() -> Self {
        Self {
            base_score: 5,
            min_valid_score: 7,
            max_score: 10,
        }
    }
}

impl ScoringGuide {
    /// Check `0 <= base_score <= max_score`, `0 <= min_valid_score <= max_score`, `max_score > 0`.
    pub fn validated(self) -> Result<Self> {
        let ok = self.max_score > 0
            && (0..=self.max_score).contains(&self.base_score)
            && (0..=self.max_score).contains(&self.min_valid_score);
        if !ok {
            return Err(crate::ConfigError::Invalid {
                key: "scoring_guide".into(),
                message: format!(
                    "need 0 <= base_score ({}) <= max_score ({}) and 0 <= min_valid_score ({}) <= max_score",
                    self.base_score, self.max_score, self.min_valid_score
                ),
            }
            .into());
        }
        Ok(self)
    }
}

/// Where relevance rules are kept.
#[async_trait]
pub trait RuleStore: Send + Sync {
    /// Active rules, optionally restricted by kind and priority.
    async fn rules(
        &self,
        kind: Option<RuleKind>,
        priority: Option<Priority>,
    ) -> Result<Vec<RelevanceRule>>;
    /// Create or replace the rule with this name.
    async fn upsert_rule(&self, rule: RelevanceRule) -> Result<()>;
    /// Delete a rule; `false` when it did not exist.
    async fn delete_rule(&self, name: &str) -> Result<bool>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(kind: RuleKind, kws: &[&str], m: Option<i32>) -> RuleUpdate {
        RuleUpdate {
            name: " local_llm ".into(),
            kind,
            keywords: kws.iter().map(|s| s.to_string()).collect(),
            score_modifier: m,
            priority: None,
            active: None,
            description: None,
        }
    }

    #[test]
    fn enums_name_allowed_values() {
        assert_eq!("Include".parse::<RuleKind>().unwrap(), RuleKind::Include);
        let e = "maybe".parse::<RuleKind>().unwrap_err().to_string();
        assert!(e.contains("`include`, `exclude`, `boost`"), "{e}");
        let e = "urgent".parse::<Priority>().unwrap_err().to_string();
        assert!(
            e.contains("`critical`, `high`, `medium`, `low`") && e.contains("urgent"),
            "{e}"
        );
        let e = serde_json::from_str::<RuleKind>("\"maybe\"")
            .unwrap_err()
            .to_string();
        assert!(e.contains("include"), "{e}");
    }

    #[test]
    fn validation_and_defaults() {
        let r = update(RuleKind::Exclude, &["crypto", " nft ", "crypto"], None)
            .into_rule()
            .unwrap();
        assert_eq!(r.name, "local_llm");
        assert_eq!(r.keywords, vec!["crypto", "nft"]);
        assert_eq!(r.score_modifier, -10);
        assert_eq!(r.priority, Priority::Medium);
        let e = update(RuleKind::Include, &[" ", ""], None)
            .into_rule()
            .unwrap_err();
        assert!(e.to_string().contains("keywords"), "{e}");
        for bad in [6, -11, i32::MAX] {
            let e = update(RuleKind::Include, &["x"], Some(bad))
                .into_rule()
                .unwrap_err();
            assert!(e.to_string().contains("between -10 and +5"), "{e}");
            assert_eq!(e.code(), "invalid_input");
        }
        assert!(update(RuleKind::Boost, &["x"], Some(5)).into_rule().is_ok());
    }

    #[test]
    fn scoring_guide_checks() {
        assert!(ScoringGuide::default().validated().is_ok());
        let bad = ScoringGuide {
            base_score: 11,
            ..Default::default()
        };
        assert!(bad.validated().is_err());
    }
}
