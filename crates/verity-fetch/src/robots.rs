//! robots.txt (RFC 9309): parsing, group selection and longest-match rules.

/// One `allow` / `disallow` rule.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    allow: bool,
    pattern: String,
}

/// A parsed robots.txt, or a blanket decision when it could not be fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Robots {
    /// Everything allowed (no robots.txt, 4xx).
    AllowAll,
    /// Everything disallowed (5xx, unreachable).
    DisallowAll,
    /// Parsed groups.
    Rules(Vec<Group>),
}

/// A group: the user agents it names and its rules.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Group {
    agents: Vec<String>,
    rules: Vec<Rule>,
}

/// Percent-encode the octets that are not printable ASCII, so patterns and URL paths compare alike.
fn encode_non_ascii(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_graphic() {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Upper-case the hex digits of percent escapes (`%2f` → `%2F`).
fn normalise_escapes(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && b[i + 1].is_ascii_hexdigit()
            && b[i + 2].is_ascii_hexdigit()
        {
            out.push('%');
            out.push((b[i + 1] as char).to_ascii_uppercase());
            out.push((b[i + 2] as char).to_ascii_uppercase());
            i += 3;
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

impl Robots {
    /// Parse a robots.txt body (lenient: unknown lines are ignored, at most 500 KiB read).
    pub fn parse(body: &str) -> Robots {
        let body = body.get(..500 * 1024).unwrap_or(body);
        let mut groups: Vec<Group> = Vec::new();
        let mut current: Option<Group> = None;
        let mut in_agents = false;
        for raw in body.lines() {
            let line = raw.split('#').next().unwrap_or("").trim();
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let key = key.trim().to_ascii_lowercase();
            let value = value.trim();
            match key.as_str() {
                "user-agent" => {
                    if !in_agents {
                        if let Some(g) = current.take() {
                            groups.push(g);
                        }
                        current = Some(Group::default());
                        in_agents = true;
                    }
                    if let Some(g) = current.as_mut() {
                        let token = value
                            .split(|c: char| c.is_whitespace() || c == '/')
                            .next()
                            .unwrap_or("")
                            .to_ascii_lowercase();
                        g.agents.push(token);
                    }
                }
                "allow" | "disallow" => {
                    in_agents = false;
                    if let Some(g) = current.as_mut() {
                        if value.is_empty() {
                            continue; // an empty pattern matches nothing
                        }
                        g.rules.push(Rule {
                            allow: key == "allow",
                            pattern: normalise_escapes(&encode_non_ascii(value)),
                        });
                    }
                }
                _ => {
                    // sitemap, crawl-delay, …: they do not end the user-agent run per RFC 9309 §2.2.1
                    // only rules do; keep `in_agents` as is.
                }
            }
        }
        if let Some(g) = current.take() {
            groups.push(g);
        }
        Robots::Rules(groups)
    }

    /// Whether `agent` (the crawler's product token) may fetch `path_and_query` (`/a/b?x=1`).
    pub fn allowed(&self, agent: &str, path_and_query: &str) -> bool {
        let groups = match self {
            Robots::AllowAll => return true,
            Robots::DisallowAll => return false,
            Robots::Rules(g) => g,
        };
        if path_and_query == "/robots.txt" {
            return true;
        }
        let agent = agent.to_ascii_lowercase();
        let mut rules: Vec<&Rule> = groups
            .iter()
            .filter(|g| g.agents.contains(&agent))
            .flat_map(|g| g.rules.iter())
            .collect();
        if rules.is_empty() && !groups.iter().any(|g| g.agents.contains(&agent)) {
            rules = groups
                .iter()
                .filter(|g| g.agents.iter().any(|a| a == "*"))
                .flat_map(|g| g.rules.iter())
                .collect();
        }
        let path = normalise_escapes(&encode_non_ascii(path_and_query));
        let mut best: Option<(usize, bool)> = None;
        for r in rules {
            if pattern_matches(&r.pattern, &path) {
                let len = r.pattern.len();
                best = match best {
                    None => Some((len, r.allow)),
                    Some((l, a)) if len > l || (len == l && r.allow && !a) => Some((len, r.allow)),
                    keep => keep,
                };
            }
        }
        best.map(|(_, allow)| allow).unwrap_or(true)
    }
}

/// RFC 9309 matching: `*` matches any sequence, a trailing `$` anchors the end,
/// otherwise the pattern matches a prefix of the path.
fn pattern_matches(pattern: &str, path: &str) -> bool {
    let (pat, anchored) = match pattern.strip_suffix('$') {
        Some(p) => (p.as_bytes(), true),
        None => (pattern.as_bytes(), false),
    };
    let s = path.as_bytes();
    // Iterative wildcard matching with backtracking to the last `*`.
    let (mut pi, mut si) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if pi == pat.len() {
            if !anchored || si == s.len() {
                return true;
            }
        } else if pat.get(pi) == Some(&b'*') {
            star = Some((pi, si));
            pi += 1;
            continue;
        } else if si < s.len() && pat.get(pi) == s.get(si) {
            pi += 1;
            si += 1;
            continue;
        }
        match star {
            Some((sp, ss)) if ss < s.len() => {
                star = Some((sp, ss + 1));
                pi = sp + 1;
                si = ss + 1;
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TXT: &str = "# comment\nUser-agent: *\nDisallow: /private/\nAllow: /private/open\nDisallow: /*.pdf$\nDisallow: /search?q=\n\nUser-Agent: VerityBot\nUser-agent: other\nDisallow: /nobots\nAllow: /\n\nUser-agent: strict\nDisallow: /\nAllow: /$\n";

    #[test]
    fn group_selection_and_longest_match() {
        let r = Robots::parse(TXT);
        // `*` group.
        assert!(!r.allowed("somebot", "/private/x"));
        assert!(r.allowed("somebot", "/private/open/x"));
        assert!(!r.allowed("somebot", "/a/b.pdf"));
        assert!(r.allowed("somebot", "/a/b.pdf?x=1"));
        assert!(!r.allowed("somebot", "/search?q=rust"));
        assert!(r.allowed("somebot", "/search"));
        assert!(r.allowed("somebot", "/"));
        // Specific group, case-insensitive; the `*` group no longer applies.
        assert!(r.allowed("veritybot", "/private/x"));
        assert!(!r.allowed("VerityBot", "/nobots/page"));
        assert!(!r.allowed("other", "/nobots"));
        // `$` anchors; Allow: /$ beats Disallow: / on the root only.
        assert!(r.allowed("strict", "/"));
        assert!(!r.allowed("strict", "/page"));
        assert!(r.allowed("strict", "/robots.txt"));
    }

    #[test]
    fn ties_prefer_allow_and_blanket_decisions() {
        let r = Robots::parse("User-agent: *\nDisallow: /page\nAllow: /page\n");
        assert!(r.allowed("x", "/page"));
        assert!(Robots::AllowAll.allowed("x", "/anything"));
        assert!(!Robots::DisallowAll.allowed("x", "/anything"));
        assert!(Robots::parse("").allowed("x", "/a"));
        let r = Robots::parse("User-agent: *\nDisallow:\n");
        assert!(r.allowed("x", "/a"), "empty disallow allows all");
        let r = Robots::parse("user-agent: *\ndisallow: /fish*.php\n");
        assert!(!r.allowed("x", "/fish.php"));
        assert!(!r.allowed("x", "/fishheads/catfish.php?parameters"));
        assert!(r.allowed("x", "/Fish.PHP"));
    }

    #[test]
    fn non_ascii_and_escapes() {
        let r = Robots::parse("User-agent: *\nDisallow: /foo/bär\nDisallow: /a%3cd\n");
        assert!(!r.allowed("x", "/foo/b%C3%A4r"));
        assert!(!r.allowed("x", "/a%3Cd"));
        assert!(r.allowed("x", "/foo/bar"));
    }

    #[test]
    fn wildcard_matcher() {
        assert!(pattern_matches("/", "/anything"));
        assert!(pattern_matches("/*", "/"));
        assert!(pattern_matches("/a*b*c$", "/axxbyyc"));
        assert!(!pattern_matches("/a*b*c$", "/axxbyycd"));
        assert!(pattern_matches("*", ""));
        assert!(!pattern_matches("/x", "/"));
    }
}
