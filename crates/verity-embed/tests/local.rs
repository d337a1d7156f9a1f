//! Local candle embedder: agreement with sentence-transformers and bad input.
//! Tests that need the model or the shared data skip loudly when absent.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(feature = "local")]

use std::path::{Path, PathBuf};

use verity_core::embed::cosine;
use verity_core::{ConfigError, Embedder, Error};
use verity_embed::{Engine, LocalEmbedder, LocalEmbedderConfig, Precision};

fn model_dir() -> Option<PathBuf> {
    let dir = LocalEmbedder::default_model_dir();
    if dir.join("model.safetensors").is_file() {
        Some(dir)
    } else {
        verity_testkit::skip(&format!(
            "all-MiniLM-L6-v2 not found in {} (run scripts/fetch-models.sh minilm)",
            dir.display()
        ));
        None
    }
}

fn reference_file() -> Option<PathBuf> {
    let data = std::env::var_os("VERITY_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    let file = data.join("embeddings/all-MiniLM-L6-v2.jsonl");
    if file.is_file() {
        Some(file)
    } else {
        verity_testkit::skip(&format!(
            "reference embeddings not found at {}",
            file.display()
        ));
        None
    }
}

fn load_reference(path: &Path) -> Vec<(String, Vec<f32>)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let text = v["text"].as_str().unwrap().to_string();
            let emb = v["embedding"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect();
            (text, emb)
        })
        .collect()
}

/// The worst cosine of `got` to the reference vectors, asserting that every
/// vector is normalised and at least `min` from its reference.
fn worst_cosine(reference: &[(String, Vec<f32>)], got: &[Vec<f32>], min: f32, what: &str) -> f32 {
    let mut worst = 1.0f32;
    for ((text, want), v) in reference.iter().zip(got) {
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "not normalised: {norm}");
        let c = cosine(want, v);
        worst = worst.min(c);
        assert!(
            c >= min,
            "{what}: cosine {c} for {:?}",
            &text[..text.len().min(60)]
        );
    }
    worst
}

#[tokio::test]
async fn matches_sentence_transformers_reference() {
    let (Some(dir), Some(file)) = (model_dir(), reference_file()) else {
        return;
    };
    let reference = load_reference(&file);
    assert_eq!(reference.len(), 31, "the reference file has 31 texts");
    let texts: Vec<String> = reference.iter().map(|(t, _)| t.clone()).collect();

    for (engine, batch_size) in [
        (Engine::Packed, 1),
        (Engine::Packed, 64),
        (Engine::CandleBert, 64),
    ] {
        let embedder = LocalEmbedderConfig::new(&dir)
            .batch_size(batch_size)
            .engine(engine)
            .build()
            .unwrap();
        assert_eq!(embedder.id().dim, 384);
        assert_eq!(embedder.id().model, "all-MiniLM-L6-v2");
        assert_eq!(embedder.max_tokens(), 256);
        let got = embedder.embed(&texts).await.unwrap();
        assert_eq!(got.len(), texts.len());
        let worst = worst_cosine(
            &reference,
            &got,
            0.999,
            &format!("{engine:?} batch {batch_size}"),
        );
        eprintln!(
            "{engine:?} batch {batch_size}, {}: worst cosine {worst:.6}",
            verity_embed::simd::kernel_note()
        );
    }
}

