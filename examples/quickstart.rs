//! Ingest the sample corpus, search it and ask a question, on the embedded
//! default (SQLite + HNSW; the local model when installed, BM25 otherwise).
//!
//! ```text
//! cargo run -p verity-examples --example quickstart
//! ```

use verity::api::{AskRequest, IngestRequest, SearchRequest};
use verity::{Verity, VerityConfig};

#[tokio::main]
async fn main() -> verity::Result<()> {
    let mut config = VerityConfig::from_env()?;
    config.home = std::env::temp_dir().join("verity-quickstart");
    let verity = Verity::open(config).await?;
    for note in verity.notes() {
        eprintln!("note: {note}");
    }

    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let outcome = verity
        .ingest(
            IngestRequest::paths([data.display().to_string()], false),
            &|_| {},
        )
        .await?;
    println!(
        "ingested {} documents ({} chunks)",
        outcome.inserted + outcome.replaced + outcome.unchanged,
        outcome.chunks
    );

    let results = verity
        .search(&SearchRequest::new("how are routing fees computed").k(3))
        .await?;
    for hit in &results.hits {
        println!(
            "{:.3}  {}  {}",
            hit.relevance,
            hit.doc.uid,
            hit.doc.title.as_deref().unwrap_or("")
        );
    }

    let answer = verity
        .ask(&AskRequest::new(
            "How is the fee of a Lightning forward computed?",
        ))
        .await?;
    println!("\n{}\n", answer.text);
    for c in &answer.citations {
        println!(
            "[{}] {} ({})",
            c.index,
            c.title.as_deref().unwrap_or(&c.doc_uid),
            c.doc_uid
        );
    }
    Ok(())
}
