//! One item of a syllabus' References list → the references it names.
//!
//! The forms read (each has a test below):
//!
//! | form | example |
//! |---|---|
//! | title, dash, URL, keywords in parentheses | `- Agents — https://h/agents.html (keywords: agents, planning)` |
//! | Markdown link, description, `Keywords:` | `- [Agents](https://h/a.html) — An essay. Keywords: agents, tools` |
//! | numbered list (`1.` or `1)`) | `1. [Agents](https://h/a.html)` |
//! | bare URL | `- https://h/a.html` |
//! | angle-bracket URL, keywords on the next line | `- <https://h/a.html>` / `  Keywords: agents` |
//! | title, colon, URL | `* Agents: https://h/a.html` |
//! | keywords in brackets | `- Agents — https://h/a.html [keywords: agents]` |
//! | the seed's plan notation | `- url="https://h/a.html", name="Agents", keywords=["Agents", "Planning"]` |
//! | an internal file of the knowledge base | `- Prompt_Engineering_for_Developers.txt` |
//! | a local path (refused: outside the knowledge base) | `- ../notes/secret.md`, `- file:///etc/passwd` |
//!
//! French labels (`Mots-clés :`) and `Tags:` work like `Keywords:`.

use std::sync::OnceLock;

use regex::Regex;

/// What one References item names.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ItemRefs {
    /// URLs with what was written next to them: (url, title, description, keywords).
    pub urls: Vec<ParsedUrl>,
    /// Plain file names (internal files of the knowledge base), outside URLs.
    pub files: Vec<String>,
    /// Local paths outside the knowledge base (never read).
    pub local_paths: Vec<String>,
}

/// A URL of an item and its surroundings.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ParsedUrl {
    pub url: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub keywords: Vec<String>,
}

#[allow(clippy::panic)]
fn compile(re: &str) -> Regex {
    // Constant patterns, compiled once; the unit tests exercise every one.
    Regex::new(re).unwrap_or_else(|e| panic!("constant regex {re}: {e}"))
}

fn md_link_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| compile(r"\[([^\]]*)\]\(\s*<?((?:https?|file)://[^\s>]+?)>?\s*\)"))
}

fn angle_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| compile(r"<((?:https?|file)://[^\s>]+)>"))
}

/// A bare URL: anything up to white space, quotes or angle brackets.
pub(crate) fn bare_url_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| compile(r#"(?:https?|file)://[^\s<>"'`]+"#))
}

/// `(keywords: a, b)` or `[keywords: a, b]` anywhere in the item.
fn bracketed_keywords_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        compile(
            r"(?i)[\(\[]\s*(?:keywords|key words|mots[- ]cl[ée]s|tags)\s*[:=]\s*([^\)\]]*)[\)\]]",
        )
    })
}

/// `Keywords: a, b` to the end of the line.
fn trailing_keywords_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        compile(r"(?i)(?:^|[\s.;,—–|-])(?:keywords|key words|mots[- ]cl[ée]s|tags)\s*[:=]\s*(.*)$")
    })
}

/// The seed's notation: `url="…"`, `name="…"`, `title="…"`, `description="…"`.
fn kv_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| compile(r#"(?i)\b(url|name|title|description|summary)\s*=\s*"([^"]*)""#))
}

fn file_name_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        compile(r"(?i)(?:^|[\s`'(\[])((?:[A-Za-z]:)?[~./\\A-Za-z0-9_\-][^\s`'()\[\]]*\.(?:txt|md|markdown|pdf|html?|docx?))(?:$|[\s`'),.;:\]])")
    })
}

/// Strip the list marker (`-`, `*`, `+`, `1.`, `1)`, `(1)`, `[1]`) of an item.
pub(crate) fn strip_marker(line: &str) -> Option<&str> {
    let t = line.trim_start();
    for m in ["- ", "* ", "+ ", "• "] {
        if let Some(rest) = t.strip_prefix(m) {
            return Some(rest.trim_start());
        }
    }
    let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 && digits <= 3 {
        let rest = &t[digits..];
        for sep in [". ", ") "] {
            if let Some(r) = rest.strip_prefix(sep) {
                return Some(r.trim_start());
            }
        }
    }
    for (open, close) in [('(', ')'), ('[', ']')] {
        if let Some(rest) = t.strip_prefix(open) {
            let d = rest.chars().take_while(|c| c.is_ascii_digit()).count();
            if d > 0 {
                if let Some(r) = rest[d..].strip_prefix(close) {
                    return Some(r.trim_start());
                }
            }
        }
    }
    None
}

