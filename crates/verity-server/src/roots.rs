//! Paths a client names are read only under the configured roots.
//!
//! A client path must be relative (no leading `/`, no drive, no `..`
//! component); it is joined to each root in turn and canonicalised, which
//! resolves symlinks, and accepted only when the result is still inside that
//! root. URLs are left to the facade's fetcher and its SSRF guard.

use std::path::{Component, Path, PathBuf};

use crate::error::ApiError;

/// The canonical roots (those that exist).
#[derive(Debug, Clone, Default)]
pub struct Roots {
    roots: Vec<PathBuf>,
}

impl Roots {
    /// Canonicalise the configured roots; missing ones are an error.
    pub fn new(roots: &[PathBuf]) -> Result<Self, crate::ServerError> {
        let roots = roots
            .iter()
            .map(|r| {
                std::fs::canonicalize(r)
                    .map_err(|e| crate::ServerError::Config(format!("root {}: {e}", r.display())))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { roots })
    }

    /// `true` when no root is configured (the server reads no client-named file).
    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }

    /// The file or directory `client` names, inside a root.
    pub fn resolve(&self, client: &str) -> Result<PathBuf, ApiError> {
        if self.roots.is_empty() {
            return Err(ApiError::invalid(format!(
                "`{}`: this server reads no files (no roots configured); send documents inline",
                shown(client)
            )));
        }
        let p = Path::new(client);
        if client.is_empty() || client.contains('\0') {
            return Err(ApiError::invalid("empty or invalid path"));
        }
        for c in p.components() {
            match c {
                Component::Normal(_) | Component::CurDir => {}
                Component::ParentDir => {
                    return Err(ApiError::invalid(format!(
                        "`{}`: `..` is not allowed; name files relative to a configured root",
                        shown(client)
                    )))
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err(ApiError::invalid(format!(
                        "`{}`: absolute paths are not allowed; name files relative to a configured root",
                        shown(client)
                    )))
                }
            }
        }
        for root in &self.roots {
            let Ok(real) = std::fs::canonicalize(root.join(p)) else {
                continue;
            };
            if real.starts_with(root) {
                return Ok(real);
            }
            return Err(ApiError::invalid(format!(
                "`{}` leads outside the configured roots (symlink); refused",
                shown(client)
            )));
        }
        Err(ApiError::new(
            axum::http::StatusCode::NOT_FOUND,
            "not_found",
            format!(
                "`{}`: no such file under the configured roots",
                shown(client)
            ),
        ))
    }
}

fn shown(s: &str) -> String {
    s.chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confinement() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/a.md"), "# a").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "s").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), root.join("link.txt")).unwrap();
        let roots = Roots::new(std::slice::from_ref(&root)).unwrap();
        assert!(roots.resolve("sub/a.md").unwrap().ends_with("sub/a.md"));
        assert!(roots.resolve("sub").is_ok());
        for bad in ["../secret.txt", "/etc/passwd", "sub/../../secret.txt", ""] {
            let e = roots.resolve(bad).unwrap_err();
            assert_eq!(e.status, 400, "{bad}");
        }
        #[cfg(unix)]
        assert!(roots
            .resolve("link.txt")
            .unwrap_err()
            .body
            .message
            .contains("symlink"));
        assert_eq!(roots.resolve("nope.md").unwrap_err().status, 404);
        assert!(Roots::default().resolve("sub/a.md").is_err());
    }
}
