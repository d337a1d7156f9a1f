//! Research-note evaluation: the syllabi of `eval/syllabi/` run through the
//! `verity` binary (the command a user types) on real article pages served
//! on loopback, scored against `eval/expected.json`.
//!
//! ```text
//! cargo build -p verity-ai-cli
//! cargo run -p verity-research --example research_eval -- \
//!     --verity target/debug/verity [--split look|held_out|all] \
//!     [--data ../shared/data/article-extraction] [--keep DIR] \
//!     [--generator SPEC] [--budget SECS] [--show]
//! ```
//!
//! Pages: `/work/shared/data/article-extraction/html/<sha>.html.gz`, served
//! as `{BASE}/<first 12 hex>.html`. Each syllabus runs in a fresh home and
//! knowledge base. Per module the table gives: covered (the report's flag),
//! topics covered (a supported sentence of the section matches the topic's
//! terms), sentences kept, sources cited, sentences the judge supports, and
//! fragments (a sentence that leans on the one before it — an opening
//! connective or anaphor, a pronoun with no antecedent in the sentence:
//! `verity_core::text::leans_on_previous` — whose predecessor in its source
//! is not the sentence before it in the note).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // an evaluation tool

use std::collections::{BTreeSet, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::Value;
use verity_core::text::{leans_on_previous, sentence_spans};

fn eval_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("eval")
}

struct Args {
    verity: PathBuf,
    split: String,
    data: PathBuf,
    keep: Option<PathBuf>,
    generator: Option<String>,
    budget: Option<String>,
    show: bool,
}

fn args() -> Args {
    let mut a = Args {
        verity: PathBuf::from("target/debug/verity"),
        split: "look".into(),
        data: PathBuf::from("/work/shared/data/article-extraction"),
        keep: None,
        generator: None,
        budget: None,
        show: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let mut v = || it.next().unwrap_or_else(|| panic!("{k} needs a value"));
        match k.as_str() {
            "--verity" => a.verity = PathBuf::from(v()),
            "--split" => a.split = v(),
            "--data" => a.data = PathBuf::from(v()),
            "--keep" => a.keep = Some(PathBuf::from(v())),
            "--generator" => a.generator = Some(v()),
            "--budget" => a.budget = Some(v()),
            "--show" => a.show = true,
            other => panic!("unknown argument {other}"),
        }
    }
    a
}

/// Serve the article pages: `/<hex prefix>.html` → the page whose file name
/// starts with that prefix (gunzipped).
fn serve(data: &Path) -> String {
    let dir = data.join("html");
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    verity_testkit::serve(move |path, _| {
        let stem = path
            .trim_start_matches('/')
            .split(['.', '?'])
            .next()
            .unwrap_or_default()
            .to_string();
        let found: Vec<&String> = names
            .iter()
            .filter(|n| !stem.is_empty() && n.starts_with(&stem))
            .collect();
        match found.as_slice() {
            [one] => {
                let gz = std::fs::read(dir.join(one)).unwrap();
                let mut html = Vec::new();
                flate2::read::GzDecoder::new(&gz[..])
                    .read_to_end(&mut html)
                    .unwrap();
                verity_testkit::Reply::html(html)
            }
            _ => verity_testkit::Reply::not_found(),
        }
    })
    .expect("loopback port")
}

fn norm(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(['’', '‘'], "'")
        .replace(['“', '”'], "\"")
}

/// The sentence before `sentence` in `source` (`None`: first, or not found).
fn predecessor(source: &str, sentence: &str) -> Option<String> {
    let src = norm(source);
    let needle = norm(sentence);
    let at = src.find(&needle)?;
    let spans = sentence_spans(&src);
    let i = spans.iter().position(|r| r.end > at)?;
    // The sentence holding `at` may start a little before it (a dateline cut).
    (i > 0).then(|| norm(&src[spans[i - 1].clone()]))
}

fn matches_terms(text: &str, groups: &[Value]) -> bool {
    let t = text.to_lowercase();
    let word_prefix = |w: &str| {
        t.match_indices(w).any(|(i, _)| {
            i == 0
                || !t[..i]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric())
        })
    };
    groups.iter().all(|g| {
        g.as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .any(word_prefix)
    })
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

