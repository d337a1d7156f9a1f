//! JSON schemas reduced to what a type declaration needs ([`Ty`]), and the
//! definitions met on the way ([`Defs`]).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// A schema reduced to what a type declaration needs.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Ty {
    Str,
    Int,
    Float,
    Bool,
    Any,
    List(Box<Ty>),
    Tuple(Vec<Ty>),
    Map(Box<Ty>),
    /// A result class (Python) / interface (TypeScript), by its binding name.
    Class(String),
    /// An object definition that is no result class: plain data in Python
    /// (a `TypedDict`), an interface in TypeScript.
    Plain(String),
    /// A string enumeration, by its alias name.
    Enum(String),
    /// String values of an enumeration with no name of its own.
    Lit(Vec<String>),
    /// An object with no name of its own (inline in TypeScript).
    Object(Vec<Field>),
    Nullable(Box<Ty>),
    Union(Vec<Ty>),
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Field {
    pub(super) name: String,
    pub(super) ty: Ty,
    pub(super) required: bool,
    pub(super) doc: Option<String>,
}

/// Every definition met, by its schema name, and what it becomes.
pub(super) struct Defs {
    pub(super) schemas: BTreeMap<String, Value>,
    /// Schema name → binding name of the result classes.
    pub(super) classes: BTreeMap<String, String>,
    /// Definitions the binding shows as their display string.
    pub(super) displayed: BTreeSet<String>,
    /// Enumerations met: alias name → values (and their docs).
    pub(super) enums: BTreeMap<String, (Vec<String>, Option<String>)>,
    /// Object definitions met that are not classes (TypeScript declares them).
    pub(super) objects: BTreeSet<String>,
}

impl Defs {
    pub(super) fn new(
        roots: &[(&str, Value)],
        options: &[(&str, Value, &[&str])],
        displayed: &[&str],
    ) -> Self {
        let mut schemas = BTreeMap::new();
        let mut classes = BTreeMap::new();
        let all = roots
            .iter()
            .map(|(n, s)| (*n, s))
            .chain(options.iter().map(|(n, s, _)| (*n, s)));
        for (name, schema) in all {
            for (k, v) in schema
                .get("$defs")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let is_result = roots.iter().any(|(n, _)| *n == name);
                match schemas.get(k) {
                    // Request schemas (deserialized) may differ from the
                    // serialized one of the same type in `required` only.
                    Some(_) if !is_result => {}
                    Some(old) => assert_eq!(old, v, "two api types are both named `{k}`"),
                    None => {
                        schemas.insert(k.clone(), v.clone());
                    }
                }
            }
            let title = schema["title"].as_str().unwrap().to_string();
            if roots.iter().any(|(n, _)| *n == name) {
                let mut own = schema.clone();
                for key in ["$defs", "$schema", "title"] {
                    own.as_object_mut().unwrap().remove(key);
                }
                if let Some(old) = schemas.insert(title.clone(), own.clone()) {
                    assert_eq!(old, own, "two api types are both named `{title}`");
                }
                assert!(
                    classes.insert(title.clone(), name.to_string()).is_none(),
                    "api type `{title}` is listed twice"
                );
            }
        }
        Self {
            schemas,
            classes,
            displayed: displayed.iter().map(|d| d.to_string()).collect(),
            enums: BTreeMap::new(),
            objects: BTreeSet::new(),
        }
    }

    pub(super) fn ty(&mut self, s: &Value) -> Ty {
        if s == &Value::Bool(true) || s.as_object().is_some_and(|o| o.is_empty()) {
            return Ty::Any;
        }
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            let name = r.rsplit('/').next().unwrap().to_string();
            return self.named(&name);
        }
        if let Some(values) = string_enum(s) {
            // An inline enumeration (no definition of its own).
            return Ty::Lit(values.into_iter().map(|(v, _)| v).collect());
        }
        if let Some(tag) = s.get("const").and_then(Value::as_str) {
            // A tagged enum's tag: its one value.
            return Ty::Lit(vec![tag.to_string()]);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(alts) = s.get(key).and_then(Value::as_array) {
                let null = alts.iter().any(|a| a["type"] == "null");
                let rest: Vec<Ty> = alts
                    .iter()
                    .filter(|a| a["type"] != "null")
                    .map(|a| self.ty(a))
                    .collect();
                let t = if rest.len() == 1 {
                    rest.into_iter().next().unwrap()
                } else {
                    Ty::Union(rest)
                };
                return if null { Ty::Nullable(Box::new(t)) } else { t };
            }
        }
        match &s["type"] {
            Value::Array(types) => {
                let null = types.iter().any(|t| t == "null");
                let rest: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
                let mut one = s.clone();
                let t = if rest.len() == 1 {
                    one["type"] = rest[0].clone();
                    self.ty(&one)
                } else {
                    Ty::Union(
                        rest.iter()
                            .map(|t| {
                                one["type"] = (*t).clone();
                                self.ty(&one)
                            })
                            .collect(),
                    )
                };
                if null {
                    Ty::Nullable(Box::new(t))
                } else {
                    t
                }
            }
            Value::String(t) => match t.as_str() {
                "string" => Ty::Str,
                "integer" => Ty::Int,
                "number" => Ty::Float,
                "boolean" => Ty::Bool,
                "array" => {
                    if let Some(items) = s.get("prefixItems").and_then(Value::as_array) {
                        Ty::Tuple(items.iter().map(|i| self.ty(i)).collect())
                    } else {
                        Ty::List(Box::new(s.get("items").map_or(Ty::Any, |i| self.ty(i))))
                    }
                }
                "object" => {
                    if s.get("properties").is_some() {
                        Ty::Object(self.fields(s))
                    } else {
                        match s.get("additionalProperties") {
                            Some(Value::Bool(false)) => Ty::Object(Vec::new()),
                            Some(v) => Ty::Map(Box::new(self.ty(v))),
                            None => Ty::Map(Box::new(Ty::Any)),
                        }
                    }
                }
                other => panic!("unhandled schema type `{other}` in {s}"),
            },
            _ => Ty::Any,
        }
    }

    /// A definition by name: a class, an enumeration or a plain object.
    fn named(&mut self, name: &str) -> Ty {
        if let Some(b) = self.classes.get(name) {
            return Ty::Class(b.clone());
        }
        if self.displayed.contains(name) {
            return Ty::Str;
        }
        let s = self
            .schemas
            .get(name)
            .unwrap_or_else(|| panic!("no definition `{name}`"))
            .clone();
        if let Some(values) = string_enum(&s) {
            let doc = description(&s);
            self.enums.insert(
                name.to_string(),
                (values.into_iter().map(|v| v.0).collect(), doc),
            );
            return Ty::Enum(name.to_string());
        }
        if s.get("properties").is_some() {
            self.objects.insert(name.to_string());
            return Ty::Plain(name.to_string());
        }
        self.ty(&s)
    }

    /// Calls `declare` once per object definition met that is no class,
    /// including those met while declaring others.
    pub(super) fn each_object(&mut self, mut declare: impl FnMut(&mut Defs, &str, &Value)) {
        let mut done = BTreeSet::new();
        loop {
            let todo: Vec<String> = self.objects.difference(&done).cloned().collect();
            if todo.is_empty() {
                return;
            }
            for n in todo {
                let schema = self.schemas[&n].clone();
                declare(self, &n, &schema);
                done.insert(n);
            }
        }
    }

    pub(super) fn fields(&mut self, s: &Value) -> Vec<Field> {
        let required: BTreeSet<&str> = s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let props = s["properties"].as_object().cloned().unwrap_or_default();
        props
            .iter()
            .map(|(name, p)| Field {
                name: name.clone(),
                ty: self.ty(p),
                required: required.contains(name.as_str()),
                doc: description(p),
            })
            .collect()
    }
}

