#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use std::collections::HashMap;
use std::path::PathBuf;
use verity_research::trace::{read_trace, TaskStatus};
use verity_research::writer::sentences::source_sentences;
use verity_verify::{Assessor, SourceText, Verdict};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let dirs: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    let assessor = Assessor::builder().top_k(4).build();
    for d in dirs {
        let records = read_trace(&d).unwrap();
        let mut texts: HashMap<String, Vec<String>> = HashMap::new();
        for e in records.iter().filter(|r| r.status == TaskStatus::Ok).flat_map(|r| r.excerpts.iter()) {
            let v = texts.entry(e.source.clone()).or_default();
            if !v.contains(&e.text) { v.push(e.text.clone()); }
        }
        let (mut n, mut bad) = (0, 0);
        for (src, v) in &texts {
            let st = SourceText::from_markdown(&v.join("\n\n"));
            let mut seen = std::collections::HashSet::new();
            for ex in v {
                for s in source_sentences(ex) {
                    if !s.quotable || !seen.insert(s.text.clone()) { continue; }
                    n += 1;
                    let a = assessor.assess(&s.text, &st, Some(src)).await;
                    if a.verdict != Verdict::Supported {
                        bad += 1;
                        println!("{:?} [{}]\n  claim: {}\n  quote: {:?}\n  expl: {}\n  notes: {:?}\n", a.verdict, src, s.text, a.source_quote, a.explanation, a.notes);
                    }
                }
            }
        }
        println!("== {}: {bad}/{n} verbatim quotable sentences not supported\n", d.display());
    }
}
