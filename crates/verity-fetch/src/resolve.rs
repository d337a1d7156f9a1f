//! Reference resolvers: DOI and arXiv identifiers → URLs to fetch.

use url::Url;
use verity_core::{FetchStatus, FetchedSource, Fetcher, Result};

use crate::http::HttpFetcher;

/// Which kind of identifier was recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReferenceKind {
    /// A DOI (`10.1000/xyz`).
    Doi,
    /// An arXiv identifier (`2401.01234v2`, `hep-th/9901001`).
    Arxiv,
}

/// A recognised reference and where to read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedReference {
    /// Identifier kind.
    pub kind: ReferenceKind,
    /// Normalised identifier (DOI lower-cased; arXiv id with its version, if given).
    pub id: String,
    /// Landing page (`https://doi.org/<doi>`, `https://arxiv.org/abs/<id>`).
    pub landing_url: Url,
    /// Direct PDF, when known (arXiv).
    pub pdf_url: Option<Url>,
}

/// Base URLs of the resolvers (configurable so tests can use a fake server).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolverConfig {
    /// DOI proxy (default `https://doi.org/`).
    pub doi_base: Url,
    /// arXiv site (default `https://arxiv.org/`).
    pub arxiv_base: Url,
}

impl Default for ResolverConfig {
    fn default() -> Self {
        Self {
            doi_base: fixed_url("https://doi.org/"),
            arxiv_base: fixed_url("https://arxiv.org/"),
        }
    }
}

#[allow(clippy::expect_used)]
fn fixed_url(s: &'static str) -> Url {
    // Only called with valid static literals.
    Url::parse(s).expect("static URL literal")
}

impl ResolverConfig {
    /// Bases from strings.
    pub fn new(doi_base: &str, arxiv_base: &str) -> Result<Self> {
        let parse = |key: &str, s: &str| -> Result<Url> {
            let with_slash = if s.ends_with('/') {
                s.to_string()
            } else {
                format!("{s}/")
            };
            Url::parse(&with_slash).map_err(|e| {
                verity_core::ConfigError::Invalid {
                    key: key.into(),
                    message: format!("`{s}`: {e}"),
                }
                .into()
            })
        };
        Ok(Self {
            doi_base: parse("doi_base", doi_base)?,
            arxiv_base: parse("arxiv_base", arxiv_base)?,
        })
    }
}

/// Recognise a DOI or an arXiv identifier (bare, prefixed, or as a URL) with the default bases.
///
/// ```
/// use verity_fetch::resolve_reference;
/// let r = resolve_reference("doi:10.1038/nature12373").unwrap();
/// assert_eq!(r.landing_url.as_str(), "https://doi.org/10.1038/nature12373");
/// let r = resolve_reference("https://arxiv.org/pdf/2401.01234v2").unwrap();
/// assert_eq!(r.pdf_url.unwrap().as_str(), "https://arxiv.org/pdf/2401.01234v2");
/// ```
pub fn resolve_reference(input: &str) -> Option<ResolvedReference> {
    resolve_reference_with(input, &ResolverConfig::default())
}

/// [`resolve_reference`] with explicit resolver bases.
pub fn resolve_reference_with(input: &str, cfg: &ResolverConfig) -> Option<ResolvedReference> {
    let s = input
        .trim()
        .trim_matches(|c: char| c == '<' || c == '>' || c == '"' || c == '\'');
    if let Some(id) = arxiv_id(s) {
        return arxiv_ref(&id, cfg);
    }
    let doi = doi_of(s)?;
    // arXiv-issued DOIs point to arXiv directly.
    if let Some(rest) = doi.strip_prefix("10.48550/arxiv.") {
        if let Some(id) = arxiv_id(rest) {
            return arxiv_ref(&id, cfg);
        }
    }
    let landing_url = cfg.doi_base.join(&encode_doi(&doi)).ok()?;
    Some(ResolvedReference {
        kind: ReferenceKind::Doi,
        id: doi,
        landing_url,
        pdf_url: None,
    })
}

fn arxiv_ref(id: &str, cfg: &ResolverConfig) -> Option<ResolvedReference> {
    let landing_url = cfg.arxiv_base.join(&format!("abs/{id}")).ok()?;
    let pdf_url = cfg.arxiv_base.join(&format!("pdf/{id}")).ok();
    Some(ResolvedReference {
        kind: ReferenceKind::Arxiv,
        id: id.to_string(),
        landing_url,
        pdf_url,
    })
}

