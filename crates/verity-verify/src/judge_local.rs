//! The local judge: deterministic and explainable, no model.
//!
//! In order, on the passages of a source (and, through [`Judge::judge_in`],
//! the source's whole text):
//!
//! 1. **Relevance.** A source that mentions none of the claim's names does
//!    not discuss it: INCONCLUSIVE ([`crate::relevance`]).
//! 2. **Figures.** The claim's figures (numbers, percentages, money, units,
//!    years, dates, versions, ranks; English and French writing) against
//!    those of the passages about the claim, under seed 002's rule
//!    ([`numbers::compare`]): another figure is NOT_SUPPORTED, a small
//!    overstatement is PARTIAL (exaggeration).
//! 3. **Names.** A name in place of another in the best passage
//!    ([`crate::relevance::substitution`]): NOT_SUPPORTED.
//! 4. **Coverage.** The share of the claim's words the best passage states
//!    (words the source states in another sentence — a speaker, a place,
//!    an agency — count too, names fully, other words half); French claims
//!    read through [`crate::lexicon`]. Under half: INCONCLUSIVE.
//! 5. **Meaning.** Negation within its clause, opposite directions, "did
//!    not change", quantifiers ("all" where the source says "more than
//!    half": PARTIAL), hedging.
//! 6. SUPPORTED only when one passage covers the claim and states its figures.
//!
//! A claim one passage states word for word (the whole sentence, or all of
//! it after a dateline such as `HONG KONG — `) is SUPPORTED before any of
//! these: the source says exactly that, and a rule that reads it otherwise
//! misreads the source.

use std::collections::HashSet;

use async_trait::async_trait;
use verity_core::{Judge, Judgement, Passage, Result, Verdict};

use crate::explain::Explain;
use crate::numbers::{self, Figure, Quantity};
use crate::quantifiers::weaker_quantifier;
use crate::relevance;
use crate::terms::{claim_terms, source_words, states_verbatim, tokens, Term, Token};

/// Thresholds of the local judge.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalJudgeConfig {
    /// Share of the claim's content words a passage must cover for SUPPORTED.
    pub supported_coverage: f32,
    /// Share under which the source is judged not to speak of the claim (INCONCLUSIVE).
    pub partial_coverage: f32,
    /// Least retrieval score (over the best passage's) for a passage that
    /// covers the claim to take precedence over better-retrieved ones that
    /// don't, when choosing the quote (0: any covering passage does).
    /// Default 0.5: with the ranking forest's scores (likelihood ratios), a
    /// covering sentence less than half as likely to decide the claim as
    /// the first-ranked one is not preferred to it — held-out quote top-1
    /// 0.746 → 0.757 on SciFact, verdict accuracy 0.480 → 0.475
    /// (docs/benchmarks.d/verify.md).
    pub covering_min_relative: f32,
}

impl Default for LocalJudgeConfig {
    fn default() -> Self {
        Self {
            supported_coverage: 0.7,
            partial_coverage: 0.5,
            covering_min_relative: 0.5,
        }
    }
}

/// The deterministic judge (the default when no LLM is configured).
#[derive(Debug, Clone, Default)]
pub struct LocalJudge {
    config: LocalJudgeConfig,
}

impl LocalJudge {
    /// A judge with default thresholds.
    pub fn new() -> Self {
        Self::default()
    }

    /// A judge with explicit thresholds.
    pub fn with_config(config: LocalJudgeConfig) -> Self {
        Self { config }
    }
}

const NEGATIONS: &[&str] = &[
    "not", "no", "never", "none", "nor", "neither", "without", "cannot", "lack", "lacks",
    "lacking", "absent", "unable", "nothing", "ne", "n", "pas", "jamais", "aucun", "aucune",
    "sans",
];

/// Auxiliaries that form a negation with `n't` (tokens split at the apostrophe).
const NT: &[&str] = &[
    "didn", "doesn", "don", "isn", "aren", "wasn", "weren", "hasn", "haven", "hadn", "won",
    "wouldn", "couldn", "shouldn", "can", "ain", "mustn",
];

