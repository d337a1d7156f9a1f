//! Cancellation of work whose caller has gone (a request that timed out, a
//! client that disconnected).
//!
//! Dropping a future stops its async work at the next `.await`, but work
//! handed to a blocking thread (SQLite queries, model passes) runs to its
//! end. So a host runs each request inside [`scope`] with a [`CancelFlag`]
//! that a [`CancelOnDrop`] guard raises when the request's future is
//! dropped; blocking work started with [`carry`] sees the flag of the task
//! that started it, and long loops call [`check`] (or [`is_cancelled`], as
//! the SQLite progress handler does) between steps.
//!
//! ```
//! use verity_core::cancel::{self, CancelFlag};
//!
//! # async fn run() {
//! let flag = CancelFlag::new();
//! let guard = flag.cancel_on_drop();
//! let work = cancel::carry(|| {
//!     for _step in 0..1_000 {
//!         cancel::check()?; // Err once the caller has gone
//!     }
//!     Ok::<_, verity_core::Error>(())
//! });
//! let done = cancel::scope(flag, async move { tokio::task::spawn_blocking(work).await }).await;
//! guard.disarm(); // finished: nothing to cancel
//! # let _ = done;
//! # }
//! ```

use std::cell::RefCell;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::{Error, Result};

/// Raised when the work's caller has gone. Cheap to clone and to check.
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    /// A flag that is not raised.
    pub fn new() -> Self {
        Self::default()
    }

    /// Raise it.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether it was raised.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// A guard that raises this flag when dropped, unless disarmed first:
    /// keep it alive for as long as someone waits for the work.
    pub fn cancel_on_drop(&self) -> CancelOnDrop {
        CancelOnDrop(Some(self.clone()))
    }
}

/// Raises its flag on drop (see [`CancelFlag::cancel_on_drop`]).
#[derive(Debug)]
#[must_use = "dropping the guard at once cancels the work"]
pub struct CancelOnDrop(Option<CancelFlag>);

impl CancelOnDrop {
    /// The work finished: dropping the guard no longer cancels anything.
    pub fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(f) = self.0.take() {
            f.cancel();
        }
    }
}

tokio::task_local! {
    static TASK: CancelFlag;
}

thread_local! {
    static THREAD: RefCell<Option<CancelFlag>> = const { RefCell::new(None) };
}

/// Run `fut` with `flag` as its cancel flag ([`current`] inside it).
pub async fn scope<F: Future>(flag: CancelFlag, fut: F) -> F::Output {
    TASK.scope(flag, fut).await
}

/// The flag of the running request: the blocking thread's (set by
/// [`carry`]), else the async task's (set by [`scope`]).
pub fn current() -> Option<CancelFlag> {
    THREAD
        .with(|t| t.borrow().clone())
        .or_else(|| TASK.try_with(CancelFlag::clone).ok())
}

/// Whether the running request's caller has gone (`false` outside any scope).
pub fn is_cancelled() -> bool {
    THREAD
        .with(|t| t.borrow().as_ref().map(CancelFlag::is_cancelled))
        .unwrap_or_else(|| TASK.try_with(CancelFlag::is_cancelled).unwrap_or(false))
}

/// `Err` once the running request's caller has gone: call it between the
/// steps of long work. The error is a timeout (nobody reads it: the caller
/// already has its answer, or has left).
pub fn check() -> Result<()> {
    if is_cancelled() {
        return Err(Error::Timeout(std::time::Duration::ZERO));
    }
    Ok(())
}

/// `f`, made to run on another thread with the flag current here, so that
/// blocking work started for a request stops when the request is given up.
pub fn carry<T>(f: impl FnOnce() -> T) -> impl FnOnce() -> T {
    let flag = current();
    move || {
        let previous = THREAD.with(|t| t.replace(flag));
        let out = f();
        THREAD.with(|t| *t.borrow_mut() = previous);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn flag_reaches_blocking_work_and_drop_raises_it() {
        assert!(!is_cancelled());
        assert!(check().is_ok());
        let flag = CancelFlag::new();
        let seen = scope(flag.clone(), async {
            let work = carry(is_cancelled);
            let before = tokio::task::spawn_blocking(work).await.unwrap_or(true);
            flag.cancel();
            let after = tokio::task::spawn_blocking(carry(is_cancelled))
                .await
                .unwrap_or(false);
            (before, after, check().is_err())
        })
        .await;
        assert_eq!(seen, (false, true, true));
        // Outside the scope nothing is cancelled.
        assert!(!is_cancelled());

        let flag = CancelFlag::new();
        let guard = flag.cancel_on_drop();
        drop(guard);
        assert!(flag.is_cancelled());
        let flag = CancelFlag::new();
        flag.cancel_on_drop().disarm();
        assert!(!flag.is_cancelled());
    }
}
