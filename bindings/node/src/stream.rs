//! `askStream`: the answer's text as it is generated. The facade's stream
//! runs on napi's tokio runtime and feeds a channel; `next()` resolves to
//! the next text piece (`null` at the end) and `answer()` to the final
//! answer; `node/index.js` wraps them in an async iterator.

use std::sync::Arc;

use futures::StreamExt;
use napi::Result;
use napi_derive::napi;
use serde_json::Value;
use tokio::sync::{mpsc, Mutex};
use verity::api::AskRequest;
use verity::RagEvent;

use crate::conv::{json, to_napi};

enum Step {
    Delta(String),
    Done(Box<verity::Answer>),
}

/// A streamed answer (native side; use `store.askStream(...)` of `index.js`).
#[napi]
pub struct NativeAnswerStream {
    events: Arc<Mutex<mpsc::Receiver<verity::Result<Step>>>>,
    answer: Arc<std::sync::Mutex<Option<verity::Answer>>>,
}

impl NativeAnswerStream {
    /// Start answering `req` on `verity`.
    pub fn start(verity: Arc<verity::Verity>, req: AskRequest) -> Self {
        let (tx, rx) = mpsc::channel(64);
        napi::bindgen_prelude::spawn(async move {
            let mut events = match verity.ask_stream(&req).await {
                Ok(s) => s,
                Err(e) => {
                    let _ = tx.send(Err(e)).await;
                    return;
                }
            };
            while let Some(ev) = events.next().await {
                let step = ev.map(|e| match e {
                    RagEvent::Delta(d) => Step::Delta(d),
                    RagEvent::Done(a) => Step::Done(a),
                });
                let stop = step.is_err();
                if tx.send(step).await.is_err() || stop {
                    return;
                }
            }
        });
        Self {
            events: Arc::new(Mutex::new(rx)),
            answer: Arc::new(std::sync::Mutex::new(None)),
        }
    }
}

#[napi]
impl NativeAnswerStream {
    /// The next text piece, or `null` once the answer is complete.
    #[napi]
    pub async fn next(&self) -> Result<Option<String>> {
        let mut events = self.events.lock().await;
        loop {
            match events.recv().await {
                Some(Ok(Step::Delta(d))) => return Ok(Some(d)),
                Some(Ok(Step::Done(a))) => {
                    *self.answer.lock().unwrap_or_else(|p| p.into_inner()) = Some(*a);
                }
                Some(Err(e)) => return Err(to_napi(e)),
                None => return Ok(None),
            }
        }
    }

    /// The final answer once `next()` returned `null`; `null` before.
    #[napi]
    pub fn answer(&self) -> Result<Value> {
        let a = self
            .answer
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        json(&a)
    }
}
