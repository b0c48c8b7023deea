"""spacy-sanitize serve (#19 item 7): a real server started on loopback by the test, a real
HTTP client. Skipped when the [serve] extra (fastapi, uvicorn, httpx) is not installed."""
import json
import os
import re
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterator

import pytest

for module in ("fastapi", "uvicorn", "httpx"):
    pytest.importorskip(module, reason=f"{module} is not installed: pip install '.[serve]' to test the service")

import httpx  # noqa: E402

from spacy_sanitize.serve import RequestError, ServeSettings, parse_request  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SECRET = "Zebulon Quistgaard"  # a name that must never reach the log
TINY = """
[nlp]
lang = "en"
pipeline = ["pii_codes", "pii_titles", "pii_coref", "masker"]

[components]

[components.pii_codes]
factory = "pii_codes"

[components.pii_titles]
factory = "pii_titles"

[components.pii_coref]
factory = "pii_coref"

[components.masker]
factory = "masker"
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    def __init__(self, tmp: Path, *args: str) -> None:
        config = tmp / "tiny.cfg"
        config.write_text(TINY, encoding="utf8")
        self.log = tmp / "server.log"
        self.url = f"http://127.0.0.1:{free_port()}"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        command = [sys.executable, "-m", "spacy_sanitize", "-v", "serve", "-p", str(config), "--port", self.url.rsplit(":", 1)[1], "--max-bytes", "20000", "--max-records", "5", *args]
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(self.url + "/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the server did not start:\n{self.log.read_text()}")
            time.sleep(0.2)

    def post(self, payload: object, **kwargs: object) -> httpx.Response:
        return httpx.post(self.url + "/sanitize", json=payload, timeout=60, **kwargs)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("serve"))
    yield running
    running.stop()


def test_health(server):
    body = httpx.get(server.url + "/health").json()
    assert body["status"] == "ok" and body["components"] == ["pii_codes", "pii_titles", "pii_coref", "masker"]


def test_sanitize_a_text(server):
    response = server.post({"text": f"Mr {SECRET} wrote to zq@example.org."})
    assert response.status_code == 200
    body = response.json()
    assert body["sanitized"] == "Mr [PERSON] wrote to [CODE]."
    assert [row[:3] for row in body["replacements"]] == [[3, 21, "PERSON"], [31, 45, "CODE"]]
    assert [(s["start"], s["end"], s["label"]) for s in body["spans"]] == [(3, 21, "PERSON"), (31, 45, "CODE")]


def test_records_keep_their_fields_and_strategies_are_per_request(server):
    records = [{"id": "a1", "body": f"Mr {SECRET} called Mr {SECRET}.", "source": "mail"}, {"id": "a2", "body": "No one."}]
    response = server.post({"records": records, "text_field": "body", "strategy": "numbered", "operators": {"CODE": "redact"}})
    assert response.status_code == 200
    out = response.json()["records"]
    assert [{k: r[k] for k in ("id", "body", "source") if k in r} for r in out] == records
    assert [r["sanitized"] for r in out] == ["Mr [PERSON 1] called Mr [PERSON 1].", "No one."]
    # the next request without a strategy gets the pipeline's own masker again
    assert server.post({"text": f"Mr {SECRET}"}).json()["sanitized"] == "Mr [PERSON]"
    assert server.post({"text": "Mail zq@example.org", "operators": "CODE=redact,DEFAULT=typed"}).json()["sanitized"] == "Mail ***"


def test_a_dotted_text_field_reads_a_nested_one(server):
    """The service reads what the CLI's --text-field reads: "doc.body" is records[i]["doc"]["body"]."""
    records = [{"id": "n1", "doc": {"body": f"Mr {SECRET} called."}}]
    response = server.post({"records": records, "text_field": "doc.body"})
    assert response.status_code == 200
    assert response.json()["records"][0]["sanitized"] == "Mr [PERSON] called."
    assert server.post({"records": [{"doc": {}}], "text_field": "doc.body"}).status_code == 422


