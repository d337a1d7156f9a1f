//! Opening a file to read it as a document: regular files only, decided on
//! the opened file itself (a FIFO, socket or device is refused without
//! blocking, whatever the path looked like a moment before), and — for reads
//! confined to root directories — no symbolic link followed at open time and
//! the opened file's real path checked against the roots, so that a link
//! swapped in between listing and reading leads nowhere.

use std::fs::{File, Metadata};
use std::path::{Path, PathBuf};

use verity_core::InputError;

/// What a file that is not a regular one is, for messages (`None`: regular
/// file or directory).
pub fn special_kind(meta: &Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a named pipe (FIFO)");
        }
        if t.is_socket() {
            return Some("a socket");
        }
        if t.is_block_device() || t.is_char_device() {
            return Some("a device");
        }
    }
    (!t.is_file() && !t.is_dir() && !t.is_symlink()).then_some("not a regular file")
}

fn not_regular(path: &Path, kind: &str) -> InputError {
    InputError::Unsupported {
        path: path.to_path_buf(),
        detail: format!("{kind}, not a regular file: skipped"),
    }
}

/// Open `path` to read it: it must be a regular file, and with `roots` it
/// must not be a symbolic link and its real path must lie in one of `roots`
/// (canonical directories) once opened.
pub fn open_document(path: &Path, roots: Option<&[PathBuf]>) -> Result<File, InputError> {
    let unreadable = |e: std::io::Error| InputError::Unreadable {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Non-blocking: opening a FIFO must not wait for a writer.
        let mut flags = libc::O_NONBLOCK;
        if roots.is_some() {
            flags |= libc::O_NOFOLLOW;
        }
        options.custom_flags(flags);
    }
    let file = options.open(path).map_err(|e| {
        #[cfg(unix)]
        if roots.is_some() && e.raw_os_error() == Some(libc::ELOOP) {
            return InputError::Unreadable {
                path: path.to_path_buf(),
                message: "is a symbolic link at open time: refused inside file roots".into(),
            };
        }
        unreadable(e)
    })?;
    let meta = file.metadata().map_err(unreadable)?;
    if let Some(kind) = special_kind(&meta) {
        return Err(not_regular(path, kind));
    }
    if !meta.is_file() {
        return Err(not_regular(path, "a directory"));
    }
    if let Some(roots) = roots {
        let real = real_path(&file, path, &meta).map_err(unreadable)?;
        if !roots.iter().any(|r| real.starts_with(r)) {
            return Err(InputError::Unreadable {
                path: path.to_path_buf(),
                message: format!(
                    "resolves to {} when opened, outside the file roots: refused",
                    real.display()
                ),
            });
        }
    }
    Ok(file)
}

/// The path the kernel resolved for the open `file`: `/proc/self/fd` on
/// Linux; elsewhere the canonical form of `path`, accepted only when it is
/// the same file (device and inode) as the one opened.
fn real_path(file: &File, path: &Path, meta: &Metadata) -> std::io::Result<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        if let Ok(p) = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) {
            return Ok(p);
        }
    }
    let canon = std::fs::canonicalize(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let now = std::fs::metadata(&canon)?;
        if (now.dev(), now.ino()) != (meta.dev(), meta.ino()) {
            return Err(std::io::Error::other(
                "the file changed between opening and checking it",
            ));
        }
    }
    let _ = (file, meta);
    Ok(canon)
}

#[cfg(all(test, unix))]
#[allow(clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn fifos_links_and_roots() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
        let dir = tmp.path().to_path_buf();
        let root = dir.join("root");
        let outside = dir.join("outside");
        std::fs::create_dir_all(&root).unwrap_or(());
        std::fs::create_dir_all(&outside).unwrap_or(());
        std::fs::write(root.join("a.md"), "inside").unwrap_or(());
        std::fs::write(outside.join("secret.md"), "secret").unwrap_or(());
        let roots = vec![std::fs::canonicalize(&root).unwrap_or(root.clone())];
        assert!(open_document(&root.join("a.md"), Some(&roots)).is_ok());
        // A link inside the root to a file outside: refused at open time.
        let _ = std::os::unix::fs::symlink(outside.join("secret.md"), root.join("link.md"));
        let e = open_document(&root.join("link.md"), Some(&roots)).err();
        assert!(
            e.as_ref()
                .is_some_and(|e| e.to_string().contains("symbolic link")),
            "{e:?}"
        );
        // Without roots (the CLI reading the user's own paths) links are followed.
        assert!(open_document(&root.join("link.md"), None).is_ok());
        // A directory of the path swapped for a link leading out.
        let _ = std::os::unix::fs::symlink(&outside, root.join("sub"));
        let e = open_document(&root.join("sub/secret.md"), Some(&roots)).err();
        assert!(
            e.as_ref()
                .is_some_and(|e| e.to_string().contains("outside the file roots")),
            "{e:?}"
        );
        // A FIFO is refused without blocking.
        let fifo = root.join("p.md");
        if std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success())
        {
            let e = open_document(&fifo, None).err();
            assert!(
                e.as_ref().is_some_and(|e| e.to_string().contains("FIFO")),
                "{e:?}"
            );
        }
    }
}
