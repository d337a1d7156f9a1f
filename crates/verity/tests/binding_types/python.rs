//! The Python stub section: `Literal` aliases, keyword `TypedDict`s and the
//! read-only result classes.

use serde_json::Value;

use super::schema::{description, Defs, Ty};
use super::{PY_KWARG_TYPES, PY_MEMBERS, PY_POSITIONAL};

pub(super) fn py(t: &Ty) -> String {
    match t {
        Ty::Str => "str".into(),
        Ty::Int => "int".into(),
        Ty::Float => "float".into(),
        Ty::Bool => "bool".into(),
        Ty::Any => "Any".into(),
        Ty::List(t) => format!("list[{}]", py(t)),
        Ty::Tuple(ts) => format!(
            "tuple[{}]",
            ts.iter().map(py).collect::<Vec<_>>().join(", ")
        ),
        Ty::Map(t) => format!("dict[str, {}]", py(t)),
        Ty::Class(n) => n.clone(),
        Ty::Plain(n) => format!("_{n}"),
        Ty::Enum(n) => format!("_{n}"),
        Ty::Lit(vs) => format!(
            "Literal[{}]",
            vs.iter()
                .map(|v| format!("\"{v}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Ty::Object(_) => "dict[str, Any]".into(),
        Ty::Nullable(t) => format!("Optional[{}]", py(t)),
        Ty::Union(ts) => union_py(ts),
    }
}

pub(super) fn union_py(ts: &[Ty]) -> String {
    // Two object shapes are both `dict[str, Any]` here: said once.
    let mut members: Vec<String> = Vec::new();
    for m in ts.iter().map(py) {
        if !members.contains(&m) {
            members.push(m);
        }
    }
    match members.as_slice() {
        [one] => one.clone(),
        _ => format!("Union[{}]", members.join(", ")),
    }
}

/// A keyword argument's type: any sequence for a list, any mapping for an object.
pub(super) fn py_kwarg(t: &Ty) -> String {
    match t {
        Ty::List(t) => format!("Sequence[{}]", py_kwarg(t)),
        Ty::Map(t) => format!("Mapping[str, {}]", py(t)),
        Ty::Object(_) => "Mapping[str, Any]".into(),
        Ty::Class(_) | Ty::Plain(_) => "Mapping[str, Any]".into(),
        Ty::Nullable(t) => py_kwarg(t),
        other => py(other),
    }
}

pub(super) fn py_doc(out: &mut String, indent: &str, doc: &str) {
    let doc = doc.replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"");
    let doc = rst_code(&doc);
    let mut lines = doc.lines();
    let first = lines.next().unwrap_or_default();
    let rest: Vec<&str> = lines.collect();
    if rest.is_empty() {
        let end = if first.ends_with('"') { " " } else { "" };
        out.push_str(&format!("{indent}\"\"\"{first}{end}\"\"\"\n"));
    } else {
        out.push_str(&format!("{indent}\"\"\"{first}\n"));
        for l in rest {
            if l.trim().is_empty() {
                out.push('\n');
            } else {
                out.push_str(&format!("{indent}{l}\n"));
            }
        }
        out.push_str(&format!("{indent}\"\"\"\n"));
    }
}

/// Markdown code spans as reStructuredText literals (`` `x` `` → ``` ``x`` ```).
pub(super) fn rst_code(d: &str) -> String {
    let mut out = String::with_capacity(d.len() + 8);
    let mut rest = d;
    while let Some(start) = rest.find('`') {
        let ticks = rest[start..].chars().take_while(|&c| c == '`').count();
        out.push_str(&rest[..start]);
        let after = &rest[start + ticks..];
        let fence = "`".repeat(ticks);
        match after.find(&fence) {
            Some(end) if ticks == 1 => {
                out.push_str("``");
                out.push_str(&after[..end]);
                out.push_str("``");
                rest = &after[end + 1..];
            }
            _ => {
                out.push_str(&fence);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

pub(super) fn python(
    defs: &mut Defs,
    results: &[(&str, Value)],
    options: &[(&str, Value, &[&str])],
) -> String {
    let mut classes = String::new();
    for (name, schema) in results {
        let fields = defs.fields(schema);
        classes.push_str(&format!("class {name}:\n"));
        if let Some(d) = description(schema) {
            py_doc(&mut classes, "    ", &d);
        }
        for f in &fields {
            classes.push_str("    @property\n");
            match &f.doc {
                Some(d) => {
                    classes.push_str(&format!("    def {}(self) -> {}:\n", f.name, py(&f.ty)));
                    py_doc(&mut classes, "        ", d);
                }
                None => {
                    classes.push_str(&format!("    def {}(self) -> {}: ...\n", f.name, py(&f.ty)))
                }
            }
        }
        match PY_MEMBERS.iter().find(|(n, _)| n == name) {
            Some((_, members)) => classes.push_str(members),
            None => {
                classes.push_str("    def __getitem__(self, key: str) -> Any:\n");
                classes.push_str(
                    "        \"\"\"The field as plain data (``r[\"field\"]``, as when results were dicts).\"\"\"\n",
                );
            }
        }
        classes.push_str("    def to_dict(self) -> dict[str, Any]: ...\n\n");
    }
    // Objects met that are no result class: the binding hands them out as
    // dicts (`to_dict()` data), declared as `TypedDict`s.
    let mut plain = String::new();
    defs.each_object(|defs, n, schema| {
        let fields = defs.fields(schema);
        plain.push_str(&format!("class _{n}(TypedDict):\n"));
        if let Some(d) = description(schema) {
            py_doc(&mut plain, "    ", &d);
        }
        for f in &fields {
            let ty = py(&f.ty);
            let ty = if f.required {
                ty
            } else {
                format!("NotRequired[{ty}]")
            };
            plain.push_str(&format!("    {}: {ty}\n", f.name));
            if let Some(d) = &f.doc {
                py_doc(&mut plain, "    ", d);
            }
        }
        plain.push('\n');
    });
    let mut typed = String::new();
    for (name, schema, positional) in options {
        let fields = defs.fields(schema);
        typed.push_str(&format!("class _{name}(TypedDict, total=False):\n"));
        if let Some(d) = description(schema) {
            py_doc(&mut typed, "    ", &d);
        }
        let py_only = |f: &str| PY_POSITIONAL.contains(&(*name, f));
        for f in fields
            .iter()
            .filter(|f| !positional.contains(&f.name.as_str()) && !py_only(&f.name))
        {
            let ty = PY_KWARG_TYPES
                .iter()
                .find(|(n, _)| *n == f.name)
                .map_or_else(|| py_kwarg(&f.ty), |(_, t)| t.to_string());
            typed.push_str(&format!("    {}: Optional[{ty}]\n", f.name));
            if let Some(d) = &f.doc {
                py_doc(&mut typed, "    ", d);
            }
        }
        typed.push('\n');
    }
    let mut enums = String::new();
    for (name, (values, doc)) in &defs.enums {
        let lits = values
            .iter()
            .map(|v| format!("\"{v}\""))
            .collect::<Vec<_>>()
            .join(", ");
        enums.push_str(&format!("_{name} = Literal[{lits}]\n"));
        if let Some(d) = doc {
            py_doc(&mut enums, "", d);
        }
    }
    format!("{enums}\n{typed}{plain}{classes}")
        .trim_end()
        .to_string()
}
