"""JSONL on stdin (issue #19 item 1): detected from the first line, its fields honoured,
dotted fields read as paths, field options never silently ignored."""
import io
import json
import subprocess
import sys

import pytest

from spacy_sanitize.io import InputError, open_input, read_records


def sanitize_stdin(stdin, *args):
    """The CLI as a user runs it, the input through a real pipe."""
    return subprocess.run(
        [sys.executable, "-m", "spacy_sanitize", "sanitize", "-", "-q", *args], input=stdin, capture_output=True, text=True
    )


@pytest.mark.parametrize(
    "record,field",
    [
        ({"id": "a1", "body": "Anna Berg lives in Oslo."}, "body"),  # the reproduction
        ({"id": "a1", "doc": {"body": "Anna Berg lives in Oslo."}}, "doc.body"),
    ],
)
def test_jsonl_on_stdin_is_read_as_jsonl(record, field):
    result = sanitize_stdin("\n" + json.dumps(record) + "\n" + json.dumps({"id": "a2", "body": "x", "doc": {"body": "x"}}) + "\n", "--text-field", field)
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [row["id"] for row in rows] == ["a1", "a2"]
    assert rows[0]["sanitized"] == "[PERSON] lives in [LOC]."
    assert "Anna" not in rows[0]["sanitized"] and "Oslo" not in rows[0]["sanitized"]


def test_text_field_with_plain_text_on_stdin_is_an_error():
    result = sanitize_stdin("Anna Berg lives in Oslo.\n", "--text-field", "body")
    assert result.returncode == 2
    assert "E037" in result.stderr and "--text-field body" in result.stderr
    assert result.stdout == ""


def test_missing_field_names_the_line_and_the_field():
    lines = json.dumps({"doc": {"body": "Anna Berg."}}) + "\n" + json.dumps({"doc": {"text": "Anna Berg."}}) + "\n"
    result = sanitize_stdin(lines, "--text-field", "doc.body")
    assert result.returncode == 2
    assert "E038" in result.stderr and "line 2" in result.stderr and "'doc.body'" in result.stderr
    assert "not valid JSON" not in result.stderr


def test_plain_text_on_stdin_stays_text():
    result = sanitize_stdin("\nAnna Berg lives in Oslo.\n{\"not\": \"first\"}\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "\n[PERSON] lives in [LOC].\n{\"not\": \"first\"}\n"


@pytest.mark.parametrize(
    "stdin,fmt",
    [
        ('{"text": "a"}\n', "jsonl"),
        ("\n\n  {\"text\": \"a\"}\n", "jsonl"),
        ("[1, 2]\n", "txt"),
        ("{not json\n", "txt"),
        ("", "txt"),
    ],
)
def test_stdin_format_from_first_non_blank_line(monkeypatch, stdin, fmt):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    assert open_input("-").format == fmt


def test_stdin_is_read_ahead_one_line_only(monkeypatch):
    """Streaming: detection reads the first line; the rest is read as the records are."""
    lines = "".join(json.dumps({"id": str(i), "text": f"t{i}"}) + "\n" for i in range(3))
    stdin = io.StringIO("\n" + lines)
    monkeypatch.setattr(sys, "stdin", stdin)
    source = open_input("-")
    first = lines.index("\n") + 1
    assert stdin.tell() == 1 + first  # only the blank line and the first record consumed
    records = read_records(source)
    assert next(records).id == "0"
    assert stdin.tell() < len("\n" + lines)  # the rest not read yet
    assert [r.text for r in records] == ["t1", "t2"]


def test_text_chunks_give_back_the_read_ahead(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("\nfirst\nsecond\n"))
    (record,) = read_records("-", stream_text=True)
    assert "".join(record.text) == "\nfirst\nsecond\n"


def test_field_options_with_non_jsonl_files_are_errors(tmp_path):
    source = tmp_path / "note.txt"
    source.write_text("Anna Berg.")
    with pytest.raises(InputError, match="E037"):
        read_records(str(source), id_field="key")
    with pytest.raises(InputError, match="E037"):
        read_records(str(tmp_path), text_field="body")  # a folder of .txt


def test_dotted_id_field(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"meta": {"key": "k1"}, "doc": {"body": "text"}}) + "\n")
    (record,) = read_records(str(source), text_field="doc.body", id_field="meta.key")
    assert (record.id, record.text) == ("k1", "text")


def test_jsonl_output_keeps_the_record_whole(tmp_path):
    """#19 item 10: the row is the input record (fields and order as they came, nested ones
    included) plus the results, so it slots back into a pipeline; nothing moves under meta."""
    record = {"lang": "en", "doc": {"body": "Anna Berg lives in Oslo.", "n": 1}, "key": "k1", "meta": {"source": "crm"}}
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(record) + "\n")
    out = tmp_path / "out.jsonl"
    result = subprocess.run(
        [sys.executable, "-m", "spacy_sanitize", "sanitize", str(source), "-o", str(out), "-q", "--text-field", "doc.body", "--id-field", "key", "--keep-original"],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stderr
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert list(row) == ["lang", "doc", "key", "meta", "sanitized", "spans", "replacements"]
    assert {k: row[k] for k in record} == record
    assert row["sanitized"] == "[PERSON] lives in [LOC]."
    assert [s["text"] for s in row["spans"]] == ["Anna Berg", "Oslo"]
