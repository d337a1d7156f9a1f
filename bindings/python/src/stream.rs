//! `Store.ask_stream`: the answer's text as it is generated, for `for` and
//! `async for`, then the final `Answer`. The facade's answer channel
//! ([`verity::Verity::ask_channel`]) runs on the shared tokio runtime; each
//! step waits on it with the GIL released (sync) or as an asyncio future.

use std::sync::Arc;

use pyo3::exceptions::{PyStopAsyncIteration, PyStopIteration};
use pyo3::prelude::*;
use tokio::sync::{mpsc, Mutex};
use verity::api::AskRequest;
use verity::RagEvent;

use crate::conv::{self, block};
use crate::types::Answer;

/// The stream's state shared by the iterator and its futures.
struct State {
    events: Mutex<mpsc::Receiver<verity::Result<RagEvent>>>,
    answer: std::sync::Mutex<Option<verity::Answer>>,
}

/// The text of an answer as it is generated. Iterate it (`for` or
/// `async for`) for the text pieces; `answer` is the final `Answer` once the
/// iteration ended (`None` before).
#[pyclass(frozen, module = "verity")]
pub struct AnswerStream {
    state: Arc<State>,
}

impl AnswerStream {
    /// Start answering `req` on `verity`.
    pub fn start(verity: Arc<verity::Verity>, req: AskRequest) -> Self {
        let channel = verity.ask_channel(req);
        pyo3_async_runtimes::tokio::get_runtime().spawn(channel.feed);
        Self {
            state: Arc::new(State {
                events: Mutex::new(channel.events),
                answer: std::sync::Mutex::new(None),
            }),
        }
    }
}

/// The next text piece; `None` once the stream ended (its answer kept).
async fn next(state: Arc<State>) -> verity::Result<Option<String>> {
    let mut events = state.events.lock().await;
    loop {
        match events.recv().await {
            Some(Ok(RagEvent::Delta(d))) => return Ok(Some(d)),
            Some(Ok(RagEvent::Done(a))) => {
                *state.answer.lock().unwrap_or_else(|p| p.into_inner()) = Some(*a);
            }
            Some(Err(e)) => return Err(e),
            None => return Ok(None),
        }
    }
}

#[pymethods]
impl AnswerStream {
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<String> {
        let state = self.state.clone();
        match block(py, next(state))? {
            Some(d) => Ok(d),
            None => Err(PyStopIteration::new_err(())),
        }
    }

    fn __aiter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __anext__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let state = self.state.clone();
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            match next(state).await {
                Ok(Some(d)) => Ok(d),
                Ok(None) => Err(PyStopAsyncIteration::new_err(())),
                Err(e) => Err(Python::attach(|py| conv::to_pyerr(py, e))),
            }
        })
    }

    /// The final answer (cleaned text, citations, confidence) once the
    /// stream has been read to its end; `None` before.
    #[getter]
    fn answer(&self) -> Option<Answer> {
        self.state
            .answer
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .map(Answer::from)
    }

    fn __repr__(&self) -> String {
        match self.answer() {
            Some(_) => "AnswerStream(done)".into(),
            None => "AnswerStream(…)".into(),
        }
    }
}
