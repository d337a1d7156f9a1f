//! A small store in a temp home, shared by the host tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use verity::tools::{FileRoots, ToolOptions, ToolRegistry};
use verity::{Document, Verity, VerityConfig};

pub struct Fixture {
    pub home: tempfile::TempDir,
    pub files: tempfile::TempDir,
    pub verity: Arc<Verity>,
    pub registry: Arc<ToolRegistry>,
}

pub fn docs() -> Vec<Document> {
    let mut a = Document::new(
        "fees-1",
        "Routing fees on the network are set by each node operator. \
         A fee has a base part and a proportional part in parts per million.",
    );
    a.source = "handbook".into();
    a.title = Some("Routing fees".into());
    let mut b = Document::new(
        "tides-1",
        "Tides are caused by the gravitational pull of the moon and the sun.",
    );
    b.source = "almanac".into();
    b.title = Some("Tides".into());
    vec![a, b]
}

pub async fn fixture() -> Fixture {
    let home = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    std::fs::write(
        files.path().join("lighthouse.md"),
        "# Lighthouses\n\nThe lighthouse keeper lit the lamp at dusk every evening.\n",
    )
    .unwrap();
    let config = VerityConfig {
        home: home.path().to_path_buf(),
        embedder: verity::EmbedderSpec::None,
        ..VerityConfig::default()
    };
    let verity = Verity::open(config).await.unwrap();
    verity.ingest_documents(docs(), &|_| {}).await.unwrap();
    let options = ToolOptions {
        file_roots: FileRoots::new([files.path()]).unwrap(),
    };
    Fixture {
        home,
        files,
        verity: Arc::new(verity),
        registry: Arc::new(ToolRegistry::builtin(&options)),
    }
}
