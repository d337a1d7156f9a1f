//! Evidence selection: for one theme, the best self-contained sentences
//! across every source retrieved for it, grouped into key facts and
//! details per topic, with the figures they hold.
//!
//! - **Candidates**: every sentence of the theme's passages, in source
//!   order. A sentence that leans on the one before it ("Because …",
//!   "This mission …", "…, he said.") is only ever taken together with
//!   that sentence (and its own, two levels at most); with no usable
//!   sentence before it, it is never taken.
//! - **Score**: the theme's words it holds (title and keywords weigh most,
//!   rare words more than common ones), times: the source is attached to
//!   this theme (×1.3) or only to others (×0.35); an opening sentence of its
//!   source (×1.25); a figure (×1.1); a quotation, a first-person sentence,
//!   a question, a very long or very short one (less). A sentence must hold
//!   a title or keyword word, or two of the theme's words.
//! - **Choice**: the best unit of each topic first (key facts), then more
//!   per topic (details), at most [`PER_SOURCE`] sentences of one source,
//!   never two units saying the same thing (shared words over half).
//! - **Left out**: sentences (and figure clauses) the judge did not support
//!   in an earlier draft ([`LeftOut`]) are never quoted, nor anything that
//!   leans on them; the next best take their place.

use std::collections::{HashMap, HashSet};

use crate::brief::{strip_numbering, BriefTheme};
use crate::extract;
use crate::trace::{Excerpt, TraceRecord};

use super::figures::{figure_clause, has_figure};
use super::sentences::source_sentences;

/// Sentences in a theme's section (key facts and details).
const MAX_SENTENCES: usize = 8;
/// Key facts of a theme with a single topic.
const SINGLE_TOPIC_KEY: usize = 3;
/// Detail units per topic of a theme with several topics.
const DETAILS_PER_TOPIC: usize = 2;
/// Sentences of one source in one theme.
pub(crate) const PER_SOURCE: usize = 3;
/// Figures in the "Key figures" line.
const MAX_FIGURES: usize = 4;
/// Word overlap (Jaccard) over which two units say the same thing.
const REDUNDANT: f32 = 0.5;

/// Sentences the writer must not quote: (source key, sentence) pairs the
/// judge did not support in an earlier draft.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LeftOut(HashSet<(String, String)>);

impl LeftOut {
    /// Leave out `text` of `source`; `false` when it already was.
    pub fn insert(&mut self, source: &str, text: &str) -> bool {
        self.0.insert((source.to_string(), text.to_string()))
    }

    /// Whether `text` of `source` is left out.
    pub fn contains(&self, source: &str, text: &str) -> bool {
        self.0.contains(&(source.to_string(), text.to_string()))
    }

    /// How many are left out.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A sentence chosen for the note, with its source key.
#[derive(Debug, Clone, PartialEq)]
pub struct Quote {
    /// Verbatim (white space collapsed, dateline removed).
    pub text: String,
    /// Source key (`kb:<file>` or URL).
    pub source: String,
}

/// What the writer says for one theme.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ThemeEvidence {
    /// The opening paragraph: the best unit of each topic.
    pub key_facts: Vec<Quote>,
    /// Further sentences per topic (label `None`: the theme has one topic).
    pub details: Vec<(Option<String>, Vec<Quote>)>,
    /// Short verbatim clauses holding figures, with their source.
    pub figures: Vec<Quote>,
    /// Explicit topics (sub-themes, topics a reference treats) no sentence covers.
    pub uncovered_topics: Vec<String>,
    /// More candidate sentences, best first, beyond those chosen (for an LLM writer).
    pub reserve: Vec<Quote>,
}

impl ThemeEvidence {
    /// Every chosen sentence, key facts first.
    pub fn quotes(&self) -> impl Iterator<Item = &Quote> {
        self.key_facts
            .iter()
            .chain(self.details.iter().flat_map(|(_, q)| q.iter()))
    }

    /// Whether nothing was found for the theme.
    pub fn is_empty(&self) -> bool {
        self.key_facts.is_empty()
    }
}

#[derive(Debug)]
struct Cand {
    text: String,
    source: String,
    prev: Option<usize>,
    quotable: bool,
    leans: bool,
    terms: HashSet<String>,
    score: f32,
    topic: Option<usize>,
}

/// Which sources belong to the theme: keys of the sources attached to it,
/// and of those attached only to other themes.
pub struct Attachment {
    /// Sources (URLs or file names) attached to this theme.
    pub own: HashSet<String>,
    /// Sources attached to some other theme and not to this one.
    pub others: HashSet<String>,
}

