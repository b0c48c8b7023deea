import json

import numpy
import pytest
import spacy
from spacy.tokens import Span

from spacy_sanitize.detect.relabel import LabelModel, PIIRelabel, gold_span_labels
from spacy_sanitize.types import PII_TYPES

# (sentence, span text, detector label, gold label)
TEMPLATES = [
    ("She studied at {} in Madras.", "{} College", "LOC", "ORG"),
    ("He won the {} last year.", "{} Award", "PERSON", "MISC"),
    ("Yesterday {} went home.", "{} Smith", "PERSON", "PERSON"),
    ("They met on {} in spring.", "{} Street", "LOC", "LOC"),
]
NAMES = ["Alder", "Birch", "Cedar", "Dover", "Elm", "Fern", "Grove", "Hazel", "Ivy", "Juniper", "Kent", "Laurel"]


def make_pair(nlp, template, name):
    sentence, entity, detected, gold = template
    text = sentence.format(entity.format(name))
    start = text.index(entity.format(name))
    end = start + len(entity.format(name))
    predicted, reference = nlp.make_doc(text), nlp.make_doc(text)
    predicted.spans["pii"] = [predicted.char_span(start, end, label=detected)]
    reference.spans["pii"] = [reference.char_span(start, end, label=gold)]
    return predicted, reference


@pytest.fixture
def trained(nlp_blank):
    pairs = [make_pair(nlp_blank, t, n) for t in TEMPLATES for n in NAMES[:10]]
    relabel = nlp_blank.add_pipe("pii_relabel", config={"C": 10.0, "min_prob": 0.5, "entity_vote": False, "min_count": 1})
    relabel.fit([p for p, _ in pairs], [r for _, r in pairs])
    return nlp_blank, relabel


def held_out(nlp):
    return [make_pair(nlp, t, n)[0] for t in TEMPLATES for n in NAMES[10:]]


def test_gold_span_labels_take_the_majority_type(nlp_blank):
    doc = nlp_blank.make_doc("Lee Wei Song School of Music is in Singapore")
    ref = nlp_blank.make_doc(doc.text)
    doc.spans["pii"] = [Span(doc, 0, 6, "LOC"), Span(doc, 8, 9, "LOC")]
    ref.spans["pii"] = [Span(ref, 0, 2, "PERSON"), Span(ref, 2, 6, "ORG")]
    assert gold_span_labels(doc, ref) == ["ORG", None]


def test_confident_relabels_change_labels_not_boundaries(trained):
    nlp, relabel = trained
    for doc in held_out(nlp):
        before = [(s.start, s.end, s.label_) for s in doc.spans["pii"]]
        relabel(doc)
        after = [(s.start, s.end, s.label_) for s in doc.spans["pii"]]
        assert [b[:2] for b in before] == [a[:2] for a in after]
        expected = {"College": "ORG", "Award": "MISC", "Smith": "PERSON", "Street": "LOC"}[doc.spans["pii"][0][-1].text]
        assert after[0][2] == expected
        explain = doc.spans["pii"][0]._.risk_explain["pii_relabel"]
        assert explain["old"] == before[0][2] and explain["new"] == expected and 0.5 <= explain["p"] <= 1.0


def test_unconfident_predictions_keep_the_label(trained):
    nlp, relabel = trained
    relabel.min_prob = 1.0
    for doc in held_out(nlp):
        old = doc.spans["pii"][0].label_
        relabel(doc)
        explain = doc.spans["pii"][0]._.risk_explain["pii_relabel"]
        assert doc.spans["pii"][0].label_ == old == explain["new"]


def test_spans_are_never_dropped_and_entities_share_a_type(trained):
    nlp, relabel = trained
    saved = relabel.entity_vote, relabel.min_prob
    try:
        relabel.min_prob = 1.0  # no span is confident enough to change on its own
        for vote, expected_same in ((True, True), (False, False)):
            relabel.entity_vote = vote
            doc = nlp.make_doc("He won the Kent Award and later the Kent Award again.")
            doc.spans["pii"] = [Span(doc, 3, 5, "PERSON"), Span(doc, 8, 10, "ORG")]
            for span in doc.spans["pii"]:
                span._.entity_id = "e1"
            spans = list(doc.spans["pii"])
            relabel(doc)
            assert [(s.start, s.end) for s in doc.spans["pii"]] == [(s.start, s.end) for s in spans]
            assert all(s.label_ in PII_TYPES for s in doc.spans["pii"])
            assert doc.spans["pii"][0]._.entity_id == "e1"
            same = doc.spans["pii"][0].label_ == doc.spans["pii"][1].label_
            assert same is expected_same, [s.label_ for s in doc.spans["pii"]]
    finally:
        relabel.entity_vote, relabel.min_prob = saved


