"""risk_web against a real HTTP server on 127.0.0.1 that serves canned search results.
Nothing here contacts a non-loopback address."""

import hashlib
import json
import stat
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List
from urllib.parse import parse_qs, urlsplit

import pytest
import spacy
from spacy.util import registry

from spacy_sanitize.risk.web import WebCache, normalize_url
from spacy_sanitize.risk.web_backends import SearchResult, WebBackendError, host_is_local, json_path

BIO = "https://en.wikipedia.org/wiki/Anna_Lee"
# query -> what the server does. A dict is SearXNG-style JSON (urls, hits); pages of 10.
CANNED: Dict[str, Any] = {
    '"Anna Lee"': {
        "urls": [BIO, "https://annalee.example/", "https://news.example/anna"],
        "hits": 50000,
    },
    '"Oslo"': {
        "urls": ["https://oslo.example", "http://www.news.example/anna/#top"],
        "hits": 9_000_000,
    },
    '"Bergen"': {"urls": ["https://bergen.example"], "hits": 1_000_000},
    '"1984"': {"urls": ["https://" + f"y{i}.example" for i in range(25)], "hits": 20},
    '"NTNU"': "sleep",
    '"Tromsø"': "500",
    '"Molde"': "malformed",
    '"Hamar"': "flaky",  # 503 once, then fine
    '"Skien"': {"urls": ["https://skien.example"], "hits": 0},  # SearXNG: 0 = unknown
    '"Trondheim"': "redirect",  # 302 to Server.redirect_to (another server)
}


class Server:
    def __init__(self) -> None:
        self.requests: List[Dict[str, Any]] = []
        self.flaky_seen = set()
        self.lock = threading.Lock()
        self.redirect_to = "http://127.0.0.1:9"
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, code: int, body: bytes) -> None:
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:  # the client gave up (timeout test)
                    pass

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                params = {k: v[0] for k, v in parse_qs(parts.query).items()}
                query = params.get("q", "")
                page = int(params.get("pageno", params.get("page", 1)))
                with outer.lock:
                    outer.requests.append({"path": parts.path, "q": query, "page": page})
                behaviour = CANNED.get(query, {"urls": [], "hits": 0})
                if behaviour == "sleep":
                    time.sleep(1.0)
                    return self._send(200, b'{"results": [], "number_of_results": 1}')
                if behaviour == "redirect":
                    self.send_response(302)
                    self.send_header("Location", outer.redirect_to + self.path)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return None
                if behaviour == "500":
                    return self._send(500, b"oops")
                if behaviour == "malformed":
                    return self._send(200, b'{"results": [ {"url": ')
                if behaviour == "flaky":
                    with outer.lock:
                        first = query not in outer.flaky_seen
                        outer.flaky_seen.add(query)
                    if first:
                        return self._send(503, b"busy")
                    behaviour = {"urls": ["https://hamar.example"], "hits": 300}
                urls = behaviour["urls"][(page - 1) * 10 : page * 10]
                if parts.path == "/api":  # the generic JSON API shape
                    body = {
                        "data": {"items": [{"link": u} for u in urls]},
                        "info": {"total": str(behaviour["hits"])},
                    }
                else:
                    body = {
                        "query": query,
                        "number_of_results": behaviour["hits"],
                        "results": [{"url": u, "title": "t"} for u in urls],
                    }
                self._send(200, json.dumps(body).encode())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def queries(self) -> List[str]:
        return [r["q"] for r in self.requests]


@pytest.fixture
def server():
    srv = Server()
    srv.thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


FAST = {"timeout": 0.3, "retries": 1, "backoff": 0.01, "rate_limit": 0}


def searxng(url: str, **kwargs: Any) -> Dict[str, Any]:
    return {"@misc": "spacy_sanitize.web_backend.searxng.v1", "url": url, **FAST, **kwargs}


def make_nlp(server: Server, **config: Any):
    nlp = spacy.blank("en")
    web = nlp.add_pipe("risk_web", config={"backend": searxng(server.url), **config})
    return nlp, web


