//! The `verity` command-line tool. A thin shell over the `verity` crate:
//! arguments are parsed in [`args`], turned into library calls here, and
//! printed by [`output`].

/// `println!` for stdout that ends the process quietly when the reader has
/// gone away (`verity stats | head`) instead of panicking.
macro_rules! outln {
    () => {
        $crate::write_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` counterpart of [`outln!`], flushed at once (streamed answers).
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!($($arg)*))
    };
}

mod args;
mod output;
mod progress;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use futures::StreamExt;
use verity::core::{Error, Filters, MetadataFilter, SearchMode, TimeRange};
use verity::{AskRequest, RagEvent, SearchQuery, Verity, VerityConfig};

use args::{AskArgs, Cli, Command, EvalCommand, FetchFormat, ReindexArgs, RetrievalArgs};

/// Exit codes (also documented in `verity --help` output of the README).
mod exit {
    pub const OK: u8 = 0;
    pub const FAILURE: u8 = 1;
    pub const INVALID_INPUT: u8 = 3;
    pub const NOT_FOUND: u8 = 4;
    pub const UNAVAILABLE: u8 = 5;
    pub const CONFIG: u8 = 6;
    pub const PARTIAL: u8 = 7;
    pub const GATE_FAILED: u8 = 8;
}

fn exit_code(e: &Error) -> u8 {
    match e.code() {
        "invalid_input" | "parse_error" | "no_text_layer" => exit::INVALID_INPUT,
        "not_found" | "model_not_found" => exit::NOT_FOUND,
        "unavailable" | "timeout" | "fetch_failed" => exit::UNAVAILABLE,
        "config_error" | "embedder_mismatch" | "reindex_required" | "unauthorized" => exit::CONFIG,
        _ => exit::FAILURE,
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_tracing(cli.verbose);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(exit::FAILURE);
        }
    };
    let json = cli.json;
    match runtime.block_on(run(cli)) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            if json {
                let body = serde_json::json!({"error": {"code": e.code(), "message": e.to_string(), "transient": e.is_transient()}});
                outln!("{body}");
            } else {
                eprintln!("error: {e}");
            }
            ExitCode::from(exit_code(&e))
        }
    }
}

/// Writes to stdout and flushes. A closed pipe exits 0 like other Unix
/// filters; any other write error exits 1 with a message on stderr.
fn write_stdout(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(i32::from(exit::OK));
        }
        eprintln!("error: cannot write to stdout: {e}");
        std::process::exit(i32::from(exit::FAILURE));
    }
}

fn init_tracing(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

fn config(cli: &Cli) -> verity::Result<VerityConfig> {
    let mut c = VerityConfig::from_env()?;
    c.home = cli.home.clone();
    if let Some(i) = &cli.index {
        c.index = i.clone();
    }
    if let Some(e) = &cli.embedder {
        c.embedder = e.parse()?;
    }
    Ok(c)
}

async fn run(cli: Cli) -> verity::Result<u8> {
    let out = output::Printer { json: cli.json };
    if let Some(url) = &cli.redis {
        if let Some(code) = on_redis(&cli, url, &out).await? {
            return Ok(code);
        }
    }
    match &cli.command {
        Command::Ingest(a) => {
            let verity = open(config(&cli)?, &out).await?;
            let (urls, paths): (Vec<String>, Vec<String>) = a
                .paths
                .iter()
                .cloned()
                .partition(|p| verity::sources::is_url(p));
            let bar = progress::IngestBar::new(cli.quiet || cli.json);
            let mut outcome = verity
                .ingest_paths(
                    &paths.iter().map(PathBuf::from).collect::<Vec<_>>(),
                    a.strict,
                    &|p| bar.update(p),
                )
                .await?;
            if !urls.is_empty() {
                let (docs, errors) = verity::sources::fetch_documents(&urls, false).await;
                outcome.read_errors.extend(errors);
                let report = verity.ingest(docs, &|p| bar.update(p)).await?;
                outcome.add(&report);
                verity.flush()?;
            }
            bar.finish();
            out.ingest(&outcome, verity.notes());
            let partial = !outcome.read_errors.is_empty() || !outcome.rejected.is_empty();
            Ok(if partial { exit::PARTIAL } else { exit::OK })
        }
        Command::Search(a) => {
            let verity = open(config(&cli)?, &out).await?;
            let mut q = query(&a.query, &a.retrieval, verity.embedder().is_some())?;
            q.filters.langs = a.lang.clone();
            let results = verity.search(&q).await?;
            out.search(&results);
            Ok(exit::OK)
        }
        Command::Ask(a) => {
            let verity = open(ask_config(&cli, a)?, &out).await?;
            answer(verity.rag(), a, verity.embedder().is_some(), cli.json, &out).await
        }
        Command::Stats => {
            let verity = open(config(&cli)?, &out).await?;
            out.stats(&verity.stats().await?);
            Ok(exit::OK)
        }
        Command::Delete(a) => {
            let verity = open(config(&cli)?, &out).await?;
            let n = verity.delete(&a.uids).await?;
            out.deleted(n, a.uids.len());
            Ok(if n == a.uids.len() {
                exit::OK
            } else {
                exit::NOT_FOUND
            })
        }
        Command::Fetch(a) => {
            let fetched = verity::sources::fetch(&a.target, a.allow_private).await?;
            let format = if cli.json {
                FetchFormat::Json
            } else {
                a.format.unwrap_or(FetchFormat::Markdown)
            };
            out.fetched(&fetched, format);
            Ok(if fetched.status == verity::core::FetchStatus::Fetched {
                exit::OK
            } else {
                exit::UNAVAILABLE
            })
        }
        Command::Eval(EvalCommand::Beir(a)) => {
            let modes = a
                .modes
                .iter()
                .map(|m| m.parse::<SearchMode>())
                .collect::<verity::Result<Vec<_>>>()?;
            let bar = progress::IngestBar::new(cli.quiet || cli.json);
            let run = verity::eval::beir(&config(&cli)?, &a.dir, &a.split, &modes, a.limit, &|p| {
                bar.update(p)
            })
            .await?;
            bar.finish();
            out.beir(&run);
            Ok(exit::OK)
        }
        Command::Eval(EvalCommand::Extraction(a)) => {
            let dir = a.dir.clone();
            let report = tokio::task::spawn_blocking(move || {
                verity::extract::eval::evaluate_article_extraction(dir)
            })
            .await
            .map_err(|e| Error::invalid_input(format!("evaluation task failed: {e}")))??;
            out.extraction(&report);
            Ok(exit::OK)
        }
        Command::Models => {
            out.models();
            Ok(exit::OK)
        }
        Command::Reindex(a) => reindex(&cli, a, &out).await,
        Command::Mcp(a) => {
            use verity::tools::{FileRoots, ToolOptions, ToolRegistry};
            let options = ToolOptions {
                file_roots: FileRoots::new(&a.roots)?,
            };
            let verity = std::sync::Arc::new(open(config(&cli)?, &out).await?);
            let registry = std::sync::Arc::new(ToolRegistry::builtin(&options));
            verity_mcp::serve_stdio(verity, registry).await?;
            Ok(exit::OK)
        }
    }
}

/// `ingest`, `search`, `stats` and `delete` against Redis (`--redis` / `REDIS_URL`), on the
/// index readers of `--index` see (its `:current` alias once a re-index made one).
/// `None`: the command has no Redis variant and runs as usual.
async fn on_redis(cli: &Cli, url: &str, out: &output::Printer) -> verity::Result<Option<u8>> {
    use std::sync::Arc;
    use verity::core::{Cache, VectorStore};
    use verity::rag::Retriever;
    use verity_redis::{RedisCache, RedisStore};

    if !matches!(
        cli.command,
        Command::Ingest(_)
            | Command::Search(_)
            | Command::Ask(_)
            | Command::Stats
            | Command::Delete(_)
    ) {
        return Ok(None);
    }
    let config = match &cli.command {
        Command::Ask(a) => ask_config(cli, a)?,
        _ => config(cli)?,
    };
    let name = config.index.clone();
    // The configured embedder (local model, Ollama, …), as for the embedded store.
    let embedder = open(config.clone(), out).await?.embedder().cloned();
    let store = Arc::new(RedisStore::connect_current(url, &name, Default::default()).await?);
    let cache: Arc<dyn Cache> = Arc::new(RedisCache::connect(url, &Default::default()).await?);
    let code = match &cli.command {
        Command::Ingest(a) => {
            let started = std::time::Instant::now();
            let (urls, paths): (Vec<String>, Vec<String>) = a
                .paths
                .iter()
                .cloned()
                .partition(|p| verity::sources::is_url(p));
            let mut outcome = verity::IngestOutcome {
                lexical_only: embedder.is_none(),
                embedder: embedder.as_ref().map(|e| e.id().clone()),
                ..Default::default()
            };
            let mut docs = Vec::new();
            for item in
                verity::ingest::read_paths(&paths.iter().map(PathBuf::from).collect::<Vec<_>>())
            {
                match item {
                    Ok(d) => docs.push(d),
                    Err(e) if a.strict => return Err(e.into()),
                    Err(e) => outcome.read_errors.push(e.to_string()),
                }
            }
            let (fetched, errors) = verity::sources::fetch_documents(&urls, false).await;
            docs.extend(fetched);
            outcome.read_errors.extend(errors);
            // Seed 001 busting, as on the embedded store: answers citing a changed uid, all retrievals.
            let uids: Vec<String> = docs.iter().map(|d| d.uid.clone()).collect();
            let ingestor = verity::ingest::Ingestor::builder(store.clone())
                .embedder(embedder)
                .build()?;
            let known = store.fingerprints(&uids).await?;
            let changed: std::collections::BTreeSet<String> = docs
                .iter()
                .filter(|d| {
                    known
                        .get(&d.uid)
                        .is_some_and(|f| !ingestor.is_current(d, f))
                })
                .map(|d| d.uid.clone())
                .collect();
            let bar = progress::IngestBar::new(cli.quiet || cli.json);
            let report = ingestor.ingest(docs, &|p| bar.update(p)).await?;
            bar.finish();
            if !changed.is_empty() {
                for uid in &changed {
                    cache
                        .invalidate_tag(&verity::core::cache::uid_tag(uid))
                        .await?;
                }
                cache
                    .invalidate_prefix(verity::core::cache::RETRIEVAL_PREFIX)
                    .await?;
            }
            outcome.add(&report);
            outcome.seconds = started.elapsed().as_secs_f64();
            out.ingest(&outcome, &[]);
            if outcome.read_errors.is_empty() && outcome.rejected.is_empty() {
                exit::OK
            } else {
                exit::PARTIAL
            }
        }
        Command::Search(a) => {
            let mut q = query(&a.query, &a.retrieval, embedder.is_some())?;
            q.filters.langs = a.lang.clone();
            let index = store.index_name().to_string();
            let store: Arc<dyn VectorStore> = store;
            let results = Retriever::new(store)
                .with_index(index)
                .with_embedder(embedder)
                .retrieve(&q)
                .await?;
            out.search(&results);
            exit::OK
        }
        Command::Ask(a) => {
            let has_embedder = embedder.is_some();
            let index = store.index_name().to_string();
            let store: Arc<dyn VectorStore> = store;
            let retriever = Retriever::new(store)
                .with_index(index)
                .with_embedder(embedder)
                .with_cache(Some(cache.clone()))
                .with_config(config.retriever.clone());
            let fallback = match &config.fallback {
                Some(spec) => Some(verity::generator(&config, spec).await?),
                None => None,
            };
            let generator = verity::generator(&config, &config.generator).await?;
            let rag = verity::rag::RagPipeline::builder(retriever, generator)
                .fallback(fallback)
                .cache(Some(cache))
                .config(config.rag.clone())
                .build();
            answer(&rag, a, has_embedder, cli.json, out).await?
        }
        Command::Stats => {
            out.redis_stats(
                &without_password(url),
                &store.stats().await?,
                embedder.as_ref().map(|e| e.id()),
            );
            exit::OK
        }
        Command::Delete(a) => {
            let n = store.delete(&a.uids).await?;
            out.deleted(n, a.uids.len());
            if n == a.uids.len() {
                exit::OK
            } else {
                exit::NOT_FOUND
            }
        }
        _ => return Ok(None),
    };
    Ok(Some(code))
}

/// The configuration of `verity ask`: generator and fallback overrides.
fn ask_config(cli: &Cli, a: &AskArgs) -> verity::Result<VerityConfig> {
    let mut c = config(cli)?;
    if let Some(g) = &a.generator {
        c.generator = g.parse()?;
    }
    if let Some(f) = &a.fallback {
        c.fallback = Some(f.parse()?);
    }
    Ok(c)
}

/// Ask `rag` and print the answer (streamed when asked and not in JSON mode).
async fn answer(
    rag: &verity::rag::RagPipeline,
    a: &AskArgs,
    has_embedder: bool,
    json: bool,
    out: &output::Printer,
) -> verity::Result<u8> {
    let q = query(&a.question, &a.retrieval, has_embedder)?;
    let req = AskRequest {
        question: a.question.clone(),
        lang: a.lang.clone(),
        filters: q.filters,
        k: a.retrieval.k,
        mode: Some(q.mode),
        no_cache: a.no_cache,
    };
    let stream = a.stream && !json;
    let answer = if stream {
        let mut events = rag.ask_stream(&req).await?;
        let mut done = None;
        while let Some(ev) = events.next().await {
            match ev? {
                RagEvent::Delta(d) => out.delta(&d),
                RagEvent::Done(a) => done = Some(*a),
            }
        }
        done.ok_or_else(|| Error::invalid_input("the answer stream ended without a final answer"))?
    } else {
        rag.ask(&req).await?
    };
    out.answer(&answer, stream);
    Ok(exit::OK)
}

/// `url` with any password masked, for display.
fn without_password(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("***"));
            u.to_string()
        }
        _ => url.to_string(),
    }
}

/// `verity reindex`: on the embedded store, or on Redis with `--redis` / `REDIS_URL`.
async fn reindex(cli: &Cli, a: &ReindexArgs, out: &output::Printer) -> verity::Result<u8> {
    use verity::core::Cache;
    use verity_redis::{
        EvalSet, GateConfig, RedisCache, RedisCatalog, ReindexOptions, SqliteCatalog,
    };

    let mut opts = ReindexOptions::new(a.name.clone(), a.version.clone());
    if let Some(g) = &a.gate {
        opts.gate = GateConfig::parse(g)?;
    }
    opts.eval = match (&a.eval, a.eval_beir.as_deref()) {
        (Some(f), _) => Some(EvalSet::from_jsonl(f)?),
        (None, Some([queries, qrels])) => Some(EvalSet::from_beir(queries, qrels)?),
        _ => None,
    };
    opts.dry_run = a.dry_run;
    opts.mode = a.mode.as_deref().map(str::parse).transpose()?;
    // The embedder (and the embedded cache) come from the usual configuration.
    let verity = open(config(cli)?, out).await?;
    let embedder = verity.embedder().cloned();
    let bar = progress::IngestBar::new(cli.quiet || cli.json || a.dry_run);
    let report = match &cli.redis {
        Some(url) => {
            let catalog = RedisCatalog::connect(url, Default::default()).await?;
            let cache = RedisCache::connect(url, &Default::default()).await?;
            verity_redis::reindex_paths(
                &catalog,
                &a.paths,
                embedder,
                Some(&cache as &dyn Cache),
                &opts,
                &|p| bar.update(p),
            )
            .await?
        }
        None => {
            let catalog = SqliteCatalog::open(&cli.home, verity::store::StoreOptions::default())?;
            let cache: &dyn Cache = verity.cache().as_ref();
            verity_redis::reindex_paths(&catalog, &a.paths, embedder, Some(cache), &opts, &|p| {
                bar.update(p)
            })
            .await?
        }
    };
    bar.finish();
    out.reindex(&report);
    let gate_failed = report.gate.as_ref().is_some_and(|g| !g.passed);
    Ok(if gate_failed {
        exit::GATE_FAILED
    } else {
        exit::OK
    })
}

async fn open(config: VerityConfig, out: &output::Printer) -> verity::Result<Verity> {
    let verity = Verity::open(config).await?;
    out.notes(verity.notes());
    Ok(verity)
}

/// Build a search query from the shared retrieval flags.
fn query(text: &str, a: &RetrievalArgs, has_embedder: bool) -> verity::Result<SearchQuery> {
    let mode = match &a.mode {
        Some(m) => m.parse()?,
        None if has_embedder => SearchMode::Hybrid,
        None => SearchMode::Lexical,
    };
    let mut filters = Filters {
        sources: a.source.clone(),
        tags_any: a.tag.clone(),
        ..Filters::default()
    };
    for f in &a.filters {
        filters.metadata.push(MetadataFilter::parse(f)?);
    }
    filters.time = TimeRange {
        since: a.since.as_deref().map(parse_time).transpose()?,
        until: a.until.as_deref().map(parse_time_end).transpose()?,
    };
    let mut q = SearchQuery::new(text).mode(mode).filters(filters);
    if let Some(k) = a.k {
        q = q.k(k);
    }
    Ok(q)
}

fn parse_time(s: &str) -> verity::Result<chrono::DateTime<chrono::Utc>> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        return Ok(t.with_timezone(&chrono::Utc));
    }
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc())
        .ok_or_else(|| {
            Error::invalid_input(format!("`{s}` is not a date (use RFC 3339 or YYYY-MM-DD)"))
        })
}

/// Like [`parse_time`], but a bare date means the end of that day.
fn parse_time_end(s: &str) -> verity::Result<chrono::DateTime<chrono::Utc>> {
    if chrono::DateTime::parse_from_rfc3339(s).is_ok() {
        return parse_time(s);
    }
    Ok(parse_time(s)? + chrono::Duration::days(1) - chrono::Duration::milliseconds(1))
}