/// Percent-encode a DOI for a URL path (keeping `/`).
fn encode_doi(doi: &str) -> String {
    let mut out = String::with_capacity(doi.len());
    for b in doi.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/:;()[]".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b.get(i),
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (Some(b'%'), Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (Some(c), _, _) => {
                out.push(*c);
                i += 1;
            }
            (None, _, _) => break,
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Extract a DOI from `doi:…`, `https://doi.org/…`, `dx.doi.org/…` or a bare `10.xxxx/…`.
fn doi_of(s: &str) -> Option<String> {
    let lower = s.to_ascii_lowercase();
    let mut rest = s;
    for prefix in [
        "https://doi.org/",
        "http://doi.org/",
        "https://dx.doi.org/",
        "http://dx.doi.org/",
        "doi.org/",
        "dx.doi.org/",
        "doi:",
        "doi: ",
    ] {
        if lower.starts_with(prefix) {
            rest = s.get(prefix.len()..)?;
            break;
        }
    }
    let rest = percent_decode(rest.trim());
    let (prefix, suffix) = rest.split_once('/')?;
    let registrant = prefix.strip_prefix("10.")?;
    let ok_prefix = !registrant.is_empty()
        && registrant
            .split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()));
    let first = registrant.split('.').next().unwrap_or("");
    if !ok_prefix
        || first.len() < 4
        || first.len() > 9
        || suffix.is_empty()
        || suffix.chars().any(char::is_whitespace)
    {
        return None;
    }
    // Trailing punctuation from prose; a `)` only when unbalanced.
    let mut suffix = suffix
        .trim_end_matches(['.', ',', ';', ':', '"', '\'', ']'])
        .to_string();
    while suffix.ends_with(')') && suffix.matches(')').count() > suffix.matches('(').count() {
        suffix.pop();
    }
    if suffix.is_empty() {
        return None;
    }
    Some(format!("10.{registrant}/{suffix}").to_lowercase())
}

/// Extract an arXiv identifier from `arXiv:…`, `https://arxiv.org/abs|pdf/…` or a bare id.
fn arxiv_id(s: &str) -> Option<String> {
    let lower = s.to_ascii_lowercase();
    let mut rest = lower.as_str();
    for prefix in ["https://", "http://"] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    rest = rest.strip_prefix("www.").unwrap_or(rest);
    rest = rest.strip_prefix("export.").unwrap_or(rest);
    if let Some(r) = rest.strip_prefix("arxiv.org/") {
        let r = r.strip_prefix("abs/").or_else(|| r.strip_prefix("pdf/"))?;
        rest = r.split(['?', '#']).next().unwrap_or(r);
        rest = rest.strip_suffix(".pdf").unwrap_or(rest);
        rest = rest.trim_end_matches('/');
    } else if let Some(r) = rest.strip_prefix("arxiv:") {
        rest = r.trim();
    } else if let Some(r) = rest.strip_prefix("arxiv ") {
        rest = r.trim();
    }
    let rest = rest.trim_end_matches(['.', ',', ';', ')']);
    if is_new_arxiv(rest) || is_old_arxiv(rest) {
        // Keep the original case of old-style archive names (they are lower-case anyway).
        return Some(rest.to_string());
    }
    None
}

/// `YYMM.NNNN` (2007–2014) or `YYMM.NNNNN` (2015–), optional `vN`.
fn is_new_arxiv(s: &str) -> bool {
    let (base, version) = split_version(s);
    let Some((yymm, num)) = base.split_once('.') else {
        return false;
    };
    let month = yymm
        .get(2..)
        .and_then(|m| m.parse::<u32>().ok())
        .unwrap_or(0);
    yymm.len() == 4
        && yymm.bytes().all(|c| c.is_ascii_digit())
        && (1..=12).contains(&month)
        && (num.len() == 4 || num.len() == 5)
        && num.bytes().all(|c| c.is_ascii_digit())
        && version
}

/// `archive(.SUBJ)/YYMMNNN`, optional `vN` (`hep-th/9901001`, `math.GT/0309136`).
fn is_old_arxiv(s: &str) -> bool {
    let (base, version) = split_version(s);
    let Some((archive, num)) = base.split_once('/') else {
        return false;
    };
    let (name, subject) = match archive.split_once('.') {
        Some((n, sub)) => (n, Some(sub)),
        None => (archive, None),
    };
    const ARCHIVES: &[&str] = &[
        "acc-phys", "adap-org", "alg-geom", "ao-sci", "astro-ph", "atom-ph", "bayes-an",
        "chao-dyn", "chem-ph", "cmp-lg", "comp-gas", "cond-mat", "cs", "dg-ga", "funct-an",
        "gr-qc", "hep-ex", "hep-lat", "hep-ph", "hep-th", "math", "math-ph", "mtrl-th", "nlin",
        "nucl-ex", "nucl-th", "patt-sol", "physics", "plasm-ph", "q-alg", "q-bio", "quant-ph",
        "solv-int", "supr-con",
    ];
    ARCHIVES.contains(&name)
        && subject.is_none_or(|s| {
            !s.is_empty() && s.len() <= 5 && s.bytes().all(|c| c.is_ascii_alphabetic() || c == b'-')
        })
        && num.len() == 7
        && num.bytes().all(|c| c.is_ascii_digit())
        && version
}

/// Split a trailing `vN`; the bool says whether the version (if any) is well-formed.
fn split_version(s: &str) -> (&str, bool) {
    match s.rfind('v') {
        Some(pos) if pos > 0 => {
            let (base, v) = s.split_at(pos);
            let digits = v.get(1..).unwrap_or("");
            if base.ends_with(|c: char| c.is_ascii_digit())
                && !digits.is_empty()
                && digits.bytes().all(|c| c.is_ascii_digit())
            {
                (base, true)
            } else {
                (s, true)
            }
        }
        _ => (s, true),
    }
}