def test_disk_round_trip_gives_the_same_labels(trained, tmp_path):
    nlp, relabel = trained
    relabel.to_disk(tmp_path / "m")
    assert json.loads((tmp_path / "m" / "model.json").read_text())["format"] == "spacy_sanitize.pii_relabel.v1"
    other = spacy.blank("en").add_pipe("pii_relabel", config={"model": str(tmp_path / "m"), "min_prob": 0.5, "entity_vote": False})
    loaded = PIIRelabel("x", "pii", None, 0.5, False, 1.0, False, 1).from_disk(tmp_path / "m")
    for doc_a, doc_b, doc_c in zip(held_out(nlp), held_out(nlp), held_out(nlp)):
        labels = [[s.label_ for s in c(d).spans["pii"]] for c, d in ((relabel, doc_a), (other, doc_b), (loaded, doc_c))]
        assert labels[0] == labels[1] == labels[2]


def test_the_constructor_reads_no_model(trained, tmp_path):
    """A configured model directory that is gone does not stop from_disk (spacy.load) from
    giving the saved model; a config that names a model loads it in initialize, not training
    over it (fails on the old code: the constructor raised E301)."""
    _, relabel = trained
    relabel.to_disk(tmp_path / "saved")
    nlp = spacy.blank("en")
    gone = nlp.add_pipe("pii_relabel", config={"model": str(tmp_path / "gone")})
    gone.from_disk(tmp_path / "saved")
    assert gone.model.labels == relabel.model.labels
    configured = nlp.add_pipe("pii_relabel", name="configured", config={"model": str(tmp_path / "saved")})
    configured.initialize(lambda: [], shipped="pii_relabel")  # the configured model wins
    assert numpy.array_equal(configured.model.coef, relabel.model.coef)


def test_whole_pipeline_round_trip(trained, tmp_path):
    nlp, _ = trained
    nlp.to_disk(tmp_path / "nlp")
    reloaded = spacy.load(tmp_path / "nlp")
    doc = held_out(reloaded)[0]
    assert reloaded.get_pipe("pii_relabel")(doc).spans["pii"][0].label_ == "ORG"


def test_missing_or_corrupt_model_is_a_coded_error(tmp_path, nlp_blank):
    """The configured model is read by initialize (or the first document), not by the
    constructor: a missing or corrupt one fails there with E301/E302."""
    absent = nlp_blank.add_pipe("pii_relabel", config={"model": str(tmp_path / "absent")})
    with pytest.raises(ValueError, match="E301"):
        absent.initialize(lambda: [])
    with pytest.raises(ValueError, match="E301"):
        absent(nlp_blank.make_doc("text"))
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "model.json").write_text("{not json")
    with pytest.raises(ValueError, match="E301"):
        nlp_blank.add_pipe("pii_relabel", name="r2", config={"model": str(tmp_path / "bad")}).initialize(lambda: [])
    (tmp_path / "bad" / "model.json").write_text(json.dumps({"format": "other.v0", "labels": [], "features": []}))
    with pytest.raises(ValueError, match="E302"):
        nlp_blank.add_pipe("pii_relabel", name="r3", config={"model": str(tmp_path / "bad")}).initialize(lambda: [])
    untrained = nlp_blank.add_pipe("pii_relabel", name="r4")
    with pytest.raises(ValueError, match="E300"):
        untrained(nlp_blank.make_doc("text"))


def test_types_the_model_never_saw_are_kept(trained):
    nlp, relabel = trained
    doc = nlp.make_doc("She studied at Kent College in Madras.")
    doc.spans["pii"] = [Span(doc, 3, 5, "CODE")]
    relabel(doc)
    assert doc.spans["pii"][0].label_ == "CODE"
    assert doc.spans["pii"][0]._.risk_explain["pii_relabel"] == {"old": "CODE", "new": "CODE", "p": None}


def test_model_rejects_unknown_labels():
    with pytest.raises(ValueError, match="E304"):
        LabelModel(["f"], ["PERSON", "PET"], [[0.0], [1.0]], [0.0, 0.0])


