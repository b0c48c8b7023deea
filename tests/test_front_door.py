"""One record type behind every front door: the same text through the CLI's JSONL, the
service's answer, batch's table and the report gives the same spans (fields and values), the
same sanitized text and the same replacements; one session isolates a failing record for
all of them."""
import json
import warnings

import pytest
import spacy

import spacy_sanitize  # noqa: F401
from spacy_sanitize.cli import main
from spacy_sanitize.run.records import SPAN_FIELDS, SanitizedRecord, record_of
from spacy_sanitize.run.session import RecordError, Session

from .conftest import CODES_CONFIG

TEXT = "Case 36110/97 was lodged by per.aasen@example.org, phone +47 22 33 44 55, on 12 May 1997."
CONFIG = CODES_CONFIG


@pytest.fixture()
def config(tmp_path):
    path = tmp_path / "codes.cfg"
    path.write_text(CONFIG, encoding="utf-8")
    return path


def cli_record(tmp_path, config, *extra):
    source, target = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text(json.dumps({"id": "a", "text": TEXT}) + "\n", encoding="utf-8")
    assert main(["sanitize", str(source), "-o", str(target), "-p", str(config), "-q", "--manifest", str(tmp_path / "m.json"), *extra]) == 0
    return json.loads(target.read_text(encoding="utf-8"))


def test_cli_service_and_batch_give_one_record(tmp_path, config):
    pytest.importorskip("fastapi", reason="the service needs the [serve] extra")
    pd = pytest.importorskip("pandas", reason="batch needs the [ray] extra")
    from fastapi.testclient import TestClient

    from spacy_sanitize.batch import sanitize_dataframe
    from spacy_sanitize.serve import ServeSettings, create_app

    line = cli_record(tmp_path, config)
    assert line["spans"] and all(list(span) == [f for f in SPAN_FIELDS if f != "text"] for span in line["spans"])
    answer = TestClient(create_app(ServeSettings(pipeline=str(config)))).post("/sanitize", json={"text": TEXT}).json()
    assert answer == {name: line[name] for name in ("sanitized", "spans", "replacements")}
    table = sanitize_dataframe(pd.DataFrame({"text": [TEXT]}), pipeline=str(config), keep_original=False)
    spans = [{**span, "why": json.loads(span["why"])} for span in table["spans"][0]]
    assert spans == line["spans"]
    assert table["sanitized"][0] == line["sanitized"]
    assert [list(r.values()) for r in table["replacements"][0]] == line["replacements"]
    # --keep-original adds each span's text, nothing else
    kept = cli_record(tmp_path, config, "--keep-original")
    assert [{k: v for k, v in span.items() if k != "text"} for span in kept["spans"]] == line["spans"]
    assert [span["text"] for span in kept["spans"]] == [TEXT[span["start"]:span["end"]] for span in line["spans"]]


def test_the_report_reads_the_same_record(tmp_path, config):
    from spacy_sanitize.io import Record
    from spacy_sanitize.report.build import run_records
    from spacy_sanitize.report.data import entry

    line = cli_record(tmp_path, config, "--keep-original")
    session = Session(str(config))
    (record,) = session.sanitize([TEXT], with_text=True)
    assert record.to_json() == {name: line[name] for name in ("sanitized", "spans", "replacements")}
    # a run's entry is the entry of the JSONL record sanitize writes
    entries, _ = run_records(session.nlp, [Record(id="a", text=TEXT, meta={})])
    assert entries == [entry("a", TEXT, line)]


def test_a_record_that_fails_is_masked_whole_or_stops_the_run(config):
    session = Session(str(config))
    session.nlp.add_pipe("test_front_door_boom", before="masker")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        records = session.sanitize([TEXT, "BOOM " + TEXT, None], ids=["ok", "boom", "none"])
    assert [r.error for r in records] == [None, "ValueError", "TypeError [E010]"]
    assert records[1] == SanitizedRecord("[REDACTED]", [], [], "ValueError")
    assert "36110/97" not in records[0].sanitized
    assert any("W950" in str(w.message) and "'boom'" in str(w.message) for w in caught)
    strict = Session(session.nlp, on_error="raise")
    with pytest.raises(RecordError, match=r"E952.*'boom'") as info:
        strict.sanitize([TEXT, "BOOM " + TEXT], ids=["ok", "boom"])
    assert "BOOM" not in str(info.value)  # the cause's message (it quotes the text) is not carried


def test_a_session_builds_masker_variants_through_the_public_api(config):
    session = Session(str(config))
    numbered = session.masker_for("numbered")
    assert numbered is session.masker_for("numbered")  # built once
    assert numbered.cfg == session.masker.cfg
    (record,) = session.sanitize([TEXT], masker=numbered)
    assert "Case [CODE 1] was lodged by [CODE 2]" in record.sanitized
    (plain,) = session.sanitize([TEXT])
    assert plain.sanitized != record.sanitized
    with pytest.raises(ValueError, match="E045"):
        session.masker_for('{"name": "numbered", "across_docs": true}', shared=True)


def test_record_of_joins_the_pieces_of_a_long_text(config):
    session = Session(str(config), max_chars=1000)
    text = " ".join([TEXT] * 40)
    (record,) = session.sanitize([text])
    pieces = list(session.pieces([text]))
    assert len(pieces) > 1
    assert record == record_of([p.doc for p in pieces], [p.offset for p in pieces])
    assert [text[s["start"]:s["end"]] for s in record.spans][:2] == ["36110/97", "per.aasen@example.org"]


@spacy.Language.component("test_front_door_boom")
def _boom(doc):
    if doc.text.startswith("BOOM"):
        raise ValueError(f"cannot handle {doc.text}")
    return doc


def test_a_shareable_record_leaves_out_error_messages_that_may_quote_the_text(config):
    from spacy_sanitize.risk.base import failure, write_risk
    from spacy_sanitize.run.records import span_rows

    session = Session(str(config))
    doc = session.nlp(TEXT)
    span = doc.spans["pii"][0]
    write_risk(span, "web", 1.0, failure(f"[E999] lookup failed for {span.text!r}"))
    shared, kept = span_rows(doc, 0), span_rows(doc, 0, with_text=True)
    assert span.text not in json.dumps(shared)
    assert shared[0]["why"]["indicators"]["web"]["error"].startswith("[E999] details left out")
    assert span.text in json.dumps(kept[0]["why"])