@pytest.mark.parametrize(
    "payload,status,message",
    [
        ({"text": SECRET, "strategy": "nope"}, 422, r"\[E100\] strategy 'nope' is not registered"),
        ({"text": SECRET, "operators": "NAME=redact"}, 422, r"\[E102\] operator label 'NAME'"),
        ({"text": SECRET, "operators": "PERSON"}, 422, r"\[E103\]"),
        ({"text": SECRET, "strategy": ["redact"]}, 422, r"\[E033\] bad request: strategy"),
        ({"records": [{"id": 1, "txt": SECRET}]}, 422, r"\[E033\] bad request: records\[0\]: must be an object with a string field 'text'"),
        ({"text": SECRET, "records": []}, 422, r"either 'text' or 'records'"),
        ({"txt": SECRET}, 422, r"either 'text' or 'records'"),
        ({"text": 3}, 422, r"text: must be a string"),
        ({"records": [{"text": SECRET}] * 6}, 413, r"\[E034\] request too large: 6 records, the limit is 5 records"),
        ({"text": SECRET * 2000}, 413, r"\[E034\] request too large: \d+ bytes, the limit is 20000 bytes"),
    ],
)
def test_bad_requests_get_4xx_with_the_catalogue_message(server, payload, status, message):
    response = server.post(payload)
    assert response.status_code == status
    assert re.search(message, response.json()["detail"])
    assert SECRET not in response.json()["detail"]


JSON = {"content-type": "application/json"}


def test_a_lone_surrogate_in_a_field_the_answer_copies_back_is_a_422(server):
    # JSON escapes it ("\\udc00"); no UTF-8 answer can hold it: it was a 500 and a traceback
    body = json.dumps({"records": [{"text": SECRET, "note": {"x": ["\udc00"]}}]})
    response = httpx.post(server.url + "/sanitize", content=body, headers=JSON, timeout=60)
    assert response.status_code == 422
    assert "[E033] bad request: records[0]: holds a lone surrogate" in response.json()["detail"]


def test_not_json_and_a_streamed_body_without_length(server):
    response = httpx.post(server.url + "/sanitize", content=b"{not json " + SECRET.encode(), headers=JSON, timeout=30)
    assert response.status_code == 400 and SECRET not in response.text

    def chunks():  # chunked transfer: no content-length, the limit holds while reading
        for _ in range(100):
            yield json.dumps({"text": SECRET}).encode() * 10

    response = httpx.post(server.url + "/sanitize", content=chunks(), headers=JSON, timeout=30)
    assert response.status_code == 413


@pytest.mark.parametrize("headers,status,code", [
    ({"content-type": "text/plain"}, 415, "E047"),  # what a web page sends without a CORS preflight
    ({"content-type": "application/x-www-form-urlencoded"}, 415, "E047"),
    ({}, 415, "E047"),
    ({**JSON, "origin": "https://evil.example"}, 403, "E048"),
    ({**JSON, "sec-fetch-site": "cross-site"}, 403, "E048"),
])
def test_browser_requests_from_other_sites_are_refused(server, headers, status, code):
    response = httpx.post(server.url + "/sanitize", content=json.dumps({"text": SECRET}).encode(), headers=headers, timeout=30)
    assert response.status_code == status and code in response.json()["detail"] and SECRET not in response.text


def test_allowed_origin_and_bearer_token(tmp_path, monkeypatch):
    monkeypatch.setenv("SANITIZE_TEST_TOKEN", "s3cret-token")
    server = Server(tmp_path, "--token-env", "SANITIZE_TEST_TOKEN", "--allow-origin", "https://app.example.org")
    try:
        body = {"text": f"Mr {SECRET}"}
        assert server.post(body).status_code == 401
        assert server.post(body, headers={"authorization": "Bearer wrong"}).status_code == 401
        good = {"authorization": "Bearer s3cret-token"}
        assert server.post(body, headers=good).json()["sanitized"] == "Mr [PERSON]"
        assert server.post(body, headers={**good, "origin": "https://app.example.org"}).status_code == 200
        assert server.post(body, headers={**good, "origin": "https://other.example.org"}).status_code == 403
        assert httpx.get(server.url + "/health", timeout=10).status_code == 200  # no token: health only
    finally:
        server.stop()
    monkeypatch.delenv("SANITIZE_TEST_TOKEN")
    from spacy_sanitize.cli import main

    assert main(["serve", "--token-env", "SANITIZE_TEST_TOKEN"]) == 2  # refused at start, not per request


