//! PDF extraction throughput (pages/s) on the committed fixtures and, when
//! present, real PDFs shipped by Debian doc packages.
//!
//! `cargo bench -p verity-benches --bench pdf`

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use verity_extract::pdf::extract_pages;

fn inputs() -> Vec<(String, Vec<u8>)> {
    let fixtures =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/verity-extract/tests/fixtures/pdf");
    let mut paths: Vec<PathBuf> = ["groff_two_column.pdf", "unicode_cid.pdf", "single.pdf"]
        .iter()
        .map(|n| fixtures.join(n))
        .collect();
    for p in [
        "/usr/share/doc/libtasn1-doc/libtasn1.pdf",
        "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
    ] {
        let p = PathBuf::from(p);
        if p.exists() {
            paths.push(p);
        } else {
            eprintln!("pdf bench: {} absent, skipped", p.display());
        }
    }
    paths
        .into_iter()
        .filter_map(|p| {
            let bytes = std::fs::read(&p).ok()?;
            Some((p.file_name()?.to_string_lossy().into_owned(), bytes))
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("pdf_extract");
    group.sample_size(10);
    for (name, bytes) in inputs() {
        let Ok(pages) = extract_pages(&bytes) else {
            eprintln!("pdf bench: {name} does not parse, skipped");
            continue;
        };
        group.throughput(Throughput::Elements(pages.len() as u64));
        group.bench_function(&name, |b| {
            b.iter(|| extract_pages(std::hint::black_box(&bytes)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
