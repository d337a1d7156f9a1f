//! Citation verification on a [`Verity`] handle: [`Verity::check`] builds a
//! [`Verifier`] over the handle's one fetcher, its embedder (sentence vectors
//! for passages) and — when a model generator is configured — the LLM judge
//! over that generator (else the local judge), and runs it on the document
//! of a [`CheckRequest`].

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use url::Url;
use verity_core::{Error, FetchError, Fetcher, Judge, Result};
use verity_fetch::NetworkGuard;
use verity_verify::{LlmJudge, LocalJudge, Progress, Report, Verifier};

use crate::api::verify::{CheckInput, CheckRequest, EvalVerifyRequest, JudgeChoice, VerifyEval};
use crate::config::GeneratorSpec;
use crate::Verity;

/// Progress callback of [`Verity::check`] (sources fetched, claims judged).
pub type CheckProgress<'a> = &'a (dyn Fn(Progress) + Sync);

impl Verity {
    /// Check the citations of the document `req` names: claims that cite,
    /// sources fetched once each (SSRF guard on unless `allow_private`),
    /// passages, verdicts with verbatim quotes. Bad input is an
    /// `invalid_input` error; a document URL that cannot be fetched is
    /// `fetch_failed`; sources that cannot be fetched are reported per claim.
    pub async fn check(&self, req: &CheckRequest, progress: CheckProgress<'_>) -> Result<Report> {
        self.check_cancellable(req, progress, None).await
    }

    /// [`Verity::check`] that stops when `cancel` turns `true` (Ctrl-C) and
    /// returns the report of what is done (`cancelled: true`).
    pub async fn check_cancellable(
        &self,
        req: &CheckRequest,
        progress: CheckProgress<'_>,
        cancel: Option<Arc<AtomicBool>>,
    ) -> Result<Report> {
        let input = req.input()?;
        let concurrency = req.concurrency()?;
        let fetcher: Arc<dyn Fetcher> = self.fetchers.http(req.allow_private)?;
        let judge = self.judge(req.judge.unwrap_or_default()).await?;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Progress>();
        let mut builder = Verifier::builder(fetcher.clone())
            .embedder(self.embedder().cloned())
            .judge(judge)
            .concurrency(concurrency)
            .progress(Arc::new(move |p| {
                let _ = tx.send(p);
            }));
        if let Some(flag) = cancel {
            builder = builder.cancel_flag(flag);
        }
        let verifier = builder.build();
        let ct = req.content_type.as_deref();
        let name = req.name.as_deref();
        let run = async {
            match input {
                CheckInput::Content(text) => verifier.check_content(text, ct).await,
                CheckInput::Bytes(bytes) => verifier.check_bytes(&bytes, ct, name).await,
                CheckInput::Path(p) => {
                    // A regular file only: a FIFO is refused at once, never waited on.
                    let path = std::path::PathBuf::from(p);
                    let bytes = tokio::task::spawn_blocking(move || {
                        verity_extract::read_document_bytes(&path, None)
                    })
                    .await
                    .map_err(|e| Error::invalid_input(format!("reading {p} failed: {e}")))??;
                    let mut r = verifier.check_bytes(&bytes, ct, name.or(Some(p))).await?;
                    r.document = r.document.or_else(|| Some(p.to_string()));
                    Ok(r)
                }
                CheckInput::Url(url) => check_url(&verifier, &url, req.allow_private).await,
            }
        };
        tokio::pin!(run);
        loop {
            tokio::select! {
                r = &mut run => {
                    while let Ok(p) = rx.try_recv() {
                        progress(p);
                    }
                    return r;
                }
                Some(p) = rx.recv() => progress(p),
            }
        }
    }

    /// The judge a check uses.
    /// Verification quality and speed on the evaluation data
    /// (`verity eval verify`): SciFact claims against their cited
    /// abstracts, numeric distortions of real page sentences, and a
    /// document citing pages on loopback — with this handle's embedder and
    /// judge. The verifier's fetcher allows loopback for the speed set only.
    pub async fn eval_verify(&self, req: &EvalVerifyRequest) -> Result<VerifyEval> {
        use verity_verify::eval;
        let judge = self.judge(req.judge).await?;
        let verifier = |allow_private: bool| -> Result<Verifier> {
            Ok(Verifier::builder(self.fetchers.http(allow_private)?)
                .embedder(self.embedder().cloned())
                .judge(judge.clone())
                .concurrency(crate::api::verify::DEFAULT_CONCURRENCY)
                .build())
        };
        let sets = if req.sets.is_empty() {
            eval::EvalSet::ALL.to_vec()
        } else {
            req.sets.clone()
        };
        let mut out = VerifyEval {
            judge: judge.name().to_string(),
            dense: self.embedder().is_some(),
            scifact: None,
            distortion: None,
            speed: None,
            claims: None,
        };
        for set in sets {
            match set {
                eval::EvalSet::Scifact => {
                    let v = verifier(false)?;
                    let dir = req.dir.join("scifact");
                    out.scifact = Some(eval::scifact(&v, &dir, req.limit).await?);
                }
                eval::EvalSet::Distortion => {
                    let v = verifier(false)?;
                    let dir = req.dir.join("article-extraction");
                    out.distortion = Some(eval::distortion(&v, &dir, req.limit).await?);
                }
                eval::EvalSet::Speed => {
                    let v = verifier(true)?;
                    let dir = req.dir.join("article-extraction");
                    let n = req.citations.unwrap_or(200);
                    out.speed = Some(eval::speed(&v, &dir, n).await?);
                }
                eval::EvalSet::Claims => {
                    let v = verifier(true)?;
                    out.claims = Some(eval::claims::run(&v, &req.dir, None).await?);
                }
            }
        }
        Ok(out)
    }

    pub(crate) async fn judge(&self, choice: JudgeChoice) -> Result<Arc<dyn Judge>> {
        let model = !matches!(self.config().generator, GeneratorSpec::Extractive);
        match (choice, model) {
            (JudgeChoice::Local, _) | (JudgeChoice::Auto, false) => Ok(Arc::new(LocalJudge::new())),
            (JudgeChoice::Llm, false) => Err(Error::invalid_input(
                "the LLM judge needs a model generator (set VERITY_GENERATOR or --generator \
                 to local, ollama:… or openai:…); the configured one is `extractive`",
            )),
            (_, true) => {
                let generator = self.rag().await?.generator().clone();
                Ok(Arc::new(LlmJudge::new(generator)))
            }
        }
    }
}

/// Check the document at `url` ([`Verifier::check_url`]). A URL the SSRF
/// guard refuses is the caller's mistake (`invalid_input`, naming the
/// switch), not an upstream failure: read from the typed refusal.
async fn check_url(verifier: &Verifier, url: &Url, allow_private: bool) -> Result<Report> {
    let refused = |why: String| {
        Error::invalid_input(format!(
            "{url}: {why}; private and loopback addresses need `allow_private` \
             (--allow-private), an operator's choice"
        ))
    };
    if !allow_private {
        NetworkGuard::new()
            .check_url(url)
            .map_err(|r| refused(r.to_string()))?;
    }
    match verifier.check_url(url).await {
        Err(Error::Fetch(e @ FetchError::Blocked { .. })) => Err(refused(e.to_string())),
        other => other,
    }
}
