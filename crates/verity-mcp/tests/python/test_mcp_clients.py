"""The Python `mcp` SDK client against `verity mcp` (stdio) and the HTTP endpoint."""

import json
from contextlib import asynccontextmanager

import anyio
import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

# Some of the registry's tools, one or more per capability (the full list
# is checked against the library's registry by the Rust tests).
TOOLS = {
    "search", "ask", "ingest", "fetch_url", "get_document", "stats",
    "verify_citations", "remember", "recall", "forget",
    "get_veille_rules", "check_article_exists", "log_article", "verify_fact",
}


@asynccontextmanager
async def stdio_session(verity_bin, store):
    env, root = store
    params = StdioServerParameters(
        command=verity_bin, args=["mcp", "--root", str(root)], env=env
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


@asynccontextmanager
async def http_session(url):
    async with streamable_http_client(url) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


async def check_session(session):
    await session.send_ping()
    tools = (await session.list_tools()).tools
    names = {t.name for t in tools}
    assert TOOLS <= names, TOOLS - names
    assert len(names) == len(tools), "tool names are unique"
    for t in tools:
        assert t.input_schema["type"] == "object", t.name
        assert t.output_schema and t.output_schema["type"] == "object", t.name
        assert t.description

    # Success: structured content (validated by the SDK against the output schema) + text.
    r = await session.call_tool("search", {"query": "who sets routing fees"})
    assert not r.is_error
    assert r.structured_content["hits"][0]["doc"]["uid"] == "fees"
    assert "Routing fees" in r.content[0].text

    r = await session.call_tool("get_document", {"uid": "tides"})
    assert r.structured_content["document"]["uid"] == "tides"
    assert "moon" in r.content[0].text

    r = await session.call_tool("stats", {})
    assert r.structured_content["store"]["documents"] >= 2

    # Files under the root only.
    r = await session.call_tool("ingest", {"paths": ["lighthouse.md"]})
    assert not r.is_error, r
    assert r.structured_content["inserted"] + r.structured_content["unchanged"] == 1
    r = await session.call_tool("ingest", {"paths": ["../../etc/passwd"]})
    assert r.is_error
    assert "invalid_input" in r.content[0].text
    r = await session.call_tool("ingest", {"paths": ["/etc/passwd"]})
    assert r.is_error and "outside" in r.content[0].text

    # The SSRF guard applies to fetch_url.
    r = await session.call_tool("fetch_url", {"url": "http://127.0.0.1:9/"})
    assert r.is_error
    assert r.structured_content["error"]["code"] == "fetch_refused"  # a guard refusal is the client's request, not an upstream failure

    # Protocol errors for unknown tools and invalid arguments.
    for name, args in [("nope", {}), ("search", {"query": 1}), ("search", {"q": "x"})]:
        with pytest.raises(MCPError) as e:
            await session.call_tool(name, args)
        assert e.value.code == -32602, (name, args, e.value)


@pytest.mark.anyio
async def test_stdio(verity_bin, store):
    async with stdio_session(verity_bin, store) as session:
        await check_session(session)


@pytest.mark.anyio
async def test_http_sessions(http_url):
    async with http_session(http_url) as session:
        await check_session(session)


@pytest.mark.anyio
async def test_http_stateless(stateless_url):
    async with http_session(stateless_url) as session:
        await check_session(session)


@pytest.mark.anyio
async def test_http_refuses_foreign_host_and_origin(http_url):
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    headers = {"accept": "application/json, text/event-stream"}
    async with httpx2.AsyncClient() as c:
        ok = await c.post(http_url, json=init, headers=headers)
        assert ok.status_code == 200
        bad_host = await c.post(http_url, json=init, headers={**headers, "host": "evil.example"})
        assert bad_host.status_code == 403
        bad_origin = await c.post(
            http_url, json=init, headers={**headers, "origin": "https://evil.example"}
        )
        assert bad_origin.status_code == 403


@pytest.fixture
def anyio_backend():
    return "asyncio"