def test_concurrent_requests(server):
    texts = [f"Mr {SECRET} number {i} mailed z{i}@example.org" for i in range(16)]
    with ThreadPoolExecutor(8) as pool:
        bodies = list(pool.map(lambda t: server.post({"text": t}).json(), texts))
    assert [b["sanitized"] for b in bodies] == [f"Mr [PERSON] number {i} mailed [CODE]" for i in range(16)]


def test_no_request_text_in_the_log(server):
    """Runs after the tests above (same server): every request, good or bad, carried SECRET."""
    server.post({"text": f"Dr {SECRET}", "strategy": "surrogate"})
    time.sleep(0.5)
    log = server.log.read_text(encoding="utf8")
    assert "POST /sanitize" in log and "sanitized 1 text(s)" in log and "rejected a request" in log
    assert SECRET not in log and "Quistgaard" not in log and "Zebulon" not in log


def test_worker_processes(tmp_path):
    server = Server(tmp_path, "--workers", "2")
    try:
        with ThreadPoolExecutor(8) as pool:
            pids = set(pool.map(lambda _: httpx.get(server.url + "/health", timeout=30).json()["pid"], range(40)))
            bodies = list(pool.map(lambda i: server.post({"text": f"Mr Per Aasen {i}"}).json()["sanitized"], range(8)))
        assert server.process.pid not in pids and len(pids) >= 1
        assert bodies == [f"Mr [PERSON] {i}" for i in range(8)]
    finally:
        server.stop()


@pytest.mark.parametrize(
    "body,status",
    [(b"[]", 422), (b'{"records": "x"}', 422), (b'{"text": "x", "text_field": 1}', 422), (b'{"text": "x", "extra": 1}', 422), (b"\xff", 400),
     (b"[" * 100_000 + b"]" * 100_000, 400), (b'{"text": 1' + b"0" * 5000 + b"}", 400), (b'{"text": "\\ud800 x"}', 422),
     (b'{"records": [{"text": "ok \\udfff"}]}', 422)],
)
def test_parse_request_rejects(body, status):
    with pytest.raises(RequestError) as err:
        parse_request(body, ServeSettings())
    assert err.value.status == status


def test_serve_without_the_extra_says_how_to_install_it():
    code = "import sys; sys.modules['uvicorn'] = None; from spacy_sanitize.cli import main; sys.exit(main(['serve', '--port', '1']))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 2 and "[E035]" in out.stderr and "spacy-sanitize[serve]" in out.stderr


def test_the_documented_examples_answer_as_shown():
    """docs/serve.md's curl examples, sent to the app in process (the default pipeline),
    answer what the page shows ("[...]" stands for a part left out there)."""
    from fastapi.testclient import TestClient

    from spacy_sanitize.serve import create_app

    text = (ROOT / "docs" / "serve.md").read_text(encoding="utf8")
    examples = re.findall(r"```bash\ncurl -s localhost:8000/sanitize -d '(.*?)'\n```\n(?:<!-- docs-test:[^\n]*-->\n)?```json\n(.*?)```", text, re.S)
    assert len(examples) == 2
    client = TestClient(create_app(ServeSettings()))
    for payload, shown in examples:
        answer = client.post("/sanitize", json=json.loads(payload)).json()
        shown_json = json.loads(shown.replace("[...]", '"..."'))
        if "records" in shown_json:
            answer, shown_json = answer["records"][0], shown_json["records"][0]
        assert {k: v for k, v in answer.items() if shown_json.get(k) != "..."} == {k: v for k, v in shown_json.items() if v != "..."}


def test_serve_refuses_a_tiny_max_chars_at_start(capsys):
    from spacy_sanitize.cli import main

    assert main(["serve", "--max-chars", "5", "--port", "1"]) == 2
    assert "E024" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--header-timeout", "--read-timeout", "--limit-concurrency"])