/// The integer option: within cosine 0.999 of sentence-transformers (as the
/// f32 engine is held to), yet not the f32 vectors; a distinct embedder
/// version; the same vectors one by one and batched; refused by the
/// reference engine.
#[tokio::test]
async fn int8_is_close_to_the_reference_and_says_so() {
    let (Some(dir), Some(file)) = (model_dir(), reference_file()) else {
        return;
    };
    let reference = load_reference(&file);
    let texts: Vec<String> = reference.iter().map(|(t, _)| t.clone()).collect();
    let f32 = LocalEmbedderConfig::new(&dir).build().unwrap();
    let int8 = LocalEmbedderConfig::new(&dir)
        .precision(Precision::Int8)
        .batch_size(64)
        .build()
        .unwrap();
    assert_eq!(int8.id().version, format!("{}-int8v2", f32.id().version));
    assert_eq!(int8.id().dim, 384);
    // The f32 embedder tells the ingest estimate how much faster the 8-bit
    // products are here; the 8-bit one runs them already.
    assert!(f32.int8_speedup().is_some_and(|s| s > 1.0));
    assert_eq!(int8.int8_speedup(), None);
    let got = int8.embed(&texts).await.unwrap();
    // Measured worst 0.9995 on these 31 texts (docs/benchmarks.d/embed.md);
    // all four products in 8 bits gave 0.990.
    let worst = worst_cosine(&reference, &got, 0.999, "int8");
    assert!(
        worst < 0.9999,
        "int8 vectors should differ from f32 ones: {worst}"
    );
    let one = int8.embed(&texts[..1]).await.unwrap();
    assert!(cosine(&one[0], &got[0]) > 0.99999, "one by one = batched");
    eprintln!(
        "int8, {}: worst cosine to sentence-transformers {worst:.5}",
        verity_embed::simd::kernel_note()
    );
    let refused = LocalEmbedderConfig::new(&dir)
        .engine(Engine::CandleBert)
        .precision(Precision::Int8)
        .build();
    assert!(
        matches!(&refused, Err(Error::Config(ConfigError::Invalid { message, .. })) if message.contains("packed engine")),
        "{:?}",
        refused.err()
    );
}

/// One text per pass (a query: the dense layers run on the pre-packed panels
/// where the CPU has them) and one pass for all texts (gemm) give the same
/// vectors, on short and long texts alike.
#[tokio::test]
async fn short_passes_and_batched_passes_agree() {
    let (Some(dir), Some(file)) = (model_dir(), reference_file()) else {
        return;
    };
    let mut texts: Vec<String> = load_reference(&file).into_iter().map(|(t, _)| t).collect();
    texts.push("x".into());
    texts.push("Verity keeps a source of truth for language models. ".repeat(12));
    let embedder = LocalEmbedderConfig::new(&dir)
        .batch_size(64)
        .build()
        .unwrap();
    let batched = embedder.embed(&texts).await.unwrap();
    let lens: Vec<usize> = texts
        .iter()
        .map(|t| embedder.count_tokens(t).unwrap())
        .collect();
    assert!(
        lens.iter().any(|&l| l <= 16) && lens.iter().any(|&l| l > 100),
        "{lens:?}"
    );
    let mut worst = 1.0f32;
    for (text, want) in texts.iter().zip(&batched) {
        let one = embedder.embed(std::slice::from_ref(text)).await.unwrap();
        let c = cosine(want, &one[0]);
        worst = worst.min(c);
        assert!(
            c >= 0.99999,
            "cosine {c} for {:?}",
            &text[..text.len().min(60)]
        );
    }
    eprintln!(
        "{}: worst cosine one-by-one vs batched {worst:.7}",
        verity_embed::simd::kernel_note()
    );
}

#[tokio::test]
async fn long_text_is_truncated_and_empty_text_is_cls_sep() {
    let Some(dir) = model_dir() else { return };
    let embedder = LocalEmbedder::builder(&dir).build().unwrap();

    let long = "Verity keeps a source of truth for language models. ".repeat(80);
    assert!(embedder.count_tokens(&long).unwrap() > 256);
    let longer = format!("{long} Completely different words about volcanoes and penguins.");
    let v = embedder.embed(&[long, longer]).await.unwrap();
    assert!(
        cosine(&v[0], &v[1]) > 0.99999,
        "text past the limit must be ignored"
    );

    assert_eq!(embedder.count_tokens("").unwrap(), 2, "[CLS] [SEP]");
    let v = embedder
        .embed(&["".to_string(), "   \n\t ".to_string(), "hello".to_string()])
        .await
        .unwrap();
    assert!(v[0].iter().all(|x| x.is_finite()));
    assert!(
        cosine(&v[0], &v[1]) > 0.99999,
        "empty and blank texts are both [CLS][SEP]"
    );
    assert!(cosine(&v[0], &v[2]) < 0.99);
    assert!(embedder.embed(&[]).await.unwrap().is_empty());
    let q = embedder.embed_query("hello").await.unwrap();
    assert!(cosine(&q, &v[2]) > 0.99999);
}