impl Attachment {
    /// From the brief: the references each theme names or matches.
    pub fn of(theme: &BriefTheme, all: &[BriefTheme]) -> Attachment {
        let own: HashSet<String> = theme.references.iter().cloned().collect();
        let others = all
            .iter()
            .filter(|t| t.id != theme.id)
            .flat_map(|t| t.references.iter().cloned())
            .filter(|r| !own.contains(r))
            .collect();
        Attachment { own, others }
    }

    fn factor(&self, e: &Excerpt) -> f32 {
        let names = [
            e.url.as_deref(),
            e.filename.as_deref(),
            Some(e.source.as_str()),
        ];
        let is = |set: &HashSet<String>| names.iter().flatten().any(|n| set.contains(*n));
        if is(&self.own) {
            1.3
        } else if is(&self.others) {
            0.35
        } else {
            1.0
        }
    }
}

/// Term weights of a theme: title 3, keywords 2, description, sub-themes
/// and topics 1.5 (the highest weight of a term wins).
fn theme_weights(theme: &BriefTheme) -> HashMap<String, f32> {
    let mut w: HashMap<String, f32> = HashMap::new();
    let mut add = |text: &str, weight: f32| {
        for t in extract::terms(text) {
            let e = w.entry(t).or_insert(0.0);
            *e = e.max(weight);
        }
    };
    add(&theme.description, 1.5);
    for s in &theme.sub_themes {
        add(s, 1.5);
    }
    for t in &theme.topics {
        add(&t.label, 1.5);
    }
    for k in &theme.keywords {
        add(k, 2.0);
    }
    add(&strip_numbering(&theme.title), 3.0);
    w
}

