//! Rules, articles and the decision log in Redis.

use async_trait::async_trait;
use verity_core::watch::{simhash_bands, SIMHASH_MAX_DISTANCE};
use verity_core::{
    Article, ArticleFilter, Decision, DecisionFilter, Priority, RelevanceRule, Result, RuleKind,
    RuleStore, StoreError, WatchStore,
};

use super::{from_json, score, to_json, RedisWatchStore};

/// Ids read per step when filtering the time index.
const PAGE: usize = 500;

impl RedisWatchStore {
    fn art_key(&self, id: &str) -> String {
        self.key(&["article", id])
    }

    fn band_key(&self, band: u8, value: u16) -> String {
        self.key(&["art", "band", &band.to_string(), &value.to_string()])
    }
}

#[async_trait]
impl RuleStore for RedisWatchStore {
    async fn rules(
        &self,
        kind: Option<RuleKind>,
        priority: Option<Priority>,
    ) -> Result<Vec<RelevanceRule>> {
        let raw: Vec<String> = self
            .query(redis::cmd("HVALS").arg(self.key(&["rules"])), "HVALS rules")
            .await?;
        let mut out: Vec<RelevanceRule> =
            raw.iter().map(|s| from_json(s)).collect::<Result<_>>()?;
        out.retain(|r| {
            kind.is_none_or(|k| r.kind == k) && priority.is_none_or(|p| r.priority == p)
        });
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    async fn upsert_rule(&self, rule: RelevanceRule) -> Result<()> {
        let data = to_json(&rule)?;
        self.query::<()>(
            redis::cmd("HSET")
                .arg(self.key(&["rules"]))
                .arg(&rule.name)
                .arg(data),
            "HSET rules",
        )
        .await
    }

    async fn delete_rule(&self, name: &str) -> Result<bool> {
        let n: i64 = self
            .query(
                redis::cmd("HDEL").arg(self.key(&["rules"])).arg(name),
                "HDEL rules",
            )
            .await?;
        Ok(n > 0)
    }
}

#[async_trait]
impl WatchStore for RedisWatchStore {
    async fn article_by_url(&self, canonical_url: &str) -> Result<Option<Article>> {
        let id: Option<String> = self
            .query(
                redis::cmd("HGET")
                    .arg(self.key(&["art", "urls"]))
                    .arg(canonical_url),
                "HGET article url",
            )
            .await?;
        match id {
            Some(id) => self.article(&id).await,
            None => Ok(None),
        }
    }

    async fn article(&self, id: &str) -> Result<Option<Article>> {
        let raw: Option<String> = self
            .query(redis::cmd("GET").arg(self.art_key(id)), "GET article")
            .await?;
        raw.as_deref().map(from_json).transpose()
    }

    async fn put_article(&self, a: &Article) -> Result<()> {
        let old = self.article(&a.id).await?;
        let data = to_json(a)?;
        let urls_key = self.key(&["art", "urls"]);
        let mut pipe = redis::pipe();
        pipe.atomic();
        if let Some(old) = &old {
            let gone: Vec<&str> = old
                .all_urls()
                .filter(|u| !a.all_urls().any(|n| n == *u))
                .collect();
            if !gone.is_empty() {
                pipe.cmd("HDEL").arg(&urls_key).arg(gone).ignore();
            }
            if let Some(h) = old.simhash {
                for (b, v) in simhash_bands(h) {
                    pipe.cmd("SREM")
                        .arg(self.band_key(b, v))
                        .arg(&a.id)
                        .ignore();
                }
            }
        }
        pipe.cmd("SET").arg(self.art_key(&a.id)).arg(data).ignore();
        for u in a.all_urls() {
            pipe.cmd("HSET").arg(&urls_key).arg(u).arg(&a.id).ignore();
        }
        pipe.cmd("ZADD")
            .arg(self.key(&["art", "time"]))
            .arg(score(a.processed_at))
            .arg(&a.id)
            .ignore();
        if let Some(h) = a.simhash {
            for (b, v) in simhash_bands(h) {
                pipe.cmd("SADD")
                    .arg(self.band_key(b, v))
                    .arg(&a.id)
                    .ignore();
            }
        }
        self.exec(&pipe, "writing an article").await
    }

