#![no_main]
//! HTML main-content extraction must never panic, whatever the bytes.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (text, _) = verity_extract::encoding::decode_html(data, None);
    let base = url::Url::parse("https://example.com/a/b.html").ok();
    let _ = verity_extract::parse_html(&text, base.as_ref());
});
