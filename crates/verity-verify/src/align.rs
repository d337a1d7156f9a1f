//! Token-level alignment between a claim and a sentence (BERTScore, Zhang et
//! al. 2020; ColBERT's MaxSim, Khattab & Zaharia 2020): each word piece of
//! one side is matched to its most similar word piece of the other, on the
//! model's contextual word-piece vectors, and the matches are averaged with
//! weights. A pooled sentence vector blurs a paraphrase ("T reg
//! development" against "Tregs"); the word pieces that carry it still find
//! their counterpart.
//!
//! Only word pieces of content words count (stop words and punctuation
//! weigh 0); the claim's pieces are weighted by their word's rarity in the
//! source (see [`crate::evidence`]), so matching the claim's specific terms
//! counts more than matching its common ones.

use std::ops::Range;

use crate::text::{is_function_word, stem};

/// How well a sentence's word pieces align with a claim's.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Alignment {
    /// Weighted mean over the claim's pieces of their best cosine in the
    /// sentence: how much of the claim the sentence says.
    pub recall: f64,
    /// Mean over the sentence's content pieces of their best cosine in the
    /// claim: how much of the sentence is about the claim.
    pub precision: f64,
}

/// The word of `text` around byte range `piece` (letters and digits),
/// lower-cased; empty for a piece with neither (punctuation).
fn word_at(text: &str, piece: &Range<usize>) -> String {
    let is_word = |c: char| c.is_alphanumeric();
    if !text
        .get(piece.clone())
        .is_some_and(|p| p.chars().any(is_word))
    {
        return String::new();
    }
    let start = text
        .get(..piece.start)
        .and_then(|h| h.char_indices().rev().find(|&(_, c)| !is_word(c)))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let end = text
        .get(piece.end..)
        .and_then(|t| t.char_indices().find(|&(_, c)| !is_word(c)))
        .map_or(text.len(), |(i, _)| piece.end + i);
    text.get(start.min(piece.start)..end.max(piece.end))
        .unwrap_or_default()
        .to_lowercase()
}

/// One weight per word piece (byte ranges `offsets` of `text`): 0 for
/// pieces of stop words and punctuation, else `weight` of the stemmed word.
pub fn piece_weights(
    text: &str,
    offsets: &[Range<usize>],
    weight: impl Fn(&str) -> f64,
) -> Vec<f64> {
    let french = crate::lexicon::is_french(text);
    offsets
        .iter()
        .map(|o| {
            let w = word_at(text, o);
            let content = w.chars().any(char::is_alphanumeric)
                && !is_function_word(&w, french)
                && (w.chars().count() > 1 || w.chars().all(|c| c.is_ascii_digit()));
            if content {
                weight(&stem(&w))
            } else {
                0.0
            }
        })
        .collect()
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The pieces of positive weight, with their weight.
fn weighted<'a>(vectors: &'a [Vec<f32>], weights: &[f64]) -> Vec<(&'a Vec<f32>, f64)> {
    vectors
        .iter()
        .zip(weights)
        .filter(|(_, &w)| w > 0.0)
        .map(|(v, &w)| (v, w))
        .collect()
}

/// Align `claim` pieces (weights `claim_w`) with `sentence` pieces (weights
/// `sentence_w`); vectors are L2-normalised, so a dot product is a cosine.
/// Pieces of weight 0 take no part; no weighted piece on a side gives 0.
pub fn align(
    claim: &[Vec<f32>],
    claim_w: &[f64],
    sentence: &[Vec<f32>],
    sentence_w: &[f64],
) -> Alignment {
    let (cs, ss) = (weighted(claim, claim_w), weighted(sentence, sentence_w));
    if cs.is_empty() || ss.is_empty() {
        return Alignment::default();
    }
    let mut best_s = vec![f32::NEG_INFINITY; ss.len()];
    let (mut num, mut den) = (0.0, 0.0);
    for (c, w) in &cs {
        let mut best = f32::NEG_INFINITY;
        for ((s, _), bs) in ss.iter().zip(best_s.iter_mut()) {
            let d = dot(c, s);
            best = best.max(d);
            *bs = bs.max(d);
        }
        num += w * f64::from(best);
        den += w;
    }
    let (mut pn, mut pd) = (0.0, 0.0);
    for ((_, w), b) in ss.iter().zip(&best_s) {
        pn += w * f64::from(*b);
        pd += w;
    }
    Alignment {
        recall: num / den,
        precision: pn / pd,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_skip_stop_words_and_punctuation() {
        let text = "The T-regs expand, in mice.";
        // Word pieces as a BERT tokenizer cuts them.
        let offsets = [
            0..3,
            4..5,
            5..6,
            6..10,
            11..17,
            17..18,
            19..21,
            22..26,
            26..27,
        ];
        let w = piece_weights(text, &offsets, |t| if t == "mice" { 2.0 } else { 1.0 });
        // "T-regs" is two words here: "t" (one letter, dropped) and "regs".
        assert_eq!(w, vec![0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 2.0, 0.0]);
        assert_eq!(word_at(text, &(7..9)), "regs");
        assert_eq!(word_at(text, &(26..27)), "", "the final full stop");
    }

    #[test]
    fn recall_and_precision_follow_the_best_matches() {
        let e = |x: f32, y: f32| {
            let n = (x * x + y * y).sqrt();
            vec![x / n, y / n]
        };
        let claim = vec![e(1.0, 0.0), e(0.0, 1.0)];
        // The sentence says the first claim piece exactly, nothing of the second,
        // and one unrelated piece.
        let sentence = vec![e(1.0, 0.0), e(1.0, 0.0), e(-1.0, 0.0)];
        let a = align(&claim, &[1.0, 1.0], &sentence, &[1.0, 1.0, 1.0]);
        assert!((a.recall - 0.5).abs() < 1e-6, "{a:?}");
        assert!(
            (a.precision - (1.0 + 1.0 + 0.0) / 3.0).abs() < 1e-6,
            "{a:?}"
        );
        // The claim's second piece weighed 3 times the first: recall drops.
        let b = align(&claim, &[1.0, 3.0], &sentence, &[1.0, 1.0, 1.0]);
        assert!((b.recall - 0.25).abs() < 1e-6, "{b:?}");
        assert_eq!(
            align(&claim, &[0.0, 0.0], &sentence, &[1.0; 3]),
            Alignment::default()
        );
    }
}
