"""pii_confidence (calibrated Span._.confidence), decide_confidence's min_confidence threshold
(a decider: the masker's setting moved there, E056) and the run manifest of `sanitize` (issue #19 item 6)."""
import json
import warnings

import pytest
import spacy
from spacy.tokens import Span
from spacy.training import Example

from spacy_sanitize.cli import main
from spacy_sanitize.corpus import load_tab
from spacy_sanitize.detect.confidence import ConfidenceModel, PIIConfidence, doc_features, span_targets
from spacy_sanitize.manifest import config_hash, run_manifest
from spacy_sanitize.decide.confidence import ConfidenceDecider, add_confidence_decider
from spacy_sanitize.spans import VALIDATED
from spacy_sanitize.training.confidence_cv import brier, detected_rows, expected_calibration_error, out_of_fold, reliability

TEXT = "Call +44 20 7946 0958 says the teacher Anna Berg."
# token spans of TEXT: the phone number, "teacher", "Anna Berg"
CODE, DEM, PERSON = (1, 5), (7, 8), (8, 10)


def detected(nlp, text=TEXT, spans=((CODE, "CODE", "pii_codes:phone_number"), (DEM, "DEM", "pii_gazetteer:occupation"), (PERSON, "PERSON", "pii_ner"))):
    doc = nlp.make_doc(text)
    group = []
    for (start, end), label, detector in spans:
        span = Span(doc, start, end, label=label)
        span._.risk_explain["detector"] = detector
        if label == "CODE":
            span._.risk_explain[VALIDATED] = "CODE"
        group.append(span)
    doc.spans["pii"] = group
    return doc


def test_features_name_the_detector_label_validation_and_entity():
    doc = detected(spacy.blank("en"))
    code, dem, person = doc_features(doc)
    assert {"label=CODE", "family=pii_codes", "detector=pii_codes:phone_number", "validated", "ner=no_ner"} <= set(code)
    assert {"label=DEM", "family=pii_gazetteer", "lower=True"} <= set(dem) and "validated" not in dem
    assert {"label=PERSON", "family=pii_ner", "tokens=2", "mentions=1"} <= set(person)


def test_generic_ner_agreement_is_a_feature():
    nlp = spacy.blank("en")
    doc = detected(nlp)
    doc.ents = [Span(doc, *PERSON, label="PERSON"), Span(doc, 7, 8, label="ORG")]
    _, dem, person = doc_features(doc)
    assert "ner=same" in person and "ner=other_label" in dem


@pytest.mark.parametrize(
    "start,end,label,agreement",
    [
        (2, 4, "ORG", "same"),
        (1, 3, "ORG", "overlap"),  # after an entity it does not overlap
        (3, 6, "LOC", "overlap"),  # overlaps ORG (other label), then GPE -> LOC
        (3, 5, "PERSON", "other_label"),
        (4, 5, "ORG", "none"),
        (7, 8, "LOC", "none"),  # after every entity
    ],
)
def test_ner_agreement_reads_every_overlapping_entity(start, end, label, agreement):
    nlp = spacy.blank("en")
    doc = nlp.make_doc("a b c d e f g h")
    doc.ents = [Span(doc, 0, 1, label="PERSON"), Span(doc, 2, 4, label="ORG"), Span(doc, 5, 7, label="GPE")]
    span = Span(doc, start, end, label=label)
    span._.risk_explain["detector"] = "pii_ner"
    doc.spans["pii"] = [span]
    (row,) = doc_features(doc)
    assert f"ner={agreement}" in row and f"ner_label={agreement}|{label}" in row


def test_span_targets_count_most_characters_in_gold_masks():
    doc = detected(spacy.blank("en"))
    person = doc.spans["pii"][2]
    # the person's surname only (4 of 8 letters): not most of it
    assert span_targets(doc, [[person.end_char - 4, person.end_char]]) == [0, 0, 0]
    assert span_targets(doc, [[doc.spans["pii"][0].start_char, doc.spans["pii"][0].end_char], [person.start_char, person.end_char]]) == [1, 0, 1]


def tiny_examples(nlp, n=10, dem_masked=3):
    """``n`` docs: the validated code and the name always masked by the annotator, the
    gazetteer's occupation in ``dem_masked`` of them."""
    examples = []
    for i in range(n):
        predicted = detected(nlp)
        reference = nlp.make_doc(TEXT)
        masked = [CODE, PERSON] + ([DEM] if i < dem_masked else [])
        reference.spans["mask"] = [Span(reference, s, e, label="QUASI") for s, e in masked]
        examples.append(Example(predicted, reference))
    return examples