def test_serve_refuses_timeouts_and_limits_that_would_stop_every_request(capsys, option):
    from spacy_sanitize.cli import main

    assert main(["serve", option, "0", "--port", "1"]) == 2
    assert re.search(r"E05[45]", capsys.readouterr().err)


def test_entity_ids_hold_across_the_pieces_of_a_long_text(tmp_path):
    """The service masked each piece of a long text on its own (no record state), so two
    people in two pieces were both [PERSON 1]; it now runs sanitize_texts as the CLI does."""
    from spacy_sanitize.serve import Sanitizer

    config = tmp_path / "tiny.cfg"
    config.write_text(TINY, encoding="utf8")
    sanitizer = Sanitizer(ServeSettings(pipeline=str(config), max_chars=1000))
    filler = "The hearing was adjourned. " * 40
    text = "Mr Per Aasen appeared. " + filler + "\n\nMr Kari Nordmann appeared. " + filler + "\n\nMr Per Aasen left."
    [result] = sanitizer.sanitize([text], sanitizer.masker_for("numbered", None))
    assert result["sanitized"].count("[PERSON 1]") == 2 and result["sanitized"].count("[PERSON 2]") == 1


def test_a_request_over_the_character_budget_gets_413():
    settings = ServeSettings(max_request_chars=10)
    with pytest.raises(RequestError) as err:
        parse_request(json.dumps({"text": "x" * 11}).encode(), settings)
    assert err.value.status == 413 and "--max-request-chars" in str(err.value)
    with pytest.raises(RequestError):
        parse_request(json.dumps({"records": [{"text": "x" * 6}, {"text": "y" * 6}]}).encode(), settings)
    assert parse_request(json.dumps({"text": "x" * 10}).encode(), settings)[1] == ["x" * 10]


def test_a_slow_body_times_out_with_one_log_line(tmp_path):
    server = Server(tmp_path, "--read-timeout", "1")
    try:
        host, port = server.url.rsplit("/", 1)[1].split(":")
        with socket.create_connection((host, int(port)), timeout=20) as sock:
            sock.sendall(b"POST /sanitize HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"text\": ")
            time.sleep(2.5)  # the rest never comes
            reply = sock.recv(4096).decode("latin-1")
        assert reply.startswith("HTTP/1.1 408") and "E051" in reply
        assert server.post({"text": f"Mr {SECRET}"}).json()["sanitized"] == "Mr [PERSON]"  # the worker is free
        time.sleep(0.3)
        log = server.log.read_text(encoding="utf8")
        assert log.count("timed out reading a request body") == 1 and "Traceback" not in log
    finally:
        server.stop()


def test_slow_headers_are_cut_off_with_one_log_line(tmp_path):
    """#36: a client that sends its headers a byte at a time (slowloris) is closed after
    --header-timeout; a keep-alive connection's next request has its own deadline."""
    server = Server(tmp_path, "--header-timeout", "1")
    try:
        host, port = server.url.rsplit("/", 1)[1].split(":")
        started = time.monotonic()
        with socket.create_connection((host, int(port)), timeout=20) as sock:
            closed = False
            for byte in b"POST /sanitize HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 40:
                try:
                    sock.sendall(bytes([byte]))
                    time.sleep(0.2)
                    if sock.recv(1, socket.MSG_DONTWAIT) == b"":
                        closed = True
                        break
                except BlockingIOError:
                    continue
                except OSError:
                    closed = True
                    break
        assert closed and time.monotonic() - started < 5
        # a prompt client on a kept-alive connection is served twice
        with httpx.Client(timeout=30) as client:
            for _ in range(2):
                assert client.post(server.url + "/sanitize", json={"text": f"Mr {SECRET}"}).json()["sanitized"] == "Mr [PERSON]"
        time.sleep(0.3)
        log = server.log.read_text(encoding="utf8")
        assert log.count("request headers took over 1 s") == 1 and "Traceback" not in log
    finally:
        server.stop()


