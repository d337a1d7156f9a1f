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
mod check;
mod config;
mod deprecated;
mod output;
mod progress;
mod research;

use std::process::ExitCode;

use futures::StreamExt;
use verity::api::error::{exit, ErrorBody, ErrorMapping};
use verity::api::verify::{EvalSet, EvalVerifyRequest};
use verity::api::{
    AskRequest, BeirEvalFiles, ConfigOverrides, DeleteRequest, EvalBeirRequest,
    EvalExtractionRequest, FetchRequest, IngestRequest, ReindexRequest, SearchRequest,
};
use verity::core::{Error, FetchStatus, MetadataFilter, SearchMode};
use verity::{RagEvent, Verity};

use args::{AskArgs, Cli, Command, EvalCommand, FetchFormat, ReindexArgs, RetrievalArgs};

/// mimalloc instead of the system allocator (feature `mimalloc`, on by default):
/// request handling in `verity serve` allocates per hit and per JSON value.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let (argv, deprecations) = deprecated::rewrite(std::env::args_os().collect());
    let cli = args::parse_from(argv);
    for n in &deprecations {
        eprintln!("note: {n}");
    }
    if !matches!(cli.command, Command::Serve(_)) {
        init_tracing(cli.verbose);
    }
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
            let body = ErrorBody::from(&e);
            if json {
                output::print_json(&serde_json::json!({ "error": body }));
            } else {
                eprintln!("error: {}", body.message);
            }
            ExitCode::from(ErrorMapping::of(&e).exit_code)
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
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .try_init();
}

/// The global flags as overrides of the environment's configuration.
fn overrides(cli: &Cli) -> ConfigOverrides {
    ConfigOverrides {
        home: cli.home.as_ref().map(|h| h.display().to_string()),
        redis_url: cli.redis.clone(),
        index: cli.index.clone(),
        embedder: cli.embedder.clone(),
        ..ConfigOverrides::default()
    }
}

async fn open(o: &ConfigOverrides, out: &output::Printer) -> verity::Result<Verity> {
    let verity = Verity::open_with(o).await?;
    out.notes(verity.notes());
    Ok(verity)
}

