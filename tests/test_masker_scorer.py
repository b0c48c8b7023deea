"""The masker's TAB scorer: ``nlp.evaluate`` and ``spacy evaluate`` report TAB metrics."""
import json

import pytest
import spacy
from spacy.tokens import DocBin
from spacy.util import registry

from spacy_sanitize.corpus import load_tab, masked_offsets
from spacy_sanitize.evaluation import tab_scores

TEXT = "Contact anna@example.org or call +47 22 33 44 55. Mr. Berg lives in Oslo since 1999."


def _mention(mid, text, etype, itype, eid):
    start = TEXT.index(text)
    return {
        "entity_mention_id": mid, "start_offset": start, "end_offset": start + len(text),
        "span_text": text, "entity_type": etype, "identifier_type": itype, "entity_id": eid,
    }


@pytest.fixture
def tab_path(tmp_path):
    mentions = [
        _mention("m1", "anna@example.org", "CODE", "DIRECT", "e1"),
        _mention("m2", "+47 22 33 44 55", "CODE", "DIRECT", "e2"),
        _mention("m3", "Berg", "PERSON", "DIRECT", "e3"),
        _mention("m4", "Oslo", "LOC", "QUASI", "e4"),
        _mention("m5", "1999", "DATETIME", "NO_MASK", "e5"),
    ]
    data = [{
        "doc_id": "d1", "text": TEXT,
        "annotations": {"A": {"entity_mentions": mentions}, "B": {"entity_mentions": mentions[:3]}},
    }]
    path = tmp_path / "tab.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def nlp():
    nlp = spacy.blank("en")
    for factory in ("pii_codes", "pii_titles", "masker"):
        nlp.add_pipe(factory)
    return nlp


def _direct_scores(nlp, tab_path):
    documents = load_tab(tab_path)
    predictions = {d.doc_id: masked_offsets(nlp(d.text)) for d in documents}
    return tab_scores(documents, predictions)


def test_nlp_evaluate_reports_tab_metrics(nlp, tab_path):
    examples = list(registry.readers.get("spacy_sanitize.TabCorpus.v1")(path=tab_path)(nlp))
    assert len(examples) == 2
    scores = nlp.evaluate(examples)
    direct = _direct_scores(nlp, tab_path)
    assert 0.0 < direct.recall < 1.0 and direct.quasi_recall == 0.0
    expected = {
        "tab_p": direct.precision, "tab_r_all": direct.recall, "tab_f1": direct.f1,
        "tab_r_ent": direct.entity_recall, "tab_r_direct": direct.direct_recall, "tab_r_quasi": direct.quasi_recall,
    }
    assert {key: scores[key] for key in expected} == pytest.approx(expected)
    assert scores["tab_r_direct"] == 1.0
    assert nlp.get_pipe_meta("masker").default_score_weights["tab_f1"] == 1.0


def test_spacy_evaluate_cli_reports_tab_metrics(nlp, tab_path, tmp_path):
    from spacy.cli.evaluate import evaluate

    from spacy_sanitize.corpus import read_tab

    nlp.to_disk(tmp_path / "pipeline")
    # The reference docs keep their gold spans, entity ids and doc ids in a DocBin.
    bin_path = tmp_path / "dev.spacy"
    DocBin(docs=read_tab(tab_path, nlp), store_user_data=True).to_disk(bin_path)
    scores = evaluate(str(tmp_path / "pipeline"), bin_path, silent=True)
    assert scores["tab_f1"] == pytest.approx(_direct_scores(nlp, tab_path).f1)


def test_masker_scorer_can_be_switched_off(tab_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_codes")
    nlp.add_pipe("masker", config={"scorer": None})
    examples = list(registry.readers.get("spacy_sanitize.TabCorpus.v1")(path=tab_path)(nlp))
    assert "tab_f1" not in nlp.evaluate(examples)
