//! The research workflow: `research(syllabus, options)`,
//! `findByName(filename, options)` and `addReference(request, options)`.
//! The request is the api's `AddReferenceRequest`, the options object the
//! api's `ResearchOptions` (camelCase keys: `runDir`, `knowledgeDir`,
//! `allowPrivate`, `removeUnsupported`, `replay`, `judge`, `budgetSecs`),
//! both read through serde; results are the api's `ResearchResponse`,
//! `KnowledgeEntryView` and `AddReferenceResponse`.

use std::path::PathBuf;

use napi::Result;
use napi_derive::napi;
use serde_json::Value;
use verity::api::research::{
    AddReferenceRequest, AddReferenceResponse, FindByNameRequest, KnowledgeEntryView,
    ResearchOptions, ResearchResponse,
};

use crate::conv::{self, json, run, snake_keys};
use crate::NativeVerity;

/// An options object as the api's `ResearchOptions` (`undefined`: defaults).
fn options(v: Option<Value>, what: &str) -> Result<ResearchOptions> {
    conv::options(v.map(|v| snake_keys(v, &[])), what)
}

#[napi]
impl NativeVerity {
    /// Research a syllabus (or replay `runDir` with `replay: true`).
    #[napi]
    pub async fn research(
        &self,
        syllabus: Option<String>,
        options: Option<Value>,
    ) -> Result<Value> {
        let opts = self::options(options, "research")?;
        let syllabus = PathBuf::from(syllabus.unwrap_or_default());
        let v = self.inner.get()?;
        let out = run(async move { v.research(&syllabus, &opts, &|_| {}).await }).await?;
        json(&ResearchResponse::from(out))
    }

    /// The knowledge-base entry of a file, or `null`.
    #[napi]
    pub async fn find_by_name(&self, filename: String, options: Option<Value>) -> Result<Value> {
        let opts = self::options(options, "findByName")?;
        let req = FindByNameRequest { filename };
        let v = self.inner.get()?;
        let entry = run(async move { v.find_by_name(&req, &opts) }).await?;
        json(&entry.map(KnowledgeEntryView::from))
    }

    /// Add a reference (`url` or `filename`) to the knowledge base.
    #[napi]
    pub async fn add_reference(&self, request: Value, options: Option<Value>) -> Result<Value> {
        let req: AddReferenceRequest =
            conv::value(snake_keys(request, &[]), "addReference request")?;
        let opts = self::options(options, "addReference")?;
        let v = self.inner.get()?;
        let out = run(async move { v.add_reference(&req, &opts).await }).await?;
        json(&AddReferenceResponse::from(out))
    }
}
