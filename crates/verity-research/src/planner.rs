//! The LLM planner: asks the configured [`Generator`] for a plan in the
//! documented XML schema, validates it with the plan evaluator, and sends
//! the problems back for a bounded number of attempts. The pipeline falls
//! back to the deterministic planner when every attempt fails.

use verity_core::{ChatMessage, ChatRequest, GenerationParams, Generator};

use crate::brief::Brief;
use crate::error::ResearchError;
use crate::plan::{validate, Plan};
use crate::syllabus::Syllabus;

const SCHEMA: &str = r##"Answer with one XML document and nothing else:
<plan>
  <task id="E1" agent="Documentalist"><arg name="name">internal_file.md</arg></task>
  <task id="E2" agent="Documentalist"><arg name="url">https://…</arg><arg name="title">…</arg></task>
  <task id="E3" agent="FileSearch" theme="T1"><arg name="query">…</arg><arg name="files">#E1 #E2</arg></task>
  <task id="E4" agent="WebSearch" theme="T2"><arg name="query">…</arg><arg name="url">https://… (optional)</arg></task>
  <task id="E5" agent="Writer"><arg name="inputs">#E3 #E4</arg></task>
</plan>
Rules: ids are E1, E2, … and unique; agents are Documentalist, FileSearch, WebSearch, Writer;
`#E{n}` in an argument is replaced by the output of task E{n}, which must exist and must not
depend back on the task; every theme id of the brief is served by at least one FileSearch or
WebSearch task (attribute theme); exactly one Writer task, last."##;

/// Ask `generator` for a plan (at most `max_tokens` per answer), up to
/// `attempts` times; every answer is
/// parsed and evaluated, and the problems found are sent back.
/// Returns the plan and the problems of the rejected attempts.
pub async fn llm_plan(
    generator: &dyn Generator,
    syllabus: &Syllabus,
    brief: &Brief,
    attempts: usize,
    max_tokens: u32,
) -> std::result::Result<(Plan, Vec<String>), Vec<String>> {
    let mut context = format!("{}\n\n", brief.to_markdown());
    if !syllabus.internal_files.is_empty() {
        context.push_str(&format!(
            "Internal files (knowledge base): {}\n",
            syllabus.internal_files.join(", ")
        ));
    }
    for r in &syllabus.references {
        context.push_str(&format!(
            "Long-term reference (download with Documentalist): {}{}\n",
            r.url,
            r.title
                .as_ref()
                .map(|t| format!(" \"{t}\""))
                .unwrap_or_default()
        ));
    }
    for e in &syllabus.ephemeral {
        context.push_str(&format!(
            "Ephemeral URL for theme {} (WebSearch only): {}\n",
            e.theme.as_deref().unwrap_or("?"),
            e.url
        ));
    }
    let mut messages = vec![
        ChatMessage::system(format!(
            "You are the LeadResearcher. Plan the research of the syllabus below in the ReWOO \
             style.\n{SCHEMA}"
        )),
        ChatMessage::user(context),
    ];
    let mut problems = Vec::new();
    for attempt in 1..=attempts.max(1) {
        let mut req = ChatRequest::new(messages.clone());
        req.params = GenerationParams {
            temperature: 0.0,
            max_tokens,
            ..GenerationParams::default()
        };
        let answer = match generator.generate(&req).await {
            Ok(g) => g.text,
            Err(e) => {
                problems.push(format!("attempt {attempt}: generator failed: {e}"));
                if !e.is_transient() {
                    break;
                }
                continue;
            }
        };
        let checked = Plan::from_xml(&answer).and_then(|p| validate(&p, brief).map(|_| p));
        match checked {
            Ok(p) => return Ok((p, problems)),
            Err(e) => {
                let msg = match e {
                    ResearchError::InvalidPlan(m) => m,
                    other => other.to_string(),
                };
                problems.push(format!("attempt {attempt}: {msg}"));
                messages.push(ChatMessage::assistant(answer));
                messages.push(ChatMessage::user(format!(
                    "The plan is invalid: {msg}. Answer with the corrected XML plan only."
                )));
            }
        }
    }
    Err(problems)
}