def test_fit_on_tiny_data_gives_the_empirical_precision():
    nlp = spacy.blank("en")
    examples = tiny_examples(nlp, n=20, dem_masked=6)
    component = PIIConfidence("pii_confidence")
    component.initialize(lambda: examples)
    doc = component(detected(nlp))
    code, dem, person = (s._.confidence for s in doc.spans["pii"])
    assert dem == pytest.approx(0.3, abs=0.1)  # 6 of 20 occupations are masked
    assert code > 0.85 and person > 0.85


def test_cv_helpers_are_out_of_fold_and_measure_calibration():
    nlp = spacy.blank("en")
    rows, targets, groups = [], [], []
    for i, eg in enumerate(tiny_examples(nlp, n=20, dem_masked=6)):
        rows += doc_features(eg.predicted)
        targets += span_targets(eg.predicted, [[s.start_char, s.end_char] for s in eg.reference.spans["mask"]])
        groups += [f"doc{i}"] * 3
    oof = out_of_fold(rows, targets, groups, k=4)
    assert all(0.0 < p < 1.0 for p in oof)
    table = reliability(oof, targets)
    assert sum(row["spans"] for row in table) == len(targets)
    assert brier(oof, targets) < brier([0.5] * len(targets), targets)
    assert expected_calibration_error(oof, targets) < 0.15


def test_one_class_cannot_be_fit():
    with pytest.raises(ValueError, match="E043"):
        ConfidenceModel.fit([["bias"], ["bias"]], [1, 1])


def test_serialization_round_trip(tmp_path):
    nlp = spacy.blank("en")
    component = PIIConfidence("pii_confidence")
    component.initialize(lambda: tiny_examples(nlp))
    component.to_disk(tmp_path / "c")
    loaded = PIIConfidence("pii_confidence").from_disk(tmp_path / "c")
    again = PIIConfidence("pii_confidence").from_bytes(component.to_bytes())
    rows = doc_features(detected(nlp))
    expected = component.model.predict(rows)
    assert loaded.model.predict(rows) == pytest.approx(expected, abs=1e-9)
    assert again.model.predict(rows) == pytest.approx(expected, abs=1e-9)
    assert PIIConfidence("pii_confidence").from_disk(tmp_path / "c", exclude=["learned"]).model is None


def test_without_a_model_spans_keep_no_confidence_and_stay_masked():
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_confidence")
    nlp.add_pipe("decide_confidence", config={"min_confidence": 0.9})
    nlp.add_pipe("masker")
    doc = detected(nlp)
    with pytest.warns(UserWarning) as caught:
        doc = nlp.get_pipe("pii_confidence")(doc)
        doc = nlp.get_pipe("decide_confidence")(doc)
        doc = nlp.get_pipe("masker")(doc)
    codes = {str(w.message)[1:5] for w in caught}
    assert {"W042", "W041"} <= codes
    assert all(s._.confidence is None for s in doc.spans["pii"])
    assert doc._.sanitized == "Call [CODE] says the [DEM] [PERSON]."


def test_shipped_model_scores_every_span(default_nlp):
    doc = default_nlp("Anna Berg, a teacher from Oslo, called +44 20 7946 0958 on 3 May 2001.")
    values = {s.text: s._.confidence for s in doc.spans["pii"]}
    assert values and all(0.0 <= v <= 1.0 for v in values.values())
    assert values["+44 20 7946 0958"] > 0.9
    assert "pii_confidence" in default_nlp.pipe_names
    assert default_nlp.pipe_names.index("pii_confidence") < default_nlp.pipe_names.index("pii_coref")


def test_shipped_confidence_is_calibrated_out_of_fold(wiki_path, default_nlp):
    """5-fold CV by document on the biographies alone: the out-of-fold confidence is within
    0.1 of the observed precision on average (docs/confidence.md has both corpora)."""
    rows, targets, groups = detected_rows(default_nlp, load_tab(wiki_path))
    oof = out_of_fold(rows, targets, groups, k=5)
    assert expected_calibration_error(oof, targets) < 0.1
    assert brier(oof, targets) < brier([sum(targets) / len(targets)] * len(targets), targets)


# the threshold --------------------------------------------------------------------------------


def masked_with(confidences, mask=(None, None, None), protect=None, **decider):
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_confidence")
    nlp.add_pipe("decide_confidence", config=decider)
    nlp.add_pipe("masker")
    doc = detected(nlp)
    for span, value, decision in zip(doc.spans["pii"], confidences, mask):
        span._.confidence = value
        span._.mask = decision
    doc._.protect = protect
    return nlp.get_pipe("masker")(nlp.get_pipe("decide_confidence")(doc))