#[tokio::test]
async fn loads_hugging_face_cache_layout() {
    let Some(dir) = model_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let entry = tmp
        .path()
        .join("models--sentence-transformers--all-MiniLM-L6-v2");
    let snap = entry
        .join("snapshots")
        .join("c9745ed1d9f207416be6d2e6f8de32d1f16199bf");
    std::fs::create_dir_all(&snap).unwrap();
    std::fs::create_dir_all(entry.join("refs")).unwrap();
    std::fs::write(
        entry.join("refs/main"),
        "c9745ed1d9f207416be6d2e6f8de32d1f16199bf\n",
    )
    .unwrap();
    for f in [
        "config.json",
        "tokenizer.json",
        "model.safetensors",
        "sentence_bert_config.json",
    ] {
        std::os::unix::fs::symlink(dir.join(f), snap.join(f)).unwrap();
    }
    let from_cache = LocalEmbedder::builder(&entry).build().unwrap();
    let plain = LocalEmbedder::builder(&dir).build().unwrap();
    assert_eq!(from_cache.id(), plain.id(), "same files, same id");
    assert_eq!(from_cache.model_dir(), snap.as_path());
    let t = vec!["cache layout".to_string()];
    let (a, b) = (
        from_cache.embed(&t).await.unwrap(),
        plain.embed(&t).await.unwrap(),
    );
    assert!(cosine(&a[0], &b[0]) > 0.99999);

    let custom = LocalEmbedder::builder(&snap)
        .model_name("minilm")
        .embed_version("2025-10-01")
        .build()
        .unwrap();
    assert_eq!(custom.id().to_string(), "minilm@2025-10-01/384d");
}

fn expect_missing(result: verity_core::Result<LocalEmbedder>, file: &str) {
    match result {
        Err(Error::Config(ConfigError::Missing { what, detail })) => {
            assert!(what.contains(file), "{what}");
            assert!(detail.contains("scripts/fetch-models.sh"), "{detail}");
        }
        Err(e) => panic!("expected ConfigError::Missing for {file}, got {e}"),
        Ok(_) => panic!("expected ConfigError::Missing for {file}, got a model"),
    }
}

#[test]
fn missing_files_are_named_with_the_fetch_hint() {
    let tmp = tempfile::tempdir().unwrap();
    expect_missing(
        LocalEmbedder::builder(tmp.path().join("nope")).build(),
        "model directory",
    );
    std::fs::write(tmp.path().join("config.json"), "{}").unwrap();
    expect_missing(LocalEmbedder::builder(tmp.path()).build(), "tokenizer.json");
    std::fs::write(tmp.path().join("tokenizer.json"), "{}").unwrap();
    expect_missing(
        LocalEmbedder::builder(tmp.path()).build(),
        "model.safetensors",
    );
}

#[test]
fn corrupted_weights_are_a_typed_error() {
    let Some(dir) = model_dir() else { return };
    let weights = std::fs::read(dir.join("model.safetensors")).unwrap();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("garbage", b"this is not a safetensors file at all".to_vec()),
        ("empty", Vec::new()),
        ("truncated", weights[..weights.len() / 2].to_vec()),
        ("header only", weights[..4096].to_vec()),
        ("huge header length", {
            let mut w = weights.clone();
            w[..8].copy_from_slice(&u64::MAX.to_le_bytes());
            w
        }),
    ];
    for (name, bytes) in cases {
        let tmp = tempfile::tempdir().unwrap();
        for f in ["config.json", "tokenizer.json", "sentence_bert_config.json"] {
            std::fs::copy(dir.join(f), tmp.path().join(f)).unwrap();
        }
        std::fs::write(tmp.path().join("model.safetensors"), bytes).unwrap();
        match LocalEmbedder::builder(tmp.path()).build() {
            Err(Error::Config(ConfigError::Invalid { message, .. })) => {
                assert!(message.contains("model.safetensors"), "{name}: {message}")
            }
            Err(e) => panic!("{name}: expected ConfigError::Invalid, got {e}"),
            Ok(_) => panic!("{name}: a corrupted file loaded"),
        }
    }

    // A broken config.json is reported, not panicked on.
    let tmp = tempfile::tempdir().unwrap();
    for f in ["tokenizer.json", "model.safetensors"] {
        std::os::unix::fs::symlink(dir.join(f), tmp.path().join(f)).unwrap();
    }
    std::fs::write(tmp.path().join("config.json"), r#"{"hidden_size": "big"}"#).unwrap();
    assert!(matches!(
        LocalEmbedder::builder(tmp.path()).build(),
        Err(Error::Config(ConfigError::Invalid { .. }))
    ));
}

