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
        ..ToolOptions::default()
    };
    Fixture {
        home,
        files,
        verity: Arc::new(verity),
        registry: Arc::new(ToolRegistry::builtin(&options)),
    }
}

/// Tool arguments from a JSON object literal.
pub fn args(v: serde_json::Value) -> rmcp::model::JsonObject {
    v.as_object().cloned().unwrap()
}

/// Serve the fixture's registry at `/mcp` on a free loopback port.
pub async fn serve(fx: &Fixture) -> std::net::SocketAddr {
    let app = axum::Router::new().nest(
        "/mcp",
        verity_mcp::router(
            fx.verity.clone(),
            fx.registry.clone(),
            verity_mcp::HttpOptions::default(),
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    addr
}

/// The official rmcp client, initialised against [`serve`]'s endpoint, and
/// the server's address.
pub async fn http_client(
    fx: &Fixture,
) -> (
    rmcp::service::RunningService<rmcp::RoleClient, ()>,
    std::net::SocketAddr,
) {
    use rmcp::ServiceExt;
    let addr = serve(fx).await;
    let transport =
        rmcp::transport::StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
    (().serve(transport).await.expect("initialize"), addr)
}