def test_threshold_keeps_low_confidence_spans_in_clear_and_protect_wins():
    doc = masked_with([0.2, 0.1, 0.1], min_confidence=0.5)
    # the occupation stays visible; CODE and PERSON are protected whatever their confidence
    assert doc._.sanitized == "Call [CODE] says the teacher [PERSON]."
    assert doc._.kept_below_confidence == 1
    # the decision is the decider's: the kept span is decided False and says why
    teacher = next(s for s in doc.spans["pii"] if s.text == "teacher")
    assert teacher._.mask is False and teacher._.risk_explain["kept_below_confidence"] == {"confidence": 0.1, "min_confidence": 0.5}


def test_threshold_default_masks_all():
    doc = masked_with([0.01, 0.01, 0.01])
    assert doc._.sanitized == "Call [CODE] says the [DEM] [PERSON]." and doc._.kept_below_confidence == 0


def test_opting_out_of_protect_keeps_names_below_the_threshold():
    doc = masked_with([0.95, 0.1, 0.1], min_confidence=0.5, confidence_protect=[])
    assert doc._.sanitized == "Call [CODE] says the teacher Anna Berg."
    assert doc._.kept_below_confidence == 2


def test_person_to_protect_stays_masked():
    doc = masked_with([0.95, 0.1, 0.1], protect="Mrs Anna Berg", min_confidence=0.5, confidence_protect=[])
    assert doc._.sanitized == "Call [CODE] says the teacher [PERSON]."


def test_a_decider_decision_wins_over_the_threshold():
    doc = masked_with([0.95, 0.1, 0.1], mask=(True, True, False), min_confidence=0.5, confidence_protect=[])
    assert doc._.sanitized == "Call [CODE] says the [DEM] Anna Berg."


def test_entity_confidence_is_its_best_mention():
    """A mention coreference added (no confidence of its own) and a weak mention of an
    entity that has a confident one are both masked: one clear mention would name it."""
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_confidence")
    nlp.add_pipe("decide_confidence", config={"min_confidence": 0.5, "confidence_protect": []})
    nlp.add_pipe("masker", config={"propagate": False})
    doc = nlp.make_doc("Berg met Berg and Oslo")
    spans = [Span(doc, 0, 1, "ORG"), Span(doc, 2, 3, "ORG"), Span(doc, 4, 5, "LOC")]
    for span in spans[:2]:
        span._.entity_id = "e1"
    spans[0]._.confidence, spans[2]._.confidence = 0.9, 0.2
    doc.spans["pii"] = spans
    doc = nlp.get_pipe("masker")(nlp.get_pipe("decide_confidence")(doc))
    assert doc._.sanitized == "[ORG] met [ORG] and Oslo"


def test_threshold_must_be_in_range():
    with pytest.raises(ValueError, match="E042"):
        ConfidenceDecider(None, "decide_confidence", "pii", 1.5, [])
    with pytest.raises(ValueError, match="E001"):
        ConfidenceDecider(None, "decide_confidence", "pii", 0.5, ["NAME"])


def test_the_masker_setting_moved_to_the_decider():
    """An older config's masker.min_confidence is an error that names the component now
    deciding (not a setting silently ignored); 0, its default, still loads."""
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="E056.*decide_confidence"):
        nlp.add_pipe("masker", config={"min_confidence": 0.5})
    nlp.add_pipe("masker", config={"min_confidence": 0.0, "confidence_protect": ["CODE"]})


def test_the_decider_goes_after_the_deciders_and_before_the_masker():
    nlp = spacy.blank("en")
    for name in ("pii_confidence", "risk_threshold", "masker"):
        nlp.add_pipe(name, config={"indicator": "seq"} if name == "risk_threshold" else {})
    add_confidence_decider(nlp, {"min_confidence": 0.5})
    assert nlp.pipe_names == ["pii_confidence", "risk_threshold", "decide_confidence", "masker"]
    assert nlp.config["components"]["decide_confidence"]["min_confidence"] == 0.5
    add_confidence_decider(nlp, {"min_confidence": 0.7})  # in place of the one there is
    assert nlp.pipe_names.count("decide_confidence") == 1 and nlp.get_pipe("decide_confidence").min_confidence == 0.7


def test_threshold_without_confidence_component_or_with_a_decider_warns():
    nlp = spacy.blank("en")
    nlp.add_pipe("risk_threshold", config={"indicator": "seq"})
    nlp.add_pipe("decide_confidence", config={"min_confidence": 0.5})
    nlp.add_pipe("masker")
    with pytest.warns(UserWarning) as caught:
        nlp("Nothing to mask here.")
    messages = [str(w.message) for w in caught if "W040" in str(w.message)]
    assert any("risk_threshold" in m for m in messages) and any("no pii_confidence" in m for m in messages)


