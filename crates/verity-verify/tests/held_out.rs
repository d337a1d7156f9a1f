//! `eval::scifact` with word pieces ranks each claim by a forest fitted
//! without the claim's fold (the shipped forest was fitted on SciFact, so
//! its figures there would be in sample); without them, by the shipped
//! ranking, and says so.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use std::sync::Arc;

use async_trait::async_trait;
use verity_core::{Embedder, EmbedderId, Embedding, Result, TokenEmbeddings};
use verity_verify::Verifier;

/// Word pieces are whitespace words, each a fixed pseudo-random unit
/// vector of its lower-cased letters; a text's vector is their normalised sum.
struct WordPieces(EmbedderId);

fn unit(word: &str, dim: usize) -> Vec<f32> {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let v: Vec<f32> = (0..dim)
        .map(|_| {
            for b in word.to_lowercase().bytes() {
                h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
            }
            h = h.rotate_left(17).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            (h >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        })
        .collect();
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.into_iter().map(|x| x / n).collect()
}

impl WordPieces {
    fn pieces(&self, text: &str) -> TokenEmbeddings {
        let dim = self.0.dim;
        let mut offsets = Vec::new();
        let mut at = 0;
        for w in text.split_whitespace() {
            let start = at + text[at..].find(w).unwrap_or(0);
            offsets.push(start..start + w.len());
            at = start + w.len();
        }
        let tokens: Vec<Embedding> = offsets
            .iter()
            .map(|r| unit(&text[r.clone()], dim))
            .collect();
        let mut sum = vec![0.0f32; dim];
        for t in &tokens {
            for (s, x) in sum.iter_mut().zip(t) {
                *s += x;
            }
        }
        let n = sum.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
        TokenEmbeddings {
            text: sum.into_iter().map(|x| x / n).collect(),
            tokens,
            offsets,
        }
    }
}

#[async_trait]
impl Embedder for WordPieces {
    fn id(&self) -> &EmbedderId {
        &self.0
    }
    fn max_tokens(&self) -> usize {
        512
    }
    async fn embed(&self, texts: &[String]) -> Result<Vec<Embedding>> {
        Ok(texts.iter().map(|t| self.pieces(t).text).collect())
    }
    async fn embed_tokens(&self, texts: &[String]) -> Result<Option<Vec<TokenEmbeddings>>> {
        Ok(Some(texts.iter().map(|t| self.pieces(t)).collect()))
    }
}

/// A SciFact-shaped directory: `n` claims, each citing one abstract whose
/// fourth sentence (the rationale) states it with a statistic.
fn scifact_dir(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut claims, mut corpus) = (String::new(), String::new());
    let topics = ["aspirin", "statins", "metformin", "exercise", "vitamin"];
    let outcomes = ["mortality", "fractures", "stroke", "sepsis"];
    for i in 0..n {
        let (t, o) = (topics[i % 5], outcomes[(i / 5) % 4]);
        let claim = format!("{t} treatment reduces {o} risk in older adults cohort {i}.");
        let doc = 1000 + i;
        let sentences = [
            format!("{o} remains a leading concern for older adults."),
            format!("We examined whether {t} changes outcomes in cohort {i}."),
            "Participants were followed for five years.".to_string(),
            format!("{t} treatment significantly reduced {o} risk in older adults of cohort {i} (p < 0.01)."),
            "Adherence was high in both arms.".to_string(),
            "Further trials are planned.".to_string(),
        ];
        claims.push_str(
            &serde_json::json!({
                "id": i, "claim": claim, "cited_doc_ids": [doc],
                "evidence": {doc.to_string(): [{"sentences": [3], "label": "SUPPORT"}]}
            })
            .to_string(),
        );
        claims.push('\n');
        corpus.push_str(&serde_json::json!({"_id": doc, "sentences": sentences}).to_string());
        corpus.push('\n');
    }
    std::fs::write(dir.path().join("claims_train.jsonl"), claims).expect("claims");
    std::fs::write(dir.path().join("corpus.jsonl"), corpus).expect("corpus");
    dir
}

fn verifier(embedder: Option<Arc<dyn Embedder>>) -> Verifier {
    let fetcher = Arc::new(verity_fetch::HttpFetcher::with_defaults().expect("fetcher"));
    Verifier::builder(fetcher).embedder(embedder).build()
}

#[tokio::test]
async fn word_pieces_are_ranked_by_forests_fitted_without_the_claims_fold() {
    let dir = scifact_dir(40);
    let e: Arc<dyn Embedder> = Arc::new(WordPieces(EmbedderId::new("word-pieces", "1", 32)));
    let r = verity_verify::eval::scifact(&verifier(Some(e)), dir.path(), None)
        .await
        .expect("eval");
    assert_eq!(r.held_out_folds, verity_verify::eval::HELD_OUT_FOLDS);
    assert_eq!((r.claims, r.pairs_with_evidence), (40, 40));
    // The rationale repeats the claim and reports a statistic; forests
    // fitted on the other folds' 32 claims find it.
    assert!(r.quote_top1 >= 0.9, "{r:?}");
    assert!(r.quote_top3 >= r.quote_top1, "{r:?}");

    let lexical = verity_verify::eval::scifact(&verifier(None), dir.path(), None)
        .await
        .expect("eval");
    assert_eq!(
        lexical.held_out_folds, 0,
        "no word pieces: nothing fitted here"
    );
    assert_eq!(lexical.pairs_with_evidence, 40);
}
