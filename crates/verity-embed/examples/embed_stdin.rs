//! Embed each stdin line (a JSON string) with the local model; print one JSON
//! array per line. Handy to compare with sentence-transformers:
//! `printf '""\n"hello"\n' | cargo run -p verity-embed --example embed_stdin`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::BufRead;

use verity_embed::LocalEmbedder;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let embedder = LocalEmbedder::load_default()?;
    let texts: Vec<String> = std::io::stdin()
        .lock()
        .lines()
        .map(|l| {
            serde_json::from_str::<String>(&l.expect("stdin")).expect("one JSON string per line")
        })
        .collect();
    for v in embedder.embed_blocking(&texts)? {
        println!("{}", serde_json::to_string(&v)?);
    }
    Ok(())
}
