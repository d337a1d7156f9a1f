//! Event memory on the native store: `memoryAdd`, `memoryGet`,
//! `memoryDelete`, `memoryUpdateMetadata`, `memorySearch`, and the agent
//! calls `remember`, `recall`, `forget`. Options are camelCase objects turned
//! into the `verity::api::memory` requests; results are plain JSON objects.
//! `node/index.js` exposes them as `store.memory.add/get/…`.

use napi::Result;
use napi_derive::napi;
use serde_json::{Map, Value};
use verity::api::memory::{
    EventQuery, EventQueryParams, ForgetRequest, NewEvent, RecallRequest, RememberRequest,
};

use crate::conv::{json, napi_error, run, snake_keys, to_napi, value};
use crate::NativeVerity;

fn uuid(id: &str) -> Result<uuid::Uuid> {
    uuid::Uuid::parse_str(id.trim()).map_err(|e| {
        napi_error(
            "invalid_input",
            false,
            &format!("invalid `id`: is not a UUID: {e}"),
        )
    })
}

/// An options object with camelCase keys, as snake_case (`null`/`undefined`: `{}`).
fn opts(v: Option<Value>, what: &str) -> Result<Map<String, Value>> {
    match v.map(|v| snake_keys(v, &[])) {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m),
        Some(_) => Err(napi_error(
            "invalid_input",
            false,
            &format!("{what} options must be an object"),
        )),
    }
}

/// `memorySearch` options as the REST query parameters, parsed by the same code.
fn search_query(v: Option<Value>) -> Result<EventQuery> {
    let m = opts(v, "memory search")?;
    let mut p = EventQueryParams::default();
    for (k, v) in m {
        let s = match &v {
            Value::Null => continue,
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let slot = match k.as_str() {
            "vector_query" => &mut p.vector_query,
            "filter_metadata" => &mut p.filter_metadata,
            "ts_start" => &mut p.ts_start,
            "ts_end" => &mut p.ts_end,
            "distance_threshold" => &mut p.distance_threshold,
            "limit" => &mut p.limit,
            "offset" => &mut p.offset,
            "mode" => &mut p.mode,
            other => {
                return Err(napi_error(
                    "invalid_input",
                    false,
                    &format!("invalid memory search options: unknown field `{other}`"),
                ))
            }
        };
        *slot = Some(s);
    }
    EventQuery::from_params(&p).map_err(to_napi)
}

#[napi]
impl NativeVerity {
    /// Write an event `{content, metadata?, embedding?, timestamp?, expiresAt?}`
    /// (top-level keys camelCase, `content` and `metadata` as written).
    #[napi]
    pub async fn memory_add(&self, event: Value) -> Result<Value> {
        let ev = NewEvent::from_json(&snake_keys(event, &[])).map_err(to_napi)?;
        let v = self.inner.get()?;
        let added = run(async move { v.memory_add(ev).await }).await?;
        json(&added.event)
    }

    /// One event by id (rejects with `not_found` when unknown or expired).
    #[napi]
    pub async fn memory_get(&self, id: String) -> Result<Value> {
        let (v, id) = (self.inner.get()?, uuid(&id)?);
        json(&run(async move { v.memory_get(id).await }).await?)
    }

    /// Delete one event (rejects with `not_found` when unknown).
    #[napi]
    pub async fn memory_delete(&self, id: String) -> Result<()> {
        let (v, id) = (self.inner.get()?, uuid(&id)?);
        run(async move { v.memory_delete(id).await }).await
    }

    /// Merge `patch` into an event's metadata.
    #[napi]
    pub async fn memory_update_metadata(&self, id: String, patch: Value) -> Result<Value> {
        let (v, id) = (self.inner.get()?, uuid(&id)?);
        json(&run(async move { v.memory_update_metadata(id, &patch).await }).await?)
    }

    /// Search events: `{vectorQuery, filterMetadata, tsStart, tsEnd, distanceThreshold, limit, offset, mode}`.
    #[napi]
    pub async fn memory_search(&self, options: Option<Value>) -> Result<Value> {
        let q = search_query(options)?;
        let v = self.inner.get()?;
        json(&run(async move { v.memory_search(&q).await }).await?)
    }

    /// Remember `text` with `{metadata, ttlSeconds}`.
    #[napi]
    pub async fn remember(&self, text: String, options: Option<Value>) -> Result<Value> {
        let mut m = opts(options, "remember")?;
        m.insert("text".into(), Value::String(text));
        let req: RememberRequest = value(Value::Object(m), "remember options")?;
        let v = self.inner.get()?;
        json(&run(async move { v.remember(&req).await }).await?.event)
    }

    /// Recall with `{query, filterMetadata, tsStart, tsEnd, limit, mode, distanceThreshold}`.
    #[napi]
    pub async fn recall(&self, options: Option<Value>) -> Result<Value> {
        let req: RecallRequest = value(Value::Object(opts(options, "recall")?), "recall options")?;
        let v = self.inner.get()?;
        json(&run(async move { v.recall(&req).await }).await?)
    }

    /// Forget `{id}` or `{filterMetadata, tsStart, tsEnd}`; resolves to how many.
    #[napi]
    pub async fn forget(&self, options: Option<Value>) -> Result<u32> {
        let req: ForgetRequest = value(Value::Object(opts(options, "forget")?), "forget options")?;
        let v = self.inner.get()?;
        let r = run(async move { v.forget(&req).await }).await?;
        Ok(u32::try_from(r.deleted).unwrap_or(u32::MAX))
    }
}