/// Select the evidence of `theme` from the successful `records` serving it.
/// Nothing in `left_out` is quoted.
pub fn select(
    theme: &BriefTheme,
    records: &[&TraceRecord],
    attach: &Attachment,
    left_out: &LeftOut,
) -> ThemeEvidence {
    // Passages, each once, with the topic their search served.
    let mut seen_text = HashSet::new();
    let mut passages: Vec<(&Excerpt, Option<usize>)> = Vec::new();
    for r in records {
        let topic = r
            .args
            .iter()
            .find(|(k, _)| k == "topic")
            .and_then(|(_, label)| theme.topics.iter().position(|t| &t.label == label));
        for e in &r.excerpts {
            if seen_text.insert(e.text.as_str()) {
                passages.push((e, topic));
            }
        }
    }
    let weights = theme_weights(theme);
    let topic_terms: Vec<HashSet<String>> = theme
        .topics
        .iter()
        .map(|t| {
            let mut s = extract::terms(&t.label);
            s.extend(extract::terms(&t.query));
            // The theme's own words are in every topic's query: they do not tell topics apart.
            let core = extract::terms(&strip_numbering(&theme.title));
            s.retain(|x| !core.contains(x));
            s
        })
        .collect();

    // Candidates, once per distinct sentence (overlapping chunks repeat them).
    let mut cands: Vec<Cand> = Vec::new();
    let mut by_text: HashMap<String, usize> = HashMap::new();
    let mut hinted: Vec<Option<usize>> = Vec::new();
    let mut factor: Vec<f32> = Vec::new();
    let mut lead: Vec<bool> = Vec::new();
    for (e, topic_hint) in &passages {
        let mut prev: Option<usize> = None;
        for (i, s) in source_sentences(&e.text).into_iter().enumerate() {
            if s.text.is_empty() {
                prev = None;
                continue;
            }
            let idx = match by_text.get(&s.text) {
                Some(&j) => j,
                None => {
                    let j = cands.len();
                    by_text.insert(s.text.clone(), j);
                    let quotable = s.quotable && !left_out.contains(&e.source, &s.text);
                    cands.push(Cand {
                        terms: extract::terms(&s.text),
                        text: s.text,
                        source: e.source.clone(),
                        prev,
                        quotable,
                        leans: s.leans,
                        score: 0.0,
                        topic: None,
                    });
                    hinted.push(*topic_hint);
                    factor.push(attach.factor(e));
                    lead.push(e.position.unwrap_or(1) == 0 && i <= 4);
                    j
                }
            };
            prev = Some(idx);
        }
    }
    if cands.is_empty() {
        return uncovered(theme);
    }

    // Rare words weigh more: idf over the theme's sentences.
    let mut df: HashMap<String, usize> = HashMap::new();
    for c in &cands {
        for t in &c.terms {
            *df.entry(t.clone()).or_default() += 1;
        }
    }
    let n = cands.len() as f32;
    let idf = |t: &str| (1.0 + n / (1.0 + df.get(t).copied().unwrap_or(0) as f32)).ln();
    for (i, c) in cands.iter_mut().enumerate() {
        let matched: Vec<(&String, f32)> = c
            .terms
            .iter()
            .filter_map(|t| weights.get(t).map(|w| (t, *w)))
            .collect();
        let strong = matched.iter().any(|(_, w)| *w >= 2.0) || matched.len() >= 2;
        if !c.quotable || !strong {
            continue;
        }
        let rel: f32 = matched.iter().map(|(t, w)| w * idf(t)).sum::<f32>()
            / (1.0 + c.terms.len() as f32).powf(0.3);
        let words = c.text.split_whitespace().count();
        let mut f = factor[i];
        if lead[i] {
            f *= 1.25;
        }
        if has_figure(&c.text) {
            f *= 1.1;
        }
        if c.text.contains(['"', '“', '”']) {
            f *= 0.8;
        }
        if first_person(&c.text) {
            f *= 0.6;
        }
        if c.text.ends_with('?') {
            f *= 0.5;
        }
        if !(9..=40).contains(&words) {
            f *= 0.8;
        }
        c.score = rel * f;
        // Topic: the one whose own words it holds most (its search's topic breaks ties).
        let best = topic_terms
            .iter()
            .enumerate()
            .map(|(j, tt)| {
                let s: f32 = c
                    .terms
                    .iter()
                    .filter(|t| tt.contains(*t))
                    .map(|t| idf(t))
                    .sum();
                let hint = if hinted[i] == Some(j) { 0.5 } else { 0.0 };
                (j, s + if s > 0.0 { hint } else { 0.0 })
            })
            .filter(|(_, s)| *s > 0.0)
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
        c.topic = best.map(|(j, _)| j).or(hinted[i]);
    }

    // Units: a sentence with what it leans on (two levels at most).
    let unit_of = |i: usize| -> Option<Vec<usize>> {
        let mut unit = vec![i];
        let mut cur = i;
        for _ in 0..3 {
            if !cands[cur].leans {
                unit.reverse();
                return Some(unit);
            }
            let p = cands[cur].prev?;
            if !cands[p].quotable || unit.contains(&p) {
                return None;
            }
            unit.push(p);
            cur = p;
        }
        None
    };
    let mut ranked: Vec<usize> = (0..cands.len()).filter(|&i| cands[i].score > 0.0).collect();
    ranked.sort_by(|&a, &b| cands[b].score.total_cmp(&cands[a].score).then(a.cmp(&b)));

    let mut chosen: Vec<usize> = Vec::new();
    let mut per_source: HashMap<String, usize> = HashMap::new();
    let fits = |unit: &[usize], chosen: &[usize], per_source: &HashMap<String, usize>| {
        if unit.iter().any(|u| chosen.contains(u)) {
            return false;
        }
        if chosen.len() + unit.len() > MAX_SENTENCES {
            return false;
        }
        let src = cands[unit[0]].source.as_str();
        if per_source.get(src).copied().unwrap_or(0) + unit.len() > PER_SOURCE {
            return false;
        }
        let words: HashSet<&String> = unit.iter().flat_map(|u| cands[*u].terms.iter()).collect();
        !chosen
            .iter()
            .any(|c| jaccard(&words, &cands[*c].terms) > REDUNDANT)
    };
    let take = |unit: Vec<usize>, chosen: &mut Vec<usize>, per: &mut HashMap<String, usize>| {
        let src = cands[unit[0]].source.clone();
        *per.entry(src).or_default() += unit.len();
        chosen.extend(unit.iter().copied());
        unit
    };
    let several = theme.topics.len() > 1;
    let mut key_units: Vec<Vec<usize>> = Vec::new();
    let mut detail_units: Vec<Vec<Vec<usize>>> = vec![Vec::new(); theme.topics.len().max(1)];
    if several {
        for j in 0..theme.topics.len() {
            if let Some(unit) = ranked
                .iter()
                .filter(|&&i| cands[i].topic == Some(j))
                .filter_map(|&i| unit_of(i))
                .find(|u| fits(u, &chosen, &per_source))
            {
                key_units.push(take(unit, &mut chosen, &mut per_source));
            }
        }
        for _round in 0..DETAILS_PER_TOPIC {
            for (j, slot) in detail_units.iter_mut().enumerate() {
                if let Some(unit) = ranked
                    .iter()
                    .filter(|&&i| cands[i].topic == Some(j))
                    .filter_map(|&i| unit_of(i))
                    .find(|u| fits(u, &chosen, &per_source))
                {
                    slot.push(take(unit, &mut chosen, &mut per_source));
                }
            }
        }
    } else {
        // Key facts from distinct sources first, then the best of the rest.
        let mut sources_used: HashSet<String> = HashSet::new();
        for &i in &ranked {
            if key_units.len() >= SINGLE_TOPIC_KEY {
                break;
            }
            if sources_used.contains(&cands[i].source) {
                continue;
            }
            if let Some(u) = unit_of(i).filter(|u| fits(u, &chosen, &per_source)) {
                sources_used.insert(cands[i].source.clone());
                key_units.push(take(u, &mut chosen, &mut per_source));
            }
        }
        for &i in &ranked {
            if let Some(u) = unit_of(i).filter(|u| fits(u, &chosen, &per_source)) {
                detail_units[0].push(take(u, &mut chosen, &mut per_source));
            }
        }
    }
    // Key facts: best first.
    let unit_score = |u: &Vec<usize>| u.iter().map(|i| cands[*i].score).fold(0.0f32, f32::max);
    key_units.sort_by(|a, b| unit_score(b).total_cmp(&unit_score(a)));
    let quote = |i: &usize| Quote {
        text: cands[*i].text.clone(),
        source: cands[*i].source.clone(),
    };
    let key_facts: Vec<Quote> = key_units.iter().flatten().map(quote).collect();
    let details = detail_units
        .into_iter()
        .enumerate()
        .filter(|(_, units)| !units.is_empty())
        .map(|(j, units)| {
            let label = several.then(|| theme.topics[j].label.clone());
            (label, units.iter().flatten().map(quote).collect())
        })
        .collect();
    // Figures: from the chosen sentences first, then the best others.
    let mut figures: Vec<Quote> = Vec::new();
    let mut numbers: HashSet<String> = HashSet::new();
    for i in chosen
        .iter()
        .chain(ranked.iter().filter(|i| !chosen.contains(i)))
    {
        if figures.len() >= MAX_FIGURES {
            break;
        }
        if let Some((clause, number)) = figure_clause(&cands[*i].text) {
            if left_out.contains(&cands[*i].source, &clause) {
                continue;
            }
            if numbers.insert(number) {
                figures.push(Quote {
                    text: clause,
                    source: cands[*i].source.clone(),
                });
            }
        }
    }
    let covered: HashSet<usize> = chosen.iter().filter_map(|i| cands[*i].topic).collect();
    let uncovered_topics = theme
        .topics
        .iter()
        .enumerate()
        .filter(|(j, t)| several && t.explicit && !covered.contains(j))
        .map(|(_, t)| t.label.clone())
        .collect();
    let reserve = ranked
        .iter()
        .filter(|i| !chosen.contains(i) && unit_of(**i).is_some_and(|u| u.len() == 1))
        .take(MAX_SENTENCES)
        .map(quote)
        .collect();
    let mut out = ThemeEvidence {
        key_facts,
        details,
        figures,
        uncovered_topics,
        reserve,
    };
    if out.key_facts.is_empty() {
        out.uncovered_topics = uncovered(theme).uncovered_topics;
    }
    out
}

