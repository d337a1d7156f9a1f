//! Test support shared by Verity's test suites (a dev-dependency only).
//!
//! [`serve`] runs a plain HTTP/1.1 server on a loopback port, answering each
//! request with what a function of its path gives. Tests use it to stand in
//! for the web: article pages ([`files`] serves a fixture directory),
//! SearXNG's JSON API ([`searxng`]), documents that cite those pages. It runs
//! on its own threads, so synchronous tests (the CLI's, which spawn the
//! binary) and async ones (any runtime) use the same fake.
//!
//! ```
//! let base = verity_testkit::serve(|path, _base| match path {
//!     "/page" => verity_testkit::Reply::html("<p>hello</p>"),
//!     _ => verity_testkit::Reply::not_found(),
//! })
//! .expect("loopback port");
//! assert!(base.starts_with("http://127.0.0.1:"));
//! ```

pub mod data;

pub use data::{data, data_dir, data_required, model_dir, skip};

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;

/// One HTTP response of a fake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// Status line after `HTTP/1.1 `, e.g. `200 OK`.
    pub status: &'static str,
    /// `Content-Type` header.
    pub content_type: &'static str,
    /// Body (any bytes: pages, JSON, binary files).
    pub body: Vec<u8>,
    /// Further headers (`Retry-After`, …).
    pub headers: Vec<(&'static str, String)>,
}

impl Reply {
    /// `200 OK` with `content_type`.
    pub fn ok(content_type: &'static str, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status: "200 OK",
            content_type,
            body: body.into(),
            headers: Vec::new(),
        }
    }

    /// Any status line (`429 Too Many Requests`) with a JSON or text body.
    pub fn status(
        status: &'static str,
        content_type: &'static str,
        body: impl Into<Vec<u8>>,
    ) -> Self {
        Self {
            status,
            ..Self::ok(content_type, body)
        }
    }

    /// Add a header.
    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    /// `200 OK`, an HTML page.
    pub fn html(body: impl Into<Vec<u8>>) -> Self {
        Self::ok("text/html; charset=utf-8", body)
    }

    /// `200 OK`, a JSON document.
    pub fn json(value: &serde_json::Value) -> Self {
        Self::ok("application/json", value.to_string())
    }

    /// `404 Not Found`.
    pub fn not_found() -> Self {
        Self::status("404 Not Found", "text/plain", "not found")
    }
}

/// Serve on `127.0.0.1` (a free port) until the process ends and return the
/// base URL (`http://127.0.0.1:PORT`). `respond(path, base)` answers each
/// request from its path (query string included); every connection is
/// closed after one response.
pub fn serve<F>(respond: F) -> std::io::Result<String>
where
    F: Fn(&str, &str) -> Reply + Send + Sync + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let base = format!("http://{}", listener.local_addr()?);
    let respond = Arc::new(respond);
    let b = base.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let (respond, base) = (respond.clone(), b.clone());
            std::thread::spawn(move || answer(stream, &*respond, &base));
        }
    });
    Ok(base)
}

/// Read one request head and write `respond`'s reply.
fn answer(mut stream: TcpStream, respond: &dyn Fn(&str, &str) -> Reply, base: &str) {
    let mut buf = vec![0u8; 16 * 1024];
    let mut n = 0;
    while !buf[..n].windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(buf.get_mut(n..).unwrap_or_default()) {
            Ok(0) | Err(_) => return,
            Ok(k) => n += k,
        }
        if n == buf.len() {
            return;
        }
    }
    let head = String::from_utf8_lossy(&buf[..n]);
    let path = head.split_whitespace().nth(1).unwrap_or("/");
    let reply = respond(path, base);
    let extra: String = reply
        .headers
        .iter()
        .map(|(name, value)| format!("{name}: {value}\r\n"))
        .collect();
    let head = format!(
        "HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n",
        reply.status,
        reply.content_type,
        reply.body.len(),
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&reply.body);
    let _ = stream.flush();
}

