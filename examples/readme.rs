use verity::api::{AskRequest, ConfigOverrides, IngestRequest, SearchRequest};
use verity::Verity;

#[tokio::main]
async fn main() -> verity::Result<()> {
    // The environment's configuration (VERITY_HOME, REDIS_URL, …) with overrides on top.
    let verity = Verity::open_with(&ConfigOverrides::default()).await?;
    verity
        .ingest(IngestRequest::paths(["examples/data"], false), &|_| {})
        .await?;
    for hit in verity
        .search(&SearchRequest::new("routing fees").k(3))
        .await?
        .hits
    {
        println!("{:.3} {}", hit.relevance, hit.doc.uid);
    }
    let answer = verity
        .ask(&AskRequest::new("How are routing fees computed?"))
        .await?;
    println!("{}\n{:?}", answer.text, answer.citations);
    Ok(())
}