const HEDGES: &[&str] = &[
    "may",
    "might",
    "could",
    "possibly",
    "perhaps",
    "unclear",
    "uncertain",
    "speculate",
    "hypothesize",
    "hypothesise",
    "preliminary",
    "unconfirmed",
    "rumored",
    "rumoured",
    "alleged",
    "allegedly",
    "pourrait",
    "pourraient",
    "peut",
    "peuvent",
    "risque",
    "risquent",
    "risk",
    "risks",
];

/// Words that start a new clause.
const CLAUSE_WORDS: &[&str] = &[
    "but",
    "while",
    "whereas",
    "although",
    "though",
    "however",
    "mais",
    "tandis",
    "alors",
    "cependant",
];

/// Opposite-direction word stems: (a, b) means a claim with `a` is
/// contradicted by a passage clause with `b` (and vice versa).
const OPPOSITES: &[(&str, &str)] = &[
    ("increas", "decreas"),
    ("increas", "reduc"),
    ("increas", "declin"),
    ("rise", "fall"),
    ("rose", "fell"),
    ("rise", "fell"),
    ("rose", "fall"),
    ("higher", "lower"),
    ("gain", "loss"),
    ("promot", "inhibit"),
    ("activat", "inhibit"),
    ("activat", "suppress"),
    ("enhanc", "impair"),
    ("improv", "worsen"),
    ("larger", "smaller"),
    ("greater", "lesser"),
    ("positiv", "negativ"),
    ("benefi", "harm"),
    ("accelerat", "slow"),
    ("expand", "shrink"),
    ("ahead", "behind"),
    ("augment", "baiss"),
    ("hausse", "baisse"),
];

/// Words saying a quantity moved (a claim with one is contradicted by "did not change").
const MOVES: &[&str] = &[
    "increas", "rise", "rose", "risen", "grew", "grow", "fell", "fall", "declin", "decreas",
    "drop", "climb", "jump", "surg", "plung", "soar", "augment", "baiss", "hausse",
];

fn has_stem(ws: &[String], stem: &str) -> bool {
    ws.iter()
        .any(|w| w.starts_with(stem) && (stem.len() >= 4 || w == stem))
}

/// Clauses of `toks` (over `text`): token index ranges split at clause
/// punctuation and at clause-opening words.
fn clauses(text: &str, toks: &[Token]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for k in 1..toks.len() {
        let gap = text
            .get(toks[k - 1].span.end..toks[k].span.start)
            .unwrap_or("");
        let boundary = gap.contains([',', ';', ':', '(', ')', '—', '–', '.', '?', '!'])
            || CLAUSE_WORDS.contains(&toks[k].folded.as_str());
        if boundary {
            out.push(start..k);
            start = k;
        }
    }
    if start < toks.len() {
        out.push(start..toks.len());
    }
    out
}

/// Whether token `k` of `toks` is a negation cue.
fn is_negation(toks: &[Token], k: usize) -> bool {
    let w = toks[k].folded.as_str();
    if w == "t" && k > 0 && NT.contains(&toks[k - 1].folded.as_str()) {
        return true;
    }
    // "not only" adds, it does not negate.
    if w == "not" && toks.get(k + 1).is_some_and(|n| n.folded == "only") {
        return false;
    }
    NEGATIONS.contains(&w)
}

/// The negations of `text`: (the negated words as written, their stems),
/// each scope running from the cue to the end of its clause (8 words at most).
fn negations(text: &str) -> Vec<(String, Vec<String>)> {
    let toks = tokens(text);
    let mut out = Vec::new();
    for c in clauses(text, &toks) {
        for k in c.clone() {
            if !is_negation(&toks, k) {
                continue;
            }
            let end = (k + 9).min(c.end);
            let stems: Vec<String> = toks[k + 1..end]
                .iter()
                .map(|t| crate::terms::source_stem(&t.folded))
                .collect();
            let from = if toks[k].folded == "t" && k > 0 {
                k - 1
            } else {
                k
            };
            let words = text
                .get(toks[from].span.start..toks[end - 1].span.end)
                .unwrap_or("")
                .to_string();
            out.push((words, stems));
        }
    }
    out
}

