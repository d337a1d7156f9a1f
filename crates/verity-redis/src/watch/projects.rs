//! AuraCore projects, context, tasks and decisions in Redis.

use async_trait::async_trait;
use verity_core::{ContextEntry, Project, ProjectDecision, ProjectStore, Result, StoreError, Task};

use super::{from_json, score, to_json, RedisWatchStore};

impl RedisWatchStore {
    async fn hget<T: serde::de::DeserializeOwned>(
        &self,
        hash: &str,
        id: &str,
    ) -> Result<Option<T>> {
        let raw: Option<String> = self
            .query(redis::cmd("HGET").arg(self.key(&[hash])).arg(id), "HGET")
            .await?;
        raw.as_deref().map(from_json).transpose()
    }

    /// Write record `id` into hash `hash` and index it in the project's sorted set `set`.
    async fn put_indexed(
        &self,
        hash: &str,
        set: &str,
        id: &str,
        project_id: &str,
        created: chrono::DateTime<chrono::Utc>,
        data: String,
    ) -> Result<()> {
        if !self.project_exists(project_id).await? {
            return Err(StoreError::NotFound {
                what: "project",
                id: project_id.to_string(),
            }
            .into());
        }
        let mut pipe = redis::pipe();
        pipe.atomic();
        pipe.cmd("HSET")
            .arg(self.key(&[hash]))
            .arg(id)
            .arg(data)
            .ignore();
        pipe.cmd("ZADD")
            .arg(self.key(&["prj", project_id, set]))
            .arg(score(created))
            .arg(id)
            .ignore();
        self.exec(&pipe, "writing a project record").await
    }

    async fn project_exists(&self, id: &str) -> Result<bool> {
        self.query(
            redis::cmd("HEXISTS").arg(self.key(&["prj"])).arg(id),
            "HEXISTS project",
        )
        .await
    }

    /// Records of hash `hash` listed in the project's sorted set `set`, oldest first
    /// (`limit`: only the most recent ones).
    async fn listed<T: serde::de::DeserializeOwned>(
        &self,
        hash: &str,
        set: &str,
        project_id: &str,
        limit: Option<usize>,
    ) -> Result<Vec<T>> {
        let (start, stop) = match limit {
            Some(0) => return Ok(Vec::new()),
            Some(n) => (-(i64::try_from(n).unwrap_or(i64::MAX)), -1),
            None => (0, -1),
        };
        let ids: Vec<String> = self
            .query(
                redis::cmd("ZRANGE")
                    .arg(self.key(&["prj", project_id, set]))
                    .arg(start)
                    .arg(stop),
                "ZRANGE project records",
            )
            .await?;
        self.hmget(&self.key(&[hash]), &ids).await
    }
}

#[async_trait]
impl ProjectStore for RedisWatchStore {
    async fn put_project(&self, p: &Project) -> Result<()> {
        let data = to_json(p)?;
        self.query::<()>(
            redis::cmd("HSET")
                .arg(self.key(&["prj"]))
                .arg(&p.id)
                .arg(data),
            "HSET project",
        )
        .await
    }

    async fn project(&self, id: &str) -> Result<Option<Project>> {
        self.hget("prj", id).await
    }

    async fn projects(&self) -> Result<Vec<Project>> {
        let raw: Vec<String> = self
            .query(
                redis::cmd("HVALS").arg(self.key(&["prj"])),
                "HVALS projects",
            )
            .await?;
        let mut out: Vec<Project> = raw.iter().map(|s| from_json(s)).collect::<Result<_>>()?;
        out.sort_by(|a, b| {
            a.created_at
                .cmp(&b.created_at)
                .then_with(|| a.id.cmp(&b.id))
        });
        Ok(out)
    }

    async fn put_context(&self, e: &ContextEntry) -> Result<()> {
        self.put_indexed(
            "ctx",
            "ctx",
            &e.id,
            &e.project_id,
            e.created_at,
            to_json(e)?,
        )
        .await
    }

    async fn context(&self, id: &str) -> Result<Option<ContextEntry>> {
        self.hget("ctx", id).await
    }

    async fn contexts(&self, project_id: &str) -> Result<Vec<ContextEntry>> {
        self.listed("ctx", "ctx", project_id, None).await
    }

    async fn delete_context(&self, id: &str) -> Result<bool> {
        let Some(e) = self.context(id).await? else {
            return Ok(false);
        };
        let mut pipe = redis::pipe();
        pipe.atomic();
        pipe.cmd("HDEL").arg(self.key(&["ctx"])).arg(id);
        pipe.cmd("ZREM")
            .arg(self.key(&["prj", &e.project_id, "ctx"]))
            .arg(id)
            .ignore();
        let mut con = self.con.clone();
        let (n,): (i64,) = pipe
            .query_async(&mut con)
            .await
            .map_err(|e| crate::conn::map_err(e, "deleting a context entry"))?;
        Ok(n > 0)
    }

    async fn put_task(&self, t: &Task) -> Result<()> {
        self.put_indexed(
            "task",
            "task",
            &t.id,
            &t.project_id,
            t.created_at,
            to_json(t)?,
        )
        .await
    }

    async fn task(&self, id: &str) -> Result<Option<Task>> {
        self.hget("task", id).await
    }

    async fn tasks(&self, project_id: &str) -> Result<Vec<Task>> {
        self.listed("task", "task", project_id, None).await
    }

    async fn append_project_decision(&self, d: &ProjectDecision) -> Result<()> {
        let added: i64 = self
            .query(
                redis::cmd("HSETNX")
                    .arg(self.key(&["pdec"]))
                    .arg(&d.id)
                    .arg("{}"),
                "HSETNX project decision",
            )
            .await?;
        if added == 0 {
            return Err(StoreError::Backend(format!(
                "decision `{}` is already logged (the log is append-only)",
                d.id
            ))
            .into());
        }
        let r = self
            .put_indexed(
                "pdec",
                "pdec",
                &d.id,
                &d.project_id,
                d.created_at,
                to_json(d)?,
            )
            .await;
        if r.is_err() {
            // Do not leave the placeholder behind.
            let _ = self
                .query::<i64>(
                    redis::cmd("HDEL").arg(self.key(&["pdec"])).arg(&d.id),
                    "HDEL",
                )
                .await;
        }
        r
    }

    async fn project_decisions(
        &self,
        project_id: &str,
        limit: usize,
    ) -> Result<Vec<ProjectDecision>> {
        self.listed("pdec", "pdec", project_id, Some(limit)).await
    }
}
