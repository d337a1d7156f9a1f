//! The execution plan (ReWOO style, XML), its parser, the deterministic
//! planner and the plan evaluator.
//!
//! # Schema
//!
//! ```xml
//! <plan>
//!   <task id="E1" agent="Documentalist">
//!     <arg name="name">Prompt_Engineering_for_Developers.txt</arg>
//!   </task>
//!   <task id="E2" agent="Documentalist">
//!     <arg name="url">https://huyenchip.com/2025/01/07/agents.html</arg>
//!     <arg name="title">Agents by Chip Huyen</arg>
//!     <arg name="keywords">Agents, Planning</arg>
//!   </task>
//!   <task id="E3" agent="FileSearch" theme="T1">
//!     <arg name="query">Prompt engineering few-shot</arg>
//!     <arg name="files">#E1 #E2</arg>
//!   </task>
//!   <task id="E4" agent="WebSearch" theme="T2">
//!     <arg name="query">Key takeaways on multi-agent orchestration</arg>
//!     <arg name="url">https://blog.langchain.com/exa/</arg>
//!   </task>
//!   <task id="E5" agent="Writer">
//!     <arg name="inputs">#E3 #E4</arg>
//!   </task>
//! </plan>
//! ```
//!
//! - `id` is `E{n}`; each task yields the variable `#E{n}`.
//! - `agent` is one of `Documentalist`, `FileSearch`, `WebSearch`, `Writer`.
//! - `theme` (optional) is the brief theme (`T{n}`) a search serves.
//! - an `arg` value may contain `#E{n}`: the executor substitutes the
//!   output of task `E{n}` before running the task, which therefore runs
//!   after it. Tasks with no such link run concurrently.
//!
//! Arguments per agent: Documentalist `name` (internal file) or `url`
//! (+ `title`, `description`, `keywords`); FileSearch `query` (+ `files`,
//! `k`, `topic`: the topic of the theme it serves); WebSearch `query`
//! (+ `url`); Writer `inputs` (documents the
//! chaining: the writer reads every successful search of the run, including
//! those a re-plan adds).

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::brief::Brief;
use crate::error::{ResearchError, Result};
use crate::syllabus::Syllabus;

/// The sub-agents a plan may call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Agent {
    /// Knowledge base: find, download, convert, index.
    Documentalist,
    /// Retrieval over the store.
    FileSearch,
    /// Web lookup (a given URL, or a web search).
    WebSearch,
    /// Writes the note.
    Writer,
}

impl Agent {
    /// Parse a plan's agent name (case-insensitive, `…Agent` suffix allowed).
    pub fn parse(s: &str) -> Option<Agent> {
        let s = s.trim().to_ascii_lowercase();
        let s = s.strip_suffix("agent").unwrap_or(&s);
        match s {
            "documentalist" => Some(Agent::Documentalist),
            "filesearch" => Some(Agent::FileSearch),
            "websearch" => Some(Agent::WebSearch),
            "writer" => Some(Agent::Writer),
            _ => None,
        }
    }

    /// Name written in plans.
    pub fn as_str(self) -> &'static str {
        match self {
            Agent::Documentalist => "Documentalist",
            Agent::FileSearch => "FileSearch",
            Agent::WebSearch => "WebSearch",
            Agent::Writer => "Writer",
        }
    }
}

/// One task of the plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// `E{n}`.
    pub id: String,
    /// Agent name as written (checked by the evaluator).
    pub agent: String,
    /// Brief theme served, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    /// Arguments, in order.
    pub args: Vec<(String, String)>,
}

impl Task {
    /// The argument `name`, if given.
    pub fn arg(&self, name: &str) -> Option<&str> {
        self.args
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Task ids this task's arguments reference (`#E{n}`), in order.
    pub fn deps(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (_, v) in &self.args {
            for c in var_re().captures_iter(v) {
                let id = format!("E{}", &c[1]);
                if !out.contains(&id) {
                    out.push(id);
                }
            }
        }
        out
    }
}

/// A plan: tasks in order.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Plan {
    /// Tasks.
    pub tasks: Vec<Task>,
}

