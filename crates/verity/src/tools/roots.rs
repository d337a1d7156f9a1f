//! [`FileRoots`]: the directories a tool caller may read files from.
//!
//! A requested path is accepted only when, after resolving every symlink, it
//! lies inside one of the roots: `..` components are refused outright,
//! absolute paths must fall inside a root, relative paths are taken relative
//! to the first root, and directories are walked here (not by the reader) so
//! that a symlink inside a root that points outside is left out and reported.

use std::path::{Component, Path, PathBuf};

use crate::{Error, Result};

/// Maximum number of files one request may expand to.
const MAX_FILES: usize = 100_000;
/// Maximum directory depth walked below a requested directory.
const MAX_DEPTH: usize = 32;

/// Directories files may be read from (canonical paths). Empty: no file access.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileRoots {
    roots: Vec<PathBuf>,
}

/// Files a request resolved to, and what was left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResolvedFiles {
    /// Regular files inside the roots (canonical paths).
    pub files: Vec<PathBuf>,
    /// Entries left out while walking directories (symlinks leading outside, unreadable entries).
    pub refused: Vec<String>,
}

impl FileRoots {
    /// No file access at all.
    pub fn none() -> Self {
        Self::default()
    }

    /// Roots from directories; each must exist and is canonicalised.
    pub fn new<I, P>(dirs: I) -> Result<Self>
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        let mut roots = Vec::new();
        for d in dirs {
            let d = d.as_ref();
            let canon = std::fs::canonicalize(d).map_err(|e| {
                let fix = if e.kind() == std::io::ErrorKind::NotFound {
                    format!(
                        "does not exist: create it first (`mkdir -p {}`)",
                        d.display()
                    )
                } else {
                    format!("cannot be read ({e})")
                };
                Error::invalid_input(format!(
                    "file root {} {fix}, or name an existing directory (`verity mcp --root DIR`, \
                     `roots` or VERITY_ROOTS for `verity serve`)",
                    d.display()
                ))
            })?;
            if !canon.is_dir() {
                return Err(Error::invalid_input(format!(
                    "file root {} is not a directory: name the directory that holds the files \
                     clients may read",
                    d.display()
                )));
            }
            roots.push(canon);
        }
        Ok(Self { roots })
    }

    /// The canonical roots.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// `true` when no root is configured.
    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }

    /// Confine an ingest request to the roots: each file or directory path
    /// is replaced by the files it names inside a root (URLs are kept for the
    /// guarded fetcher). Returns the entries left out while walking; with
    /// `strict`, any such entry refuses the whole request. A request naming
    /// nothing is refused first ([`crate::api::IngestRequest::validate`]).
    pub fn confine(&self, req: &mut crate::api::IngestRequest) -> Result<Vec<String>> {
        req.validate()?;
        let mut refused = Vec::new();
        let mut paths = Vec::with_capacity(req.paths.len());
        for p in std::mem::take(&mut req.paths) {
            if crate::config::is_url(&p) {
                paths.push(p);
                continue;
            }
            let r = self.resolve(&p)?;
            paths.extend(r.files.iter().map(|f| f.display().to_string()));
            refused.extend(r.refused);
        }
        if req.strict && !refused.is_empty() {
            return Err(Error::invalid_input(format!(
                "strict ingest refused: {}",
                refused.join("; ")
            )));
        }
        req.paths = paths;
        Ok(refused)
    }

    /// Resolve one requested path to the files it names, or refuse it.
    pub fn resolve(&self, requested: &str) -> Result<ResolvedFiles> {
        let canon = self.canonical(requested)?;
        let mut out = ResolvedFiles::default();
        if canon.is_dir() {
            self.walk(&canon, 0, &mut out)?;
        } else if canon.is_file() {
            out.files.push(canon);
        } else {
            return Err(Error::invalid_input(format!(
                "path `{requested}` is not a regular file or directory"
            )));
        }
        Ok(out)
    }

    /// Resolve a path that must name one regular file inside the roots
    /// (a syllabus, a document to check); directories are refused.
    pub fn resolve_file(&self, requested: &str) -> Result<PathBuf> {
        let canon = self.canonical(requested)?;
        if canon.is_dir() {
            return Err(Error::invalid_input(format!(
                "path `{requested}` is a directory; name one file"
            )));
        }
        if !canon.is_file() {
            return Err(Error::invalid_input(format!(
                "path `{requested}` is not a regular file"
            )));
        }
        Ok(canon)
    }

    /// The canonical path of `requested`, refused unless it lies in a root.
    fn canonical(&self, requested: &str) -> Result<PathBuf> {
        let Some(first) = self.roots.first() else {
            return Err(Error::invalid_input(
                "reading files is disabled: no file roots are configured",
            ));
        };
        if requested.trim().is_empty() || requested.contains('\0') {
            return Err(Error::invalid_input("empty or malformed path"));
        }
        let path = Path::new(requested);
        if path.components().any(|c| matches!(c, Component::ParentDir)) {
            return Err(Error::invalid_input(format!(
                "path `{requested}` contains `..`; give a path inside the file roots"
            )));
        }
        let joined = if path.is_absolute() {
            path.to_path_buf()
        } else {
            first.join(path)
        };
        let canon = std::fs::canonicalize(&joined)
            .map_err(|e| Error::invalid_input(format!("path `{requested}`: {e}")))?;
        if !self.contains(&canon) {
            return Err(self.outside(requested));
        }
        Ok(canon)
    }

    fn contains(&self, canon: &Path) -> bool {
        self.roots.iter().any(|r| canon.starts_with(r))
    }

    fn outside(&self, requested: &str) -> Error {
        Error::invalid_input(format!(
            "path `{requested}` is outside the allowed file roots ({})",
            self.roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }

    /// Walk `dir` (already checked), keeping files whose real path stays inside a root.
    fn walk(&self, dir: &Path, depth: usize, out: &mut ResolvedFiles) -> Result<()> {
        if depth > MAX_DEPTH {
            out.refused
                .push(format!("{}: deeper than {MAX_DEPTH} levels", dir.display()));
            return Ok(());
        }
        let mut entries: Vec<PathBuf> = match std::fs::read_dir(dir) {
            Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
            Err(e) => {
                out.refused.push(format!("{}: {e}", dir.display()));
                return Ok(());
            }
        };
        entries.sort();
        for entry in entries {
            let is_link = std::fs::symlink_metadata(&entry)
                .map(|m| m.file_type().is_symlink())
                .unwrap_or(false);
            let canon = match std::fs::canonicalize(&entry) {
                Ok(c) => c,
                Err(e) => {
                    out.refused.push(format!("{}: {e}", entry.display()));
                    continue;
                }
            };
            if !self.contains(&canon) {
                out.refused
                    .push(format!("{}: links outside the file roots", entry.display()));
                continue;
            }
            if canon.is_dir() {
                // Symlinked directories are not followed (no cycles).
                if !is_link {
                    self.walk(&canon, depth + 1, out)?;
                }
            } else if canon.is_file() {
                if out.files.len() >= MAX_FILES {
                    return Err(Error::invalid_input(format!(
                        "more than {MAX_FILES} files requested; ingest a narrower directory"
                    )));
                }
                out.files.push(canon);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, tempfile::TempDir, FileRoots) {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("docs/sub")).unwrap();
        std::fs::write(root.path().join("docs/a.md"), "# A\n\nalpha").unwrap();
        std::fs::write(root.path().join("docs/sub/b.txt"), "beta").unwrap();
        std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
        let roots = FileRoots::new([root.path()]).unwrap();
        (root, outside, roots)
    }

    #[test]
    fn relative_and_absolute_paths_inside_roots_resolve() {
        let (root, _o, roots) = setup();
        let r = roots.resolve("docs").unwrap();
        assert_eq!(r.files.len(), 2);
        assert!(r.refused.is_empty());
        let abs = root.path().join("docs/a.md");
        let r = roots.resolve(abs.to_str().unwrap()).unwrap();
        assert_eq!(r.files, vec![std::fs::canonicalize(abs).unwrap()]);
    }

    #[test]
    fn parent_components_are_refused_even_when_they_land_inside() {
        let (_r, _o, roots) = setup();
        let e = roots.resolve("docs/../docs/a.md").unwrap_err();
        assert_eq!(e.code(), "invalid_input");
        assert!(e.to_string().contains(".."), "{e}");
        assert!(roots.resolve("../../etc/passwd").is_err());
    }

    #[test]
    fn absolute_paths_outside_roots_are_refused() {
        let (_r, outside, roots) = setup();
        let p = outside.path().join("secret.txt");
        let e = roots.resolve(p.to_str().unwrap()).unwrap_err();
        assert!(e.to_string().contains("outside"), "{e}");
        assert!(roots.resolve("/etc/passwd").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_escaping_roots_are_refused_or_left_out() {
        let (root, outside, roots) = setup();
        let secret = outside.path().join("secret.txt");
        std::os::unix::fs::symlink(&secret, root.path().join("docs/link.txt")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("docs/outdir")).unwrap();
        // Named directly: refused.
        let e = roots.resolve("docs/link.txt").unwrap_err();
        assert!(e.to_string().contains("outside"), "{e}");
        assert!(roots.resolve("docs/outdir/secret.txt").is_err());
        // Met while walking: left out and reported, the rest is read.
        let r = roots.resolve("docs").unwrap();
        assert_eq!(r.files.len(), 2, "{r:?}");
        assert!(r.files.iter().all(|f| f.starts_with(&roots.roots()[0])));
        assert_eq!(r.refused.len(), 2, "{r:?}");
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_inside_roots_are_followed() {
        let (root, _o, roots) = setup();
        std::os::unix::fs::symlink(root.path().join("docs/a.md"), root.path().join("alias.md"))
            .unwrap();
        let r = roots.resolve("alias.md").unwrap();
        assert_eq!(r.files.len(), 1);
    }

    #[test]
    fn no_roots_means_no_file_access() {
        let e = FileRoots::none().resolve("anything").unwrap_err();
        assert!(e.to_string().contains("no file roots"), "{e}");
    }

    #[test]
    fn missing_paths_and_bad_roots_are_clear_errors() {
        let (_r, _o, roots) = setup();
        assert!(roots.resolve("nope.md").is_err());
        assert!(roots.resolve("").is_err());
        assert!(FileRoots::new(["/definitely/not/here"]).is_err());
    }

    #[test]
    fn resolve_file_names_one_file_inside_the_roots() {
        let (root, outside, roots) = setup();
        let f = roots.resolve_file("docs/a.md").unwrap();
        assert!(f.starts_with(&roots.roots()[0]) && f.is_file());
        let e = roots.resolve_file("docs").unwrap_err();
        assert!(e.to_string().contains("directory"), "{e}");
        assert!(roots.resolve_file("../docs/a.md").is_err());
        let out = outside.path().join("secret.txt");
        assert!(roots.resolve_file(out.to_str().unwrap()).is_err());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&out, root.path().join("s.md")).unwrap();
            let e = roots.resolve_file("s.md").unwrap_err();
            assert!(e.to_string().contains("outside"), "{e}");
        }
        assert!(FileRoots::none().resolve_file("docs/a.md").is_err());
    }
}
