//! Old spellings of command-line switches that still work: each is rewritten
//! to its one current name before parsing, with a note on stderr saying what
//! to type instead.

use std::ffi::OsString;

/// Renamed flags, anywhere on the command line: (old, new).
const RENAMED: &[(&str, &str)] = &[("--allow-private-fetch", "--allow-private")];

/// `args` with deprecated spellings replaced, and one note per replacement.
pub fn rewrite(args: Vec<OsString>) -> (Vec<OsString>, Vec<String>) {
    let mut out = Vec::with_capacity(args.len());
    let mut notes = Vec::new();
    let mut in_reindex = false;
    let mut iter = args.into_iter().peekable();
    while let Some(arg) = iter.next() {
        let Some(s) = arg.to_str().map(str::to_string) else {
            out.push(arg);
            continue;
        };
        if s == "reindex" && !in_reindex {
            in_reindex = true;
        }
        let (flag, value) = match s.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (s.clone(), None),
        };
        if let Some((old, new)) = RENAMED.iter().find(|(old, _)| *old == flag) {
            notes.push(format!("`{old}` is deprecated: use `{new}`"));
            out.push(OsString::from(match value {
                Some(v) => format!("{new}={v}"),
                None => (*new).to_string(),
            }));
            continue;
        }
        // `verity reindex --version 2 …` named the embed version before
        // `--embed-version`; `--version` alone still prints Verity's version.
        if in_reindex && flag == "--version" {
            let next_is_value = iter
                .peek()
                .and_then(|n| n.to_str())
                .is_some_and(|n| !n.starts_with('-'));
            if value.is_some() || next_is_value {
                notes.push(
                    "`verity reindex --version VERSION` is deprecated: use `--embed-version \
                     VERSION` (`--version` prints Verity's version)"
                        .into(),
                );
                out.push(OsString::from(match value {
                    Some(v) => format!("--embed-version={v}"),
                    None => "--embed-version".to_string(),
                }));
                continue;
            }
        }
        out.push(arg);
    }
    (out, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> (Vec<String>, usize) {
        let (out, notes) = rewrite(args.iter().map(OsString::from).collect());
        (
            out.into_iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            notes.len(),
        )
    }

    #[test]
    fn old_names_are_rewritten_with_a_note() {
        assert_eq!(
            run(&["verity", "serve", "--allow-private-fetch"]),
            (
                vec!["verity".into(), "serve".into(), "--allow-private".into()],
                1
            )
        );
        assert_eq!(
            run(&["verity", "reindex", "--version", "2", "data"]).0,
            vec!["verity", "reindex", "--embed-version", "2", "data"]
        );
        assert_eq!(
            run(&["verity", "reindex", "--version=2", "data"]).0,
            vec!["verity", "reindex", "--embed-version=2", "data"]
        );
        assert_eq!(run(&["verity", "reindex", "--version"]).1, 0);
        assert_eq!(run(&["verity", "--version"]).1, 0);
        assert_eq!(run(&["verity", "search", "x", "-k", "3"]).1, 0);
    }
}