/// `#E{n}` references.
pub fn var_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"#E(\d+)\b").unwrap_or_else(|_| bad_regex()))
}

fn task_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?s)<task\b([^>]*?)(?:/>|>(.*?)</task\s*>)").unwrap_or_else(|_| bad_regex())
    })
}

fn attr_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"([A-Za-z_][\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')"#)
            .unwrap_or_else(|_| bad_regex())
    })
}

fn arg_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"(?s)<arg\b([^>]*)>(.*?)</arg\s*>"#).unwrap_or_else(|_| bad_regex())
    })
}

#[allow(clippy::panic)]
fn bad_regex() -> Regex {
    panic!("constant regex failed to compile")
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

impl Plan {
    /// Parse the XML of a plan. Text around the `<plan>` element (an LLM's
    /// preamble, a code fence) is ignored; a missing element, a task
    /// without `id` or `agent`, or no task at all is an error.
    pub fn from_xml(xml: &str) -> Result<Plan> {
        let bad = |m: &str| ResearchError::InvalidPlan(m.to_string());
        let start = xml.find("<plan").ok_or_else(|| bad("no <plan> element"))?;
        let end = xml[start..]
            .find("</plan>")
            .map(|e| start + e)
            .ok_or_else(|| bad("<plan> is not closed"))?;
        let body = &xml[start..end];
        let mut tasks = Vec::new();
        for c in task_re().captures_iter(body) {
            let attrs: HashMap<String, String> = attr_re()
                .captures_iter(&c[1])
                .map(|a| {
                    let v = a.get(2).or(a.get(3)).map_or("", |m| m.as_str());
                    (a[1].to_ascii_lowercase(), unescape(v))
                })
                .collect();
            let id = attrs
                .get("id")
                .cloned()
                .ok_or_else(|| bad("a task has no id"))?;
            let agent = attrs
                .get("agent")
                .cloned()
                .ok_or_else(|| bad(&format!("task {id} has no agent")))?;
            let mut args = Vec::new();
            if let Some(inner) = c.get(2) {
                for a in arg_re().captures_iter(inner.as_str()) {
                    let name = attr_re()
                        .captures_iter(&a[1])
                        .find(|x| x[1].eq_ignore_ascii_case("name"))
                        .and_then(|x| x.get(2).or(x.get(3)).map(|m| m.as_str().to_string()))
                        .ok_or_else(|| bad(&format!("task {id}: an arg has no name")))?;
                    args.push((name, unescape(a[2].trim())));
                }
            }
            tasks.push(Task {
                id: id.trim().to_string(),
                agent,
                theme: attrs.get("theme").cloned().filter(|t| !t.is_empty()),
                args,
            });
        }
        if tasks.is_empty() {
            return Err(bad("the plan has no task"));
        }
        Ok(Plan { tasks })
    }

    /// The plan as XML (the schema above).
    pub fn to_xml(&self) -> String {
        let mut x = String::from("<plan>\n");
        for t in &self.tasks {
            x.push_str(&format!(
                "  <task id=\"{}\" agent=\"{}\"",
                escape(&t.id),
                escape(&t.agent)
            ));
            if let Some(th) = &t.theme {
                x.push_str(&format!(" theme=\"{}\"", escape(th)));
            }
            x.push_str(">\n");
            for (k, v) in &t.args {
                x.push_str(&format!(
                    "    <arg name=\"{}\">{}</arg>\n",
                    escape(k),
                    escape(v)
                ));
            }
            x.push_str("  </task>\n");
        }
        x.push_str("</plan>\n");
        x
    }

    /// The ReWOO one-line form (`#E3 = FileSearch[query="…", files=#E1]`), for display.
    pub fn to_rewoo(&self) -> String {
        self.tasks
            .iter()
            .map(|t| {
                let args: Vec<String> = t
                    .args
                    .iter()
                    .map(|(k, v)| {
                        if v.starts_with("#E") && !v.contains(' ') {
                            format!("{k}={v}")
                        } else {
                            format!("{k}={v:?}")
                        }
                    })
                    .collect();
                format!("#{} = {}[{}]", t.id, t.agent, args.join(", "))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The task with id `id`.
    pub fn task(&self, id: &str) -> Option<&Task> {
        self.tasks.iter().find(|t| t.id == id)
    }

    /// Next free task number.
    pub fn next_n(&self) -> usize {
        self.tasks
            .iter()
            .filter_map(|t| t.id.strip_prefix('E').and_then(|n| n.parse::<usize>().ok()))
            .max()
            .map_or(1, |n| n + 1)
    }
}

/// Passages per topic search (the theme's own search takes the pipeline's `k`).
const TOPIC_K: usize = 4;

/// The deterministic planner: one Documentalist task per internal file and
/// per long-term reference, one FileSearch per theme (after every
/// Documentalist task, whose file names it receives) and one per topic of a
/// theme with several (restricted to the references treating it), one
/// WebSearch per ephemeral URL, one Writer over every search.
pub fn deterministic_plan(syllabus: &Syllabus, brief: &Brief) -> Plan {
    let mut tasks = Vec::new();
    let mut n = 1;
    let mut next = || {
        let id = format!("E{n}");
        n += 1;
        id
    };
    let mut docs = Vec::new();
    for f in &syllabus.internal_files {
        let id = next();
        docs.push(format!("#{id}"));
        tasks.push(Task {
            id,
            agent: Agent::Documentalist.as_str().into(),
            theme: None,
            args: vec![("name".into(), f.clone())],
        });
    }
    for r in &syllabus.references {
        let id = next();
        docs.push(format!("#{id}"));
        let mut args = vec![("url".into(), r.url.clone())];
        if let Some(t) = &r.title {
            args.push(("title".into(), t.clone()));
        }
        if let Some(d) = &r.description {
            args.push(("description".into(), d.clone()));
        }
        if !r.keywords.is_empty() {
            args.push(("keywords".into(), r.keywords.join(", ")));
        }
        tasks.push(Task {
            id,
            agent: Agent::Documentalist.as_str().into(),
            theme: None,
            args,
        });
    }
    // The Documentalist task of each reference, to restrict a topic's search.
    let doc_of: HashMap<String, String> = tasks
        .iter()
        .filter_map(|t: &Task| {
            let key = t.arg("url").or_else(|| t.arg("name"))?;
            Some((key.to_string(), format!("#{}", t.id)))
        })
        .collect();
    let mut searches = Vec::new();
    for t in &brief.themes {
        let id = next();
        searches.push(format!("#{id}"));
        let mut args = vec![("query".into(), t.query())];
        if !docs.is_empty() {
            args.push(("files".into(), docs.join(" ")));
        }
        tasks.push(Task {
            id,
            agent: Agent::FileSearch.as_str().into(),
            theme: Some(t.id.clone()),
            args,
        });
        // A query per topic when the module has several, restricted to the
        // references that treat it (all of them when none does).
        if t.topics.len() < 2 {
            continue;
        }
        for topic in &t.topics {
            let id = next();
            searches.push(format!("#{id}"));
            let own: Vec<String> = topic
                .references
                .iter()
                .filter_map(|r| doc_of.get(r).cloned())
                .collect();
            let files = if own.is_empty() { docs.clone() } else { own };
            let mut args = vec![
                ("query".into(), topic.query.clone()),
                ("topic".into(), topic.label.clone()),
                ("k".into(), TOPIC_K.to_string()),
            ];
            if !files.is_empty() {
                args.push(("files".into(), files.join(" ")));
            }
            tasks.push(Task {
                id,
                agent: Agent::FileSearch.as_str().into(),
                theme: Some(t.id.clone()),
                args,
            });
        }
    }
    for e in &syllabus.ephemeral {
        let id = next();
        searches.push(format!("#{id}"));
        let theme = e.theme.as_deref().and_then(|t| brief.theme(t));
        // The link text and the theme's own query pick the page's passages.
        let query = [e.title.clone(), theme.map(|t| t.query())]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
        let query = if query.trim().is_empty() {
            e.url.clone()
        } else {
            query
        };
        tasks.push(Task {
            id,
            agent: Agent::WebSearch.as_str().into(),
            theme: e.theme.clone(),
            args: vec![("query".into(), query), ("url".into(), e.url.clone())],
        });
    }
    tasks.push(Task {
        id: next(),
        agent: Agent::Writer.as_str().into(),
        theme: None,
        args: vec![("inputs".into(), searches.join(" "))],
    });
    Plan { tasks }
}

/// The plan evaluator: ids well formed and unique, agents known, every
/// `#E{n}` defined, no cycle, one Writer, every brief theme served by a
/// FileSearch or WebSearch task. Returns every problem found.
pub fn evaluate(plan: &Plan, brief: &Brief) -> Vec<String> {
    let mut issues = Vec::new();
    let mut ids = HashSet::new();
    for t in &plan.tasks {
        let well_formed =
            t.id.strip_prefix('E')
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if !well_formed {
            issues.push(format!("task id `{}` is not of the form E{{n}}", t.id));
        }
        if !ids.insert(t.id.clone()) {
            issues.push(format!("task id {} is used twice", t.id));
        }
        if Agent::parse(&t.agent).is_none() {
            issues.push(format!("task {}: unknown agent `{}`", t.id, t.agent));
        }
    }
    for t in &plan.tasks {
        for d in t.deps() {
            if !ids.contains(&d) {
                issues.push(format!(
                    "task {} references #{d}, which no task defines",
                    t.id
                ));
            } else if d == t.id {
                issues.push(format!("task {} references itself", t.id));
            }
        }
        if let Some(th) = &t.theme {
            if brief.theme(th).is_none() {
                issues.push(format!("task {}: unknown theme {th}", t.id));
            }
        }
        let needs = match Agent::parse(&t.agent) {
            Some(Agent::Documentalist) if t.arg("name").is_none() && t.arg("url").is_none() => {
                Some("a `name` or `url`")
            }
            Some(Agent::FileSearch) | Some(Agent::WebSearch) if t.arg("query").is_none() => {
                Some("a `query`")
            }
            _ => None,
        };
        if let Some(n) = needs {
            issues.push(format!("task {} ({}) needs {n}", t.id, t.agent));
        }
    }
    if let Some(cycle) = find_cycle(plan) {
        issues.push(format!("the plan has a cycle: {}", cycle.join(" → ")));
    }
    let writers = plan
        .tasks
        .iter()
        .filter(|t| Agent::parse(&t.agent) == Some(Agent::Writer))
        .count();
    if writers != 1 {
        issues.push(format!(
            "the plan needs exactly one Writer task, it has {writers}"
        ));
    }
    for th in &brief.themes {
        let served = plan.tasks.iter().any(|t| {
            t.theme.as_deref() == Some(th.id.as_str())
                && matches!(
                    Agent::parse(&t.agent),
                    Some(Agent::FileSearch | Agent::WebSearch)
                )
        });
        if !served {
            issues.push(format!(
                "theme {} ({}) is served by no search task",
                th.id, th.title
            ));
        }
    }
    issues
}

/// Evaluate and turn problems into [`ResearchError::InvalidPlan`].
pub fn validate(plan: &Plan, brief: &Brief) -> Result<()> {
    let issues = evaluate(plan, brief);
    if issues.is_empty() {
        Ok(())
    } else {
        Err(ResearchError::InvalidPlan(issues.join("; ")))
    }
}

/// A dependency cycle, as task ids, if any.
pub fn find_cycle(plan: &Plan) -> Option<Vec<String>> {
    let deps: HashMap<&str, Vec<String>> = plan
        .tasks
        .iter()
        .map(|t| (t.id.as_str(), t.deps()))
        .collect();
    // 0 = unseen, 1 = on the stack, 2 = done.
    let mut state: HashMap<String, u8> = HashMap::new();
    fn visit(
        id: &str,
        deps: &HashMap<&str, Vec<String>>,
        state: &mut HashMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(id) {
            Some(2) => return None,
            Some(1) => {
                let from = stack.iter().position(|s| s == id).unwrap_or(0);
                let mut c = stack[from..].to_vec();
                c.push(id.to_string());
                return Some(c);
            }
            _ => {}
        }
        state.insert(id.to_string(), 1);
        stack.push(id.to_string());
        for d in deps.get(id).into_iter().flatten() {
            if deps.contains_key(d.as_str()) {
                if let Some(c) = visit(d, deps, state, stack) {
                    return Some(c);
                }
            }
        }
        stack.pop();
        state.insert(id.to_string(), 2);
        None
    }
    for t in &plan.tasks {
        let mut stack = Vec::new();
        if let Some(c) = visit(&t.id, &deps, &mut state, &mut stack) {
            return Some(c);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const SYL: &str =
        "# C\n\n## Prompts\n\nSee `ab.md` and [x](http://h/x).\n\n## Agents\n\nText.\n\n\
        ## References\n\n- [Doc](http://h/doc) Keywords: k1, k2\n";

    fn fixture() -> (Syllabus, Brief) {
        let s = Syllabus::parse_markdown(SYL).unwrap();
        let b = Brief::from_syllabus(&s);
        (s, b)
    }

    #[test]
    fn deterministic_plan_round_trips_and_is_valid() {
        let (s, b) = fixture();
        let p = deterministic_plan(&s, &b);
        assert_eq!(evaluate(&p, &b), Vec::<String>::new());
        let back = Plan::from_xml(&format!("Here:\n```xml\n{}```", p.to_xml())).unwrap();
        assert_eq!(back, p);
        assert_eq!(p.task("E3").unwrap().deps(), vec!["E1", "E2"]);
        assert!(p.to_rewoo().contains("#E3 = FileSearch["));
    }

    #[test]
    fn evaluator_finds_cycles_dangling_refs_unknown_agents_and_gaps() {
        let (_, b) = fixture();
        let xml = r##"<plan>
          <task id="E1" agent="FileSearch" theme="T1"><arg name="query">q #E2</arg></task>
          <task id="E2" agent="FileSearch" theme="T1"><arg name="query">q #E1</arg></task>
          <task id="E3" agent="Oracle"><arg name="query">x #E9</arg></task>
          <task id="E4" agent="Writer"><arg name="inputs">#E1</arg></task>
        </plan>"##;
        let p = Plan::from_xml(xml).unwrap();
        let issues = evaluate(&p, &b).join("\n");
        assert!(issues.contains("cycle"), "{issues}");
        assert!(issues.contains("#E9"), "{issues}");
        assert!(issues.contains("unknown agent `Oracle`"), "{issues}");
        assert!(issues.contains("theme T2"), "{issues}");
        assert_eq!(validate(&p, &b).unwrap_err().code(), "invalid_plan");
    }

    #[test]
    fn malformed_xml_is_a_typed_error() {
        for bad in [
            "no xml",
            "<plan>",
            "<plan></plan>",
            "<plan><task agent=\"Writer\"/></plan>",
        ] {
            assert_eq!(
                Plan::from_xml(bad).unwrap_err().code(),
                "invalid_plan",
                "{bad}"
            );
        }
    }
}