impl HttpFetcher {
    /// Fetch a resolved reference's landing page (through the guard, robots, retries …).
    /// For arXiv, when the abstract page is unavailable, the PDF is tried.
    pub async fn fetch_reference(&self, reference: &ResolvedReference) -> Result<FetchedSource> {
        let page = self.fetch(&reference.landing_url).await?;
        if page.status == FetchStatus::Fetched {
            return Ok(page);
        }
        match &reference.pdf_url {
            Some(pdf) => {
                let alt = self.fetch(pdf).await?;
                Ok(if alt.status == FetchStatus::Fetched {
                    alt
                } else {
                    page
                })
            }
            None => Ok(page),
        }
    }

    /// Citation metadata of a DOI as CSL-JSON, by content negotiation
    /// (`Accept: application/vnd.citationstyles.csl+json` on the DOI URL).
    /// `Ok(None)` when the reference is not a DOI or no metadata could be had.
    pub async fn reference_metadata(
        &self,
        reference: &ResolvedReference,
    ) -> Result<Option<serde_json::Value>> {
        if reference.kind != ReferenceKind::Doi {
            return Ok(None);
        }
        let (src, body) = self
            .fetch_raw(
                &reference.landing_url,
                "application/vnd.citationstyles.csl+json, application/json;q=0.5",
            )
            .await?;
        if src.status != FetchStatus::Fetched {
            return Ok(None);
        }
        Ok(body
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .filter(serde_json::Value::is_object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dois() {
        for (input, want) in [
            ("10.1038/nature12373", "10.1038/nature12373"),
            ("doi:10.1038/NATURE12373", "10.1038/nature12373"),
            ("DOI: 10.1000/xyz123.", "10.1000/xyz123"),
            (
                "https://doi.org/10.1103/PhysRevLett.116.061102",
                "10.1103/physrevlett.116.061102",
            ),
            (
                "http://dx.doi.org/10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-0",
                "10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-0",
            ),
            ("https://doi.org/10.1000%2Fabc", "10.1000/abc"),
        ] {
            assert_eq!(
                resolve_reference(input).map(|r| r.id).as_deref(),
                Some(want),
                "{input}"
            );
        }
        assert!(
            resolve_reference("https://doi.org/10.1000%2Fabc%20def").is_none(),
            "whitespace in a DOI"
        );
        let r = resolve_reference("10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-0")
            .unwrap();
        assert!(r
            .landing_url
            .as_str()
            .starts_with("https://doi.org/10.1002/(sici)"));
        assert!(
            r.landing_url.as_str().contains("%3C693"),
            "{}",
            r.landing_url
        );
        for bad in [
            "10.12/abc",
            "11.1234/abc",
            "10.1234/",
            "10.abcd/x",
            "hello",
            "",
            "10.1234",
        ] {
            assert!(resolve_reference(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn arxiv_ids() {
        for (input, id) in [
            ("2401.01234v2", "2401.01234v2"),
            ("arXiv:2401.01234", "2401.01234"),
            ("https://arxiv.org/abs/2401.01234v2", "2401.01234v2"),
            ("https://arxiv.org/pdf/2401.01234v2.pdf", "2401.01234v2"),
            ("http://export.arxiv.org/abs/0706.0001", "0706.0001"),
            ("hep-th/9901001", "hep-th/9901001"),
            ("arXiv:hep-th/9901001v1", "hep-th/9901001v1"),
            ("https://arxiv.org/abs/math.GT/0309136", "math.gt/0309136"),
            ("10.48550/arXiv.2305.12345", "2305.12345"),
        ] {
            let r = resolve_reference(input).unwrap_or_else(|| panic!("{input}"));
            assert_eq!(r.kind, ReferenceKind::Arxiv, "{input}");
            assert_eq!(r.id, id, "{input}");
            assert_eq!(
                r.landing_url.as_str(),
                format!("https://arxiv.org/abs/{id}")
            );
            assert_eq!(
                r.pdf_url.unwrap().as_str(),
                format!("https://arxiv.org/pdf/{id}")
            );
        }
        for bad in [
            "2413.01234",
            "2401.123",
            "foo/9901001",
            "hep-th/99010",
            "https://arxiv.org/list/cs.AI",
        ] {
            assert!(resolve_reference(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn custom_bases() {
        let cfg =
            ResolverConfig::new("http://127.0.0.1:9/doi", "http://127.0.0.1:9/arxiv").unwrap();
        let r = resolve_reference_with("10.1000/abc", &cfg).unwrap();
        assert_eq!(r.landing_url.as_str(), "http://127.0.0.1:9/doi/10.1000/abc");
        let r = resolve_reference_with("2401.01234", &cfg).unwrap();
        assert_eq!(
            r.landing_url.as_str(),
            "http://127.0.0.1:9/arxiv/abs/2401.01234"
        );
        assert!(ResolverConfig::new("not a url", "http://x/").is_err());
    }
}
