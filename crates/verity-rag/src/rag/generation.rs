//! Running the generators: the deadline (fixed or learned from recent
//! latencies), one call under it, the fallback generator when the main one
//! times out, fails or answers without citations, and the streamed form.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use tracing::{info_span, warn, Instrument};
use verity_core::{ChatRequest, Error, Generation, Generator, ProviderErrorKind, Result};

use super::{ms, Prepared, RagEvent, RagPipeline};

impl RagPipeline {
    /// Check that the main generator answers (its `health`).
    pub async fn generator_health(&self) -> Result<()> {
        self.inner.generator.health().await
    }

    /// Current generation deadline, if any.
    pub fn current_timeout(&self) -> Option<Duration> {
        let t = &self.inner.config.timeout;
        if let Some(f) = t.fixed {
            return Some(f);
        }
        let lat = self.inner.latencies.lock().ok()?;
        if lat.len() < t.min_samples.max(1) {
            return None;
        }
        let mut v: Vec<f64> = lat.iter().copied().collect();
        v.sort_by(f64::total_cmp);
        let idx = ((v.len() as f64 * 0.95).ceil() as usize)
            .saturating_sub(1)
            .min(v.len() - 1);
        let p95 = Duration::from_secs_f64(v[idx] / 1000.0);
        Some(p95.mul_f64(t.p95_factor).max(t.floor))
    }

    pub(super) fn record_latency(&self, d: Duration) {
        if let Ok(mut lat) = self.inner.latencies.lock() {
            lat.push_back(ms(d));
            while lat.len() > self.inner.config.timeout.window.max(1) {
                lat.pop_front();
            }
        }
    }

    pub(super) async fn run_once(
        &self,
        g: &Arc<dyn Generator>,
        req: &ChatRequest,
    ) -> Result<Generation> {
        use std::sync::atomic::Ordering::Relaxed;
        self.inner.counters.generations.fetch_add(1, Relaxed);
        let started = Instant::now();
        let fut = g
            .generate(req)
            .instrument(info_span!("generate", model = g.model()));
        let out = match self.current_timeout() {
            Some(t) => match tokio::time::timeout(t, fut).await {
                Ok(r) => r,
                Err(_) => {
                    self.inner.counters.timeouts.fetch_add(1, Relaxed);
                    metrics::counter!("timeout_total").increment(1);
                    Err(Error::Timeout(t))
                }
            },
            None => fut.await,
        };
        let (g_total, t_total) = (
            self.inner.counters.generations.load(Relaxed),
            self.inner.counters.timeouts.load(Relaxed),
        );
        metrics::gauge!("timeout_rate").set(t_total as f64 / g_total.max(1) as f64);
        if out.is_ok() {
            self.record_latency(started.elapsed());
        }
        out
    }

    pub(super) fn should_fall_back(e: &Error) -> bool {
        match e {
            Error::Timeout(_) => true,
            Error::Provider(p) => {
                p.is_transient()
                    || p.kind == ProviderErrorKind::ModelNotFound
                    || p.kind == ProviderErrorKind::BadResponse
            }
            _ => false,
        }
    }