def bio(nlp, places=("Oslo", "Bergen")) -> spacy.tokens.Doc:
    """'Anna Lee ... Anna Lee ... Lee' + places, with PII spans and entity ids."""
    text = "Anna Lee met Anna Lee in " + " and ".join(places) + " . Lee"
    doc = nlp.make_doc(text)
    spans = [
        doc.char_span(0, 8, label="PERSON"),
        doc.char_span(13, 21, label="PERSON"),
        doc.char_span(len(text) - 3, len(text), label="PERSON"),
    ]
    for span in spans:
        span._.entity_id = "e1"
    start = 25
    for place in places:
        spans.append(
            doc.char_span(start, start + len(place), label="DATETIME" if place.isdigit() else "LOC")
        )
        start += len(place) + 5
    doc.spans["pii"] = spans
    return doc


def by_text(doc) -> Dict[str, Any]:
    return {s.text: s for s in doc.spans["pii"]}


# ------------------------------------------------------------------ privacy guard


@pytest.mark.parametrize(
    "url,local",
    [
        ("http://127.0.0.1:8888", True),
        ("http://localhost/x", True),
        ("http://[::1]:9/", True),
        ("http://127.3.4.5", True),
        ("http://[::ffff:127.0.0.1]/", True),
        # private and link-local only with allow_private (the old check accepted them)
        ("http://10.1.2.3", "private"),
        ("http://192.168.0.7:80", "private"),
        ("http://172.16.0.1", "private"),
        ("http://169.254.169.254/", "private"),  # link-local (cloud metadata service)
        ("http://[fe80::1]/", "private"),
        ("http://[fd00::5]/", "private"),
        ("http://[::ffff:10.0.0.1]/", "private"),
        ("http://0.0.0.0/", False),
        ("http://searx.localhost/", False),  # a resolver may ask DNS
        ("https://searx.be", False),
        ("https://93.184.216.34", False),
        ("http://searx.lan", False),
        ("", False),
    ],
)
def test_host_is_local(url, local):
    assert host_is_local(url) is (local is True)
    assert host_is_local(url, allow_private=True) is bool(local)


def test_private_endpoint_needs_allow_private():
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match=r"E800.*10\.0\.0\.5.*allow_private"):
        nlp.add_pipe("risk_web", config={"backend": searxng("http://10.0.0.5:8888")})
    web = nlp.add_pipe(
        "risk_web", config={"backend": searxng("http://10.0.0.5:8888"), "allow_private": True}
    )
    assert web.allow_private is True and web.allow_external is False


def test_refuses_external_endpoint_without_allow_external():
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match=r"E800.*searx\.be.*allow_external"):
        nlp.add_pipe("risk_web", config={"backend": searxng("https://searx.be")})
    # allowed when the user says so; building the component sends nothing
    web = nlp.add_pipe(
        "risk_web", config={"backend": searxng("https://searx.be"), "allow_external": True}
    )
    assert web.allow_external is True


# ------------------------------------------------------------------ the two estimates


def test_url_intersection(server):
    nlp, web = make_nlp(server, method="url")
    doc = by_text(web(bio(nlp)))
    oslo, bergen = doc["Oslo"], doc["Bergen"]
    assert oslo._.risk["web"] == 1.0  # shares news.example/anna with the target's results
    assert oslo._.risk_explain["web"]["shared_urls"] == ["http://www.news.example/anna/#top"]
    assert oslo._.risk_explain["web"]["target"] == "Anna Lee"
    assert bergen._.risk["web"] == 0.0 and bergen._.risk_explain["web"]["shared_urls"] == []
    assert doc["Lee"]._.risk["web"] == 1.0 and doc["Lee"]._.risk_explain["web"]["target_mention"]
    # target mentions are not searched; the target once; each unique span once
    assert sorted(server.queries()) == sorted(['"Anna Lee"', '"Oslo"', '"Bergen"'])


@pytest.mark.parametrize(
    "min_hits,max_hits,expected",
    [
        (100, None, {"Oslo": 1.0, "1984": 0.0}),
        (0, 1000, {"Oslo": 0.0, "1984": 1.0}),
        (10_000_000, None, {"Oslo": 0.0, "1984": 0.0}),
    ],
)
def test_hit_window(server, min_hits, max_hits, expected):
    nlp, web = make_nlp(server, method="hits", min_hits=min_hits, max_hits=max_hits)
    doc = by_text(web(bio(nlp, places=("Oslo", "1984"))))
    assert {t: doc[t]._.risk["web"] for t in expected} == expected
    assert doc["Oslo"]._.risk_explain["web"]["hits"] == 9_000_000
    assert '"Anna Lee"' not in server.queries()  # hits alone needs no target search


