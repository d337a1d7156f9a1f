//! verity-fetch: the CPU-side costs of a fetch (robots.txt matching, SSRF
//! guard checks, paywall heuristics, reference resolution) and one complete
//! local fetch (HTTP on 127.0.0.1 → guard → robots (cached) → parse → paywall check).
//!
//! Run: `cargo bench -p verity-benches --bench fetch`.

use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use verity_core::{FetchStatus, Fetcher};
use verity_fetch::Url;
use verity_fetch::{
    html_signals, resolve_reference, FetchConfig, HttpFetcher, NetworkGuard, Robots,
};

fn robots_txt() -> String {
    let mut s = String::from(
        "User-agent: *\nDisallow: /search\nAllow: /search/about\nDisallow: /*.pdf$\n\n",
    );
    for i in 0..40 {
        s.push_str(&format!("User-agent: bot{i}\nDisallow: /private{i}/\nAllow: /private{i}/public\nDisallow: /*/tmp{i}*\n\n"));
    }
    s.push_str("User-agent: VerityBot\nDisallow: /internal/\nAllow: /internal/press$\nDisallow: /*?session=\n");
    s
}

fn article(paragraphs: usize) -> String {
    let p = "<p>The committee reviewed the measurements taken during the spring campaign and concluded that the drift remained within tolerance.</p>\n";
    format!(
        "<!DOCTYPE html><html><head><title>Bench</title><script type=\"application/ld+json\">{{\"@type\":\"NewsArticle\",\"isAccessibleForFree\":true}}</script></head><body><nav class=\"menu\"><a href=\"/\">Home</a></nav><article class=\"story-body\"><h1>Bench</h1>{}</article><footer class=\"site-footer\">Subscribe to our newsletter</footer></body></html>",
        p.repeat(paragraphs)
    )
}

fn bench_cpu(c: &mut Criterion) {
    let txt = robots_txt();
    let parsed = Robots::parse(&txt);
    let paths: Vec<String> = (0..100)
        .map(|i| format!("/section{}/article-{i}?page={}", i % 7, i % 3))
        .collect();
    let mut g = c.benchmark_group("fetch/robots");
    g.throughput(Throughput::Elements(1));
    g.bench_function("parse_41_groups", |b| {
        b.iter(|| black_box(Robots::parse(black_box(&txt))))
    });
    g.throughput(Throughput::Elements(paths.len() as u64));
    g.bench_function("allowed_x100", |b| {
        b.iter(|| {
            paths
                .iter()
                .filter(|p| parsed.allowed("VerityBot", p))
                .count()
        })
    });
    g.finish();

    let guard = NetworkGuard::default();
    let urls: Vec<Url> = (0..100)
        .map(|i| match i % 4 {
            0 => format!("https://news{i}.example.com/a/b?c={i}"),
            1 => format!("http://10.0.{i}.1/"),
            2 => format!("http://[::ffff:192.168.0.{i}]/"),
            _ => format!("https://93.184.{i}.34/x"),
        })
        .map(|s| Url::parse(&s).unwrap())
        .collect();
    let mut g = c.benchmark_group("fetch/guard");
    g.throughput(Throughput::Elements(urls.len() as u64));
    g.bench_function("check_url_x100", |b| {
        b.iter(|| urls.iter().filter(|u| guard.check_url(u).is_ok()).count())
    });
    g.finish();

    let page = article(400);
    let mut g = c.benchmark_group("fetch/paywall");
    g.throughput(Throughput::Bytes(page.len() as u64));
    g.bench_function("html_signals_60KB", |b| {
        b.iter(|| black_box(html_signals(black_box(&page))))
    });
    g.finish();

    let refs = [
        "doi:10.1038/nature12373",
        "https://arxiv.org/pdf/2401.01234v2",
        "hep-th/9901001",
        "not a reference",
        "https://doi.org/10.1103/PhysRevLett.116.061102",
    ];
    let mut g = c.benchmark_group("fetch/resolve");
    g.throughput(Throughput::Elements(refs.len() as u64));
    g.bench_function("resolve_reference_x5", |b| {
        b.iter(|| refs.iter().filter_map(|r| resolve_reference(r)).count())
    });
    g.finish();
}

/// A tiny keep-alive HTTP/1.1 server on 127.0.0.1 (std threads) serving one page and a 404 robots.txt.
fn serve(body: String) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let body = body.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut out = stream;
                // One write per response and no Nagle: otherwise the bench measures the
                // 40 ms delayed-ACK stall of a two-write response, not the fetcher.
                let _ = out.set_nodelay(true);
                loop {
                    let mut request_line = String::new();
                    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
                        return;
                    }
                    let mut line = String::new();
                    while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                        line.clear();
                    }
                    let (status, payload) = if request_line.starts_with("GET /robots.txt") {
                        ("404 Not Found", "")
                    } else {
                        ("200 OK", body.as_str())
                    };
                    let head = format!("HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\r\n", payload.len());
                    let response = [head.as_bytes(), payload.as_bytes()].concat();
                    if out.write_all(&response).is_err() {
                        return;
                    }
                }
            });
        }
    });
    port
}

fn bench_fetch(c: &mut Criterion) {
    let page = article(60);
    let port = serve(page.clone());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let config = FetchConfig::default()
        .with_guard(NetworkGuard::default().allow_host(&format!("127.0.0.1:{port}")))
        .with_per_host_interval(Duration::ZERO)
        .with_cache(Duration::ZERO, 0);
    let fetcher = HttpFetcher::new(config).unwrap();
    let url = Url::parse(&format!("http://127.0.0.1:{port}/article")).unwrap();
    let first = rt.block_on(fetcher.fetch(&url)).unwrap();
    assert_eq!(first.status, FetchStatus::Fetched, "{:?}", first.detail);
    let mut g = c.benchmark_group("fetch/http");
    g.throughput(Throughput::Bytes(page.len() as u64));
    g.bench_function("local_fetch_parse_8KB_html", |b| {
        b.to_async(&rt)
            .iter(|| async { black_box(fetcher.fetch(&url).await.unwrap()) })
    });
    g.finish();
}

criterion_group!(benches, bench_cpu, bench_fetch);
criterion_main!(benches);
