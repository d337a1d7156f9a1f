#!/usr/bin/env python3
"""Attack suite against live `verity serve` instances on loopback.

Run by scripts/test-security.sh, which starts the servers and passes their
addresses. Every request goes to 127.0.0.1; every family is bounded in
count. Each family counts the attacks tried and those refused as intended
(plus positive controls that must be served); any other answer is a
finding, printed, and the exit status is 1.

Standard library only (raw sockets where no client library would send the
request: foreign or duplicate Host, absolute-form targets, huge headers).
"""

import json
import os
import socket
import sys
import time
import urllib.parse

VERSION = "2025-10-15"


class Family:
    def __init__(self, name):
        self.name = name
        self.tried = 0
        self.refused = 0
        self.controls = 0
        self.findings = []

    def attack(self, what, ok, detail=""):
        self.tried += 1
        if ok:
            self.refused += 1
        else:
            self.findings.append(f"{what}: {detail}")

    def control(self, what, ok, detail=""):
        self.controls += 1
        if not ok:
            self.findings.append(f"control {what}: {detail}")


FAMILIES = []


def family(name):
    f = Family(name)
    FAMILIES.append(f)
    return f


def request(addr, method, target, headers=None, body=b"", host=None, timeout=60, raw_head=None):
    """One HTTP/1.1 request on a fresh connection: (status, headers, body bytes)."""
    h, p = addr.rsplit(":", 1)
    if isinstance(body, str):
        body = body.encode()
    if raw_head is None:
        lines = [f"{method} {target} HTTP/1.1"]
        if host is not False:
            lines.append(f"Host: {host or addr}")
        for k, v in (headers or {}).items():
            lines.append(f"{k}: {v}")
        lines.append(f"Content-Length: {len(body)}")
        lines.append("Connection: close")
        head = "\r\n".join(lines) + "\r\n\r\n"
    else:
        head = raw_head + f"\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    s = socket.create_connection((h, int(p)), timeout=timeout)
    try:
        s.sendall(head.encode("latin-1") + body)
        chunks = []
        while True:
            try:
                c = s.recv(65536)
            except socket.timeout:
                break
            if not c:
                break
            chunks.append(c)
    finally:
        s.close()
    data = b"".join(chunks)
    head_end = data.find(b"\r\n\r\n")
    if head_end < 0:
        return 0, {}, data
    status_line, *hdr_lines = data[:head_end].decode("latin-1").split("\r\n")
    try:
        status = int(status_line.split()[1])
    except (IndexError, ValueError):
        status = 0
    hdrs = {}
    for line in hdr_lines:
        if ":" in line:
            k, v = line.split(":", 1)
            hdrs[k.strip().lower()] = v.strip()
    payload = data[head_end + 4 :]
    if hdrs.get("transfer-encoding", "").lower() == "chunked":
        out, rest = b"", payload
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            try:
                n = int(size_line.split(b";")[0], 16)
            except ValueError:
                break
            if n == 0:
                break
            out += rest[:n]
            rest = rest[n + 2 :]
        payload = out
    return status, hdrs, payload


def as_json(body):
    try:
        return json.loads(body.decode("utf-8", "replace"))
    except (ValueError, UnicodeDecodeError):
        return None


def json_req(addr, method, path, obj=None, token=None, extra=None, host=None):
    headers = {"Content-Type": "application/json", "X-API-Version": VERSION}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    headers.update(extra or {})
    body = b"" if obj is None else json.dumps(obj).encode()
    st, h, b = request(addr, method, path, headers, body, host=host)
    return st, as_json(b), h


