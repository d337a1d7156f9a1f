//! HTML main-content extraction on the article-extraction benchmark (92 real pages):
//! quality (shingle F1, printed once) and throughput (criterion, bytes/s).
//!
//! `cargo bench -p verity-benches --bench extract`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use verity_extract::eval::{evaluate_pages, extract_plain, load_pages};

fn bench(c: &mut Criterion) {
    let Some(dir) = verity_benches::data_dir()
        .map(|d| d.join("article-extraction"))
        .filter(|d| d.is_dir())
    else {
        eprintln!("SKIPPED extract bench: article-extraction data not found (set VERITY_DATA_DIR)");
        return;
    };
    let pages = match load_pages(&dir) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("SKIPPED extract bench: {e}");
            return;
        }
    };
    let bytes: usize = pages.iter().map(|p| p.1.len()).sum();
    let r = evaluate_pages(&pages, true);
    eprintln!(
        "article-extraction: pages={} MB={:.2} precision={:.4} recall={:.4} F1={:.4}",
        r.pages,
        bytes as f64 / 1e6,
        r.precision,
        r.recall,
        r.f1
    );
    let mut g = c.benchmark_group("extract");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(bytes as u64));
    let extract_all = |ps: &[verity_extract::eval::Page]| -> usize {
        ps.iter()
            .map(|(_, html, _, url)| extract_plain(html, url.as_ref()).len())
            .sum()
    };
    g.bench_function("html_to_markdown_92_pages_1_thread", |b| {
        b.iter(|| extract_all(&pages))
    });
    // Interleave pages over two threads so both get a similar byte volume.
    let (even, odd): (Vec<_>, Vec<_>) = pages
        .iter()
        .cloned()
        .enumerate()
        .partition(|(i, _)| i % 2 == 0);
    let even: Vec<_> = even.into_iter().map(|(_, p)| p).collect();
    let odd: Vec<_> = odd.into_iter().map(|(_, p)| p).collect();
    g.bench_function("html_to_markdown_92_pages_2_threads", |b| {
        b.iter(|| {
            std::thread::scope(|s| {
                let h = s.spawn(|| extract_all(&even));
                let a = extract_all(&odd);
                a + h.join().unwrap_or(0)
            })
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
