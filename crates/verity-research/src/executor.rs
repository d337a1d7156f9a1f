//! The executor: substitutes `#E{n}`, runs tasks whose inputs are ready
//! concurrently (wave by wave), and records every task in the trace.
//!
//! A failing task does not stop the run: it is recorded as `failed`, its
//! variable is empty for the tasks that use it, and the report says what
//! is missing. Tasks caught in a cycle or naming an unknown agent are
//! recorded as `skipped`.

use std::collections::HashMap;
use std::time::Instant;

use crate::agents::Agents;
use crate::error::Result;
use crate::plan::{var_re, Agent, Plan, Task};
use crate::trace::{TaskStatus, TraceRecord, TraceWriter};

/// Replace every `#E{n}` in `value` with that task's output (empty when
/// the task failed or does not exist).
pub fn substitute(value: &str, done: &HashMap<String, TraceRecord>) -> String {
    var_re()
        .replace_all(value, |c: &regex::Captures<'_>| {
            done.get(&format!("E{}", &c[1]))
                .filter(|r| r.status == TaskStatus::Ok)
                .map(|r| r.output.clone())
                .unwrap_or_default()
        })
        .into_owned()
}

/// Run every non-Writer task of `plan` not already in `done`, appending
/// to `trace`; returns the records of the tasks run, in completion order.
pub async fn execute(
    plan: &Plan,
    agents: &Agents,
    done: &mut HashMap<String, TraceRecord>,
    trace: &TraceWriter,
    run_start: Instant,
    progress: &(dyn Fn(&TraceRecord) + Send + Sync),
) -> Result<Vec<TraceRecord>> {
    let ids: Vec<&str> = plan.tasks.iter().map(|t| t.id.as_str()).collect();
    let mut pending: Vec<&Task> = plan
        .tasks
        .iter()
        .filter(|t| !done.contains_key(&t.id) && Agent::parse(&t.agent) != Some(Agent::Writer))
        .collect();
    let mut ran = Vec::new();
    while !pending.is_empty() {
        // Ready: every dependency that exists in the plan is done.
        let (ready, wait): (Vec<&Task>, Vec<&Task>) = pending.into_iter().partition(|t| {
            t.deps()
                .iter()
                .all(|d| done.contains_key(d) || !ids.contains(&d.as_str()))
        });
        if ready.is_empty() {
            for t in wait {
                let r = skipped(t, "depends on a cycle of tasks", run_start);
                trace.append(&r)?;
                progress(&r);
                done.insert(t.id.clone(), r.clone());
                ran.push(r);
            }
            break;
        }
        let jobs = ready.iter().map(|t| {
            let input: Vec<(String, String)> = t
                .args
                .iter()
                .map(|(k, v)| (k.clone(), substitute(v, done)))
                .collect();
            let missing: Vec<String> = t
                .deps()
                .into_iter()
                .filter(|d| !ids.contains(&d.as_str()))
                .collect();
            async move {
                let started = Instant::now();
                let started_ms = started.duration_since(run_start).as_millis() as u64;
                let out = agents.run(t, &input).await;
                let elapsed_ms = started.elapsed().as_millis() as u64;
                let mut r = TraceRecord {
                    task: t.id.clone(),
                    agent: t.agent.clone(),
                    theme: t.theme.clone(),
                    args: t.args.clone(),
                    input,
                    status: TaskStatus::Ok,
                    error: None,
                    output: String::new(),
                    excerpts: Vec::new(),
                    sources: Vec::new(),
                    started_ms,
                    elapsed_ms,
                };
                match out {
                    Ok(o) => {
                        r.output = o.output;
                        r.excerpts = o.excerpts;
                        r.sources = o.sources;
                        if !missing.is_empty() {
                            r.error = Some(format!(
                                "references {} which no task defines (substituted by nothing)",
                                missing
                                    .iter()
                                    .map(|m| format!("#{m}"))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ));
                        }
                    }
                    Err(e) => {
                        r.status = TaskStatus::Failed;
                        r.error = Some(format!("{} ({})", e, e.code()));
                    }
                }
                r
            }
        });
        for r in futures::future::join_all(jobs).await {
            trace.append(&r)?;
            progress(&r);
            done.insert(r.task.clone(), r.clone());
            ran.push(r);
        }
        pending = wait;
    }
    Ok(ran)
}

fn skipped(t: &Task, why: &str, run_start: Instant) -> TraceRecord {
    TraceRecord {
        task: t.id.clone(),
        agent: t.agent.clone(),
        theme: t.theme.clone(),
        args: t.args.clone(),
        input: Vec::new(),
        status: TaskStatus::Skipped,
        error: Some(why.to_string()),
        output: String::new(),
        excerpts: Vec::new(),
        sources: Vec::new(),
        started_ms: run_start.elapsed().as_millis() as u64,
        elapsed_ms: 0,
    }
}