def test_no_warning_at_the_default_threshold():
    nlp = spacy.blank("en")
    nlp.add_pipe("masker")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nlp("Nothing to mask here.")


# the manifest ---------------------------------------------------------------------------------


def small_nlp(**decider):
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_codes")
    nlp.add_pipe("decide_confidence", config=decider)
    nlp.add_pipe("masker")
    return nlp


def test_config_hash_is_stable_and_changes_with_the_config():
    assert config_hash(small_nlp()) == config_hash(small_nlp())
    assert config_hash(small_nlp()) != config_hash(small_nlp(min_confidence=0.4))


def test_manifest_fields():
    manifest = run_manifest(small_nlp(), "mine", {"min_confidence": 0.0})
    assert {"version", "spacy", "pipeline", "components", "config_sha256", "models", "started_utc", "options"} <= set(manifest)
    assert manifest["pipeline"] == "mine" and manifest["components"] == ["pii_codes", "decide_confidence", "masker"]
    assert manifest["started_utc"].endswith("+00:00") and len(manifest["config_sha256"]) == 64


def test_sanitize_writes_manifest_confidence_and_kept_count(tmp_path, capsys):
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": "a", "text": "Anna Berg, a teacher, called +44 20 7946 0958."}) + "\n")
    out = tmp_path / "out.jsonl"
    # min_confidence is the strict pipeline's (no decider: the default pipeline's decider would win, W040)
    assert main(["sanitize", str(source), "-o", str(out), "-q", "--pipeline", "strict", "--min-confidence", "0.5", "--manifest-in-records",
                 "--keep-original"]) == 0
    record = json.loads(out.read_text())
    assert all(isinstance(span["confidence"], float) for span in record["spans"])
    manifest = json.loads((tmp_path / "out.jsonl.manifest.json").read_text())
    assert manifest["pipeline"] == "strict" and manifest["options"]["min_confidence"] == 0.5
    assert {m["shipped"] for m in manifest["models"] if "shipped" in m} >= {"pii_ner_distil", "pii_confidence_fast"}
    assert manifest["records"] == 1 and record["_sanitize"]["config_sha256"] == manifest["config_sha256"]
    kept = manifest["kept_below_min_confidence"]
    assert f"kept {kept} detected span(s) below --min-confidence 0.5" in capsys.readouterr().err
    below = [s for s in record["spans"] if s["confidence"] < 0.5 and s["label"] not in ("CODE", "PERSON")]
    assert kept == len(below) and all(s["text"] in record["sanitized"] for s in below)
    # the kept spans are decided and their why says by what
    assert all(s["mask"] is False and "below min_confidence 0.5 (decide_confidence)" in s["why"]["summary"] for s in below)


def test_stdout_gets_a_manifest_only_when_asked(tmp_path, monkeypatch, capsys):
    source = tmp_path / "in.txt"
    source.write_text("Call +44 20 7946 0958.")
    monkeypatch.chdir(tmp_path)
    assert main(["sanitize", str(source), "-q"]) == 0
    assert not list(tmp_path.glob("*.manifest.json"))
    assert main(["sanitize", str(source), "-q", "--manifest", str(tmp_path / "run.json")]) == 0
    assert json.loads((tmp_path / "run.json").read_text())["records"] == 1
    assert "[CODE]" in capsys.readouterr().out


def test_min_confidence_out_of_range_is_bad_usage(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("x")
    assert main(["sanitize", str(source), "--min-confidence", "2"]) == 2


def test_a_session_puts_the_decider_in_and_spacy_load_keeps_it(tmp_path):
    """--min-confidence's Session adds decide_confidence to the loaded pipeline's config, so a
    pipeline saved with nlp.to_disk keeps it through spacy.load (its factory is an entry point)."""
    from spacy_sanitize.run.session import Session

    session = Session("strict", confidence={"min_confidence": 0.5})
    names = session.nlp.pipe_names
    assert names[-2:] == ["decide_confidence", "masker"]
    session.nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.pipe_names == names and loaded.get_pipe("decide_confidence").min_confidence == 0.5
    text = "Anna Berg, a teacher, called +44 20 7946 0958."
    assert loaded(text)._.sanitized == session.nlp(text)._.sanitized
    with pytest.raises(ValueError, match="E951"):
        Session(loaded, confidence={"min_confidence": 0.5})
