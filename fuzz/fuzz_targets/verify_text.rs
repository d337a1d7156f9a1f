//! Citation verification's text handling (claims, sentences, passages, the
//! local judge, quote checks, numbers) on any document and source. The input
//! is split at its first NUL byte: document, then source; invalid UTF-8 is
//! replaced as a lenient decoder would.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/verity-verify/tests/exercise.rs"]
mod exercise;

fuzz_target!(|data: &[u8]| {
    let (doc, source) = match data.iter().position(|&b| b == 0) {
        Some(p) => (&data[..p], &data[p + 1..]),
        None => (data, data),
    };
    let doc = String::from_utf8_lossy(doc);
    let source = String::from_utf8_lossy(source);
    exercise::exercise(&doc, &source);
});
