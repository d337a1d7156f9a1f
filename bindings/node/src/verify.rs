//! `verity.check(request)`: citation verification. The request is
//! the api's `CheckRequest` with camelCase keys (`contentType`, `allowPrivate`,
//! `contentBase64`); the result is the report as a plain object.

use napi::Result;
use napi_derive::napi;
use serde_json::Value;
use verity::api::verify::{ignore_progress, CheckRequest};

use crate::conv::{self, json, run};
use crate::NativeVerity;

#[napi]
impl NativeVerity {
    /// Check that each cited source supports the claim citing it.
    #[napi]
    pub async fn check(&self, request: Value) -> Result<Value> {
        let req: CheckRequest = conv::value(conv::snake_keys(request, &[]), "check request")?;
        let v = self.inner.get()?;
        let report = run(async move { v.check(&req, &ignore_progress).await }).await?;
        json(&report)
    }
}