#[test]
fn a_model_of_another_architecture_is_refused_by_name() {
    let Some(dir) = model_dir() else { return };
    let mut config: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("config.json")).unwrap()).unwrap();
    config["model_type"] = "llama".into();
    config["architectures"] = serde_json::json!(["LlamaForCausalLM"]);
    let tmp = tempfile::tempdir().unwrap();
    for f in ["tokenizer.json", "model.safetensors"] {
        std::os::unix::fs::symlink(dir.join(f), tmp.path().join(f)).unwrap();
    }
    std::fs::write(tmp.path().join("config.json"), config.to_string()).unwrap();
    match LocalEmbedder::builder(tmp.path()).build() {
        Err(Error::Config(ConfigError::Invalid { message, .. })) => {
            assert!(message.contains("`llama`"), "{message}");
            assert!(message.contains("LlamaForCausalLM"), "{message}");
            assert!(message.contains("BERT-family"), "{message}");
        }
        Err(e) => panic!("expected ConfigError::Invalid, got {e}"),
        Ok(_) => panic!("a llama checkpoint loaded as an embedder"),
    }
}

/// The reference comparison again, in a child process whose element-wise
/// kernels are forced to the baseline instruction set: the vectors must not
/// depend on the SIMD path taken.
#[test]
fn forced_baseline_kernels_give_the_same_vectors() {
    if std::env::var_os("VERITY_EMBED_SIMD").is_some() {
        return; // already the child
    }
    let (Some(_), Some(_)) = (model_dir(), reference_file()) else {
        return;
    };
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "local::matches_sentence_transformers_reference",
            "local::int8_is_close_to_the_reference_and_says_so",
            "--nocapture",
        ])
        .env("VERITY_EMBED_SIMD", "baseline")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child failed:\n{stdout}\n{stderr}");
    assert!(
        stdout.contains("2 passed"),
        "the child did not run both tests:\n{stdout}"
    );
    assert!(
        stderr.contains("baseline element-wise kernels") || stderr.contains("baseline kernels"),
        "the child did not run on the baseline path:\n{stderr}"
    );
}

fn span_item(title: &str, sentences: &[&str]) -> verity_core::SpanText {
    let context = format!("{title}\n\n");
    let mut text = context.clone();
    let mut spans = Vec::new();
    for (i, s) in sentences.iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        spans.push(text.len()..text.len() + s.len());
        text.push_str(s);
    }
    verity_core::SpanText {
        text,
        context: context.len(),
        spans,
    }
}

