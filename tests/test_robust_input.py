"""Inputs that used to abort a run or change the text: lone surrogates, CR and CRLF line ends."""
import json
import os
import subprocess
import sys

import pytest
import spacy

from spacy_sanitize.cli import main
from spacy_sanitize.pipeline import sanitize_texts

GOOD = {"id": "a", "text": "Write to jane.roe@example.com today."}
# json.dumps writes the lone surrogate as the escape "\ud800", as a producer that cut a pair does
BAD = {"id": "b", "text": "cut pair \ud800 here, jane.roe@example.com"}


def write_jsonl(path, records, end="\n"):
    path.write_text("".join(json.dumps(r) + end for r in records), encoding="utf8", newline="")


def test_a_lone_surrogate_names_its_line_and_leaves_no_output(tmp_path, capsys):
    """It aborted the whole run with exit 1 and spaCy's UnicodeEncodeError, --skip-bad or not."""
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_jsonl(source, [GOOD, BAD, GOOD])
    assert main(["sanitize", str(source), "-o", str(out), "-q"]) == 2
    err = capsys.readouterr().err
    assert "E026" in err and "line 2" in err and "'text'" in err and "--skip-bad" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]  # no output, no temporary file


def test_skip_bad_skips_only_the_record_with_a_lone_surrogate(tmp_path, capsys):
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_jsonl(source, [GOOD, BAD, {**GOOD, "id": "c"}])
    assert main(["sanitize", str(source), "-o", str(out), "-q", "--skip-bad"]) == 0
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["a", "c"]
    err = capsys.readouterr().err
    assert "skipped 1 bad record(s)" in err and "line(s) 2" in err


def test_a_lone_surrogate_in_another_field_is_caught_too(tmp_path, capsys):
    source = tmp_path / "in.jsonl"
    write_jsonl(source, [GOOD, {"id": "x", "text": "fine", "note": "also \udc80 bad"}])
    assert main(["sanitize", str(source), "-o", str(tmp_path / "out.jsonl"), "-q", "--skip-bad"]) == 0
    assert "skipped 1 bad record(s)" in capsys.readouterr().err
    assert main(["sanitize", str(source), "-o", str(tmp_path / "out.jsonl"), "-q"]) == 2
    err = capsys.readouterr().err
    assert "E026" in err and "line 2" in err and "'note'" in err  # any field: the output could not be written


def test_a_lone_surrogate_in_a_text_is_a_clear_error_naming_the_offset():
    """The Python API raised spaCy's UnicodeEncodeError from the tokenizer, naming no place."""
    nlp = spacy.blank("en")
    nlp.add_pipe("masker")
    with pytest.raises(ValueError, match=r"E025.*character 9"):
        list(sanitize_texts(nlp, ["cut pair \ud800 here"]))


def test_bytes_that_are_not_utf8_on_stdin_are_e017_as_in_a_file():
    """Under a C locale stdin decodes with surrogateescape: the bytes became lone surrogates
    and the run crashed with exit 1 in spaCy's tokenizer."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:surrogateescape"}
    result = subprocess.run(
        [sys.executable, "-m", "spacy_sanitize", "sanitize", "-", "-q"], input=b"Jane Roe \xff\xfe left.", capture_output=True, env=env
    )
    assert result.returncode == 2, result.stderr
    assert b"E017" in result.stderr and result.stdout == b""


CRLF_TEXT = "Please write to jane.roe@example.com\r\nor call us.\rThanks.\r\n"


@pytest.mark.parametrize("layout", ["txt", "dir"])
def test_crlf_and_cr_are_kept_byte_for_byte_in_text(tmp_path, layout):
    """Text files were read with newline translation: every "\\r\\n" and "\\r" came out "\\n"."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "note.txt").write_bytes(CRLF_TEXT.encode())
    source = folder / "note.txt" if layout == "txt" else folder
    out = tmp_path / "out"
    assert main(["sanitize", str(source), "-o", str(out), "-q", "--output-format", "text"]) == 0
    assert out.read_bytes() == b"Please write to [CODE]\r\nor call us.\rThanks.\r\n"