def patient_req(addr, method, path, obj=None):
    """`json_req` as a well-behaved client: waits out a 429's Retry-After
    (the default server's rate limit) and asks again, a few times."""
    for _ in range(10):
        st, j, h = json_req(addr, method, path, obj)
        if st != 429:
            return st, j, h
        time.sleep(float((j or {}).get("retry_after_secs", 1)))
    return st, j, h


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_secs(pid):
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    fields = stat[stat.rfind(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


POST_ROUTES = {
    "/v1/ingest": {"documents": [{"uid": "planted", "content": "planted text"}]},
    "/v1/embed": {"texts": ["planted"]},
    "/v1/retrieve": {"query": "planted"},
    "/v1/generate": {"query": "planted", "context_chunks": []},
    "/v1/rag": {"question": "planted"},
    "/v1/verify": {"content": "planted"},
    "/v1/research": {"syllabus": "s.md"},
    "/verify": {"content": "planted"},
    "/v1/events": {"content": {"text": "planted"}},
    "/v1/events/": {"content": {"text": "planted"}},
    "/api/veille/rules": {"name": "planted", "type": "include", "keywords": ["planted"]},
    "/api/veille/check": {"url": "https://example.org/planted"},
    "/api/veille/score": {"title": "planted"},
    "/api/veille/articles": {"url": "https://example.org/planted", "title": "planted", "score": 9},
    "/api/veille/decisions": {"article_id": "art_x", "decision": "keep"},
    "/api/search": {"query": "planted"},
    "/api/crawl": {"url": "https://example.org/planted"},
    "/api/verify": {"claim": "planted"},
    "/api/tools/remember": {"content": "planted"},
    "/mcp": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
             "params": {"name": "remember", "arguments": {"content": "planted"}}},
}

SIMPLE_SHAPES = [
    "text/plain",
    "text/plain;charset=UTF-8",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=----x",
    None,
]

FAMILY_ROUTES = [
    ("POST", "/v1/retrieve"), ("DELETE", "/v1/documents/doc-1"), ("GET", "/v1/stats"),
    ("GET", "/v1/search/"), ("GET", "/v1/health"), ("GET", "/v1/openapi.json"),
    ("GET", "/v1/docs"), ("GET", "/v1/metrics"), ("POST", "/api/tools/stats"),
    ("GET", "/api/veille/rules"), ("GET", "/api/health"), ("POST", "/verify"),
    ("GET", "/"), ("POST", "/mcp"), ("GET", "/nowhere"),
]


def cross_site(open_addr):
    f = family("cross-site simple requests (no token)")
    for path, body in POST_ROUTES.items():
        for ct in SIMPLE_SHAPES:
            for origin in (None, "http://attacker.example"):
                headers = {"X-API-Version": VERSION}
                if ct:
                    headers["Content-Type"] = ct
                if origin:
                    headers["Origin"] = origin
                st, _, b = request(open_addr, "POST", path, headers, json.dumps(body))
                want = 403 if origin else 415
                f.attack(f"POST {path} {ct} origin={origin}", st == want, f"{st} {b[:200]!r}")
    st, page, _ = json_req(open_addr, "GET", "/v1/search/?filter_metadata=%7B%7D")
    f.control("no event planted", st == 200 and page and page["meta"]["total_hits"] == 0, f"{st} {page}")
    st, j, _ = json_req(open_addr, "POST", "/v1/events", {"content": {"text": "control"}})
    f.control("JSON write served", st == 201, f"{st} {j}")


def rebinding(open_addr, token_addr, token):
    f = family("DNS rebinding (foreign Host)")
    port = open_addr.rsplit(":", 1)[1]
    for addr, tok in ((open_addr, None), (token_addr, token)):
        for method, path in FAMILY_ROUTES:
            for host in (f"attacker.example:{port}", "attacker.example", f"127.0.0.1.nip.io:{port}",
                         f"localhost.attacker.example:{port}", "[::2]"):
                st, j, _ = json_req(addr, method, path, {"query": "x"}, tok, host=host)
                f.attack(f"{method} {path} Host {host}", st == 403 and j and j.get("code") == "host_not_allowed", f"{st} {j}")
            heads = [
                f"{method} {path} HTTP/1.1\r\nHost: ",
                f"{method} {path} HTTP/1.1\r\nHost: {addr}\r\nHost: attacker.example",
                f"{method} http://attacker.example{path} HTTP/1.1\r\nHost: {addr}",
            ]
            for head in heads:
                head += "\r\nContent-Type: application/json\r\nX-API-Version: " + VERSION
                if tok:
                    head += f"\r\nAuthorization: Bearer {tok}"
                st, _, b = request(addr, "", "", raw_head=head, body=b'{"query":"x"}')
                j = as_json(b) or {}
                f.attack(f"{method} {path} raw {head.splitlines()[0][:60]}", st in (400, 403) and j.get("code") in ("invalid_host", "host_not_allowed"), f"{st} {b[:200]!r}")
        st, _, _ = json_req(addr, "GET", "/v1/health", host=f"localhost:{addr.rsplit(':', 1)[1]}")
        f.control("loopback Host served", st == 200, str(st))


def origins(open_addr):
    f = family("cross-site Origin")
    for method, path in FAMILY_ROUTES:
        for origin in ("http://attacker.example", "null", "http://localhost.attacker.example",
                       "http://localhost@attacker.example", "file://", "https://127.0.0.1.nip.io"):
            st, j, _ = json_req(open_addr, method, path, {"query": "x"}, extra={"Origin": origin})
            f.attack(f"{method} {path} Origin {origin}", st == 403 and j and j.get("code") == "origin_not_allowed", f"{st} {j}")
    st, _, _ = json_req(open_addr, "GET", "/v1/health", extra={"Origin": "http://localhost:3000"})
    f.control("loopback Origin served", st == 200, str(st))


def auth(token_addr, token):
    f = family("authentication")
    creds = [None, "Bearer wrong-token-0123456789abcdef", f"Basic {token}", "Bearer", "Bearer ",
             f"Bearer {token} {token}", f"bearer {token[:-1]}", "Token " + token,
             "Bearer " + token.upper(), "Bearer \u00e9t\u00e9"]
    routes = [(m, p) for m, p in FAMILY_ROUTES if p not in ("/v1/health", "/api/health", "/v1/openapi.json", "/v1/docs", "/", "/nowhere")]
    for method, path in routes:
        for c in creds:
            extra = {"Authorization": c} if c else {}
            st, j, _ = json_req(token_addr, method, path, {"query": "x"}, extra=extra)
            f.attack(f"{method} {path} {c!r}", st == 401, f"{st} {j}")
        for q in ("token", "access_token", "api_key", "apikey", "key", "bearer"):
            st, j, _ = json_req(token_addr, method, f"{path}?{q}={token}", {"query": "x"})
            f.attack(f"{method} {path}?{q}=", st == 400, f"{st} {j}")
    for path in ("/v1/health", "/v1/openapi.json", "/", "/nowhere"):
        st, j, _ = json_req(token_addr, "GET", f"{path}?token={token}")
        f.attack(f"GET {path}?token= (public)", st == 400, f"{st} {j}")
    st, _, _ = json_req(token_addr, "GET", "/v1/stats", token=token)
    f.control("valid token served", st == 200, str(st))


def roots(open_addr, root, outside):
    f = family("file roots")
    secret = os.path.join(outside, "secret.md")
    cases = ["../outside/secret.md", secret, "sub/../../outside/secret.md", "link.md", "linkdir/secret.md",
             "./../outside", "%2e%2e/outside/secret.md", "notes.md\u0000.txt", "fifo.md", "/etc/passwd",
             "/proc/self/environ", os.path.join(root, "..", "outside", "secret.md"), "", " "]
    for p in cases:
        st, j, _ = json_req(open_addr, "POST", "/v1/ingest", {"paths": [p]})
        refused = st == 400 or (st == 202 and j)
        if st == 202:
            job = wait_job(open_addr, j["id"])
            refused = job.get("outcome", {}).get("inserted", 0) == 0
        f.attack(f"ingest {p!r}", refused, f"{st} {j}")
        st, j, _ = json_req(open_addr, "POST", "/v1/verify", {"path": p})
        f.attack(f"verify path {p!r}", st == 400, f"{st} {j}")
        st, j, _ = json_req(open_addr, "POST", "/api/tools/ingest", {"paths": [p]})
        f.attack(f"tool ingest {p!r}", st in (400, 422) or (st == 200 and j and j.get("inserted") == 0), f"{st} {j}")
    st, j, _ = json_req(open_addr, "POST", "/v1/ingest", {"paths": ["."]})
    job = wait_job(open_addr, j["id"]) if st == 202 else {}
    f.control("the root itself is read", job.get("outcome", {}).get("inserted", 0) >= 1, f"{st} {job}")
    st, r, _ = json_req(open_addr, "POST", "/v1/retrieve", {"query": "vault combination swordfish"})
    f.attack("outside text absent from the store", st == 200 and "swordfish" not in json.dumps(r), f"{st} {r}")


def wait_job(addr, job_id, limit=120):
    deadline = time.time() + limit
    while time.time() < deadline:
        st, j, _ = json_req(addr, "GET", f"/v1/jobs/{job_id}")
        if j and j.get("state") in ("succeeded", "failed"):
            return j
        time.sleep(0.1)
    return {}


SSRF_URLS = [
    "http://127.0.0.1/", "http://127.0.0.1:9/admin", "http://127.1/", "http://2130706433/", "http://0x7f000001/",
    "http://017700000001/", "http://0.0.0.0/", "http://localhost/", "http://LOCALHOST./", "http://[::1]/",
    "http://[::ffff:127.0.0.1]/", "http://[0:0:0:0:0:ffff:7f00:1]/", "http://10.0.0.1/", "http://172.16.0.1/",
    "http://192.168.1.1/", "http://169.254.169.254/latest/meta-data/", "http://169.254.170.2/v2/credentials",
    "http://100.100.100.200/latest/meta-data/", "http://[fd00:ec2::254]/", "http://metadata.google.internal/",
    "http://metadata/", "http://100.64.0.1/", "http://[fe80::1]/", "http://[fc00::1]/", "http://224.0.0.1/",
    "http://255.255.255.255/", "http://user@127.0.0.1/", "http://127.0.0.1#@example.org/",
    "file:///etc/passwd", "gopher://127.0.0.1:6379/_INFO", "ftp://127.0.0.1/", "http://[::]/",
]


def ssrf(open_addr, private_addr):
    f = family("SSRF (URL forms x endpoints)")
    for url in SSRF_URLS:
        for path, body in (("/api/crawl", {"url": url}), ("/api/tools/fetch_url", {"url": url}),
                           ("/v1/verify", {"url": url}), ("/api/tools/crawl_url", {"url": url})):
            st, j, _ = patient_req(open_addr, "POST", path, body)
            f.attack(f"{path} {url}", st in (400, 422) and j, f"{st} {j}")
            if j and isinstance(j.get("message"), str) and j["message"].count("network guard") > 1:
                f.findings.append(f"{path} {url}: reason repeated: {j['message']}")
        st, j, _ = patient_req(open_addr, "POST", "/v1/ingest", {"paths": [url]})
        job = wait_job(open_addr, j["id"]) if st == 202 and j else {}
        f.attack(f"ingest {url}", st == 400 or job.get("outcome", {}).get("inserted", 1) == 0, f"{st} {job}")
    # Private fetching allowed by the operator: metadata services stay refused.
    for url in ("http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/",
                "http://metadata.google.internal/", "http://100.100.100.200/"):
        st, j, _ = patient_req(private_addr, "POST", "/v1/verify", {"url": url, "allow_private": True})
        f.attack(f"allow_private {url}", st == 400 and j and "metadata" in j.get("message", ""), f"{st} {j}")
    st, j, _ = patient_req(private_addr, "POST", "/v1/verify", {"url": f"http://{private_addr}/v1/docs", "allow_private": True})
    f.control("allow_private reaches loopback", st == 200, f"{st} {str(j)[:200]}")


def malformed(open_addr):
    f = family("malformed input")
    unicode_docs = [
        "A\u00a0x. B [1]\n\n## References\n1. https://example.org/a\n",
        "Le taux\u2003x. Il atteint 80\u202f% [1]\n\n## Références\n1. https://example.org/a\n",
        "\u05d0\u05d1\u202e. \u0627\u0644\u0639\u0631\u0628\u064a\u0629\u3000x. \U0001F600\u200d [1]\n\n1. https://example.org/a\n",
        "e\u0301\u0301\u0301. x\u0308. 1\u00a0000,5\u2009% [^1]\n\n[^1]: https://example.org/a\n",
        "\ufeff\u2028\u2029\u0085 J.\u00a0Smith (2020) said x.\u3002",
    ]
    for doc in unicode_docs:
        for path in ("/v1/verify", "/verify", "/api/tools/verify_citations"):
            st, j, _ = json_req(open_addr, "POST", path, {"content": doc})
            f.attack(f"{path} unicode {doc[:12]!r}", st == 200, f"{st} {str(j)[:200]}")
    bodies = ['{"query": ', '{"query": "x"', '[]', 'null', '"x"', '{"query": 42}', '{"query":"\\ud800"}',
              '{"query":"x","colour":1}', '\xff\xfe', '{"k": 1e999}', '{' * 2000 + '}' * 2000]
    for path in ("/v1/retrieve", "/v1/ingest", "/v1/events", "/api/veille/score", "/api/tools/search"):
        for b in bodies:
            st, _, raw = request(open_addr, "POST", path, {"Content-Type": "application/json", "X-API-Version": VERSION}, b.encode("utf-8", "surrogatepass"))
            j = as_json(raw)
            f.attack(f"{path} {b[:20]!r}", 400 <= st < 500 and isinstance(j, dict), f"{st} {raw[:200]!r}")
    for b in ["{", "not json", '{"jsonrpc":"2.0","id":1,"meth', "[]"]:
        st, _, raw = request(open_addr, "POST", "/mcp", {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}, b)
        j = as_json(raw) or {}
        f.attack(f"/mcp {b!r}", st == 400 and j.get("error", {}).get("code") in (-32700, -32600), f"{st} {raw[:200]!r}")
    st, _, raw = request(open_addr, "GET", "/v1/search/?vector_query=" + "a" * 40000)
    f.attack("URI of 40 kB", st == 414 and (as_json(raw) or {}).get("code") == "uri_too_long", f"{st} {raw[:100]!r}")
    many = {f"X-Filler-{i}": "v" for i in range(80)}
    st, _, raw = request(open_addr, "GET", "/v1/health", many)
    f.attack("80 header fields", st == 431 and (as_json(raw) or {}).get("code") == "headers_too_large", f"{st} {raw[:100]!r}")
    st, _, raw = request(open_addr, "GET", "/v1/health", {"X-Filler": "v" * 40000})
    f.attack("40 kB header", st == 431 and (as_json(raw) or {}).get("code") == "headers_too_large", f"{st} {raw[:100]!r}")
    st, _, raw = request(open_addr, "POST", "/v1/retrieve", {"Content-Type": "application/json", "X-API-Version": VERSION}, b'{"query":"' + b"x" * (9 << 20) + b'"}')
    f.attack("9 MiB body", st == 413 and (as_json(raw) or {}).get("code") == "payload_too_large", f"{st} {raw[:100]!r}")


def limits(open_addr, pid):
    f = family("bounded work")
    checks = [
        ("/api/veille/rules", {"name": "huge", "type": "include", "keywords": ["a" * 100_000]}, "MAX_KEYWORD_CHARS"),
        ("/api/veille/rules", {"name": "many", "type": "include", "keywords": [f"k{i}" for i in range(50_000)]}, "MAX_RULE_KEYWORDS"),
        ("/v1/retrieve", {"query": " ".join(f"w{i}" for i in range(100_000))}, "MAX_QUERY_BYTES"),
        ("/v1/rag", {"question": "w " * 100_000}, "MAX_QUERY_BYTES"),
        ("/api/tools/search", {"query": "w " * 100_000}, "MAX_QUERY_BYTES"),
    ]
    for field in ("uids", "tags", "sources", "langs", "tags_all"):
        checks.append(("/v1/retrieve", {"query": "fees", field: [f"v{i}" for i in range(40_000)]}, "MAX_FILTER_VALUES"))
        checks.append(("/v1/rag", {"question": "fees", field: [f"v{i}" for i in range(40_000)]}, "MAX_FILTER_VALUES"))
    for path, body, limit in checks:
        st, j, _ = json_req(open_addr, "POST", path, body)
        msg = (j or {}).get("message", "")
        f.attack(f"{path} over {limit}", st == 400 and limit in msg and "SELECT" not in msg, f"{st} {msg[:200]}")
    # The largest rules allowed: scoring and health stay quick.
    for r in range(4):
        kws = [("w" * 120) + f"{r}{i}" for i in range(256)]
        json_req(open_addr, "POST", "/api/veille/rules", {"name": f"big{r}", "type": "boost", "keywords": kws})
    t = time.time()
    st, _, _ = json_req(open_addr, "POST", "/api/veille/score", {"title": "hello", "content": "word " * 100_000})
    took = time.time() - t
    f.attack(f"score with the largest rules ({took:.2f} s)", st == 200 and took < 5, f"{st} {took:.2f} s")
    t = time.time()
    st, _, _ = json_req(open_addr, "GET", "/v1/health")
    f.attack(f"health while rules are large ({time.time() - t:.2f} s)", st == 200, str(st))
    # Requests cut by the timeout: their work stops.
    from concurrent.futures import ThreadPoolExecutor

    def embed(r):
        texts = [" ".join(f"word{(i * 7 + w) % 997}x{w % 13}r{r}" for w in range(200)) for i in range(256)]
        return json_req(open_addr, "POST", "/v1/embed", {"texts": texts})[0]

    c_start = cpu_secs(pid)
    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(embed, range(8)))
    if 503 in statuses:
        f.findings.append("no local embedding model: CPU-after-504 not measured (scripts/fetch-models.sh)")
        return None
    busy = cpu_secs(pid) - c_start
    time.sleep(1.0)
    c0 = cpu_secs(pid)
    time.sleep(2.0)
    used = cpu_secs(pid) - c0
    f.attack(f"CPU after 8 x 504 ({busy:.1f} s of CPU before them): {used:.2f} s in the 2 s after the first second",
             statuses == [504] * 8 and used < 0.3, f"{statuses} {used:.2f}")
    return used