def test_any_and_pagination_to_top_20(server):
    nlp, web = make_nlp(server, method="any")
    doc = by_text(web(bio(nlp, places=("1984", "Bergen"))))
    assert doc["1984"]._.risk_explain["web"]["n_urls"] == 20  # 25 available, two pages kept
    assert sorted(r["page"] for r in server.requests if r["q"] == '"1984"') == [1, 2]
    assert doc["1984"]._.risk["web"] == 0.0  # 20 hits < 100 and no shared URL
    assert doc["Bergen"]._.risk["web"] == 1.0  # 1M hits


def test_scores_only_and_a_decider_masks(server):
    """The old component set Span._.mask when it was the only risk_* component (threshold
    0.5); now it only scores and risk_threshold at its default 0.5 decides the same."""
    nlp, web = make_nlp(server, method="url")
    doc = by_text(web(bio(nlp)))
    assert doc["Oslo"]._.mask is None and doc["Bergen"]._.mask is None
    nlp.add_pipe("risk_threshold", config={"indicator": "web"})
    doc = by_text(nlp.get_pipe("risk_threshold")(web(bio(nlp))))
    assert doc["Oslo"]._.mask is True and doc["Bergen"]._.mask is False


# ------------------------------------------------------------------ fail closed


@pytest.mark.parametrize(
    "place,error",
    [
        ("NTNU", "E803.*2 attempt"),
        ("Tromsø", "E803.*2 attempt.*500"),
        ("Molde", "E804"),
        ("Skien", "no hit count"),
    ],
)
def test_fail_closed(server, place, error):
    nlp, web = make_nlp(server, method="hits")
    with pytest.warns(UserWarning, match="W801") as record:
        doc = by_text(web(bio(nlp, places=(place, "Bergen"))))
    span = doc[place]
    assert span._.risk["web"] == 1.0
    assert span._.risk_explain["web"]["fail_closed"] is True
    assert pytest.approx(1.0) == doc["Bergen"]._.risk["web"]
    import re

    assert re.search(error, span._.risk_explain["web"]["error"])
    assert place not in " ".join(str(w.message) for w in record)  # warnings do not repeat private text


def test_redirect_is_not_followed_and_fails_closed(server):
    """A loopback endpoint answering 302 to another server (here another loopback port)
    used to have the query forwarded there: the second server must receive nothing."""
    other = Server()
    other.thread.start()
    try:
        server.redirect_to = other.url
        nlp, web = make_nlp(server, method="hits")
        nlp.add_pipe("risk_threshold", config={"indicator": "web"})
        with pytest.warns(UserWarning, match="W801.*E806.*redirect") as record:
            doc = by_text(nlp.get_pipe("risk_threshold")(web(bio(nlp, places=("Trondheim", "Bergen")))))
        assert other.requests == []
        span = doc["Trondheim"]
        assert span._.risk["web"] == 1.0 and span._.risk_explain["web"]["fail_closed"] is True
        assert "E806" in span._.risk_explain["web"]["error"] and span._.mask is True
        assert server.queries().count('"Trondheim"') == 1  # a redirect is not retried
        assert "Trondheim" not in " ".join(str(w.message) for w in record)
    finally:
        other.httpd.shutdown()
        other.httpd.server_close()


class _Chatty:
    """A custom backend whose exception message quotes the query."""

    endpoint = "http://127.0.0.1:1"

    def search(self, query: str) -> SearchResult:
        raise ValueError(f"cannot search for {query}")

    def cache_id(self) -> str:
        return "chatty"


@registry.misc("test.chatty_backend.v1")
def make_chatty() -> _Chatty:
    return _Chatty()


def test_backend_exception_text_is_not_repeated():
    nlp = spacy.blank("en")
    web = nlp.add_pipe("risk_web", config={"backend": {"@misc": "test.chatty_backend.v1"}, "method": "hits"})
    with pytest.warns(UserWarning, match="W801.*ValueError") as record:
        doc = by_text(web(bio(nlp, places=("Oslo",))))
    assert doc["Oslo"]._.risk["web"] == 1.0
    assert "Oslo" not in doc["Oslo"]._.risk_explain["web"]["error"]
    assert "Oslo" not in " ".join(str(w.message) for w in record)


