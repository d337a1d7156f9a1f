//! Run the article-extraction benchmark and print the scores.
//!
//! `cargo run --release -p verity-extract --example eval_articles [-- DIR [worst N] [dump ID] [ablate]]`
//!
//! Prints P/R/F1 on all pages and on each half of a split nothing is tuned on
//! (pages sorted by file name, even / odd positions), for the plain text and
//! for the Markdown as handed on. `ablate` switches each structural rule off
//! in turn and prints the F1 change per half.

use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args.first().map(PathBuf::from).unwrap_or_else(|| {
        std::env::var_os("VERITY_DATA_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data")
            })
            .join("article-extraction")
    });
    let pages = match verity_extract::eval::load_pages(&dir) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("cannot load {}: {e}", dir.display());
            std::process::exit(1);
        }
    };
    if let (Some("trace"), Some(id), Some(needle)) =
        (args.get(1).map(String::as_str), args.get(2), args.get(3))
    {
        for (pid, html, _, _) in &pages {
            if pid.starts_with(id.as_str()) {
                let (text, _) = verity_extract::encoding::decode_html(html, None);
                println!("{}", verity_extract::html::debug_trace(&text, needle));
            }
        }
        return;
    }
    if let (Some("dump"), Some(id)) = (args.get(1).map(String::as_str), args.get(2)) {
        for (pid, html, truth, url) in &pages {
            if pid.starts_with(id.as_str()) {
                let (text, _) = verity_extract::encoding::decode_html(html, None);
                let p = verity_extract::parse_html(&text, url.as_ref())
                    .map(|p| p.document.content)
                    .unwrap_or_default();
                println!("=== EXTRACTED ===\n{p}\n=== TRUTH ===\n{truth}");
            }
        }
        return;
    }
    if args.get(1).map(String::as_str) == Some("ablate") {
        ablate(&pages);
        return;
    }
    let single = verity_extract::eval::evaluate_pages(&pages, false);
    let par = verity_extract::eval::evaluate_pages(&pages, true);
    let mut worst = par.per_page.clone();
    worst.sort_by(|a, b| a.f1.total_cmp(&b.f1));
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(15);
    for w in worst.iter().take(n) {
        println!(
            "{:.3} P={:.3} R={:.3} {}",
            w.f1,
            w.precision,
            w.recall,
            &w.id[..12.min(w.id.len())]
        );
    }
    println!(
        "pages={} MB={:.2} P={:.4} R={:.4} F1={:.4}",
        par.pages,
        par.bytes as f64 / 1e6,
        par.precision,
        par.recall,
        par.f1
    );
    let md = verity_extract::eval::evaluate_pages_as(
        &pages,
        true,
        verity_extract::eval::Scored::Markdown,
    );
    println!(
        "Markdown output: P={:.4} R={:.4} F1={:.4}",
        md.precision, md.recall, md.f1
    );
    for (name, r) in [("plain text", &par), ("Markdown", &md)] {
        for (half, (p, r, f1)) in ["A (even)", "B (odd)"].iter().zip(r.halves()) {
            println!("{name}, half {half}: P={p:.4} R={r:.4} F1={f1:.4}");
        }
    }
    println!(
        "single-thread: {:.1} MB/s {:.0} pages/s; rayon ({} threads): {:.1} MB/s {:.0} pages/s",
        single.mb_per_s,
        single.pages as f64 / single.seconds,
        rayon::current_num_threads(),
        par.mb_per_s,
        par.pages as f64 / par.seconds
    );
}

/// F1 change per half when each structural rule is switched off.
fn ablate(pages: &[verity_extract::eval::Page]) {
    use verity_extract::eval::{evaluate_pages, set_disabled_rules, Rule};
    let base = evaluate_pages(pages, true);
    let [a, b] = base.halves();
    println!(
        "all rules on: F1 all={:.4} A={:.4} B={:.4}",
        base.f1, a.2, b.2
    );
    for rule in Rule::ALL {
        set_disabled_rules(&[rule]);
        let r = evaluate_pages(pages, true);
        let [ra, rb] = r.halves();
        let changed: Vec<String> = base
            .per_page
            .iter()
            .zip(&r.per_page)
            .enumerate()
            .filter(|(_, (x, y))| (x.f1 - y.f1).abs() > 1e-9)
            .map(|(i, (x, y))| {
                format!(
                    "{}{}:{:+.3}",
                    if i % 2 == 0 { "A:" } else { "B:" },
                    &x.id[..8.min(x.id.len())],
                    x.f1 - y.f1
                )
            })
            .collect();
        println!(
            "{rule:?} helps: all {:+.4}, A {:+.4}, B {:+.4}; pages (gain per page) {}",
            base.f1 - r.f1,
            a.2 - ra.2,
            b.2 - rb.2,
            changed.join(" ")
        );
    }
    set_disabled_rules(&[]);
}
