//! Answers that check themselves: the RAG pipeline's [`AnswerCheck`] over
//! the one judging path of citation verification
//! ([`verity_verify::answer::verify_answer`]). Each cited sentence is judged
//! against the context block it cites by the local judge — deterministic
//! and a few milliseconds per sentence, so that checking is cheap enough to
//! be on by default.

use async_trait::async_trait;
use verity_core::{Answer, ScoredChunk, VerifyMode};
use verity_rag::AnswerCheck;
use verity_verify::answer::{verify_answer, CitedPassage};
use verity_verify::{Assessor, SourceText};

/// The facade's answer check.
pub(crate) struct AssessorCheck {
    assessor: Assessor,
}

impl AssessorCheck {
    /// A check with the local judge.
    pub(crate) fn local() -> Self {
        Self {
            assessor: Assessor::builder().build(),
        }
    }
}

#[async_trait]
impl AnswerCheck for AssessorCheck {
    async fn check(&self, answer: &mut Answer, context: &[ScoredChunk], mode: VerifyMode) {
        let passages: Vec<CitedPassage> = context
            .iter()
            .enumerate()
            .map(|(i, h)| CitedPassage {
                n: i + 1,
                text: SourceText::from_markdown(&h.chunk.text).titled(h.doc.title.as_deref()),
                url: h.doc.url.clone(),
            })
            .collect();
        let (text, v) = verify_answer(&self.assessor, &answer.text, &passages, mode).await;
        answer.text = text;
        answer.verification = Some(v);
    }
}
