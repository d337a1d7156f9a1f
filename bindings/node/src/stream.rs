//! `askStream`: the answer's text as it is generated. The facade's answer
//! channel ([`verity::Verity::ask_channel`]) runs on napi's tokio runtime;
//! `next()` resolves to the next text piece (`null` at the end) and
//! `answer()` to the final answer; `node/index.js` wraps them in an async
//! iterator.

use std::sync::Arc;

use napi::Result;
use napi_derive::napi;
use serde_json::Value;
use tokio::sync::{mpsc, Mutex};
use verity::api::AskRequest;
use verity::RagEvent;

use crate::conv::{json, to_napi};

/// A streamed answer (native side; use `store.askStream(...)` of `index.js`).
#[napi]
pub struct NativeAnswerStream {
    events: Arc<Mutex<mpsc::Receiver<verity::Result<RagEvent>>>>,
    answer: Arc<std::sync::Mutex<Option<verity::Answer>>>,
}

impl NativeAnswerStream {
    /// Start answering `req` on `verity`.
    pub fn start(verity: Arc<verity::Verity>, req: AskRequest) -> Self {
        let channel = verity.ask_channel(req);
        napi::bindgen_prelude::spawn(channel.feed);
        Self {
            events: Arc::new(Mutex::new(channel.events)),
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
                Some(Ok(RagEvent::Delta(d))) => return Ok(Some(d)),
                Some(Ok(RagEvent::Done(a))) => {
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