#[tokio::test]
async fn pooled_spans_keep_the_text_vector_and_read_each_sentence() {
    use verity_core::SpanMode;
    let Some(dir) = model_dir() else { return };
    let pooled = LocalEmbedderConfig::new(&dir)
        .span_mode(SpanMode::Pooled)
        .build()
        .unwrap();
    let separate = LocalEmbedder::builder(&dir).build().unwrap();
    assert_eq!(pooled.span_mode(), SpanMode::Pooled);
    assert_eq!(separate.span_mode(), SpanMode::Separate);

    let sentences = [
        "The cat slept on the warm mat all afternoon.",
        "Quantum chromodynamics describes how quarks and gluons interact.",
        "Interest rates rose sharply after the central bank meeting.",
    ];
    // A long item: its later sentences fall past the first 256-token window.
    let filler: Vec<String> = (0..40)
        .map(|i| format!("Filler sentence number {i} talks about gardening tools."))
        .collect();
    let mut long: Vec<&str> = filler.iter().map(String::as_str).collect();
    long.extend(sentences);
    let items = vec![
        span_item("Notes", &sentences),
        span_item("Notes", &long),
        span_item("", &["Only one sentence here, no title."]),
    ];
    let got = pooled.embed_spans(&items).await.unwrap();
    assert_eq!(got.len(), 3);
    let plain = separate
        .embed(&items.iter().map(|i| i.text.clone()).collect::<Vec<_>>())
        .await
        .unwrap();
    for (g, p) in got.iter().zip(&plain) {
        // The text's own vector is exactly what `embed` gives (first window).
        assert!(cosine(&g.text, p) > 0.9999, "text vector changed");
        for v in &g.spans {
            let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-4 && v.iter().all(|x| x.is_finite()));
        }
    }
    assert_eq!(got[1].spans.len(), long.len());
    // Each pooled sentence is closest to the same sentence embedded alone,
    // in the first window as well as in later ones.
    let alone = separate
        .embed(&sentences.map(|s| format!("Notes\n\n{s}")))
        .await
        .unwrap();
    for (item, first) in [(&got[0], 0), (&got[1], long.len() - 3)] {
        for (k, want) in alone.iter().enumerate() {
            let mine = cosine(&item.spans[first + k], want);
            for (j, other) in alone.iter().enumerate() {
                if j != k {
                    assert!(
                        mine > cosine(&item.spans[first + k], other) + 0.05,
                        "sentence {k} pooled at {first} is not closest to itself"
                    );
                }
            }
        }
    }

    // The separate mode gives exactly `context + span` embedded alone.
    let sep = separate.embed_spans(&items[..1]).await.unwrap();
    for (v, want) in sep[0].spans.iter().zip(&alone) {
        assert!(cosine(v, want) > 0.9999);
    }

    // A span that is not a char range of its text is refused.
    let mut bad = items[0].clone();
    bad.spans.push(0..10_000);
    assert!(matches!(
        pooled.embed_spans(&[bad]).await,
        Err(Error::Input(_))
    ));
}

/// Word-piece vectors: the text vector is `embed`'s, one unit vector per word
/// piece with its byte range, and a word's piece finds the same word in
/// another sentence as its closest piece there.
#[tokio::test]
async fn token_vectors_come_with_the_text_vector_and_offsets() {
    let Some(dir) = model_dir() else { return };
    let embedder = LocalEmbedder::builder(&dir).build().unwrap();
    let texts = vec![
        "Tregs expand in mice.".to_string(),
        "Regulatory T cells proliferate in mice; rainfall was low.".to_string(),
        String::new(),
    ];
    let t = embedder.embed_tokens(&texts).await.unwrap().unwrap();
    let plain = embedder.embed(&texts).await.unwrap();
    assert_eq!(t.len(), 3);
    for (a, b) in t.iter().zip(&plain) {
        assert!(cosine(&a.text, b) > 0.99999);
        assert_eq!(a.tokens.len(), a.offsets.len());
        assert!(a
            .tokens
            .iter()
            .all(|v| (v.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-4));
    }
    // "[CLS] treg ##s expand in mice . [SEP]" without the markers.
    let pieces: Vec<&str> = t[0].offsets.iter().map(|o| &texts[0][o.clone()]).collect();
    assert_eq!(pieces.first(), Some(&"Tre"), "{pieces:?}");
    assert_eq!(pieces.last(), Some(&"."));
    assert!(t[2].tokens.is_empty());
    let piece = |i: usize, word: &str| {
        let k = t[i]
            .offsets
            .iter()
            .position(|o| texts[i][o.clone()].eq_ignore_ascii_case(word))
            .unwrap();
        t[i].tokens[k].clone()
    };
    let mice = piece(0, "mice");
    let closest = t[1]
        .tokens
        .iter()
        .map(|v| cosine(&mice, v))
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(k, _)| &texts[1][t[1].offsets[k].clone()]);
    assert_eq!(closest, Some("mice"));
    // The reference engine has no word-piece access: `None`, not an error.
    let reference = LocalEmbedder::builder(&dir)
        .engine(Engine::CandleBert)
        .build()
        .unwrap();
    assert!(reference.embed_tokens(&texts).await.unwrap().is_none());
}
