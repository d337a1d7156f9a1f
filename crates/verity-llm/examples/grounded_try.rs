#![allow(clippy::unwrap_used, clippy::expect_used)]
use futures::StreamExt;
use std::time::Instant;
use verity_core::{ChatMessage, GenerateRequest, Generator};
use verity_llm::{LocalGgufConfig, LocalGgufGenerator};

fn main() {
    let reqs: Vec<GenerateRequest> =
        serde_json::from_str(&std::fs::read_to_string("/tmp/t34ask/requests.json").unwrap())
            .unwrap();
    let mut cfg = LocalGgufConfig::new(LocalGgufGenerator::default_model_path());
    if let Ok(t) = std::env::var("THREADS") {
        cfg = cfg.threads(t.parse().unwrap());
    }
    if let Ok(t) = std::env::var("FORMAT") {
        cfg = cfg.answer_format(t.parse().unwrap());
    }
    if let Ok(t) = std::env::var("SENTENCES") {
        cfg = cfg.answer_sentences(t.parse().unwrap());
    }
    if std::env::var("NOBUDGET").is_ok() {
        cfg = cfg.budget(verity_core::GenerationBudget::UNLIMITED);
    }
    let g = cfg.build().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let temp: Option<f32> = std::env::var("TEMP").ok().map(|t| t.parse().unwrap());
    let variant = std::env::var("PROMPT").unwrap_or_default();
    for mut r in reqs {
        if let Some(t) = temp {
            r.params.temperature = t;
        }
        let gr = r.grounding.clone().unwrap();
        let passages: String = gr
            .blocks
            .iter()
            .map(|b| format!("[{}] {}\n\n", b.index, b.text.trim()))
            .collect();
        let user = format!("{passages}Question: {}", gr.question);
        let sys_b = "Answer the question using only the passages below. Write one to three short sentences. End each sentence with the number of the passage it comes from in brackets, like [1].";
        match variant.as_str() {
            "b" => r.messages = vec![ChatMessage::system(sys_b), ChatMessage::user(user)],
            "c" => r.messages = vec![
                ChatMessage::system(sys_b),
                ChatMessage::user("[1] The Eiffel Tower is 330 metres tall. It was built in 1889 for the World's Fair.\n\n[2] Paris is the capital of France.\n\nQuestion: When was the Eiffel Tower built?"),
                ChatMessage::assistant("The Eiffel Tower was built in 1889 for the World's Fair [1]."),
                ChatMessage::user(user)],
            "e" => r.messages = vec![ChatMessage::system("Answer the question with one to three sentences copied from the passages below. End each sentence with the number of its passage in brackets, like [1]."), ChatMessage::user(user)],
            "q" => r.messages = vec![ChatMessage::system(sys_b), ChatMessage::user(format!("Question: {}\n\n{passages}Question: {}", gr.question, gr.question))],
            _ => {}
        }
        let ptoks = g.prompt_tokens(&r.messages).unwrap().len();
        let t0 = Instant::now();
        let (text, ttft, err) = rt.block_on(async {
            let mut s = g.stream(&r).await.unwrap();
            let mut text = String::new();
            let mut ttft = None;
            let mut err = None;
            while let Some(d) = s.next().await {
                match d {
                    Ok(d) => {
                        if ttft.is_none() {
                            ttft = Some(t0.elapsed());
                        }
                        text.push_str(&d);
                    }
                    Err(e) => {
                        err = Some(e.to_string());
                        break;
                    }
                }
            }
            (text, ttft, err)
        });
        let total = t0.elapsed();
        let gtoks = g.tokenize(&text).unwrap().len();
        println!("=== Q: {}\nprompt {ptoks} tok, ttft {:.0} ms, gen {gtoks} tok, total {:.0} ms, err {:?}\n{}\n",
            r.grounding.as_ref().unwrap().question, ttft.map_or(0.0, |t| t.as_secs_f64()*1000.0), total.as_secs_f64()*1000.0, err, text);
    }
}