def test_crlf_kept_in_jsonl_offsets_and_lines_ending_in_crlf(tmp_path):
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_jsonl(source, [{"id": "a", "text": CRLF_TEXT}, {"id": "b", "text": "a\r\nb"}], end="\r\n")
    assert main(["sanitize", str(source), "-o", str(out), "-q"]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf8").splitlines()]
    assert rows[0]["sanitized"] == "Please write to [CODE]\r\nor call us.\rThanks.\r\n"
    (start, end, *_), = rows[0]["replacements"]
    assert CRLF_TEXT[start:end] == "jane.roe@example.com"
    assert rows[1]["sanitized"] == "a\r\nb"


def test_crlf_on_stdin_is_kept():
    result = subprocess.run(
        [sys.executable, "-m", "spacy_sanitize", "sanitize", "-", "-q"], input=CRLF_TEXT.encode(), capture_output=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == b"Please write to [CODE]\r\nor call us.\rThanks.\r\n"


RECORD = {"id": "r1", "title": "Letter from Anna Berg", "text": "Anna Berg lives in Oslo.", "meta": {"note": "call Bob Ray", "n": 3}, "tag": "x1"}


def test_other_text_fields_are_named_in_one_warning(tmp_path):
    """They were copied to the output in clear without a word."""
    source = tmp_path / "in.jsonl"
    write_jsonl(source, [RECORD, {**RECORD, "id": "r2"}])
    with pytest.warns(UserWarning, match=r"W020.*NOT sanitized: title, meta\.note\.") as caught:
        assert main(["sanitize", str(source), "-o", str(tmp_path / "out.jsonl"), "-q"]) == 0
    assert len([w for w in caught if "W020" in str(w.message)]) == 1  # once per run


def test_several_text_fields_are_sanitized(tmp_path, recwarn):
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_jsonl(source, [RECORD])
    assert main(["sanitize", str(source), "-o", str(out), "-q", "--text-field", "text", "--text-field", "title", "--text-field", "meta.note"]) == 0
    assert not [w for w in recwarn if "W020" in str(w.message)]
    row = json.loads(out.read_text())
    assert row["sanitized"] == "[PERSON] lives in [LOC]."
    assert set(row["fields"]) == {"title", "meta.note"}
    assert "Anna" not in row["fields"]["title"]["sanitized"] and row["fields"]["meta.note"]["sanitized"] == "call [PERSON]"
    (start, end, *_), = row["fields"]["meta.note"]["replacements"]
    assert RECORD["meta"]["note"][start:end] == "Bob Ray"


def test_a_missing_further_text_field_names_the_line(tmp_path, capsys):
    source = tmp_path / "in.jsonl"
    write_jsonl(source, [RECORD, {"id": "r2", "text": "no title here"}])
    args = ["sanitize", str(source), "-o", str(tmp_path / "out.jsonl"), "-q", "--text-field", "text", "--text-field", "title", "--text-field", "meta.note"]
    assert main(args) == 2
    assert "E038" in capsys.readouterr().err
    assert main(["sanitize", str(source), "-q", "--output-format", "text", "--text-field", "text", "--text-field", "title"]) == 2
    assert "E028" in capsys.readouterr().err


def test_a_jsonl_line_not_utf8_is_that_lines_error_and_skip_bad_skips_it(tmp_path, capsys):
    from spacy_sanitize.cli import main

    source = tmp_path / "mixed.jsonl"
    source.write_bytes(b'{"text": "Per Aasen wrote."}\n{"text": "Jos\xe9 Garc\xeda wrote."}\n{"text": "Kari Nordmann wrote."}\n')
    out = tmp_path / "out.jsonl"
    assert main(["sanitize", str(source), "-o", str(out), "-q"]) == 2
    err = capsys.readouterr().err
    assert "E053" in err and "line 2" in err and not out.exists()
    assert main(["sanitize", str(source), "-o", str(out), "-q", "--skip-bad"]) == 0
    assert len(out.read_text().splitlines()) == 2 and "line(s) 2" in capsys.readouterr().err
