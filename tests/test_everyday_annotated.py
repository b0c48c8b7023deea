"""benchmarks/everyday/annotated.py: the annotated everyday documents read as TAB documents, and
the default pipeline scores on them what the committed run (benchmarks/results/everyday_annotated.json) says."""
import json
import sys
from pathlib import Path

import pytest

from .conftest import load_script

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "everyday_annotated.json"
sys.path.insert(0, str(ROOT / "benchmarks" / "everyday"))  # the script imports leaks.py, its sibling


@pytest.fixture(scope="module")
def annotated():
    return load_script("benchmarks", "everyday", "annotated.py")


def test_marks_become_offsets_types_and_entities(annotated):
    doc = annotated.parse("d1", "Hi [[Tom Lee|PERSON|D|p1]], see [[Tom|PERSON|D|p1]] in [[Leeds|LOC|Q]] or the [[NHS|ORG|N]].")
    assert doc.text == "Hi Tom Lee, see Tom in Leeds or the NHS."
    mentions = doc.annotations["annotator1"]
    assert [doc.text[m.start:m.end] for m in mentions] == ["Tom Lee", "Tom", "Leeds", "NHS"]
    assert [m.identifier_type for m in mentions] == ["DIRECT", "DIRECT", "QUASI", "NO_MASK"]
    assert [m.entity_id for m in mentions] == ["p1", "p1", "LOC:leeds", "ORG:nhs"]
    assert [m.needs_masking for m in mentions] == [True, True, True, False]


@pytest.mark.parametrize("marked", ["[[Tom|PERSON]] came", "[[Tom|NAME|D]] came", "[[Tom came", "Tom]] came"])
def test_a_malformed_mark_is_an_error(annotated, marked):
    with pytest.raises(ValueError):
        annotated.parse("d1", marked)


def test_the_documents_are_well_formed(annotated):
    gold, genres = annotated.read_docs()
    assert len(gold) >= 30 and len({d.doc_id for d in gold}) == len(gold) and len(set(genres.values())) >= 10
    for doc in gold:
        for m in doc.annotations["annotator1"]:
            assert doc.text[m.start:m.end] == m.span_text and m.span_text.strip() == m.span_text
    assert sum(m.identifier_type == "DIRECT" for d in gold for m in d.annotations["annotator1"]) >= 50


def test_default_scores_what_the_committed_run_says(annotated, default_nlp):
    from spacy_sanitize.evaluation import Tokens, predicted_mask_offsets

    gold, _genres = annotated.read_docs()
    predictions = {d.doc_id: predicted_mask_offsets(doc) for d, doc in zip(gold, default_nlp.pipe([d.text for d in gold]))}
    committed = json.loads(RESULTS.read_text(encoding="utf8"))["systems"]
    assert annotated.scores(gold, predictions, Tokens()) == {k: v for k, v in committed["default"].items() if k != "by_genre"}
    # the decision keeps more than masking everything detected, and no direct identifier strict masks
    assert committed["default"]["P"] > committed["strict"]["P"] and committed["default"]["F1"] > committed["strict"]["F1"]
    assert committed["default"]["R_direct"] >= committed["strict"]["R_direct"]