    pub(super) async fn generate_with_fallback(
        &self,
        p: &Prepared,
    ) -> Result<(Generation, bool, Vec<String>)> {
        let mut notes = Vec::new();
        let primary = self.run_once(&self.inner.generator, &p.request).await;
        let fallback = self.inner.fallback.clone();
        match primary {
            Ok(g) => {
                let conf = self.confidence_of(&g.text, &p.hits);
                let cited = self.cites(&g.text, &p.hits);
                if cited && conf >= self.inner.config.min_confidence {
                    return Ok((g, false, notes));
                }
                let empty = g.text.trim().is_empty();
                let Some(fb) = fallback else {
                    // An empty generation is a failure of the generator: it is
                    // never returned as an answer (`finish` says so).
                    return Ok((g, empty, notes));
                };
                let why = if empty {
                    "an empty answer".to_string()
                } else if !cited {
                    "an answer that cites no source".to_string()
                } else {
                    format!("low confidence ({conf:.2})")
                };
                notes.push(format!(
                    "{} gave {why}: retried on fallback {}",
                    g.model,
                    fb.model()
                ));
                let reason = if cited { "low_confidence" } else { "uncited" };
                let span = info_span!("fallback", reason);
                match self.run_once(&fb, &p.request).instrument(span).await {
                    Ok(g2)
                        if self.cites(&g2.text, &p.hits)
                            && (!cited || self.confidence_of(&g2.text, &p.hits) >= conf) =>
                    {
                        self.note_fallback();
                        Ok((g2, true, notes))
                    }
                    Ok(_) => {
                        notes.push("fallback did not do better: kept the first answer".into());
                        Ok((g, empty, notes))
                    }
                    Err(e) => {
                        notes.push(format!("fallback failed: {e}"));
                        Ok((g, empty, notes))
                    }
                }
            }
            Err(e) if Self::should_fall_back(&e) => {
                let Some(fb) = fallback else { return Err(e) };
                warn!(error = %e, "primary generator failed, using fallback");
                notes.push(format!(
                    "{} failed ({e}): answered by fallback {}",
                    self.inner.generator.model(),
                    fb.model()
                ));
                let g = self
                    .run_once(&fb, &p.request)
                    .instrument(info_span!("fallback", reason = "error"))
                    .await?;
                self.note_fallback();
                Ok((g, true, notes))
            }
            Err(e) => Err(e),
        }
    }

    pub(super) fn note_fallback(&self) {
        self.inner
            .counters
            .fallbacks
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        metrics::counter!("rag_fallback_total").increment(1);
    }

    /// Stream from the main generator; fall back (without streaming the
    /// failed part twice) when it fails before producing anything.
    pub(super) async fn stream_generation(
        &self,
        p: &Prepared,
        tx: &futures::channel::mpsc::UnboundedSender<Result<RagEvent>>,
    ) -> Result<(Generation, bool, Vec<String>)> {
        let mut notes = Vec::new();
        let gens: Vec<Arc<dyn Generator>> = std::iter::once(self.inner.generator.clone())
            .chain(self.inner.fallback.clone())
            .collect();
        let mut last_err = None;
        for (attempt, g) in gens.iter().enumerate() {
            let started = Instant::now();
            let first_deadline = self.current_timeout();
            let mut stream = match g.stream(&p.request).await {
                Ok(s) => s,
                Err(e) if Self::should_fall_back(&e) => {
                    notes.push(format!("{} failed ({e})", g.model()));
                    last_err = Some(e);
                    continue;
                }
                Err(e) => return Err(e),
            };
            let mut text = String::new();
            loop {
                let next = match (first_deadline, text.is_empty()) {
                    (Some(t), true) => match tokio::time::timeout(t, stream.next()).await {
                        Ok(n) => n,
                        Err(_) => Some(Err(Error::Timeout(t))),
                    },
                    _ => stream.next().await,
                };
                match next {
                    Some(Ok(delta)) => {
                        text.push_str(&delta);
                        let _ = tx.unbounded_send(Ok(RagEvent::Delta(delta)));
                    }
                    // A failure before any text, or a budget reached mid-way
                    // with a fallback left, moves on to the next generator (its
                    // answer is the final one; the deltas seen so far are not).
                    Some(Err(e))
                        if Self::should_fall_back(&e)
                            && (text.is_empty() || attempt + 1 < gens.len()) =>
                    {
                        notes.push(if text.is_empty() {
                            format!("{} failed ({e})", g.model())
                        } else {
                            format!(
                                "{} stopped mid-answer ({e}); its partial text is not the answer",
                                g.model()
                            )
                        });
                        last_err = Some(e);
                        break;
                    }
                    Some(Err(e)) => return Err(e),
                    None if text.trim().is_empty() && attempt + 1 < gens.len() => {
                        notes.push(format!("{} returned an empty answer", g.model()));
                        break;
                    }
                    None => {
                        self.record_latency(started.elapsed());
                        let degraded = attempt > 0 || text.trim().is_empty();
                        if attempt > 0 {
                            self.note_fallback();
                            notes.push(format!("answered by fallback {}", g.model()));
                        }
                        let generation = Generation {
                            text,
                            model: g.model().to_string(),
                            finish_reason: Default::default(),
                            usage: Default::default(),
                        };
                        return Ok((generation, degraded, notes));
                    }
                }
            }
        }
        Err(last_err.unwrap_or_else(|| Error::invalid_input("no generator configured")))
    }
}
