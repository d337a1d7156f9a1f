//! The knowledge base: `knowledge_db.json` and the Markdown files next to it.
//!
//! As the seed asks, there is no in-memory cache: every lookup reads the
//! file on disk, every change rewrites it (write to a temporary file, then
//! rename, so a crash never leaves half a database).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{ResearchError, Result};

/// One document of the knowledge base (`KnowledgeEntry`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KnowledgeEntry {
    /// Where it was downloaded from (`None` for files placed by hand).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// File name in the knowledge base directory.
    pub filename: String,
    /// Title.
    #[serde(default)]
    pub title: String,
    /// Keywords (given in the syllabus, or extracted).
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Summary (given in the syllabus, or generated).
    #[serde(default)]
    pub summary: String,
    /// Id of the document in the vector store, set the first time it is
    /// indexed so later runs never index it twice (`openai_file_id` in other tools).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_id: Option<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct DbFile {
    #[serde(default)]
    entries: Vec<KnowledgeEntry>,
}

/// Handle on a knowledge base directory. Holds only the path.
#[derive(Debug, Clone)]
pub struct KnowledgeBase {
    dir: PathBuf,
}

/// The database file name.
pub const DB_FILE: &str = "knowledge_db.json";

impl KnowledgeBase {
    /// A knowledge base in `dir` (created on first write).
    pub fn open(dir: impl Into<PathBuf>) -> Result<Self> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir).map_err(|e| ResearchError::kb(&dir, e))?;
        Ok(Self { dir })
    }

    /// Its directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Path of `knowledge_db.json`.
    pub fn db_path(&self) -> PathBuf {
        self.dir.join(DB_FILE)
    }

    /// Path of a file of the knowledge base (`None` for names that would
    /// leave the directory).
    pub fn file_path(&self, filename: &str) -> Option<PathBuf> {
        let ok = !filename.is_empty()
            && !filename.contains(['/', '\\'])
            && filename != "."
            && filename != ".."
            && filename != DB_FILE;
        ok.then(|| self.dir.join(filename))
    }

    fn read(&self) -> Result<DbFile> {
        let path = self.db_path();
        match std::fs::read_to_string(&path) {
            Ok(s) => serde_json::from_str(&s).map_err(|e| ResearchError::kb(&path, e)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(DbFile::default()),
            Err(e) => Err(ResearchError::kb(&path, e)),
        }
    }

    fn write(&self, db: &DbFile) -> Result<()> {
        let path = self.db_path();
        let tmp = self.dir.join(format!(".{DB_FILE}.tmp"));
        let json = serde_json::to_string_pretty(db).map_err(|e| ResearchError::kb(&path, e))?;
        std::fs::write(&tmp, json).map_err(|e| ResearchError::kb(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| ResearchError::kb(&path, e))
    }

    /// Every entry, read from disk.
    pub fn entries(&self) -> Result<Vec<KnowledgeEntry>> {
        Ok(self.read()?.entries)
    }

    /// The entry whose file name is `name` (case-insensitive), read from disk.
    pub fn find_by_name(&self, name: &str) -> Result<Option<KnowledgeEntry>> {
        Ok(self
            .read()?
            .entries
            .into_iter()
            .find(|e| e.filename.eq_ignore_ascii_case(name)))
    }

    /// The entry downloaded from `url`, read from disk.
    pub fn find_by_url(&self, url: &str) -> Result<Option<KnowledgeEntry>> {
        Ok(self
            .read()?
            .entries
            .into_iter()
            .find(|e| e.url.as_deref() == Some(url)))
    }

    /// Add `entry`, or replace the one with the same file name.
    pub fn upsert(&self, entry: KnowledgeEntry) -> Result<()> {
        let mut db = self.read()?;
        match db
            .entries
            .iter_mut()
            .find(|e| e.filename.eq_ignore_ascii_case(&entry.filename))
        {
            Some(e) => *e = entry,
            None => db.entries.push(entry),
        }
        self.write(&db)
    }

    /// A file name for a document downloaded from `url` titled `title`, not
    /// yet used by another URL (`name.md`, `name-2.md`, …).
    pub fn fresh_filename(&self, url: &str, title: Option<&str>) -> Result<String> {
        let base = slug(title.filter(|t| !t.trim().is_empty()).unwrap_or_else(|| {
            url.trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or("document")
        }));
        let base = if base.is_empty() {
            "document".into()
        } else {
            base
        };
        let taken: HashMap<String, Option<String>> = self
            .read()?
            .entries
            .into_iter()
            .map(|e| (e.filename.to_lowercase(), e.url))
            .collect();
        for n in 1.. {
            let name = if n == 1 {
                format!("{base}.md")
            } else {
                format!("{base}-{n}.md")
            };
            match taken.get(&name.to_lowercase()) {
                None if self.file_path(&name).is_some_and(|p| !p.exists()) => return Ok(name),
                Some(Some(u)) if u == url => return Ok(name),
                _ => {}
            }
        }
        Ok(format!("{base}.md"))
    }
}

/// `Agents by Chip Huyen` → `Agents_by_Chip_Huyen`.
pub fn slug(s: &str) -> String {
    let s = s.rsplit_once('.').map_or(s, |(a, b)| {
        if ["html", "htm", "pdf", "md", "txt"].contains(&b) {
            a
        } else {
            s
        }
    });
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || c == '-' {
            out.push(c);
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
        if out.len() >= 60 {
            break;
        }
    }
    out.trim_matches('_').to_string()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn entries_live_on_disk_only() {
        let dir = tempfile::tempdir().unwrap();
        let kb = KnowledgeBase::open(dir.path()).unwrap();
        assert!(kb.find_by_name("a.md").unwrap().is_none());
        kb.upsert(KnowledgeEntry {
            url: Some("http://x/a".into()),
            filename: "a.md".into(),
            title: "A".into(),
            keywords: vec![],
            summary: String::new(),
            file_id: None,
        })
        .unwrap();
        // A second handle sees it: nothing is cached in memory.
        let other = KnowledgeBase::open(dir.path()).unwrap();
        assert_eq!(other.find_by_name("A.MD").unwrap().unwrap().title, "A");
        assert!(other.find_by_url("http://x/a").unwrap().is_some());
        std::fs::write(dir.path().join("Agents.md"), "x").unwrap();
        assert_eq!(
            kb.fresh_filename("http://y/z", Some("Agents")).unwrap(),
            "Agents-2.md"
        );
        assert_eq!(kb.fresh_filename("http://x/a", Some("a")).unwrap(), "a.md");
        assert!(kb.file_path("../etc").is_none());
        std::fs::write(kb.db_path(), "{not json").unwrap();
        assert_eq!(
            kb.find_by_name("a.md").unwrap_err().code(),
            "knowledge_base_error"
        );
    }
}