def malformed_requests() -> list:
    """At least 100 requests a careless or hostile client sends: (name, body bytes, headers).
    Shapes, encodings, sizes, content types and nesting; none may get a 5xx or stop the server."""
    json_type = {"content-type": "application/json"}
    shapes = [
        b"", b"null", b"true", b"1", b"-0", b"1e999", b'"text"', b"[]", b"{}", b"[{}]", b'{"text": null}', b'{"text": 1}',
        b'{"text": ["a"]}', b'{"text": {"a": 1}}', b'{"text": true}', b'{"records": null}', b'{"records": {}}', b'{"records": [1]}',
        b'{"records": [null]}', b'{"records": [[]]}', b'{"records": [{"text": 1}]}', b'{"records": [{"body": "x"}]}',
        b'{"records": [{"text": "x"}], "text_field": ["text"]}', b'{"records": [{"a": {"b": 1}}], "text_field": "a.b"}',
        b'{"records": [{"a": "x"}], "text_field": "a.b.c"}', b'{"text": "x", "records": []}', b'{"text": "x", "strategy": 5}',
        b'{"text": "x", "strategy": []}', b'{"text": "x", "strategy": "no-such-strategy"}', b'{"text": "x", "operators": "PERSON"}',
        b'{"text": "x", "operators": "NOPE=redact"}', b'{"text": "x", "operators": {"PERSON": 3}}',
        b'{"text": "x", "strategy": {"name": "typed", "template": "{label:>999999999}"}}',
        b'{"text": "x", "strategy": {"name": "numbered", "across_docs": true}}', b'{"text": "x", "strategy": {"name": "custom"}}',
        b'{"text": "x", "strategy": {"@strategies": "spacy_sanitize.custom.v1", "function": "os.system"}}',
        b'{"text": "x", "strategy": "{\\"name\\": \\"typed\\""}', b'{"text": "x",}', b"{'text': 'x'}", b'{"text": "x"', b'{"text": "x"}}',
        b'{"text": "x"} trailing', b'{"text": NaN}', b'{"text": Infinity}', b'{"text": "\\u0000\\u0001\\u0002"}', b'{"text": "\\ud800"}',
        b'{"text": "\\udfff\\ud800"}', b'{"text": "\\uFFFE\\uFFFF"}', b'{"text": "x\\u202ey"}', b'{"text": "' + b"\\u200b" * 500 + b'"}',
        b'{"text": "\\\\"}', b'{"text": "' + b"\\\\" * 999 + b'"}', b'{"text": "x", "text": "y"}', b'{"records": [' + b'{"text": "a"},' * 5 + b'{"text": "b"}]}',
        b'{"records": [' + b",".join([b'{"text": "a"}'] * 50) + b"]}",
    ]
    nesting = [b"[" * n + b"]" * n for n in (10, 1000, 100_000)] + [b'{"a":' * n + b"1" + b"}" * n for n in (10, 1000, 5000)]
    numbers = [b'{"text": 1' + b"0" * n + b"}" for n in (10, 400, 5000)] + [b'{"text": "x", "n": 1' + b"0" * 5000 + b"}"]
    encodings = [
        "{\"text\": \"Mr Per Aasen\"}".encode("utf-16"), "{\"text\": \"Mr Per Aasen\"}".encode("utf-16-le"),
        "{\"text\": \"Mr Per Aasen\"}".encode("utf-32"), b'\xef\xbb\xbf{"text": "Mr Per Aasen"}', '{"text": "Mr Pér Åsen"}'.encode("latin-1"),
        b"\xff\xfe\xfd", b"\x00" * 100, b'{"text": "\xc3\x28"}', b'{"text": "\xed\xa0\x80"}', b'{"text": "\xf4\x90\x80\x80"}',
        bytes(range(256)), b"\x1b[31m{\"text\": \"x\"}", "{\"text\": \"Ⅿr Ρer Аasen\"}".encode(),
    ]
    sizes = [b'{"text": "' + b"a" * n + b'"}' for n in (0, 1, 10_000, 19_900)] + [b'{"text": "' + b"a" * 30_000 + b'"}', b"x" * 25_000,
             b'{"text": "' + b" " * 19_000 + b'"}', b'{"text": "' + b"\\t" * 4000 + b'"}', b'{"text": "' + b"\\n" * 4000 + b'"}']
    requests = [(f"shape {i}", body, json_type) for i, body in enumerate(shapes)]
    requests += [(f"nesting {i}", body, json_type) for i, body in enumerate(nesting)]
    requests += [(f"number {i}", body, json_type) for i, body in enumerate(numbers)]
    requests += [(f"encoding {i}", body, json_type) for i, body in enumerate(encodings)]
    requests += [(f"size {i}", body, json_type) for i, body in enumerate(sizes)]
    ok = b'{"text": "Mr Per Aasen"}'
    for i, kind in enumerate(["", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=latin-1",
                              "APPLICATION/JSON", "application/json;", "application/jsonx", "*/*", "application/xml"]):
        requests.append((f"content type {i}", ok, {"content-type": kind} if kind else {}))
    for i, headers in enumerate([{"origin": "https://evil.example"}, {"origin": "null"}, {"sec-fetch-site": "cross-site"}, {"content-length": "99999999"},
                                 {"authorization": "Bearer x"}, {"content-encoding": "gzip"}, {"transfer-encoding": "chunked"}]):
        requests.append((f"header {i}", ok, {**json_type, **headers}))
    return requests


