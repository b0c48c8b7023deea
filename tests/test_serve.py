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