/// A URL where nothing listens (a port bound, then released): connection refused.
pub fn dead_url() -> std::io::Result<String> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    Ok(format!("http://{}", listener.local_addr()?))
}

/// A responder serving the files under `dir` as HTML (`/a.html` →
/// `dir/a.html`); anything missing, or a path with `..`, is 404.
pub fn files(dir: impl Into<PathBuf>) -> impl Fn(&str, &str) -> Reply + Send + Sync + 'static {
    let dir = dir.into();
    move |path, _| {
        let path = path.split('?').next().unwrap_or_default();
        if path.contains("..") {
            return Reply::not_found();
        }
        match std::fs::read_to_string(dir.join(path.trim_start_matches('/'))) {
            Ok(body) => Reply::html(body),
            Err(_) => Reply::not_found(),
        }
    }
}

/// One result of a [`searxng`] answer.
#[derive(Debug, Clone, Copy)]
pub struct Hit<'a> {
    /// Result URL.
    pub url: &'a str,
    /// Result title.
    pub title: &'a str,
    /// Snippet.
    pub content: &'a str,
}

/// SearXNG's `/search?format=json` answer for `query` with `hits`, as its
/// API returns it (`query`, `results[] {url, title, content, engine}`).
pub fn searxng(query: &str, hits: &[Hit<'_>]) -> Reply {
    let results: Vec<serde_json::Value> = hits
        .iter()
        .map(|h| {
            serde_json::json!({
                "url": h.url, "title": h.title, "content": h.content, "engine": "duckduckgo"
            })
        })
        .collect();
    Reply::json(&serde_json::json!({ "query": query, "results": results }))
}

/// The web of one article: `page_path` (e.g. `/article`) serves `html`, and
/// `/search` answers as SearXNG with one result pointing at it (`title`,
/// `snippet`); anything else is 404. Returns the base URL, which is both
/// the SearXNG instance and the article's host.
pub fn one_article_web(
    page_path: &'static str,
    html: &'static str,
    title: &'static str,
    snippet: &'static str,
) -> std::io::Result<String> {
    serve(move |path, base| {
        if path.starts_with(page_path) {
            Reply::html(html)
        } else if path.starts_with("/search") {
            let url = format!("{base}{page_path}");
            searxng(
                title,
                &[Hit {
                    url: &url,
                    title,
                    content: snippet,
                }],
            )
        } else {
            Reply::not_found()
        }
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn get(base: &str, path: &str) -> String {
        let addr = base.trim_start_matches("http://");
        let mut s = TcpStream::connect(addr).unwrap();
        write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn answers_by_path_with_the_base_url() {
        let base = serve(|path, base| match path {
            "/a" => Reply::html(format!("<a href=\"{base}/b\">b</a>")),
            _ => Reply::not_found(),
        })
        .unwrap();
        let a = get(&base, "/a");
        assert!(a.starts_with("HTTP/1.1 200 OK\r\n"), "{a}");
        assert!(a.contains(&format!("{base}/b")), "{a}");
        assert!(get(&base, "/zzz").starts_with("HTTP/1.1 404 Not Found\r\n"));
        let dead = dead_url().unwrap();
        assert!(TcpStream::connect(dead.trim_start_matches("http://")).is_err());
    }

    #[test]
    fn files_stay_inside_their_directory() {
        let dir = std::env::temp_dir().join(format!("verity-testkit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("p.html"), "<p>page</p>").unwrap();
        let serve_dir = files(&dir);
        assert_eq!(serve_dir("/p.html?x=1", "").body, b"<p>page</p>");
        assert_eq!(serve_dir("/../p.html", "").status, "404 Not Found");
        assert_eq!(serve_dir("/missing.html", "").status, "404 Not Found");
        let s = searxng(
            "q",
            &[Hit {
                url: "u",
                title: "t",
                content: "c",
            }],
        );
        let v: serde_json::Value = serde_json::from_slice(&s.body).unwrap();
        assert_eq!(v["results"][0]["url"], "u");
        assert_eq!(v["query"], "q");
    }
}
