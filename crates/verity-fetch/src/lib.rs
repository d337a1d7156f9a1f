//! Sources from the network: robust HTTP fetcher with SSRF guard, Jina Reader, SearXNG web search, DOI/arXiv resolvers.
