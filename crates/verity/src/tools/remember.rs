//! `remember`: store a piece of text in event memory (seed 000's AuraCore memory).

use super::{Tool, ToolOptions};
use crate::api::memory::{Added, RememberRequest};

/// The `remember` tool.
pub(super) fn tool(_: &ToolOptions) -> Tool {
    Tool::new(
        "remember",
        "Remember something",
        "Store a piece of text (a decision, an observation, a user preference) in event \
         memory with optional metadata (tags, session id, …) and an optional time to live \
         in seconds. The text is embedded so `recall` finds it by meaning and by words; \
         the answer is the stored event with its id (for `forget`).",
        render,
        |verity, req: RememberRequest| Box::pin(async move { verity.remember(&req).await }),
    )
}

fn render(a: &Added) -> String {
    let mut s = format!("Remembered as event {}", a.event.id);
    if let Some(x) = a.event.expires_at {
        s.push_str(&format!(" (forgotten at {})", x.to_rfc3339()));
    }
    if let Some(n) = &a.note {
        s.push_str(&format!("\nnote: {n}"));
    }
    s
}