def test_a_malformed_request_corpus_gets_no_5xx_and_the_server_keeps_answering(tmp_path):
    """#36: at least 100 malformed requests (shapes, encodings, sizes, content types, nesting)
    sent over HTTP to a running service: each gets a 2xx or 4xx, none a 5xx, and the server
    still answers a good request afterwards, with no request text in its log."""
    requests = malformed_requests()
    assert len(requests) >= 100
    server = Server(tmp_path, "--read-timeout", "2")
    try:
        statuses = {}
        for name, body, headers in requests:
            statuses[name] = raw_post(server.url, body, headers)
            assert server.process.poll() is None, f"the server stopped after {name}"
        failed = {name: status for name, status in statuses.items() if status is None or status >= 500}
        assert not failed, failed
        assert sum(200 <= s < 300 for s in statuses.values()) >= 10 and sum(400 <= s < 500 for s in statuses.values()) >= 60
        assert server.post({"text": f"Mr {SECRET}"}).json()["sanitized"] == "Mr [PERSON]"
        assert SECRET not in server.log.read_text(encoding="utf8")
    finally:
        server.stop()


def raw_post(url: str, body: bytes, headers: dict) -> "int | None":
    """POST /sanitize over a plain socket, so headers can lie (a client library refuses to send
    a wrong Content-Length): the answer's status, or None when none came."""
    host, port = url.rsplit("/", 1)[1].split(":")
    fields = {"host": host, "content-length": str(len(body)), "connection": "close", **headers}
    if "transfer-encoding" in headers:
        del fields["content-length"]
    head = "".join(f"{k}: {v}\r\n" for k, v in fields.items())
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(f"POST /sanitize HTTP/1.1\r\n{head}\r\n".encode("latin-1") + body)
        reply = b""
        while b"\r\n" not in reply:
            chunk = sock.recv(4096)
            if not chunk:
                break
            reply += chunk
    match = re.match(rb"HTTP/1\.1 (\d{3})", reply)
    return int(match.group(1)) if match else None


def test_connections_are_bounded_and_no_schema_pages_are_served(tmp_path):
    """Slow clients holding connections open (headers sent a byte at a time) are bounded by
    --limit-concurrency: past it, 503 at once instead of file descriptors running out; the
    interactive schema pages (/docs, /openapi.json) are not served."""
    running = Server(tmp_path, "--limit-concurrency", "2")
    try:
        assert httpx.get(running.url + "/docs").status_code == 404
        assert httpx.get(running.url + "/openapi.json").status_code == 404
        port = int(running.url.rsplit(":", 1)[1])
        slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
        for sock in slow:
            sock.sendall(b"POST /sanitize HTTP/1.1\r\nHost: x\r\n")  # headers never finished
        time.sleep(0.5)
        assert httpx.get(running.url + "/health", timeout=10).status_code == 503
        for sock in slow:
            sock.close()
        time.sleep(0.5)
        assert httpx.get(running.url + "/health", timeout=10).status_code == 200
    finally:
        running.stop()