/// The negation of `text` that bears on the claim (its scope holds one of
/// the claim's words), as written.
fn negation_about(text: &str, terms: &[Term]) -> Option<String> {
    negations(text)
        .into_iter()
        .find(|(_, stems)| stems.iter().any(|s| terms.iter().any(|t| t.matches(s))))
        .map(|(w, _)| w)
}

/// The clause of `passage` that covers most of the claim: its text and its
/// words (stems).
fn best_clause(passage: &str, terms: &[Term]) -> (String, Vec<String>) {
    let toks = tokens(passage);
    let mut best: Option<(usize, std::ops::Range<usize>)> = None;
    for c in clauses(passage, &toks) {
        let n = toks[c.clone()]
            .iter()
            .filter(|t| {
                let s = crate::terms::source_stem(&t.folded);
                terms.iter().any(|x| x.matches(&s))
            })
            .count();
        if best.as_ref().is_none_or(|(b, _)| n > *b) {
            best = Some((n, c));
        }
    }
    let Some((_, c)) = best else {
        return (passage.to_string(), Vec::new());
    };
    let text = passage
        .get(toks[c.start].span.start..toks[c.end - 1].span.end)
        .unwrap_or(passage)
        .to_string();
    let words = toks[c]
        .iter()
        .map(|t| crate::terms::source_stem(&t.folded))
        .collect();
    (text, words)
}

/// An opposite-direction pair (claim word, source word) between the claim
/// and a clause's words, if any.
fn opposite(claim: &str, clause: &[String]) -> Option<(String, String)> {
    // A French claim's words are read with their English translations.
    let french = crate::lexicon::is_french(claim);
    let mut cw: Vec<String> = Vec::new();
    let mut surfaces: Vec<String> = Vec::new();
    for t in tokens(claim) {
        cw.push(crate::terms::source_stem(&t.folded));
        surfaces.push(t.surface.clone());
        if french {
            for e in crate::lexicon::english(&t.folded) {
                cw.push(crate::terms::source_stem(e));
                surfaces.push(t.surface.clone());
            }
        }
    }
    for (a, b) in OPPOSITES {
        for (x, y) in [(a, b), (b, a)] {
            if has_stem(&cw, x) && has_stem(clause, y) && !has_stem(clause, x) && !has_stem(&cw, y)
            {
                let cword = cw
                    .iter()
                    .position(|w| w.starts_with(x))
                    .and_then(|i| surfaces.get(i).cloned())
                    .unwrap_or_else(|| x.to_string());
                let sword = clause
                    .iter()
                    .find(|w| w.starts_with(y))
                    .cloned()
                    .unwrap_or_else(|| y.to_string());
                return Some((cword, sword));
            }
        }
    }
    None
}

/// The word of `claim` saying a quantity moved, as written.
fn moving_word(claim: &str) -> Option<String> {
    tokens(claim).into_iter().find_map(|t| {
        let s = crate::terms::source_stem(&t.folded);
        MOVES.iter().any(|m| s.starts_with(m)).then_some(t.surface)
    })
}

fn hedge_in(clause: &str) -> Option<String> {
    tokens(clause)
        .into_iter()
        .find(|t| HEDGES.contains(&t.folded.as_str()))
        .map(|t| t.surface)
}

/// Coverage of `terms` by one passage's words: (counting words the source
/// states in another sentence — a speaker, a place, an agency, a year — at
/// half weight, passage words only), and the terms the passage lacks.
fn coverage<'a>(
    terms: &'a [Term],
    passage: &[String],
    elsewhere: &[String],
) -> (f32, f32, Vec<&'a Term>) {
    if terms.is_empty() {
        return (1.0, 1.0, Vec::new());
    }
    let mut score = 0.0;
    let mut own = 0.0;
    let mut missing = Vec::new();
    for t in terms {
        if passage.iter().any(|w| t.matches(w)) {
            score += 1.0;
            own += 1.0;
        } else {
            if elsewhere.iter().any(|w| t.matches(w)) {
                score += 0.5;
            }
            missing.push(t);
        }
    }
    let n = terms.len() as f32;
    (score / n, own / n, missing)
}

