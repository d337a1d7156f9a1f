#![no_main]
//! Format sniffing and dispatch must never panic, whatever the bytes and hints.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte picks a content-type / name hint so that every route is exercised.
    let (sel, body) = data
        .split_first()
        .map(|(s, b)| (*s, b))
        .unwrap_or((0, data));
    let ct = match sel % 5 {
        0 => None,
        1 => Some("text/html; charset=windows-1252"),
        2 => Some("text/markdown"),
        3 => Some("text/plain; charset=utf-16"),
        _ => Some("application/octet-stream"),
    };
    let name = match (sel / 5) % 4 {
        0 => None,
        1 => Some("page.html"),
        2 => Some("notes.md"),
        _ => Some("file.txt"),
    };
    let _ = verity_extract::parse_bytes(body, ct, name, None);
});
