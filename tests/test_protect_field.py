"""The person to protect from the input: ``sanitize_pieces`` items (text, {"protect": ...}) and
the CLI's ``--protect-field``, through a real decider that would un-mask every span."""
import json

import pytest
import spacy
from spacy.language import Language

from spacy_sanitize.cli import main
from spacy_sanitize.pipeline import sanitize_pieces

TEXT = "Mr Galip Yalman met Judge Smith." + " The hearing went on." * 60 + "\n\nLater Galip Yalman wrote to Judge Smith again."


@Language.component("test_low_risk")
def _low_risk(doc):
    for span in doc.spans.get("pii", []):
        span._.risk["seq"] = 0.01  # the indicator alone keeps every span in clear
    return doc


def _nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_patterns").add_patterns([{"label": "PERSON", "pattern": "Galip Yalman"}, {"label": "PERSON", "pattern": "Smith"}])
    nlp.add_pipe("test_low_risk")
    nlp.add_pipe("risk_threshold", config={"indicator": "seq", "threshold": 0.5, "protect": []})
    nlp.add_pipe("masker")
    return nlp


def test_the_protected_person_stays_masked_in_every_piece():
    nlp = _nlp()
    pieces = list(sanitize_pieces(nlp, [(TEXT, {"protect": "Galip Yalman"}), TEXT], max_chars=1000))
    first = "".join(p.doc._.sanitized for p in pieces if p.index == 0)
    second = "".join(p.doc._.sanitized for p in pieces if p.index == 1)
    assert len([p for p in pieces if p.index == 0]) > 1  # cut into pieces: each carries protect
    assert "Galip" not in first and "Yalman" not in first and first.count("Smith") == 2
    assert second == TEXT  # no person given: the indicator's decision stands


def test_cli_protect_field(tmp_path, capsys):
    nlp = _nlp()
    nlp.to_disk(tmp_path / "pipe")
    source = tmp_path / "in.jsonl"
    source.write_text(
        json.dumps({"id": "a", "text": TEXT, "meta": {"applicant": "Galip Yalman"}}) + "\n" + json.dumps({"id": "b", "text": TEXT}) + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    # record b lacks the field: said, not hidden; the field itself is copied to the output in clear (W020)
    with pytest.warns(UserWarning, match="W701"), pytest.warns(UserWarning, match="W020.*meta.applicant"):
        assert main(["sanitize", str(source), "--pipeline", str(tmp_path / "pipe"), "--protect-field", "meta.applicant", "-o", str(out), "-q"]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert "Yalman" not in rows[0]["sanitized"] and "Smith" in rows[0]["sanitized"]
    assert "Yalman" in rows[1]["sanitized"]


def test_cli_protect_field_without_a_decider_is_said(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": "a", "text": "Galip Yalman wrote.", "meta": {"applicant": "Galip Yalman"}}) + "\n", encoding="utf-8")
    with pytest.warns(UserWarning, match="W012"), pytest.warns(UserWarning, match="W020"):
        assert main(["sanitize", str(source), "--pipeline", "strict", "--protect-field", "meta.applicant", "-o", str(tmp_path / "o.jsonl"), "-q"]) == 0