/// Whether a clause of the claim (split at "and", "et", commas) with two
/// words or more is covered by `passage` on its own: the claim adds an
/// unsupported part to a supported one.
fn a_clause_is_covered(
    claim: &str,
    terms: &[Term],
    passage: &[String],
    elsewhere: &[String],
    min: f32,
) -> bool {
    let toks = tokens(claim);
    let mut bounds = vec![0usize];
    for (k, t) in toks.iter().enumerate().skip(1) {
        let gap = claim.get(toks[k - 1].span.end..t.span.start).unwrap_or("");
        if gap.contains([',', ';']) || matches!(t.folded.as_str(), "and" | "et" | "but" | "mais") {
            bounds.push(k);
        }
    }
    bounds.push(toks.len());
    bounds.windows(2).any(|w| {
        let part: Vec<&Term> = terms
            .iter()
            .filter(|t| (w[0]..w[1]).contains(&t.token))
            .collect();
        part.len() >= 2 && {
            let score: f32 = part
                .iter()
                .map(|t| {
                    if passage.iter().any(|p| t.matches(p)) {
                        1.0
                    } else if elsewhere.iter().any(|p| t.matches(p)) {
                        0.5
                    } else {
                        0.0
                    }
                })
                .sum();
            score / part.len() as f32 >= min
        }
    })
}

fn surfaces<'a>(ts: &[&'a Term], n: usize) -> Vec<&'a str> {
    ts.iter().take(n).map(|t| t.surface.as_str()).collect()
}

#[async_trait]
impl Judge for LocalJudge {
    fn name(&self) -> &str {
        "local"
    }

    async fn judge(&self, claim: &str, passages: &[Passage]) -> Result<Judgement> {
        Ok(self.decide(claim, passages))
    }

    async fn judge_in(&self, claim: &str, passages: &[Passage], source: &str) -> Result<Judgement> {
        Ok(self.decide_in(claim, passages, Some(source)))
    }
}

/// What the figures of the claim say against the passages.
enum Figures {
    Differs(Quantity, Quantity, usize),
    Overstates(Quantity, Quantity, usize),
    Absent(Quantity),
    Match,
}

impl LocalJudge {
    /// The judgement on the passages alone.
    pub fn decide(&self, claim: &str, passages: &[Passage]) -> Judgement {
        self.decide_in(claim, passages, None)
    }