async fn run(cli: Cli) -> verity::Result<u8> {
    let out = output::Printer { json: cli.json };
    let quiet = cli.quiet || cli.json;
    match &cli.command {
        Command::Ingest(a) => {
            let mut o = overrides(&cli);
            if a.fast {
                o.fast = Some(true);
            }
            let verity = open(&o, &out).await?;
            let bar = progress::IngestBar::new(quiet).suggest_fast(verity.fast_ingest_available());
            let req = IngestRequest::paths(a.paths.iter().cloned(), a.strict);
            let outcome = verity.ingest(req, &|p| bar.update(p)).await?;
            bar.finish();
            out.ingest(&outcome, verity.notes());
            Ok(if outcome.partial() {
                exit::PARTIAL
            } else {
                exit::OK
            })
        }
        Command::Search(a) => {
            let verity = open(&overrides(&cli), &out).await?;
            let mut req = search_request(&a.query, &a.retrieval)?;
            req.langs = a.lang.clone();
            out.search(&verity.search(&req).await?);
            Ok(exit::OK)
        }
        Command::Ask(a) => {
            let mut o = overrides(&cli);
            o.generator = a.generator.clone();
            o.fallback = a.fallback.clone();
            let verity = open(&o, &out).await?;
            answer(&verity, a, cli.json, &out).await
        }
        Command::Stats => {
            let verity = open(&overrides(&cli), &out).await?;
            out.stats(&verity.stats().await?);
            Ok(exit::OK)
        }
        Command::Delete(a) => {
            let verity = open(&overrides(&cli), &out).await?;
            let r = verity
                .delete(&DeleteRequest {
                    uids: a.uids.clone(),
                })
                .await?;
            out.deleted(&r);
            Ok(if r.deleted == r.requested {
                exit::OK
            } else {
                ErrorMapping::for_code("not_found").exit_code
            })
        }
        Command::Fetch(a) => {
            let fetched = verity::sources::fetch(&FetchRequest {
                target: a.target.clone(),
                allow_private: a.allow_private,
            })
            .await?;
            let format = if cli.json {
                FetchFormat::Json
            } else {
                a.format.unwrap_or(FetchFormat::Markdown)
            };
            out.fetched(&fetched, format);
            Ok(if fetched.status == FetchStatus::Fetched {
                exit::OK
            } else {
                ErrorMapping::for_code("unavailable").exit_code
            })
        }
        Command::Eval(EvalCommand::Beir(a)) => {
            let modes = a
                .modes
                .iter()
                .map(|m| m.parse::<SearchMode>())
                .collect::<verity::Result<Vec<_>>>()?;
            let req = EvalBeirRequest {
                dir: a.dir.clone(),
                split: a.split.clone(),
                modes,
                limit: a.limit,
            };
            let config = overrides(&cli).resolve()?;
            let bar = progress::IngestBar::new(quiet);
            let run = verity::eval::beir(&config, &req, &|p| bar.update(p)).await?;
            bar.finish();
            out.beir(&run);
            Ok(exit::OK)
        }
        Command::Eval(EvalCommand::Extraction(a)) => {
            let req = EvalExtractionRequest { dir: a.dir.clone() };
            out.extraction(&verity::sources::eval_extraction(&req).await?);
            Ok(exit::OK)
        }
        Command::Eval(EvalCommand::Verify(a)) => {
            let sets = a
                .sets
                .iter()
                .map(|s| s.parse::<EvalSet>())
                .collect::<verity::Result<Vec<_>>>()?;
            let req = EvalVerifyRequest {
                dir: a.dir.clone(),
                sets,
                limit: a.limit,
                citations: Some(a.citations),
                judge: check::parse_judge(a.judge.as_deref())?,
            };
            let mut o = overrides(&cli);
            if a.generator.is_some() {
                o.generator = a.generator.clone();
            }
            let verity = open(&o, &out).await?;
            out.verify_eval(&verity.eval_verify(&req).await?);
            Ok(exit::OK)
        }
        Command::Check(a) => check::run(a, overrides(&cli), cli.json, quiet).await,
        Command::Research(a) => research::run(a, overrides(&cli), cli.json, quiet).await,
        Command::Models => {
            out.models(&verity::local_models(&overrides(&cli).resolve()?));
            Ok(exit::OK)
        }
        Command::Reindex(a) => reindex(&cli, a, &out).await,
        Command::Mcp(a) => {
            use verity::tools::{FileRoots, ToolOptions, ToolRegistry};
            let mut o = overrides(&cli);
            if a.allow_private {
                o.allow_private = Some(true);
            }
            let file_roots = FileRoots::new(&a.roots)?;
            let verity = std::sync::Arc::new(open(&o, &out).await?);
            let allow_private = verity.config().web.allow_private;
            let options = ToolOptions {
                file_roots,
                allow_private_fetch: allow_private,
                research_time_limit: None,
            };
            if !quiet {
                eprintln!(
                    "verity mcp: store {}; file roots: {}; allow_private: {}",
                    verity.location(),
                    if options.file_roots.is_empty() {
                        "none".to_string()
                    } else {
                        options
                            .file_roots
                            .roots()
                            .iter()
                            .map(|r| r.display().to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    },
                    if allow_private {
                        "ON (research, add_reference, crawl_url and verify_fact may fetch private and loopback addresses)"
                    } else {
                        "off"
                    }
                );
            }
            let registry = std::sync::Arc::new(ToolRegistry::builtin(&options));
            verity_mcp::serve_stdio(verity, registry).await?;
            Ok(exit::OK)
        }
        Command::Serve(a) => Ok(serve(&cli, a).await),
    }
}

/// Ask and print the answer (streamed when asked and not in JSON mode).
async fn answer(
    verity: &Verity,
    a: &AskArgs,
    json: bool,
    out: &output::Printer,
) -> verity::Result<u8> {
    let s = search_request(&a.question, &a.retrieval)?;
    let req = AskRequest {
        question: a.question.clone(),
        lang: a.lang.clone(),
        k: s.k,
        mode: s.mode,
        no_cache: a.no_cache,
        sources: s.sources,
        tags: s.tags,
        metadata: s.metadata,
        since: s.since,
        until: s.until,
        verify: a
            .verify
            .as_deref()
            .map(|m| {
                verity::VerifyMode::parse(m).ok_or_else(|| {
                    Error::invalid_input(format!("--verify `{m}`: expected flag, strip or off"))
                })
            })
            .transpose()?,
        ..AskRequest::default()
    };
    let stream = a.stream && !json;
    let answer = if stream {
        let mut events = verity.ask_stream(&req).await?;
        let mut done = None;
        while let Some(ev) = events.next().await {
            match ev? {
                RagEvent::Delta(d) => out.delta(&d),
                RagEvent::Done(a) => done = Some(*a),
            }
        }
        done.ok_or_else(|| Error::invalid_input("the answer stream ended without a final answer"))?
    } else {
        verity.ask(&req).await?
    };
    out.answer(&answer, stream);
    Ok(exit::OK)
}

/// `verity reindex`, on the store the configuration names (embedded or Redis).
async fn reindex(cli: &Cli, a: &ReindexArgs, out: &output::Printer) -> verity::Result<u8> {
    let req = ReindexRequest {
        paths: a.paths.clone(),
        version: a.embed_version.clone(),
        name: Some(a.name.clone()),
        gate: a.gate.clone(),
        eval: a.eval.clone(),
        eval_beir: match a.eval_beir.as_deref() {
            Some([queries, qrels]) => Some(BeirEvalFiles {
                queries: queries.clone(),
                qrels: qrels.clone(),
            }),
            _ => None,
        },
        dry_run: a.dry_run,
        mode: a.mode.as_deref().map(str::parse).transpose()?,
    };
    let verity = open(&overrides(cli), out).await?;
    let bar = progress::IngestBar::new(cli.quiet || cli.json || a.dry_run);
    let report = verity.reindex(&req, &|p| bar.update(p)).await?;
    bar.finish();
    out.reindex(&report);
    Ok(if report.gate_failed() {
        exit::GATE_FAILED
    } else {
        exit::OK
    })
}

/// The search request of the shared retrieval flags.
fn search_request(text: &str, a: &RetrievalArgs) -> verity::Result<SearchRequest> {
    let mut metadata = serde_json::Map::new();
    for f in &a.filters {
        let m = MetadataFilter::parse(f)?;
        metadata.insert(m.key, serde_json::Value::Array(m.values));
    }
    Ok(SearchRequest {
        query: text.to_string(),
        k: a.k,
        mode: a.mode.as_deref().map(str::parse).transpose()?,
        sources: a.source.clone(),
        tags: a.tag.clone(),
        metadata,
        since: a.since.clone(),
        until: a.until.clone(),
        ..SearchRequest::default()
    })
}

/// `verity serve`: the REST server of the `verity-server` crate. The global
/// flags (and their environment variables) override the config file's
/// `[verity]` table, which overrides the facade's own defaults.
async fn serve(cli: &Cli, a: &args::ServeArgs) -> u8 {
    let run = async {
        let mut c = verity_server::ServerConfig::load(a.config.as_deref())?;
        c.verity = overrides(cli).or(&c.verity);
        if let Some(addr) = a.addr {
            c.addr = addr;
        }
        if let Some(f) = &a.log_format {
            c.log_format = f.parse()?;
        }
        if a.allow_private {
            c.allow_private = true;
        }
        verity_server::serve(c).await
    };
    match run.await {
        Ok(()) => exit::OK,
        Err(verity_server::ServerError::Verity(e)) => {
            eprintln!("error: {}", ErrorBody::from(&e).message);
            ErrorMapping::of(&e).exit_code
        }
        Err(e) => {
            eprintln!("error: {e}");
            e.exit_code()
        }
    }
}
