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


def test_examples_without_doc_ids_are_scored_against_their_own_reference(nlp, tab_path):
    """Plain Examples (or a DocBin without ids) have no doc_id: each is still matched to its
    reference (all scores were 0 when predictions and gold were keyed by None)."""
    examples = list(registry.readers.get("spacy_sanitize.TabCorpus.v1")(path=tab_path)(nlp))
    with_ids = nlp.evaluate(examples)
    for eg in examples:
        eg.reference._.doc_id = None
        eg.predicted._.doc_id = None
    without_ids = nlp.evaluate(examples)
    assert without_ids["tab_f1"] > 0.0
    # two annotators of one document become two documents: recall is the same micro-average
    assert without_ids["tab_r_all"] == pytest.approx(with_ids["tab_r_all"])


def test_risk_seq_scores_its_own_risk_not_mask_all(nlp, tab_path):
    """risk_seq writes no Span._.mask (the decider does), so its scorer reads its risk: spans
    at risk >= 0.5 are masked; before, every span counted as masked whatever the tagger said."""
    examples = list(registry.readers.get("spacy_sanitize.TabCorpus.v1")(path=tab_path)(nlp))
    seq = spacy.blank("en").add_pipe("risk_seq")
    for eg in examples:
        eg.predicted.spans["pii"] = [eg.predicted.char_span(s.start_char, s.end_char, s.label_) for s in eg.reference.spans["pii"]]
        for span in eg.predicted.spans["pii"]:
            span._.risk["seq"] = 0.9 if span.label_ == "CODE" else 0.1
    scores = seq.score(examples)
    codes_only = tab_scores(load_tab(tab_path), {"d1": [[TEXT.index("anna@example.org"), TEXT.index("anna@example.org") + 16], [TEXT.index("+47"), TEXT.index("+47") + 15]]})
    assert scores["tab_r_all"] == pytest.approx(codes_only.recall)
    assert scores["tab_r_all"] < 1.0