/// Keywords of a `a, b; c` list: quotes, brackets, emphasis and end
/// punctuation trimmed, empty ones dropped.
fn keyword_list(s: &str) -> Vec<String> {
    s.split([',', ';'])
        .map(|k| {
            k.trim()
                .trim_matches(|c: char| {
                    matches!(
                        c,
                        '`' | '*' | '_' | '.' | '"' | '\'' | '[' | ']' | '(' | ')' | '“' | '”'
                    )
                })
                .trim()
                .to_string()
        })
        .filter(|k| !k.is_empty())
        .collect()
}

/// A URL as written, without the punctuation that closes the sentence
/// around it (an unbalanced `)` included).
fn trim_url(u: &str) -> String {
    let mut u = u
        .trim_end_matches(['.', ',', ';', ':', '!', '?', '*', '_'])
        .to_string();
    while u.ends_with(')') && u.matches('(').count() < u.matches(')').count() {
        u.pop();
        u = u
            .trim_end_matches(['.', ',', ';', ':', '!', '?', '*', '_'])
            .to_string();
    }
    u
}

/// Text around a URL, cleaned of separators and emphasis.
fn clean(s: &str) -> String {
    let s = s.replace("**", "").replace('`', "");
    s.trim()
        .trim_matches(|c: char| {
            matches!(
                c,
                '—' | '–' | '-' | ':' | '|' | ',' | ';' | '(' | ')' | '"' | '“' | '”'
            ) || c.is_whitespace()
        })
        .trim()
        .to_string()
}