#[derive(Default)]
struct Totals {
    modules: usize,
    with_material: usize,
    covered: usize,
    topics: usize,
    topics_covered: usize,
    cited: usize,
    supported: usize,
    fragments: usize,
    notes: usize,
    notes_with_3_sources: usize,
    seconds: f64,
}

fn main() {
    let a = args();
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(eval_dir().join("expected.json")).unwrap())
            .unwrap();
    let base = serve(&a.data);
    let work = match &a.keep {
        Some(d) => {
            std::fs::create_dir_all(d).unwrap();
            d.clone()
        }
        None => std::env::temp_dir().join(format!("verity-research-eval-{}", std::process::id())),
    };
    let mut totals = Totals::default();
    println!(
        "verity: {} · split: {} · pages: {} (loopback {base})\n",
        a.verity.display(),
        a.split,
        a.data.display()
    );
    for syl in expected["syllabi"].as_array().unwrap() {
        let split = syl["split"].as_str().unwrap();
        if a.split != "all" && a.split != split {
            continue;
        }
        let file = syl["file"].as_str().unwrap();
        let dir = work.join(file.trim_end_matches(".md"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let text = std::fs::read_to_string(eval_dir().join("syllabi").join(file))
            .unwrap()
            .replace("{BASE}", &base);
        let syl_path = dir.join(file);
        std::fs::write(&syl_path, text).unwrap();
        let run = dir.join("run");
        let mut cmd = Command::new(&a.verity);
        cmd.arg("--home")
            .arg(dir.join("home"))
            .arg("--quiet")
            .arg("research")
            .arg(&syl_path)
            .arg("-o")
            .arg(&run)
            .arg("--knowledge")
            .arg(dir.join("kb"))
            .arg("--allow-private");
        if let Some(g) = &a.generator {
            cmd.arg("--generator").arg(g);
        } else {
            cmd.env_remove("VERITY_GENERATOR");
        }
        if let Some(b) = &a.budget {
            cmd.arg("--budget").arg(b);
        }
        let load_before = load();
        let started = Instant::now();
        let out = cmd.output().expect("run verity");
        let secs = started.elapsed().as_secs_f64();
        let status = out.status.code().unwrap_or(-1);
        std::fs::write(dir.join("report.md"), &out.stdout).unwrap();
        std::fs::write(dir.join("stderr.txt"), &out.stderr).unwrap();
        let result: Value = match std::fs::read_to_string(run.join("result.json")) {
            Ok(s) => serde_json::from_str(&s).unwrap(),
            Err(e) => {
                println!(
                    "## {file} ({split}): no result ({e}); exit {status}\n{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                continue;
            }
        };
        if a.show {
            println!("{}", String::from_utf8_lossy(&out.stdout));
        }
        let report = &result["report"];
        // Sources: reference number → text of the page it names.
        let mut page_text: HashMap<u64, String> = HashMap::new();
        for r in report["references"].as_array().into_iter().flatten() {
            let n = r["n"].as_u64().unwrap_or(0);
            let text = r["filename"]
                .as_str()
                .and_then(|f| std::fs::read_to_string(dir.join("kb").join(f)).ok())
                .or_else(|| {
                    let url = r["url"].as_str()?;
                    let body = reqwest_free_get(url)?;
                    verity_extract::parse_html(&body, None)
                        .ok()
                        .map(|p| p.document.content)
                });
            if let Some(t) = text {
                page_text.insert(n, t);
            }
        }
        let themes = report["themes"].as_array().cloned().unwrap_or_default();
        let sentences = report["sentences"].as_array().cloned().unwrap_or_default();
        let mut note_sources = BTreeSet::new();
        println!(
            "## {file} ({split}) — exit {status}, {secs:.1} s, load {load_before} → {}\n",
            load()
        );
        println!("| module | covered | topics covered | sentences | sources cited | judge supports | fragments |");
        println!("|---|---|---|---|---|---|---|");
        let modules = syl["modules"].as_array().unwrap();
        for (i, m) in modules.iter().enumerate() {
            let title = m["title"].as_str().unwrap();
            let th = themes.iter().find(|t| {
                t["title"]
                    .as_str()
                    .is_some_and(|x| x.to_lowercase().contains(&title.to_lowercase()))
            });
            let id = th.and_then(|t| t["id"].as_str()).unwrap_or("?").to_string();
            let covered = th.and_then(|t| t["covered"].as_bool()).unwrap_or(false);
            let kept: Vec<&Value> = sentences
                .iter()
                .filter(|s| s["theme"].as_str() == Some(id.as_str()) && s["kept"] == true)
                .collect();
            let cited: Vec<&&Value> = kept.iter().filter(|s| !s["verdict"].is_null()).collect();
            let supported: Vec<&&Value> = cited
                .iter()
                .filter(|s| s["verdict"] == "SUPPORTED")
                .copied()
                .collect();
            let mut srcs = BTreeSet::new();
            for s in &cited {
                for c in s["citations"].as_array().into_iter().flatten() {
                    if let Some(n) = c.as_u64() {
                        srcs.insert(n);
                        note_sources.insert(n);
                    }
                }
            }
            let topics = m["topics"].as_array().unwrap();
            let tc = topics
                .iter()
                .filter(|t| {
                    supported.iter().any(|s| {
                        matches_terms(
                            s["text"].as_str().unwrap_or(""),
                            t["terms"].as_array().unwrap(),
                        )
                    })
                })
                .count();
            let mut fragments = 0;
            for (j, s) in kept.iter().enumerate() {
                let text = s["text"].as_str().unwrap_or("");
                if !leans_on_previous(text) {
                    continue;
                }
                let before_in_note = j
                    .checked_sub(1)
                    .map(|k| norm(kept[k]["text"].as_str().unwrap_or("")));
                let ok = s["citations"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_u64)
                    .filter_map(|n| page_text.get(&n))
                    .any(|src| {
                        predecessor(src, text).is_some_and(|p| {
                            before_in_note
                                .as_deref()
                                .is_some_and(|b| p.ends_with(b) || b.ends_with(&p))
                        })
                    });
                if !ok {
                    fragments += 1;
                    // Held-out notes are scored, not read.
                    if split != "held_out" {
                        eprintln!("fragment in {file} {title}: {text}");
                    }
                }
            }
            let material = m["material"].as_bool().unwrap_or(true);
            totals.modules += 1;
            totals.with_material += usize::from(material);
            totals.covered += usize::from(covered && material);
            totals.topics += topics.len();
            totals.topics_covered += tc;
            totals.cited += cited.len();
            totals.supported += supported.len();
            totals.fragments += fragments;
            println!(
                "| {}. {title} | {} | {tc}/{} | {} | {} | {}/{} | {fragments} |",
                i + 1,
                if covered { "yes" } else { "**no**" },
                topics.len(),
                kept.len(),
                srcs.len(),
                supported.len(),
                cited.len()
            );
        }
        totals.notes += 1;
        totals.notes_with_3_sources += usize::from(note_sources.len() >= 3);
        totals.seconds += secs;
        println!(
            "\nsources cited in the note: {}; degraded: {}; missing: {}\n",
            note_sources.len(),
            result["degraded"],
            result["missing"]
                .as_array()
                .map(|m| m.len())
                .unwrap_or_default()
        );
    }
    let share = if totals.cited == 0 {
        1.0
    } else {
        totals.supported as f64 / totals.cited as f64
    };
    println!(
        "## Totals ({})\n\nmodules covered {}/{} with material ({} modules); topics covered {}/{}; \
         cited sentences supported {}/{} = {:.1} %; notes citing ≥ 3 sources {}/{}; fragments {}; \
         wall time {:.1} s for {} run(s)",
        a.split,
        totals.covered,
        totals.with_material,
        totals.modules,
        totals.topics_covered,
        totals.topics,
        totals.supported,
        totals.cited,
        share * 100.0,
        totals.notes_with_3_sources,
        totals.notes,
        totals.fragments,
        totals.seconds,
        totals.notes
    );
    if a.keep.is_none() {
        let _ = std::fs::remove_dir_all(&work);
    }
}

/// GET a loopback page with a plain HTTP/1.1 request (the pages server).
fn reqwest_free_get(url: &str) -> Option<String> {
    use std::io::Write;
    let rest = url.strip_prefix("http://")?;
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let mut s = std::net::TcpStream::connect(host).ok()?;
    write!(s, "GET /{path} HTTP/1.1\r\nHost: {host}\r\n\r\n").ok()?;
    let mut out = Vec::new();
    s.read_to_end(&mut out).ok()?;
    let text = String::from_utf8_lossy(&out).to_string();
    text.split_once("\r\n\r\n").map(|(_, b)| b.to_string())
}
