//! AuraCore projects, context, tasks and decisions in SQLite.

use async_trait::async_trait;
use rusqlite::{params, OptionalExtension};
use verity_core::{
    ContextEntry, Error, Project, ProjectDecision, ProjectStore, Result, StoreError, Task,
};

use super::{from_json, ms, to_i64, to_json, SqliteWatchStore};
use crate::db::db_err;

/// A write that names a project that does not exist.
fn fk_err(e: rusqlite::Error, project_id: &str) -> Error {
    let foreign_key = matches!(&e, rusqlite::Error::SqliteFailure(f, _)
        if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_FOREIGNKEY);
    if foreign_key {
        StoreError::NotFound {
            what: "project",
            id: project_id.to_string(),
        }
        .into()
    } else {
        db_err(e)
    }
}

impl SqliteWatchStore {
    fn one<T: serde::de::DeserializeOwned>(&self, sql: &str, id: &str) -> Result<Option<T>> {
        let raw: Option<String> = self.db.read(|c| {
            c.prepare_cached(sql)
                .map_err(db_err)?
                .query_row([id], |r| r.get(0))
                .optional()
                .map_err(db_err)
        })?;
        raw.as_deref().map(from_json).transpose()
    }

    fn many<T: serde::de::DeserializeOwned>(
        &self,
        sql: &str,
        p: impl rusqlite::Params,
    ) -> Result<Vec<T>> {
        let raw: Vec<String> = self.db.read(|c| {
            c.prepare_cached(sql)
                .map_err(db_err)?
                .query_map(p, |r| r.get::<_, String>(0))
                .map_err(db_err)?
                .collect::<std::result::Result<_, _>>()
                .map_err(db_err)
        })?;
        raw.iter().map(|s| from_json(s)).collect()
    }
}

#[async_trait]
impl ProjectStore for SqliteWatchStore {
    async fn put_project(&self, p: &Project) -> Result<()> {
        let data = to_json(p)?;
        self.db.write(|c| {
            c.execute(
                "INSERT INTO aura_projects(id, created_at, data) VALUES (?1, ?2, ?3) \
                 ON CONFLICT(id) DO UPDATE SET data = excluded.data",
                params![p.id, ms(p.created_at), data],
            )
            .map_err(db_err)?;
            Ok(())
        })
    }

    async fn project(&self, id: &str) -> Result<Option<Project>> {
        self.one("SELECT data FROM aura_projects WHERE id = ?1", id)
    }

    async fn projects(&self) -> Result<Vec<Project>> {
        self.many("SELECT data FROM aura_projects ORDER BY created_at, id", [])
    }

    async fn put_context(&self, e: &ContextEntry) -> Result<()> {
        let data = to_json(e)?;
        self.db.write(|c| {
            c.execute(
                "INSERT INTO aura_contexts(id, project_id, created_at, data) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT(id) DO UPDATE SET data = excluded.data",
                params![e.id, e.project_id, ms(e.created_at), data],
            )
            .map_err(|err| fk_err(err, &e.project_id))?;
            Ok(())
        })
    }

    async fn context(&self, id: &str) -> Result<Option<ContextEntry>> {
        self.one("SELECT data FROM aura_contexts WHERE id = ?1", id)
    }

    async fn contexts(&self, project_id: &str) -> Result<Vec<ContextEntry>> {
        self.many(
            "SELECT data FROM aura_contexts WHERE project_id = ?1 ORDER BY created_at, id",
            [project_id],
        )
    }

    async fn delete_context(&self, id: &str) -> Result<bool> {
        self.db.write(|c| {
            c.execute("DELETE FROM aura_contexts WHERE id = ?1", [id])
                .map(|n| n > 0)
                .map_err(db_err)
        })
    }

    async fn put_task(&self, t: &Task) -> Result<()> {
        let data = to_json(t)?;
        self.db.write(|c| {
            c.execute(
                "INSERT INTO aura_tasks(id, project_id, created_at, data) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT(id) DO UPDATE SET data = excluded.data",
                params![t.id, t.project_id, ms(t.created_at), data],
            )
            .map_err(|err| fk_err(err, &t.project_id))?;
            Ok(())
        })
    }

    async fn task(&self, id: &str) -> Result<Option<Task>> {
        self.one("SELECT data FROM aura_tasks WHERE id = ?1", id)
    }

    async fn tasks(&self, project_id: &str) -> Result<Vec<Task>> {
        self.many(
            "SELECT data FROM aura_tasks WHERE project_id = ?1 ORDER BY created_at, id",
            [project_id],
        )
    }

    async fn append_project_decision(&self, d: &ProjectDecision) -> Result<()> {
        let data = to_json(d)?;
        self.db.write(|c| {
            c.execute(
                "INSERT INTO aura_decisions(id, project_id, created_at, data) VALUES (?1, ?2, ?3, ?4)",
                params![d.id, d.project_id, ms(d.created_at), data],
            )
            .map_err(|err| fk_err(err, &d.project_id))?;
            Ok(())
        })
    }

    async fn project_decisions(
        &self,
        project_id: &str,
        limit: usize,
    ) -> Result<Vec<ProjectDecision>> {
        let mut out: Vec<ProjectDecision> = self.many(
            "SELECT data FROM aura_decisions WHERE project_id = ?1 \
             ORDER BY created_at DESC, seq DESC LIMIT ?2",
            params![project_id, to_i64(limit)],
        )?;
        out.reverse();
        Ok(out)
    }
}