fn uncovered(theme: &BriefTheme) -> ThemeEvidence {
    ThemeEvidence {
        uncovered_topics: theme
            .topics
            .iter()
            .filter(|t| theme.topics.len() > 1 && t.explicit)
            .map(|t| t.label.clone())
            .collect(),
        ..ThemeEvidence::default()
    }
}

fn jaccard(a: &HashSet<&String>, b: &HashSet<String>) -> f32 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let inter = a.iter().filter(|t| b.contains(**t)).count();
    inter as f32 / (a.len() + b.len() - inter) as f32
}

/// `I`, `we`, `our`, `you` outside quotation marks: an opinion or an
/// address to the reader, not a fact.
fn first_person(s: &str) -> bool {
    let mut quoted = false;
    let mut word = String::new();
    for c in s.chars().chain(std::iter::once(' ')) {
        if matches!(c, '"' | '“' | '”') {
            quoted = !quoted;
        }
        if c.is_alphanumeric() || c == '\'' || c == '’' {
            word.push(c);
            continue;
        }
        let w = std::mem::take(&mut word).to_lowercase();
        if !quoted
            && [
                "i", "we", "our", "us", "you", "your", "my", "i'm", "we're", "you're",
            ]
            .contains(&w.as_str())
        {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::brief::Topic;
    use crate::trace::{SourceKind, TaskStatus};

    fn theme(topics: &[&str]) -> BriefTheme {
        BriefTheme {
            id: "T1".into(),
            title: "Module 1: Icy moons".into(),
            description: "Water vapour above Europa and the geological map of Titan.".into(),
            sub_themes: vec![],
            axes: vec![],
            keywords: vec!["Europa".into(), "Titan".into()],
            internal_files: vec![],
            ephemeral: vec![],
            references: vec!["http://h/europa".into()],
            topics: topics
                .iter()
                .map(|l| Topic {
                    label: l.to_string(),
                    query: l.to_string(),
                    references: vec![],
                    explicit: true,
                })
                .collect(),
        }
    }

    fn record(source: &str, text: &str) -> TraceRecord {
        TraceRecord {
            task: "E1".into(),
            agent: "FileSearch".into(),
            theme: Some("T1".into()),
            args: vec![],
            input: vec![],
            status: TaskStatus::Ok,
            error: None,
            output: String::new(),
            excerpts: vec![Excerpt {
                source: source.into(),
                title: source.into(),
                url: Some(source.into()),
                filename: None,
                kind: SourceKind::File,
                text: text.into(),
                score: 1.0,
                position: Some(0),
            }],
            sources: vec![source.into()],
            started_ms: 0,
            elapsed_ms: 0,
        }
    }

    const EUROPA: &str =
        "Scientists confirmed water vapour above the surface of Europa this week. \
        Because the plumes are faint, only one of 17 observations of Europa caught them. \
        But while that sounds like a lot, it was only just enough to be detected from Earth.";
    const TITAN: &str = "The first global geological map of Titan shows vast plains and dunes. \
        It is larger than the planet Mercury and has lakes of liquid methane on Titan.";

    #[test]
    fn a_leaning_sentence_comes_with_its_antecedent_or_not_at_all() {
        let r1 = record("http://h/europa", EUROPA);
        let r2 = record("http://h/titan", TITAN);
        let t = theme(&["Water vapour above Europa", "The geological map of Titan"]);
        let ev = select(
            &t,
            &[&r1, &r2],
            &Attachment::of(&t, std::slice::from_ref(&t)),
            &LeftOut::default(),
        );
        let all: Vec<&str> = ev.quotes().map(|q| q.text.as_str()).collect();
        for (i, s) in all.iter().enumerate() {
            if s.starts_with("Because") {
                assert!(all[i - 1].starts_with("Scientists confirmed"), "{all:?}");
            }
            if s.starts_with("But") {
                assert!(all[i - 1].starts_with("Because"), "{all:?}");
            }
            if s.starts_with("It is larger") {
                assert!(all[i - 1].starts_with("The first global"), "{all:?}");
            }
        }
        // Both topics have their key fact, from both sources.
        assert_eq!(ev.key_facts.len(), 2, "{ev:?}");
        assert!(ev.key_facts.iter().any(|q| q.source == "http://h/titan"));
        assert!(ev.uncovered_topics.is_empty());
        // Figures: a short clause with its number.
        assert!(
            ev.figures.iter().any(|f| f.text.contains("17")),
            "{:?}",
            ev.figures
        );
    }

    #[test]
    fn a_first_sentence_leaning_on_nothing_is_never_taken() {
        let r = record(
            "http://h/europa",
            "Because space travel and sustaining life off Earth are anything but easy for Europa missions.",
        );
        let t = theme(&[]);
        let ev = select(
            &t,
            &[&r],
            &Attachment::of(&t, std::slice::from_ref(&t)),
            &LeftOut::default(),
        );
        assert!(ev.is_empty(), "{ev:?}");
    }

    #[test]
    fn off_theme_sentences_are_left_out() {
        let r = record(
            "http://h/europa",
            "The stock market rose sharply on Tuesday after the trade talks. Scientists mapped Titan in detail using radar data.",
        );
        let t = theme(&[]);
        let ev = select(
            &t,
            &[&r],
            &Attachment::of(&t, std::slice::from_ref(&t)),
            &LeftOut::default(),
        );
        let all: Vec<&str> = ev.quotes().map(|q| q.text.as_str()).collect();
        assert_eq!(all, ["Scientists mapped Titan in detail using radar data."]);
    }
}
