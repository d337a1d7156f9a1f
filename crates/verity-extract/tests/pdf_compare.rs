//! Compare our PDF text with poppler's `pdftotext` (reading-order mode) on
//! the fixtures and on real PDFs found on the machine; prints word unigram
//! and bigram F1 and our throughput (pages/s).
//!
//! Ignored by default (it needs `pdftotext`): run with
//! `cargo test -p verity-extract --release --test integration pdf_compare:: -- --ignored --nocapture`.
//! Extra files: `VERITY_PDF_COMPARE=/a.pdf:/b.pdf`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(feature = "pdf")]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use verity_extract::pdf::extract_pages;

fn normalise(text: &str) -> Vec<String> {
    let text = text
        .replace('\u{FB00}', "ff")
        .replace('\u{FB01}', "fi")
        .replace('\u{FB02}', "fl")
        .replace('\u{FB03}', "ffi")
        .replace('\u{FB04}', "ffl")
        .replace('\u{c}', " ");
    let raw: Vec<&str> = text.split_whitespace().filter(|w| *w != "##").collect();
    // Same de-hyphenation on both sides: `exam-` + `ple` -> `example`.
    let mut out: Vec<String> = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let w = raw[i];
        if let Some(stem) = w.strip_suffix('-') {
            if stem.chars().last().is_some_and(char::is_alphabetic) {
                if let Some(next) = raw.get(i + 1) {
                    if next.chars().next().is_some_and(char::is_lowercase) {
                        out.push(format!("{stem}{next}"));
                        i += 2;
                        continue;
                    }
                }
            }
        }
        out.push(w.to_string());
        i += 1;
    }
    out
}

fn f1<T: std::hash::Hash + Eq + Clone>(ours: &[T], theirs: &[T]) -> f64 {
    if ours.is_empty() || theirs.is_empty() {
        return if ours.is_empty() && theirs.is_empty() {
            1.0
        } else {
            0.0
        };
    }
    let mut counts: HashMap<&T, i64> = HashMap::new();
    for t in theirs {
        *counts.entry(t).or_default() += 1;
    }
    let mut common = 0i64;
    for o in ours {
        if let Some(c) = counts.get_mut(o) {
            if *c > 0 {
                *c -= 1;
                common += 1;
            }
        }
    }
    let p = common as f64 / ours.len() as f64;
    let r = common as f64 / theirs.len() as f64;
    if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    }
}

fn bigrams(words: &[String]) -> Vec<(String, String)> {
    words
        .windows(2)
        .map(|w| (w[0].clone(), w[1].clone()))
        .collect()
}

fn files() -> Vec<PathBuf> {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pdf");
    let mut v: Vec<PathBuf> = [
        "single.pdf",
        "two_column.pdf",
        "unicode_cid.pdf",
        "handmade.pdf",
        "groff_two_column.pdf",
    ]
    .iter()
    .map(|n| fixtures.join(n))
    .collect();
    for p in [
        "/usr/share/doc/libtasn1-doc/libtasn1.pdf",
        "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
    ] {
        v.push(PathBuf::from(p));
    }
    if let Ok(extra) = std::env::var("VERITY_PDF_COMPARE") {
        v.extend(
            extra
                .split(':')
                .filter(|s| !s.is_empty())
                .map(PathBuf::from),
        );
    }
    v.into_iter().filter(|p| p.exists()).collect()
}

#[test]
#[ignore = "needs poppler-utils (pdftotext); run with --ignored --nocapture"]
fn compare_with_pdftotext() {
    if Command::new("pdftotext").arg("-v").output().is_err() {
        eprintln!("SKIPPED: pdftotext not installed (apt-get install poppler-utils)");
        return;
    }
    let mut rows = Vec::new();
    for path in files() {
        let bytes = std::fs::read(&path).unwrap();
        let reference = Command::new("pdftotext")
            .arg("-enc")
            .arg("UTF-8")
            .arg(&path)
            .arg("-")
            .output()
            .unwrap();
        let theirs = normalise(&String::from_utf8_lossy(&reference.stdout));
        // Warm up once, then time a few runs.
        let pages = match extract_pages(&bytes) {
            Ok(p) => p,
            Err(e) => {
                println!("{}: error {e}", path.display());
                continue;
            }
        };
        let runs = 5;
        let t = Instant::now();
        for _ in 0..runs {
            let _ = extract_pages(&bytes);
        }
        let secs = t.elapsed().as_secs_f64() / runs as f64;
        let ours = normalise(&pages.join("\n\n"));
        let uni = f1(&ours, &theirs);
        let bi = f1(&bigrams(&ours), &bigrams(&theirs));
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        rows.push((
            name,
            pages.len(),
            ours.len(),
            theirs.len(),
            uni,
            bi,
            pages.len() as f64 / secs,
        ));
    }
    println!("| file | pages | words (ours / pdftotext) | word F1 | bigram F1 | pages/s |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, pages, ow, tw, uni, bi, pps) in &rows {
        println!("| {name} | {pages} | {ow} / {tw} | {uni:.3} | {bi:.3} | {pps:.0} |");
    }
    let n = rows.len().max(1) as f64;
    let mean_uni = rows.iter().map(|r| r.4).sum::<f64>() / n;
    let mean_bi = rows.iter().map(|r| r.5).sum::<f64>() / n;
    let total_pages: usize = rows.iter().map(|r| r.1).sum();
    let total_secs: f64 = rows.iter().map(|r| r.1 as f64 / r.6).sum();
    println!(
        "| **mean** | {total_pages} | | {mean_uni:.3} | {mean_bi:.3} | {:.0} |",
        total_pages as f64 / total_secs
    );
    assert!(!rows.is_empty());
}
