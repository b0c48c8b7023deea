"""The default pipeline decides what to keep (issue #38): the fast detector, pii_extend, a
risk_seq CNN and risk_stack trained on both annotated corpora, risk_threshold with the court
protection rules; `strict` masks everything detected. Torch-free; fails closed."""
import json

import pytest

from spacy_sanitize import load_pipeline
from spacy_sanitize.shipped import data_path

COURT = ("The case originated in an application against the Republic of Turkey lodged with the European Court of "
         "Human Rights by a Turkish national, Mr Galip Yalman, on 3 May 2001. The Government were represented by their Agent.")


@pytest.fixture(scope="module")
def strict_nlp():
    return load_pipeline("strict")


def test_default_ends_with_the_learnt_decision_on_a_torch_free_tagger(default_nlp):
    """The CLI's start-up imports neither torch nor scipy with it (tests/test_startup.py); the
    plain install runs it (.ci/run)."""
    assert default_nlp.pipe_names[-5:] == ["pii_extend", "risk_seq", "risk_stack", "risk_threshold", "masker"]
    assert default_nlp.get_pipe("risk_seq").tagger.config["@misc"] == "spacy_sanitize.seq_cnn.v1"
    assert default_nlp.get_pipe("risk_threshold").indicator == "stack"
    assert "Anna Berg" not in default_nlp("Anna Berg lives in Oslo.")._.sanitized


def test_the_shipped_decision_was_trained_on_both_corpora():
    for folder in ("risk_seq_default", "risk_stack_default"):
        record = json.loads((data_path(folder) / "training_data.json").read_text())
        ids = record["doc_ids"]
        assert "wiki_dev.json" in record["source"] and "tab_dev.json" in record["source"]
        assert any(i.startswith("001-") for i in ids) and any(not i.startswith("001-") for i in ids)


def test_default_keeps_court_boilerplate_that_strict_masks_and_masks_the_person(default_nlp, strict_nlp):
    kept, masked = default_nlp(COURT), strict_nlp(COURT)
    assert "Galip Yalman" not in kept._.sanitized and "Galip Yalman" not in masked._.sanitized
    assert len(kept._.replacements) < len(masked._.replacements)
    assert "European Court of Human Rights" in kept._.sanitized
    assert "European Court of Human Rights" not in masked._.sanitized
    for span in kept.spans["pii"]:
        assert "stack" in span._.risk and span._.risk_explain["threshold"]  # every decision explained


@pytest.mark.parametrize("text,identifier", [
    ("Sarah Lin wrote this. Her e-mail is sarah.lin@example.com and her phone +44 7700 900391.", "sarah.lin@example.com"),
    ("Sarah Lin wrote this. Her e-mail is sarah.lin@example.com and her phone +44 7700 900391.", "Sarah Lin"),
    ("Patient: SMITH, JOHN. DOB: 12/03/1985. NHS number 943 476 5919.", "12/03/1985"),
    ("Application no. 21784/16, Yilmaz and Others v. Turkey", "21784/16"),
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r", "eyJhbGciOiJIUzI1NiJ9"),
])
def test_default_never_unmasks_names_codes_and_contact_data(default_nlp, text, identifier):
    assert identifier not in default_nlp(text)._.sanitized


def test_default_fails_closed_when_the_tagger_fails(default_nlp, monkeypatch):
    """A document the tagger cannot process: every span is masked and says why."""
    tagger = default_nlp.get_pipe("risk_seq")._ready()

    def broken(docs):
        raise RuntimeError("tagger down")

    monkeypatch.setattr(tagger, "predict", broken)
    with pytest.warns(UserWarning, match="W501"):
        doc = default_nlp(COURT)
    assert doc.spans["pii"] and all(s._.mask for s in doc.spans["pii"])
    for span in doc.spans["pii"]:
        assert span._.risk_explain["seq"]["fail_closed"] is True
        assert span._.risk_explain["stack"]["error"].startswith("seq failed")
    assert "European Court of Human Rights" not in doc._.sanitized


def test_fast_the_old_name_of_the_mask_all_default_is_strict():
    with pytest.warns(UserWarning, match=r"W043.*'fast' is now called 'strict'"):
        assert load_pipeline("fast").pipe_names == load_pipeline("strict").pipe_names