def mcp(token_addr, token, token2, pid):
    f = family("MCP sessions")
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "attack", "version": "0"}}}
    accept = {"Accept": "application/json, text/event-stream"}
    st, _, h = json_req(token_addr, "POST", "/mcp", init, token, accept)
    sid = h.get("mcp-session-id")
    f.control("initialize", st == 200 and sid, f"{st} {h}")
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    extra = dict(accept, **{"Mcp-Session-Id": sid or "", "Mcp-Protocol-Version": "2025-06-18"})
    json_req(token_addr, "POST", "/mcp", {"jsonrpc": "2.0", "method": "notifications/initialized"}, token, extra)
    st, _, _ = json_req(token_addr, "POST", "/mcp", listing, token2, extra)
    f.attack("session used with another token", st == 404, str(st))
    st, _, _ = json_req(token_addr, "POST", "/mcp", listing, None, extra)
    f.attack("session used without a token", st == 401, str(st))
    for host in ("", "attacker.example"):
        st, _, _ = json_req(token_addr, "POST", "/mcp", init, token, accept, host=host or False)
        f.attack(f"/mcp Host {host!r}", st in (400, 403), str(st))
    rss0 = rss_kib(pid)
    codes = {}
    for _ in range(1000):
        st, _, _ = json_req(token_addr, "POST", "/mcp", init, token, accept)
        codes[st] = codes.get(st, 0) + 1
    time.sleep(1)
    rss1 = rss_kib(pid)
    grown = (rss1 - rss0) / 1024
    f.attack(f"1,000 sessions opened ({codes}): RSS {rss0 // 1024} -> {rss1 // 1024} MiB", grown < 40, f"+{grown:.0f} MiB")
    return rss0, rss1