impl Ty {
    /// The classes and plain objects this type names.
    pub(super) fn names(&self, out: &mut BTreeSet<String>) {
        match self {
            Ty::Class(n) | Ty::Plain(n) => {
                out.insert(n.clone());
            }
            Ty::List(t) | Ty::Map(t) | Ty::Nullable(t) => t.names(out),
            Ty::Tuple(ts) | Ty::Union(ts) => ts.iter().for_each(|t| t.names(out)),
            Ty::Object(fs) => fs.iter().for_each(|f| f.ty.names(out)),
            _ => {}
        }
    }
}

/// The values of a string enumeration (`enum` or `oneOf`/`anyOf` of `const`s).
pub(super) fn string_enum(s: &Value) -> Option<Vec<(String, Option<String>)>> {
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        return e
            .iter()
            .map(|v| v.as_str().map(|v| (v.to_string(), None)))
            .collect();
    }
    let alts = s
        .get("oneOf")
        .or_else(|| s.get("anyOf"))
        .and_then(Value::as_array)?;
    alts.iter()
        .map(|a| {
            a.get("const")
                .and_then(Value::as_str)
                .map(|v| (v.to_string(), description(a)))
                .or_else(|| {
                    let e = a.get("enum")?.as_array()?;
                    let v = e.first().filter(|_| e.len() == 1)?.as_str()?;
                    Some((v.to_string(), description(a)))
                })
        })
        .collect()
}

pub(super) fn description(s: &Value) -> Option<String> {
    s.get("description")
        .and_then(Value::as_str)
        .map(|d| prose(d.trim()))
}

/// A Rust doc comment as prose for another language's doc: intra-doc link
/// brackets removed (`[`MAX_K`]` → `` `MAX_K` ``), `[text](path)` → text.
pub(super) fn prose(d: &str) -> String {
    let mut out = String::with_capacity(d.len());
    let chars: Vec<char> = d.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '[' {
            if let Some(close) = chars[i + 1..].iter().position(|&c| c == ']') {
                let inner: String = chars[i + 1..i + 1 + close].iter().collect();
                let after = i + 2 + close;
                let link_target = chars.get(after) == Some(&'(');
                let is_link = inner.starts_with('`') || link_target;
                if is_link && !inner.contains('[') {
                    out.push_str(&inner);
                    i = after;
                    if link_target {
                        if let Some(end) = chars[after..].iter().position(|&c| c == ')') {
                            i = after + end + 1;
                        }
                    }
                    continue;
                }
            }
        }
        out.push(c);
        i += 1;
    }
    out
}
