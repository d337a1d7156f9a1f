//! The TypeScript section: string unions, result interfaces (camelCase keys)
//! and option interfaces.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::schema::{description, Defs, Ty};
use super::USER_DATA;

pub(super) fn camel(k: &str) -> String {
    let mut out = String::with_capacity(k.len());
    let mut upper = false;
    for (i, c) in k.chars().enumerate() {
        if c == '_' && i > 0 {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// `keys_camel`: results are camelCase; request objects nested in a request
/// keep the schema's snake_case (Node converts top-level option names only).
pub(super) fn ts(t: &Ty, defs: &Defs, keys_camel: bool) -> String {
    match t {
        Ty::Str => "string".into(),
        Ty::Int | Ty::Float => "number".into(),
        Ty::Bool => "boolean".into(),
        Ty::Any => "unknown".into(),
        Ty::List(t) => {
            let inner = ts(t, defs, keys_camel);
            if matches!(**t, Ty::Union(_) | Ty::Nullable(_)) {
                format!("Array<{inner}>")
            } else {
                format!("{inner}[]")
            }
        }
        Ty::Tuple(ts_) => format!(
            "[{}]",
            ts_.iter()
                .map(|t| ts(t, defs, keys_camel))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Ty::Map(t) => format!("Record<string, {}>", ts(t, defs, keys_camel)),
        Ty::Class(n) | Ty::Plain(n) if !keys_camel => {
            let schema = defs.schemas[n].clone();
            let mut d = Defs {
                schemas: defs.schemas.clone(),
                classes: BTreeMap::new(),
                displayed: BTreeSet::new(),
                enums: BTreeMap::new(),
                objects: BTreeSet::new(),
            };
            ts(&Ty::Object(d.fields(&schema)), &d, false)
        }
        Ty::Class(n) | Ty::Plain(n) => n.clone(),
        Ty::Enum(n) => n.clone(),
        Ty::Lit(vs) => vs
            .iter()
            .map(|v| format!("'{v}'"))
            .collect::<Vec<_>>()
            .join(" | "),
        Ty::Object(fs) => {
            let body = fs
                .iter()
                .map(|f| {
                    let key = if keys_camel {
                        camel(&f.name)
                    } else {
                        f.name.clone()
                    };
                    let opt = if f.required { "" } else { "?" };
                    format!("{key}{opt}: {}", ts(&f.ty, defs, keys_camel))
                })
                .collect::<Vec<_>>()
                .join("; ");
            if body.is_empty() {
                "Record<string, never>".into()
            } else {
                format!("{{ {body} }}")
            }
        }
        Ty::Nullable(t) => format!("{} | null", ts(t, defs, keys_camel)),
        Ty::Union(ts_) => ts_
            .iter()
            .map(|t| ts(t, defs, keys_camel))
            .collect::<Vec<_>>()
            .join(" | "),
    }
}

pub(super) fn ts_doc(out: &mut String, indent: &str, doc: &str) {
    let doc = doc.replace("*/", "*\\/");
    let lines: Vec<&str> = doc.lines().collect();
    if lines.len() == 1 {
        out.push_str(&format!("{indent}/** {} */\n", lines[0]));
    } else {
        out.push_str(&format!("{indent}/**\n"));
        for l in lines {
            if l.trim().is_empty() {
                out.push_str(&format!("{indent} *\n"));
            } else {
                out.push_str(&format!("{indent} * {l}\n"));
            }
        }
        out.push_str(&format!("{indent} */\n"));
    }
}

pub(super) fn ts_interface(
    out: &mut String,
    defs: &mut Defs,
    name: &str,
    schema: &Value,
    skip: &[&str],
    camel_keys: bool,
) {
    let fields = defs.fields(schema);
    if let Some(d) = description(schema) {
        ts_doc(out, "", &d);
    }
    out.push_str(&format!("export interface {name} {{\n"));
    for f in fields.iter().filter(|f| !skip.contains(&f.name.as_str())) {
        if camel_keys && USER_DATA.contains(&f.name.as_str()) {
            let mut named = BTreeSet::new();
            f.ty.names(&mut named);
            assert!(
                named.is_empty() && !matches!(f.ty, Ty::Object(_)),
                "`{name}.{}` holds a typed object under a user-data key, whose keys Node leaves in snake_case",
                f.name
            );
        }
        if let Some(d) = &f.doc {
            ts_doc(out, "  ", d);
        }
        // Top-level keys are camelCase (Node converts option names); objects
        // nested in a request keep the schema's snake_case keys.
        let key = camel(&f.name);
        let (opt, ty) = match (&f.ty, f.required) {
            (_, true) => ("", f.ty.clone()),
            // A result field that may be absent is skipped when `None`:
            // absent, never `null`.
            (Ty::Nullable(t), false) if camel_keys => ("?", (**t).clone()),
            (t, false) => ("?", t.clone()),
        };
        out.push_str(&format!("  {key}{opt}: {}\n", ts(&ty, defs, camel_keys)));
    }
    out.push_str("}\n\n");
}

pub(super) fn typescript(
    defs: &mut Defs,
    results: &[(&str, Value)],
    options: &[(&str, Value, &[&str])],
) -> String {
    let mut body = String::new();
    for (name, schema) in results {
        ts_interface(&mut body, defs, name, schema, &[], true);
    }
    // Objects met that are no result: declared too.
    defs.each_object(|defs, n, schema| ts_interface(&mut body, defs, n, schema, &[], true));
    for (name, schema, positional) in options {
        ts_interface(&mut body, defs, name, schema, positional, false);
    }
    tool_results(&mut body, defs);
    let mut enums = String::new();
    for (name, (values, doc)) in &defs.enums {
        if let Some(d) = doc {
            ts_doc(&mut enums, "", d);
        }
        let lits = values
            .iter()
            .map(|v| format!("'{v}'"))
            .collect::<Vec<_>>()
            .join(" | ");
        enums.push_str(&format!("export type {name} = {lits}\n"));
    }
    format!("{enums}\n{body}").trim_end().to_string()
}

/// `ToolResults`: what `callTool` resolves to per registry tool, each tool's
/// response type by the name the results above declare it under.
fn tool_results(out: &mut String, defs: &Defs) {
    use verity::tools::{ToolOptions, ToolRegistry};
    ts_doc(
        out,
        "",
        "What `callTool` resolves to, per registry tool: the same camelCase types\n\
         as the methods doing the same thing (`watch`, `projects`, `check`,\n\
         `research`, `fetch`, …), and the tool's own response where it differs.",
    );
    out.push_str("export interface ToolResults {\n");
    for tool in ToolRegistry::builtin(&ToolOptions::default()).tools() {
        let title = tool.output_schema()["title"].as_str().unwrap_or_default();
        let binding = defs.classes.get(title).unwrap_or_else(|| {
            panic!(
                "tool `{}` answers `{title}`, which no TypeScript result declares: list it in results() or ts_results()",
                tool.name()
            )
        });
        out.push_str(&format!("  {}: {binding}\n", tool.name()));
    }
    out.push_str("}\n\n");
}