def main():
    cfg = json.loads(sys.argv[1])
    open_addr, token_addr, private_addr = cfg["open"], cfg["token"], cfg["private"]
    token, token2 = cfg["tokens"]
    started = time.time()
    figures = {}
    cross_site(open_addr)
    rebinding(open_addr, token_addr, token)
    origins(open_addr)
    auth(token_addr, token)
    roots(open_addr, cfg["root"], cfg["outside"])
    ssrf(open_addr, private_addr)
    malformed(open_addr)
    figures["cpu_after_504"] = limits(open_addr, cfg["open_pid"])
    figures["mcp_rss_kib"] = mcp(token_addr, token, token2, cfg["token_pid"])
    # Every server still answers, none crashed.
    for name, addr in (("open", open_addr), ("token", token_addr), ("private", private_addr)):
        st, _, _ = json_req(addr, "GET", "/v1/health")
        if st not in (200, 503):
            FAMILIES[-1].findings.append(f"{name} server does not answer /v1/health after the run: {st}")
    total_t = total_r = 0
    print(f"\n{'family':40} {'tried':>6} {'refused':>8} {'controls':>8}")
    for f in FAMILIES:
        print(f"{f.name:40} {f.tried:6} {f.refused:8} {f.controls:8}")
        total_t += f.tried
        total_r += f.refused
    print(f"{'total':40} {total_t:6} {total_r:8}   ({time.time() - started:.0f} s)")
    print("figures: " + json.dumps(figures))
    findings = [(f.name, x) for f in FAMILIES for x in f.findings]
    for name, x in findings:
        print(f"FINDING [{name}] {x}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