    async fn near_duplicates(&self, simhash: u64, max_distance: u32) -> Result<Vec<Article>> {
        let max = max_distance.min(SIMHASH_MAX_DISTANCE);
        let keys: Vec<String> = simhash_bands(simhash)
            .iter()
            .map(|(b, v)| self.band_key(*b, *v))
            .collect();
        let ids: Vec<String> = self
            .query(redis::cmd("SUNION").arg(keys), "SUNION bands")
            .await?;
        let keys: Vec<String> = ids.iter().map(|id| self.art_key(id)).collect();
        let mut found: Vec<Article> = self.mget(&keys).await?;
        found.retain(|a| a.simhash.is_some_and(|h| (h ^ simhash).count_ones() <= max));
        Ok(found)
    }

    async fn articles(&self, f: &ArticleFilter) -> Result<Vec<Article>> {
        let min = f.since.map_or("-inf".to_string(), |s| score(s).to_string());
        let mut out = Vec::new();
        let mut offset = 0usize;
        while out.len() < f.limit {
            let ids: Vec<String> = self
                .query(
                    redis::cmd("ZREVRANGEBYSCORE")
                        .arg(self.key(&["art", "time"]))
                        .arg("+inf")
                        .arg(&min)
                        .arg("LIMIT")
                        .arg(offset)
                        .arg(PAGE),
                    "ZREVRANGEBYSCORE articles",
                )
                .await?;
            if ids.is_empty() {
                break;
            }
            offset += ids.len();
            let keys: Vec<String> = ids.iter().map(|id| self.art_key(id)).collect();
            let page: Vec<Article> = self.mget(&keys).await?;
            out.extend(page.into_iter().filter(|a| f.matches(a)));
            if ids.len() < PAGE {
                break;
            }
        }
        out.sort_by(|a, b| {
            b.processed_at
                .cmp(&a.processed_at)
                .then_with(|| a.id.cmp(&b.id))
        });
        out.truncate(f.limit);
        Ok(out)
    }

    async fn article_count(&self) -> Result<usize> {
        let n: i64 = self
            .query(
                redis::cmd("ZCARD").arg(self.key(&["art", "time"])),
                "ZCARD articles",
            )
            .await?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    async fn append_decision(&self, d: &Decision) -> Result<()> {
        let data = to_json(d)?;
        let set: Option<String> = self
            .query(
                redis::cmd("SET")
                    .arg(self.key(&["decision", &d.id]))
                    .arg(data)
                    .arg("NX"),
                "SET decision",
            )
            .await?;
        if set.is_none() {
            return Err(StoreError::Backend(format!(
                "decision `{}` is already logged (the log is append-only)",
                d.id
            ))
            .into());
        }
        let mut pipe = redis::pipe();
        pipe.atomic();
        pipe.cmd("ZADD")
            .arg(self.key(&["dec", "time"]))
            .arg(score(d.created_at))
            .arg(&d.id)
            .ignore();
        if let Some(a) = &d.article_id {
            pipe.cmd("ZADD")
                .arg(self.key(&["dec", "art", a]))
                .arg(score(d.created_at))
                .arg(&d.id)
                .ignore();
        }
        self.exec(&pipe, "indexing a decision").await
    }

    async fn decisions(&self, f: &DecisionFilter) -> Result<Vec<Decision>> {
        let index = match &f.article_id {
            Some(a) => self.key(&["dec", "art", a]),
            None => self.key(&["dec", "time"]),
        };
        let max = f
            .until
            .map_or("+inf".to_string(), |u| format!("({}", score(u)));
        let min = f.since.map_or("-inf".to_string(), |s| score(s).to_string());
        let ids: Vec<String> = self
            .query(
                redis::cmd("ZREVRANGEBYSCORE")
                    .arg(index)
                    .arg(max)
                    .arg(min)
                    .arg("LIMIT")
                    .arg(0)
                    .arg(f.limit),
                "ZREVRANGEBYSCORE decisions",
            )
            .await?;
        let keys: Vec<String> = ids
            .iter()
            .rev()
            .map(|id| self.key(&["decision", id]))
            .collect();
        let mut out: Vec<Decision> = self.mget(&keys).await?;
        out.retain(|d| f.matches(d));
        Ok(out)
    }
}
