//! The research workflow: `research(syllabus, options)`,
//! `findByName(filename, options)` and `addReference(request)`. Options
//! are camelCase (`runDir`, `knowledgeDir`, `allowPrivate`,
//! `removeUnsupported`, `replay`); results are the api's
//! `ResearchResponse`, `KnowledgeEntryView` and `AddReferenceResponse`.

use std::path::PathBuf;

use napi::Result;
use napi_derive::napi;
use serde::Deserialize;
use serde_json::Value;
use verity::api::research::{AddReferenceRequest, AddReferenceResponse, ResearchResponse};
use verity::research::ResearchOptions;

use crate::conv::{self, json, run};
use crate::NativeVerity;

/// Options of `research`, `findByName` and `addReference`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Options {
    #[serde(default)]
    run_dir: Option<PathBuf>,
    #[serde(default)]
    knowledge_dir: Option<PathBuf>,
    #[serde(default)]
    allow_private: bool,
    #[serde(default)]
    remove_unsupported: bool,
    #[serde(default)]
    replay: bool,
}

impl Options {
    fn parse(v: Option<Value>, what: &str) -> Result<Self> {
        match v {
            None | Some(Value::Null) => Ok(Self::default()),
            Some(v) => conv::value(v, what),
        }
    }

    fn research(self) -> ResearchOptions {
        ResearchOptions {
            run_dir: self.run_dir,
            knowledge_dir: self.knowledge_dir,
            allow_private: self.allow_private,
            remove_unsupported: self.remove_unsupported,
            replay: self.replay,
            ..ResearchOptions::default()
        }
    }
}

/// `addReference`'s request: the api's fields plus where and how to fetch.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct AddReference {
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    filename: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(default)]
    knowledge_dir: Option<PathBuf>,
    #[serde(default)]
    allow_private: bool,
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
        let opts = Options::parse(options, "research options")?.research();
        let syllabus = PathBuf::from(syllabus.unwrap_or_default());
        let v = self.inner.get()?;
        let out = run(async move {
            if !opts.replay && syllabus.as_os_str().is_empty() {
                return Err(verity::Error::invalid_input(
                    "`syllabus` is required (or `replay: true` with `runDir`)",
                ));
            }
            if opts.replay && opts.run_dir.is_none() {
                return Err(verity::Error::invalid_input(
                    "`replay: true` needs `runDir`, the run to replay",
                ));
            }
            v.research(&syllabus, &opts, &|_| {}).await
        })
        .await?;
        json(&ResearchResponse::from(out))
    }

    /// The knowledge-base entry of a file, or `null`.
    #[napi]
    pub async fn find_by_name(&self, filename: String, options: Option<Value>) -> Result<Value> {
        let opts = Options::parse(options, "findByName options")?;
        let v = self.inner.get()?;
        let entry = run(async move {
            if filename.trim().is_empty() {
                return Err(verity::Error::invalid_input("`filename` is empty"));
            }
            v.find_by_name(filename.trim(), opts.knowledge_dir.as_deref())
        })
        .await?;
        json(&entry.map(verity::api::research::KnowledgeEntryView::from))
    }

    /// Add a reference (`url` or `filename`) to the knowledge base.
    #[napi]
    pub async fn add_reference(&self, request: Value) -> Result<Value> {
        let r: AddReference = conv::value(request, "addReference request")?;
        let req = AddReferenceRequest {
            url: r.url,
            filename: r.filename,
            title: r.title,
            description: r.description,
            keywords: r.keywords,
        };
        let opts = ResearchOptions {
            knowledge_dir: r.knowledge_dir,
            allow_private: r.allow_private,
            ..ResearchOptions::default()
        };
        let v = self.inner.get()?;
        let out = run(async move {
            let reference = req.reference()?;
            v.add_reference(reference, &opts).await
        })
        .await?;
        json(&AddReferenceResponse::from(out))
    }
}