    /// The judgement, with the source's whole text when known (see the module doc).
    pub fn decide_in(&self, claim: &str, passages: &[Passage], source: Option<&str>) -> Judgement {
        let cfg = &self.config;
        let name = "local";
        let ex = Explain::for_claim(claim);
        if passages.is_empty() {
            return Judgement::new(Verdict::Inconclusive, 0.6, ex.no_passage(), name);
        }
        if let Some(i) = passages
            .iter()
            .position(|p| states_verbatim(claim, &p.text))
        {
            let claim_q = numbers::quantities(claim);
            let raws: Vec<&str> = claim_q.iter().map(|q| q.raw.as_str()).collect();
            return Judgement::new(Verdict::Supported, 0.95, ex.supported(&raws), name)
                .with_quote(passages[i].text.clone(), Some(i));
        }
        let terms = claim_terms(claim);
        let pwords: Vec<Vec<String>> = passages
            .iter()
            .map(|p| source_words(&p.text).into_iter().map(|(s, _)| s).collect())
            .collect();
        let everywhere: Vec<String> = {
            let mut set: HashSet<String> = HashSet::new();
            match source {
                Some(s) => set.extend(source_words(s).into_iter().map(|(w, _)| w)),
                None => set.extend(pwords.iter().flatten().cloned()),
            }
            set.into_iter().collect()
        };

        // 1. Relevance.
        let subject = relevance::subject(&terms, &everywhere);
        if !subject.discussed() {
            return Judgement::new(
                Verdict::Inconclusive,
                0.8,
                ex.not_discussed(&subject.names_text()),
                name,
            );
        }

        let covers: Vec<(f32, f32, Vec<&Term>)> = pwords
            .iter()
            .map(|pw| coverage(&terms, pw, &everywhere))
            .collect();
        let cover: Vec<f32> = covers.iter().map(|c| c.0).collect();
        let own: Vec<f32> = covers.iter().map(|c| c.1).collect();
        // Best passage: coverage plus retrieval score relative to the best
        // retrieved (a sentence ranked for its role is not overridden by a
        // background one that merely repeats more of the claim's words);
        // passages covering enough of the claim to support it come first.
        let top_score = passages.iter().map(|p| p.score).fold(0.0f32, f32::max);
        let rel: Vec<f32> = passages
            .iter()
            .map(|p| {
                if top_score > 0.0 {
                    (p.score / top_score).clamp(-1.0, 1.0)
                } else {
                    0.0
                }
            })
            .collect();
        let covering =
            |i: usize| cover[i] >= cfg.supported_coverage && rel[i] >= cfg.covering_min_relative;
        let any_covering = (0..passages.len()).any(covering);
        let best = (0..passages.len())
            .filter(|&i| !any_covering || covering(i))
            .max_by(|&a, &b| {
                (own[a] + rel[a])
                    .total_cmp(&(own[b] + rel[b]))
                    .then(cover[a].total_cmp(&cover[b]))
                    .then(b.cmp(&a))
            })
            .unwrap_or(0);
        let best_cov = cover[best];
        let quote = |i: usize| passages[i].text.clone();
        let about = |i: usize| {
            subject.names.is_empty()
                || subject
                    .names
                    .iter()
                    .any(|t| pwords[i].iter().any(|w| t.matches(w)))
                || cover[i] >= 0.6
        };

        // 2. Figures.
        match self.figures(claim, passages, &cover, best, source, &about) {
            Figures::Differs(c, s, i) => {
                return Judgement::new(
                    Verdict::NotSupported,
                    0.85,
                    ex.differs(&c.raw, &s.raw),
                    name,
                )
                .with_quote(quote(i), Some(i));
            }
            Figures::Overstates(c, s, i) => {
                return Judgement::new(Verdict::Partial, 0.9, ex.overstates(&c.raw, &s.raw), name)
                    .with_quote(quote(i), Some(i));
            }
            Figures::Absent(c) if best_cov >= cfg.supported_coverage => {
                return Judgement::new(Verdict::Partial, 0.6, ex.unstated(&c.raw), name)
                    .with_quote(quote(best), Some(best));
            }
            _ => {}
        }

        // 3. A name in place of another.
        if best_cov >= cfg.partial_coverage {
            if let Some(s) = relevance::substitution(claim, &terms, &passages[best].text) {
                return Judgement::new(
                    Verdict::NotSupported,
                    0.75,
                    ex.differs(&s.claim, &s.source),
                    name,
                )
                .with_quote(quote(best), Some(best));
            }
        }

        // 4. Coverage. The words shown are the claim's the source states
        // nowhere (else those the passage lacks).
        let nowhere: Vec<&Term> = covers[best]
            .2
            .iter()
            .copied()
            .filter(|t| !everywhere.iter().any(|w| t.matches(w)))
            .collect();
        let missing = if nowhere.is_empty() {
            &covers[best].2
        } else {
            &nowhere
        };
        if best_cov < cfg.partial_coverage
            && !a_clause_is_covered(
                claim,
                &terms,
                &pwords[best],
                &everywhere,
                cfg.supported_coverage,
            )
        {
            return Judgement::new(
                Verdict::Inconclusive,
                0.5 + 0.3 * (1.0 - best_cov),
                ex.not_covered(&surfaces(missing, 5)),
                name,
            )
            .with_quote(quote(best), Some(best));
        }

        // 5. Meaning, on the clause of the best passage about the claim.
        let p = &passages[best].text;
        let (clause, clause_words) = best_clause(p, &terms);
        let claim_neg = negations(claim).into_iter().next().map(|(w, _)| w);
        let source_neg = negation_about(p, &terms);
        match (&claim_neg, &source_neg) {
            (None, Some(w)) => {
                return Judgement::new(
                    Verdict::NotSupported,
                    0.55 + 0.3 * best_cov,
                    ex.negates(true, w),
                    name,
                )
                .with_quote(quote(best), Some(best));
            }
            (Some(w), None) if negation_about(claim, &terms).is_some() => {
                return Judgement::new(
                    Verdict::NotSupported,
                    0.5 + 0.3 * best_cov,
                    ex.negates(false, w),
                    name,
                )
                .with_quote(quote(best), Some(best));
            }
            _ => {}
        }
        if let Some((cw, sw)) = opposite(claim, &clause_words) {
            return Judgement::new(
                Verdict::NotSupported,
                0.5 + 0.3 * best_cov,
                ex.opposite(&cw, &sw),
                name,
            )
            .with_quote(quote(best), Some(best));
        }
        if let Some(moved) = moving_word(claim) {
            let unchanged = negations(&clause)
                .into_iter()
                .find(|(_, stems)| stems.iter().any(|s| s.starts_with("chang")))
                .map(|(w, _)| w)
                .or_else(|| {
                    tokens(&clause)
                        .into_iter()
                        .find(|t| matches!(t.folded.as_str(), "unchanged" | "flat" | "steady"))
                        .map(|t| t.surface)
                });
            if let Some(w) = unchanged {
                return Judgement::new(
                    Verdict::NotSupported,
                    0.5 + 0.3 * best_cov,
                    ex.opposite(&moved, &w),
                    name,
                )
                .with_quote(quote(best), Some(best));
            }
        }
        if let Some((cw, sw)) = weaker_quantifier(claim, &clause, p) {
            return Judgement::new(Verdict::Partial, 0.6, ex.overstates(&cw, &sw), name)
                .with_quote(quote(best), Some(best));
        }
        if best_cov < cfg.supported_coverage {
            return Judgement::new(
                Verdict::Partial,
                0.5,
                ex.part_only(&surfaces(missing, 5)),
                name,
            )
            .with_quote(quote(best), Some(best));
        }
        if let (Some(h), None) = (hedge_in(&clause), hedge_in(claim)) {
            // The claim's own hedges: "risque jusqu'à 10 ans" reads the
            // source's "could face up to 10 years" faithfully.
            return Judgement::new(Verdict::Partial, 0.6, ex.hedged(&h), name)
                .with_quote(quote(best), Some(best));
        }
        let claim_q = numbers::quantities(claim);
        let raws: Vec<&str> = claim_q.iter().map(|q| q.raw.as_str()).collect();
        Judgement::new(
            Verdict::Supported,
            0.55 + 0.4 * best_cov,
            ex.supported(&raws),
            name,
        )
        .with_quote(quote(best), Some(best))
    }