def test_failed_target_search_fails_url_method_closed(server):
    nlp, web = make_nlp(server, method="url", target_template='"Tromsø"')
    with pytest.warns(UserWarning, match="W801.*target search failed"):
        doc = by_text(web(bio(nlp)))
    assert doc["Bergen"]._.risk["web"] == 1.0
    assert "target search failed" in doc["Bergen"]._.risk_explain["web"]["error"]


def test_no_target_fails_url_method_closed(server):
    nlp, web = make_nlp(server, method="url")
    doc = nlp.make_doc("Oslo")
    doc.spans["pii"] = [doc.char_span(0, 4, label="LOC")]
    with pytest.warns(UserWarning, match="W801.*no target"):
        span = web(doc).spans["pii"][0]
    assert span._.risk["web"] == 1.0 and "no target" in span._.risk_explain["web"]["error"]
    doc = nlp.make_doc("Oslo")
    doc.user_data["target"] = "Anna Lee"  # the caller can name the person to protect
    doc.spans["pii"] = [doc.char_span(0, 4, label="LOC")]
    span = web(doc).spans["pii"][0]
    assert span._.risk["web"] == 1.0 and span._.risk_explain["web"]["shared_urls"]


def test_retry_after_server_error(server):
    nlp, web = make_nlp(server, method="hits")
    doc = by_text(web(bio(nlp, places=("Hamar",))))
    assert doc["Hamar"]._.risk["web"] == 1.0 and "error" not in doc["Hamar"]._.risk_explain["web"]
    assert server.queries().count('"Hamar"') == 2


def test_unreachable_server_fails_closed():
    nlp = spacy.blank("en")
    srv = Server()  # bound but never serving, then closed: connection refused
    url = srv.url
    srv.httpd.server_close()
    web = nlp.add_pipe("risk_web", config={"backend": searxng(url)})
    with pytest.warns(UserWarning, match="W801"):
        doc = by_text(web(bio(nlp)))
    assert doc["Oslo"]._.risk["web"] == 1.0 and doc["Oslo"]._.risk_explain["web"]["fail_closed"]


# ------------------------------------------------------------------ cache, batching, threads


def test_disk_cache_makes_reruns_free(server, tmp_path):
    nlp, web = make_nlp(server, method="any", cache_dir=str(tmp_path / "cache"))
    doc = web(bio(nlp))
    first = [(s.text, s._.risk["web"]) for s in doc.spans["pii"]]
    n = len(server.requests)
    assert n == 3
    files = list((tmp_path / "cache").rglob("*.json"))
    assert len(files) == 3
    assert all(
        "Oslo" not in f.read_text() and "Oslo" not in f.name for f in files
    )  # no query text on disk
    # names are keyed: the unkeyed sha256 of backend id + query (the old names) does not
    # find a cached query, and files, folders and the secret are private to the user
    backend_id = web.backend.cache_id()
    old_name = hashlib.sha256(f'{backend_id}\x00"Oslo"'.encode("utf-8")).hexdigest()
    assert old_name not in {f.stem for f in files}
    secret = tmp_path / "cache" / "secret.key"
    assert len(secret.read_bytes()) == 32
    for path in [secret, *files]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert all(stat.S_IMODE(f.parent.stat().st_mode) & 0o077 == 0 for f in files)
    nlp2, web2 = make_nlp(server, method="any", cache_dir=str(tmp_path / "cache"))
    doc2 = web2(bio(nlp2))
    second = [(s.text, s._.risk["web"]) for s in doc2.spans["pii"]]
    assert second == first and len(server.requests) == n
    assert web2.stats == {"queries": 0, "cache_hits": 3, "errors": 0}


def test_errors_are_not_cached(server, tmp_path):
    nlp, web = make_nlp(server, method="hits", cache_dir=str(tmp_path))
    with pytest.warns(UserWarning, match="W801") as record:
        web(bio(nlp, places=("Tromsø",)))
        web(bio(nlp, places=("Tromsø",)))
    assert len(record) == 2
    assert server.queries().count('"Tromsø"') == 4  # 2 attempts per run, no cache
    assert web.stats["errors"] == 2


def test_pipe_dedupes_queries_across_docs(server):
    nlp, web = make_nlp(server, method="url", n_threads=3)
    docs = list(web.pipe([bio(nlp) for _ in range(5)], batch_size=8))
    assert len(docs) == 5 and all(by_text(d)["Oslo"]._.risk["web"] == 1.0 for d in docs)
    assert sorted(server.queries()) == sorted(['"Anna Lee"', '"Oslo"', '"Bergen"'])