fn non_empty(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

/// `Title — description` or `Title: description` → (title, description).
fn split_title(s: &str) -> (Option<String>, Option<String>) {
    for sep in [" — ", " – ", " - ", ": ", " | "] {
        if let Some((a, b)) = s.split_once(sep) {
            return (non_empty(clean(a)), non_empty(clean(b)));
        }
    }
    (non_empty(clean(s)), None)
}

/// Whether `p` names a path rather than a plain file name of the knowledge base.
fn is_path(p: &str) -> bool {
    p.contains(['/', '\\'])
        || p.starts_with('~')
        || p.starts_with('.')
        || p.as_bytes().get(1) == Some(&b':')
}

/// Read one References item (its lines joined with `\n`, list marker kept or not).
pub(crate) fn parse_item(item: &str) -> ItemRefs {
    let mut out = ItemRefs::default();
    let first = item.lines().next().unwrap_or_default();
    let body_first = strip_marker(first).unwrap_or(first);
    let mut text = std::iter::once(body_first)
        .chain(item.lines().skip(1).map(str::trim))
        .collect::<Vec<_>>()
        .join("\n");

    // Keywords, in every written form; removed from the text.
    let mut keywords = Vec::new();
    if let Some(c) = bracketed_keywords_re().captures(&text) {
        keywords = keyword_list(&c[1]);
        text = bracketed_keywords_re().replace(&text, " ").into_owned();
    }
    if let Some(k) = seed_keywords(&text) {
        keywords = k.0;
        text = text.replace(&k.1, " ");
    }
    let mut lines = Vec::new();
    for l in text.lines() {
        match trailing_keywords_re().captures(l) {
            Some(c) => {
                keywords = keyword_list(&c[1]);
                lines.push(l[..c.get(0).map_or(0, |m| m.start())].to_string());
            }
            None => lines.push(l.to_string()),
        }
    }
    let mut text = lines.join(" ");

    // The seed's `url="…", name="…"` notation.
    let kv: Vec<(String, String)> = kv_re()
        .captures_iter(&text)
        .map(|c| (c[1].to_ascii_lowercase(), c[2].trim().to_string()))
        .collect();
    if let Some((_, url)) = kv.iter().find(|(k, _)| k == "url") {
        let get = |names: &[&str]| {
            kv.iter()
                .find(|(k, _)| names.contains(&k.as_str()))
                .map(|(_, v)| v.clone())
                .filter(|v| !v.is_empty())
        };
        push_url(
            &mut out,
            ParsedUrl {
                url: url.clone(),
                title: get(&["name", "title"]),
                description: get(&["description", "summary"]),
                keywords,
            },
        );
        return out;
    }

    // Links and URLs, in order of appearance; what is left is the text.
    let mut found: Vec<(usize, Option<String>, String)> = Vec::new();
    for c in md_link_re().captures_iter(&text) {
        let start = c.get(0).map_or(0, |m| m.start());
        found.push((start, non_empty(clean(&c[1])), trim_url(&c[2])));
    }
    text = md_link_re()
        .replace_all(&text, " \u{1}LINK\u{1} ")
        .into_owned();
    for c in angle_re().captures_iter(&text) {
        found.push((c.get(0).map_or(0, |m| m.start()), None, trim_url(&c[1])));
    }
    text = angle_re()
        .replace_all(&text, " \u{1}URL\u{1} ")
        .into_owned();
    for m in bare_url_re().find_iter(&text) {
        found.push((m.start(), None, trim_url(m.as_str())));
    }
    text = bare_url_re()
        .replace_all(&text, " \u{1}URL\u{1} ")
        .into_owned();

    // File names in the text left (a module's line may name both).
    for c in file_name_re().captures_iter(&text.replace('\u{1}', " ")) {
        let f = c[1].trim_matches(['`', '\'']).to_string();
        // `e.g.` and version numbers are not files: a name needs a stem.
        if f.rsplit_once('.').is_some_and(|(stem, _)| stem.len() >= 2) {
            if is_path(&f) {
                out.local_paths.push(f);
            } else {
                out.files.push(f);
            }
        }
    }
    if found.is_empty() {
        return out;
    }
    let single = found.len() == 1;
    // Text before and after the (single) URL.
    let (before, after) = match text.split_once('\u{1}') {
        Some((b, rest)) => (
            b.to_string(),
            rest.split_once('\u{1}')
                .map(|(_, a)| a.to_string())
                .unwrap_or_default(),
        ),
        None => (text.clone(), String::new()),
    };
    let (before, after) = (clean(&before), clean(&after));
    for (_, link_title, url) in found {
        let (title, description) = if !single {
            (link_title, None)
        } else if let Some(t) = link_title {
            // `[Title](url) — description` (or text before the link).
            let rest = [before.as_str(), after.as_str()]
                .iter()
                .filter(|s| !s.is_empty())
                .copied()
                .collect::<Vec<_>>()
                .join(" — ");
            (Some(t), non_empty(clean(&rest)))
        } else if !before.is_empty() {
            // `Title — URL — description`, `Title: URL`, `Title — description — URL`.
            let (t, d) = split_title(&before);
            let d = match (d, non_empty(after.clone())) {
                (Some(d), Some(a)) => Some(format!("{d} {a}")),
                (d, a) => d.or(a),
            };
            (t, d)
        } else {
            // `URL — description`.
            (None, non_empty(after.clone()))
        };
        push_url(
            &mut out,
            ParsedUrl {
                url,
                title,
                description,
                keywords: if single { keywords.clone() } else { Vec::new() },
            },
        );
    }
    out
}

/// `keywords=["A", "B"]` (the seed's notation): the list and the text to remove.
fn seed_keywords(text: &str) -> Option<(Vec<String>, String)> {
    let lower = text.to_ascii_lowercase();
    let at = lower
        .find("keywords=[")
        .or_else(|| lower.find("keywords = ["))?;
    let open = at + text[at..].find('[')?;
    let close = open + text[open..].find(']')?;
    Some((
        keyword_list(&text[open + 1..close]),
        text[at..=close].to_string(),
    ))
}

fn push_url(out: &mut ItemRefs, u: ParsedUrl) {
    if let Some(path) = u.url.strip_prefix("file://") {
        out.local_paths.push(path.to_string());
        return;
    }
    if url::Url::parse(&u.url).is_ok() {
        out.urls.push(u);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn one(item: &str) -> ParsedUrl {
        let r = parse_item(item);
        assert_eq!(r.urls.len(), 1, "{item}: {r:?}");
        r.urls.into_iter().next().unwrap()
    }

    #[test]
    fn title_dash_url_keywords_in_parentheses() {
        let u = one("- Title — http://127.0.0.1:8080/a.html (keywords: A, B, C)");
        assert_eq!(u.url, "http://127.0.0.1:8080/a.html");
        assert_eq!(u.title.as_deref(), Some("Title"));
        assert_eq!(u.description, None);
        assert_eq!(u.keywords, ["A", "B", "C"]);
    }

    #[test]
    fn markdown_link_description_and_keywords_label() {
        let u = one("- [Agents](https://huyenchip.com/agents.html) — A long essay on agents. Keywords: agents, planning");
        assert_eq!(u.url, "https://huyenchip.com/agents.html");
        assert_eq!(u.title.as_deref(), Some("Agents"));
        assert_eq!(u.description.as_deref(), Some("A long essay on agents."));
        assert_eq!(u.keywords, ["agents", "planning"]);
    }

    #[test]
    fn numbered_lists_with_dot_or_parenthesis() {
        let u = one("1. [Agents](https://h.example/a.html)");
        assert_eq!(
            (u.url.as_str(), u.title.as_deref()),
            ("https://h.example/a.html", Some("Agents"))
        );
        let u = one("12) [RAG](https://h.example/r.html) (keywords: retrieval)");
        assert_eq!(u.title.as_deref(), Some("RAG"));
        assert_eq!(u.keywords, ["retrieval"]);
        assert_eq!(u.description, None);
    }

    #[test]
    fn bare_url_with_closing_punctuation() {
        let u = one("- https://h.example/a_(b).html.");
        assert_eq!(u.url, "https://h.example/a_(b).html");
        assert_eq!((u.title, u.description), (None, None));
        let u = one("See (https://h.example/x).");
        assert_eq!(u.url, "https://h.example/x");
    }

    #[test]
    fn angle_bracket_url_with_keywords_on_the_next_line() {
        let u = one("- <http://127.0.0.1:9/a.html>\n  Keywords: duvet, lungs");
        assert_eq!(u.url, "http://127.0.0.1:9/a.html");
        assert_eq!(u.keywords, ["duvet", "lungs"]);
        assert_eq!((u.title, u.description), (None, None));
    }

    #[test]
    fn title_colon_url_and_other_bullets() {
        for item in [
            "* Layoffs: https://h.example/l.html",
            "+ Layoffs: https://h.example/l.html",
        ] {
            let u = one(item);
            assert_eq!(u.title.as_deref(), Some("Layoffs"), "{item}");
            assert_eq!(u.url, "https://h.example/l.html");
        }
    }

    #[test]
    fn title_url_description_and_square_bracket_keywords() {
        let u = one("- Is Stadia good? — https://h.example/s.html — early reviews [keywords: Stadia, cloud gaming]");
        assert_eq!(u.title.as_deref(), Some("Is Stadia good?"));
        assert_eq!(u.description.as_deref(), Some("early reviews"));
        assert_eq!(u.keywords, ["Stadia", "cloud gaming"]);
        let u = one(
            "+ Understanding tariffs — https://h.example/t.html — keywords: tariffs, trade war",
        );
        assert_eq!(u.title.as_deref(), Some("Understanding tariffs"));
        assert_eq!(u.description, None);
        assert_eq!(u.keywords, ["tariffs", "trade war"]);
    }

    #[test]
    fn french_keywords_label() {
        let u = one("- Agents — https://h.example/a.html. Mots-clés : agents, planification");
        assert_eq!(u.keywords, ["agents", "planification"]);
        assert_eq!(u.title.as_deref(), Some("Agents"));
    }

    #[test]
    fn the_seed_plan_notation() {
        let u = one(
            r#"- url="https://huyenchip.com/2025/01/07/agents.html", name="Agents By Chip Huyen", keywords=["Agents", "Planning"]"#,
        );
        assert_eq!(u.url, "https://huyenchip.com/2025/01/07/agents.html");
        assert_eq!(u.title.as_deref(), Some("Agents By Chip Huyen"));
        assert_eq!(u.keywords, ["Agents", "Planning"]);
    }

    #[test]
    fn internal_files_and_local_paths() {
        let r = parse_item("- `Prompt_Engineering_for_Developers.txt`");
        assert_eq!(r.files, ["Prompt_Engineering_for_Developers.txt"]);
        let r = parse_item("- 03_Adversarial_Attacks_on_LLMs.md — internal notes");
        assert_eq!(r.files, ["03_Adversarial_Attacks_on_LLMs.md"]);
        for p in [
            "- ../notes/secret.md",
            "- /etc/notes.txt",
            "- ~/x/notes.md",
            r"- C:\docs\a.pdf",
        ] {
            let r = parse_item(p);
            assert!(r.files.is_empty(), "{p}: {r:?}");
            assert_eq!(r.local_paths.len(), 1, "{p}: {r:?}");
        }
        let r = parse_item("- file:///etc/passwd");
        assert_eq!(r.local_paths, ["/etc/passwd"]);
        assert!(r.urls.is_empty());
        // `e.g.` is not a file.
        assert!(parse_item("- e.g. this").files.is_empty());
    }

    #[test]
    fn several_urls_in_one_item_are_each_a_reference() {
        let r = parse_item("- [A](https://h.example/a) and [B](https://h.example/b) (keywords: x)");
        assert_eq!(r.urls.len(), 2);
        assert_eq!(r.urls[1].title.as_deref(), Some("B"));
        assert!(r.urls.iter().all(|u| u.keywords.is_empty()));
    }

    #[test]
    fn markers() {
        assert_eq!(strip_marker("  - a"), Some("a"));
        assert_eq!(strip_marker("3) a"), Some("a"));
        assert_eq!(strip_marker("[2] a"), Some("a"));
        assert_eq!(strip_marker("(2) a"), Some("a"));
        assert_eq!(strip_marker("2019 was"), None);
    }
}