    /// The claim's figures against the passages about it (best first), then
    /// against the rest of the source.
    fn figures(
        &self,
        claim: &str,
        passages: &[Passage],
        cover: &[f32],
        best: usize,
        source: Option<&str>,
        about: &dyn Fn(usize) -> bool,
    ) -> Figures {
        let claim_q = numbers::quantities(claim);
        if claim_q.is_empty() {
            return Figures::Match;
        }
        let pq: Vec<Vec<Quantity>> = passages
            .iter()
            .map(|p| numbers::quantities(&p.text))
            .collect();
        let best_cov = cover.get(best).copied().unwrap_or(0.0);
        let floor = (best_cov * 0.75).max(0.4);
        let mut order: Vec<usize> = (0..passages.len())
            .filter(|&i| (i == best || cover[i] >= floor) && about(i))
            .collect();
        order.sort_by(|a, b| {
            (*a != best)
                .cmp(&(*b != best))
                .then(cover[*b].total_cmp(&cover[*a]))
        });
        let mut whole: Option<Vec<Quantity>> = None;
        let mut differs: Option<Figures> = None;
        let mut overstates: Option<Figures> = None;
        let mut absent: Option<Quantity> = None;
        for c in &claim_q {
            let mut found: Option<Figures> = None;
            let mut same = false;
            for &i in &order {
                match numbers::compare(c, &pq[i]) {
                    Figure::Same(_) => {
                        same = true;
                        break;
                    }
                    Figure::Differs(s) if found.is_none() => {
                        found = Some(Figures::Differs(c.clone(), s, i))
                    }
                    Figure::Overstates(s) if found.is_none() => {
                        found = Some(Figures::Overstates(c.clone(), s, i))
                    }
                    _ => {}
                }
            }
            if same {
                continue;
            }
            match found {
                Some(f @ Figures::Differs(..)) => {
                    differs.get_or_insert(f);
                }
                Some(f) => {
                    overstates.get_or_insert(f);
                }
                None => {
                    // Stated elsewhere in the source (a year in the title, a
                    // figure in the next sentence): framing, not a gap.
                    let qs = whole
                        .get_or_insert_with(|| source.map(numbers::quantities).unwrap_or_default());
                    if !matches!(numbers::compare(c, qs), Figure::Same(_)) {
                        absent.get_or_insert_with(|| c.clone());
                    }
                }
            }
        }
        differs
            .or(overstates)
            .or(absent.map(Figures::Absent))
            .unwrap_or(Figures::Match)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge(claim: &str, passages: &[&str]) -> Judgement {
        let ps: Vec<Passage> = passages.iter().map(|p| Passage::new(*p)).collect();
        LocalJudge::new().decide(claim, &ps)
    }

    #[test]
    fn seed_examples_both_figures() {
        let j = judge(
            "85% of companies use AI",
            &["In 2023, 78% of companies had adopted and use AI in at least one function."],
        );
        assert_eq!(j.verdict, Verdict::Partial, "{}", j.explanation);
        assert!(
            j.explanation.contains("78%") && j.explanation.contains("85%"),
            "{}",
            j.explanation
        );
        let j = judge(
            "80% des devs préfèrent Python",
            &["In our developer survey, 62% of respondents indicated that Python is the language they prefer."],
        );
        assert_eq!(j.verdict, Verdict::NotSupported, "{}", j.explanation);
        assert!(
            j.explanation.contains("62%") && j.explanation.contains("80%"),
            "{}",
            j.explanation
        );
        assert!(
            j.explanation.starts_with("La source dit"),
            "{}",
            j.explanation
        );
    }

    #[test]
    fn supported_when_covered_with_figures() {
        let j = judge(
            "78 % of companies use AI",
            &[
                "Weather notes.",
                "In 2023, 78% of companies use AI in at least one function.",
            ],
        );
        assert_eq!(j.verdict, Verdict::Supported, "{}", j.explanation);
        assert_eq!(j.passage, Some(1));
    }

    #[test]
    fn the_quote_weighs_retrieval_score_with_coverage() {
        let mut finding = Passage::new(
            "Daily exercise reduced cancer mortality by a third in the cohort of older women.",
        );
        finding.score = 1.0;
        let mut background =
            Passage::new("Whether exercise lowers cancer mortality in older women is unknown.");
        background.score = 0.2;
        let claim = "Exercise lowers cancer mortality in older women";
        let j = LocalJudge::new().decide(claim, &[finding.clone(), background.clone()]);
        assert_eq!(j.passage, Some(0), "{j:?}");
        background.score = 1.0;
        let j = LocalJudge::new().decide(claim, &[finding, background]);
        assert_eq!(j.passage, Some(1), "{j:?}");
    }

    #[test]
    fn versions_are_names_not_measurements() {
        let j = judge(
            "Rust 1.80 was released in July",
            &["Rust 1.80.0 was released in July with lazy statics."],
        );
        assert_eq!(j.verdict, Verdict::Supported, "{}", j.explanation);
        let j = judge(
            "Ollama 0.5 adds structured outputs",
            &["Ollama v0.5.0 adds structured outputs."],
        );
        assert_eq!(j.verdict, Verdict::Supported, "{}", j.explanation);
        let j = judge(
            "Python 3.12 removes distutils",
            &["Python 3.13 removes distutils."],
        );
        assert_eq!(j.verdict, Verdict::NotSupported, "{}", j.explanation);
        assert!(j.explanation.contains("3.13"), "{}", j.explanation);
    }

    #[test]
    fn another_product_is_not_discussed_not_contradicted() {
        let j = judge(
            "Python 3.12 was released in 2023",
            &["Rust 1.0 was released on May 15, 2015."],
        );
        assert_eq!(j.verdict, Verdict::Inconclusive, "{}", j.explanation);
        assert!(
            j.explanation.contains("does not discuss Python"),
            "{}",
            j.explanation
        );
        let j = judge(
            "Rust 1.0 was released on May 15, 2016",
            &["Rust 1.0 was released on May 15, 2015."],
        );
        assert_eq!(j.verdict, Verdict::NotSupported, "{}", j.explanation);
    }

    #[test]
    fn negation_is_read_within_its_clause() {
        let j = judge(
            "Fees are paid by the sender of the payment",
            &["Fees are paid by the sender of the payment, never by the receiver."],
        );
        assert_eq!(j.verdict, Verdict::Supported, "{}", j.explanation);
        let j = judge(
            "The drug reduces mortality in adults",
            &["The drug did not reduce mortality in adults."],
        );
        assert_eq!(j.verdict, Verdict::NotSupported, "{}", j.explanation);
    }

    #[test]
    fn opposites_hedges_quantifiers_and_no_passage() {
        let j = judge(
            "Exports increased in Germany last year",
            &["Exports decreased in Germany last year."],
        );
        assert_eq!(j.verdict, Verdict::NotSupported);
        let j = judge(
            "The vaccine prevents infection in children",
            &["The vaccine may prevent infection in children."],
        );
        assert_eq!(j.verdict, Verdict::Partial);
        let j = judge(
            "The strike closed all of the schools in the state",
            &["The strike closed more than half of the schools in the state."],
        );
        assert_eq!(j.verdict, Verdict::Partial, "{}", j.explanation);
        assert!(
            j.explanation.contains("more than half"),
            "{}",
            j.explanation
        );
        let j = judge("Mars has two moons", &[]);
        assert_eq!(j.verdict, Verdict::Inconclusive);
        let j = judge("Mars has two moons", &["Bananas are rich in potassium."]);
        assert_eq!(j.verdict, Verdict::Inconclusive);
    }

    #[test]
    fn a_sentence_of_the_source_is_supported_whatever_it_holds() {
        // "quarter" (a period) once read as a weaker quantifier than "most".
        let s = "The September quarter earnings were not a complete disappointment, as most of the companies reported in-line or better than expected results.";
        let j = judge(s, &["Markets are on a high.", s]);
        assert_eq!(j.verdict, Verdict::Supported, "{}", j.explanation);
        assert_eq!(j.source_quote.as_deref(), Some(s));
        let s = "Thousands of teachers did not go to school on Tuesday, and 130 districts closed.";
        let j = judge(s, &[&format!("INDIANAPOLIS — {s}")]);
        assert_eq!(j.verdict, Verdict::Supported, "{}", j.explanation);
        // Not word for word: judged as before.
        let j = judge(
            "Thousands of teachers did go to school on Tuesday",
            &["Thousands of teachers did not go to school on Tuesday."],
        );
        assert_eq!(j.verdict, Verdict::NotSupported, "{}", j.explanation);
    }

    #[test]
    fn explanations_use_the_claims_words_not_stems() {
        let j = judge(
            "Houston-area hospitals saw fewer early births in 2020",
            &["Births at the clinic rose sharply."],
        );
        for stemmed in ["earli", "houst ", "compan"] {
            assert!(!j.explanation.contains(stemmed), "{}", j.explanation);
        }
    }
}

#[cfg(test)]
mod framing_tests {
    use super::*;

    #[test]
    fn framing_words_stated_elsewhere_count() {
        let source = "South Dakota Gov. Kristi Noem is defending the anti-drug campaign \"Meth, we're on it.\"\n\nThe campaign, which includes both digital and TV ads, cost the state roughly $449,000, according to the Sioux Falls Argus Leader.";
        let p = Passage::new("The campaign, which includes both digital and TV ads, cost the state roughly $449,000, according to the Sioux Falls Argus Leader.");
        let j = LocalJudge::new().decide_in(
            "South Dakota's anti-meth campaign cost the state roughly $449,000.",
            &[p],
            Some(source),
        );
        assert_eq!(j.verdict, Verdict::Supported, "{}", j.explanation);
    }
}