def test_rate_limit_spaces_requests(server):
    nlp = spacy.blank("en")
    web = nlp.add_pipe(
        "risk_web",
        config={"backend": searxng(server.url, rate_limit=20), "method": "url", "n_threads": 3},
    )
    start = time.monotonic()
    web(bio(nlp))
    assert time.monotonic() - start >= 2 * 0.05 * 0.9  # 3 requests at 20/s: at least 2 intervals


# ------------------------------------------------------------------ the generic JSON API backend


def test_json_api_backend(server):
    make = registry.misc.get("spacy_sanitize.web_backend.json_api.v1")
    backend = make(
        url_template=server.url + "/api?q={query}&page={page}&start={start}",
        results_path="data.items",
        url_key="link",
        hits_path="info.total",
        **FAST,
    )
    result = backend.search('"Oslo"')
    assert result == SearchResult(
        urls=["https://oslo.example", "http://www.news.example/anna/#top"], hits=9_000_000
    )
    with pytest.raises(WebBackendError, match="E804"):
        make(
            url_template=server.url + "/api?q={query}", results_path="nope", url_key="link", **FAST
        ).search('"Oslo"')
    nlp = spacy.blank("en")
    web = nlp.add_pipe(
        "risk_web",
        config={
            "backend": {
                "@misc": "spacy_sanitize.web_backend.json_api.v1",
                "url_template": server.url + "/api?q={query}&page={page}",
                "results_path": "data.items",
                "url_key": "link",
                "hits_path": "info.total",
                **FAST,
            },
            "method": "any",
        },
    )
    doc = by_text(web(bio(nlp)))
    assert doc["Oslo"]._.risk["web"] == 1.0 and doc["Bergen"]._.risk["web"] == 1.0


@pytest.mark.parametrize(
    "config,code",
    [
        ({"method": "both"}, "E802"),
        ({"query_template": "{spn}"}, "E805"),
        ({"n_threads": 0}, "E801"),
    ],
)
def test_bad_settings_are_coded_errors(server, config, code):
    with pytest.raises(ValueError, match=code):
        make_nlp(server, **config)
    with pytest.raises(ValueError, match="E801"):
        registry.misc.get("spacy_sanitize.web_backend.json_api.v1")(
            url_template=server.url + "/api"
        )


def test_helpers(tmp_path):
    assert normalize_url("https://WWW.News.example/anna/#x") == normalize_url(
        "http://news.example/anna"
    )
    assert normalize_url("https://a.example/?q=1") != normalize_url("https://a.example/?q=2")
    assert json_path({"a": {"b": [{"c": 3}]}}, "a.b.0.c") == 3
    with pytest.raises(KeyError):
        json_path({"a": 1}, "b")
    one, two = WebCache(tmp_path / "a"), WebCache(tmp_path / "b")
    assert one.key("x", "q") != one.key("y", "q")
    assert one.key("x", "q") == WebCache(tmp_path / "a").key("x", "q")  # the secret is kept
    assert one.key("x", "q") != two.key("x", "q")  # each cache has its own secret


def test_serialization_round_trip(server, tmp_path):
    nlp, _ = make_nlp(
        server, method="url", min_hits=7, labels=["LOC"], cache_dir=str(tmp_path / "c")
    )
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    web2 = loaded.get_pipe("risk_web")
    assert (web2.method, web2.min_hits, web2.labels) == ("url", 7, ["LOC"])
    assert web2.backend.endpoint == server.url and str(web2.cache.path) == str(tmp_path / "c")
    again = nlp.get_pipe("risk_web").from_bytes(web2.to_bytes())
    assert again.labels == ["LOC"]
    # settings come from config.cfg only: a load-time override wins (web.json used to undo it)
    overridden = spacy.load(tmp_path / "p", config={"components": {"risk_web": {"min_hits": 3, "method": "hits"}}})
    assert (overridden.get_pipe("risk_web").min_hits, overridden.get_pipe("risk_web").method) == (3, "hits")
    doc = by_text(web2(bio(loaded)))
    assert "web" not in doc["Anna Lee"]._.risk  # PERSON not in labels
    assert doc["Oslo"]._.risk["web"] == 1.0