def test_shipped_model_loads_offline(nlp_blank):
    relabel = nlp_blank.add_pipe("pii_relabel")
    relabel.initialize(lambda: [], shipped="pii_relabel")
    assert set(relabel.model.labels) <= set(PII_TYPES) | {"NONE"}
    assert relabel.model.meta["n_docs"] == 70
    doc = nlp_blank.make_doc("Horst Ludwig Georg Erich Wessel studied at Madras Law College.")
    doc.spans["pii"] = [Span(doc, 0, 5, "ORG"), Span(doc, 7, 10, "LOC")]
    relabel(doc)
    assert [(s.start, s.end) for s in doc.spans["pii"]] == [(0, 5), (7, 10)]
    assert all(s.label_ in PII_TYPES for s in doc.spans["pii"])


def test_accurate_pipeline_relabels_after_its_decision(accurate_nlp):
    names = accurate_nlp.pipe_names
    # right after coreference and the decision, right before the masker: the protection rules
    # read the detector's types; no tagger (pii_relabel reads no tags)
    assert names.index("pii_coref") < names.index("risk_threshold") == names.index("pii_relabel") - 1 == names.index("masker") - 2
    assert "tagger" not in names and "tok2vec" not in names


def test_accurate_relabels_without_undoing_its_decision(accurate_nlp):
    """A span re-typed after the decision keeps its risk, its mask decision and its detector
    (the span attributes are keyed by offsets): what is kept stays kept, and a name the
    decision protected stays masked under its new type."""
    doc = accurate_nlp("The applicant, Mr Galip Yalman, lives in Izmir. The Government were represented by their Agent, Ms Deniz Akçay.")
    spans = list(doc.spans["pii"])
    assert spans and all("stack" in s._.risk and s._.mask is not None for s in spans)
    assert all(s._.risk_explain.get("detector") for s in spans)
    assert "Yalman" not in doc._.sanitized and "Akçay" not in doc._.sanitized
    assert any(s._.risk_explain["pii_relabel"]["old"] != s.label_ for s in spans)  # "Izmir": PERSON -> LOC
    kept = [s for s in spans if not s._.mask]
    assert kept and all(s.text in doc._.sanitized for s in kept)  # "Government"


def test_relabelling_improves_labelled_f1_on_held_out_documents(wiki_path, ensemble_nlp):
    """5-fold CV by document with fixed settings: every document is relabelled by a model
    trained on the other documents only."""
    from spacy_sanitize.corpus import load_tab, tab_to_docs
    from spacy_sanitize.evaluation import Tokens, detection_scores
    from spacy_sanitize.training.relabel_cv import detect, fit, folds, relabelled, unchanged

    gold = load_tab(wiki_path)
    # the ensemble detector: accurate's, whose types pii_relabel re-predicts
    references = list(tab_to_docs(gold, ensemble_nlp))
    predicted = detect(ensemble_nlp, [d.text for d in gold])
    after_preds = {}
    for held in folds(len(gold), 5, seed=0):
        train = [i for i in range(len(gold)) if i not in held]
        component = fit({"C": 1.0, "none_class": False, "min_prob": 0.5, "entity_vote": True}, [predicted[i] for i in train], [references[i] for i in train])
        after_preds.update({gold[i].doc_id: p for i, p in zip(held, relabelled(component, [predicted[i] for i in held]))})
    tokens = Tokens()
    before = detection_scores(gold, {d.doc_id: p for d, p in zip(gold, unchanged(predicted))}, tokens=tokens)
    after = detection_scores(gold, after_preds, tokens=tokens)
    assert after.micro_unlabelled == before.micro_unlabelled
    assert after.micro_labelled["F1"] > before.micro_labelled["F1"] + 0.005


def test_bytes_round_trip_gives_the_same_labels(trained):
    nlp, relabel = trained
    other = PIIRelabel("x", "pii", None, 0.5, relabel.entity_vote, 1.0, False, 1).from_bytes(relabel.to_bytes())
    assert other.model.labels == relabel.model.labels
    for doc_a, doc_b in zip(held_out(nlp), held_out(nlp)):
        assert [s.label_ for s in relabel(doc_a).spans["pii"]] == [s.label_ for s in other(doc_b).spans["pii"]]
    restored = spacy.blank("en")
    restored.add_pipe("pii_relabel", config={"min_prob": 0.5, "entity_vote": False})
    restored.from_bytes(nlp.to_bytes())
    assert restored.get_pipe("pii_relabel").model.labels == relabel.model.labels
