"""risk_seq's CNN tagger with the detector's spans as input features
(``spacy_sanitize.SpanFeatureTok2Vec.v1``) and a wider window: what the features say, that it
trains on tiny docs, survives to_disk/from_disk, tags a long doc whole and refuses training
docs without the spans it reads."""
import numpy as np
import pytest
import spacy
import srsly

import spacy_sanitize  # noqa: F401 - registers factories
from spacy_sanitize.corpus import read_tab
from spacy_sanitize.risk.seq_features import SPAN_FEATURES, span_feature_array
from spacy_sanitize.risk.seq_models import load_tagger, make_cnn_tagger, save_tagger
from spacy_sanitize.training.seq_train import cnn_tagger, set_detected, train_risk_seq


def _case(doc_id, n_sentences):
    """A court-like text: the applicant's name (masked) and "the Government" (kept)."""
    sentence = "On 3 May 2001 Mr Galip Yalman applied to the Court and the Government replied. "
    mentions = []
    for k in range(n_sentences):
        for i, (surface, label, ident) in enumerate([("Galip Yalman", "PERSON", "DIRECT"), ("the Government", "ORG", "NO_MASK")]):
            start = k * len(sentence) + sentence.index(surface)
            mentions.append({
                "entity_type": label, "entity_mention_id": f"{doc_id}_em{k * 2 + i}", "start_offset": start, "end_offset": start + len(surface),
                "span_text": surface, "identifier_type": ident, "entity_id": f"{doc_id}_{surface}",
            })
    return {"doc_id": doc_id, "text": sentence * n_sentences, "annotations": {"annotator1": {"entity_mentions": mentions}}}


def _detected(references):
    """The gold PII mentions as the detector's spans (rows as tab_eval caches them)."""
    return {ref._.doc_id: [[s.start_char, s.end_char, s.label_, s._.entity_id] for s in ref.spans["pii"]] for ref in references}


@pytest.fixture
def references(tmp_path):
    path = tmp_path / "cases.json"
    srsly.write_json(path, [_case("a", 3), _case("b", 2), _case("c", 1)])
    return read_tab(path, spacy.blank("en"))


def test_span_features_tag_label_boundaries_mention_count_and_position():
    nlp = spacy.blank("en")
    doc = nlp.make_doc("Mr Galip Yalman met Yalman and the Government . " + "filler " * 40 + "Judge Ross spoke .")
    set_detected(doc, [[3, 15, "PERSON", "e1"], [20, 26, "PERSON", "e1"], [31, 45, "ORG", "e2"], [len(doc.text) - 16, len(doc.text) - 8, "PERSON", "e3"]])
    features = span_feature_array(doc, "pii")
    assert features.shape == (len(doc), len(SPAN_FEATURES))
    label, count, early, position = features.T
    person = 1 + 4 * 0  # PERSON is the first PII type
    assert list(label[:5]) == [0, person + 0, person + 2, 0, person + 3]  # O, B-, L-, O, U-PERSON
    assert count[1] == count[4] == 2 and count[6] == 1 and count[0] == 0  # Yalman twice, the Government once
    assert early[1] == 1 and early[-3] == 2 and early[0] == 0  # e1 starts the text, e3 ends it
    assert position[0] == 0 and position[-1] == 9
    assert span_feature_array(nlp.make_doc("no spans here"), "pii")[:, 0].tolist() == [0, 0, 0]


def test_span_feature_tagger_trains_round_trips_and_tags_a_long_doc_whole(references, tmp_path):
    detected = _detected(references)
    tagger = dict(cnn_tagger(16, 2, window_size=2, span_features=list(SPAN_FEATURES)), learning_rate=0.01)
    nlp = train_risk_seq(references, tagger, epochs=2, detected=detected)
    component = nlp.get_pipe("risk_seq")
    save_tagger(component.tagger, tmp_path / "tagger")
    restored = load_tagger(tmp_path / "tagger")
    assert restored.settings["span_features"] == list(SPAN_FEATURES) and restored.settings["window_size"] == 2

    long_text = references[0].text * 80  # ~6k tokens, far beyond any window
    rows = [[r[0] + k * len(references[0].text), r[1] + k * len(references[0].text), *r[2:]] for k in range(80) for r in detected["a"]]
    doc = set_detected(nlp.make_doc(long_text), rows)
    probs = component.tagger.predict([doc])[0]
    assert probs.shape == (len(doc),) and np.isfinite(probs).all()
    np.testing.assert_allclose(restored.predict([doc])[0], probs, rtol=1e-5)
    # the features matter: the same text without the detector's spans is tagged differently
    bare = nlp.make_doc(long_text)
    assert not np.allclose(component.tagger.predict([bare])[0], probs)


def test_risk_seq_with_span_features_runs_in_a_pipeline_after_the_detector(references, tmp_path):
    nlp = train_risk_seq(references, dict(cnn_tagger(16, 1, span_features=["label", "count"]), learning_rate=0.01), epochs=1,
                         detected=_detected(references))
    nlp.to_disk(tmp_path / "nlp")
    loaded = spacy.load(tmp_path / "nlp")
    doc = set_detected(loaded.make_doc(references[0].text), _detected(references)["a"])
    doc = loaded.get_pipe("risk_seq")(doc)
    assert all(0.0 <= s._.risk["seq"] <= 1.0 for s in doc.spans["pii"])


def test_training_without_the_detected_spans_it_reads_is_refused(references):
    with pytest.raises(ValueError, match="E521"):
        train_risk_seq(references, cnn_tagger(16, 1, span_features=["label"]), epochs=1)


@pytest.mark.parametrize("settings, code", [({"pretrained": True, "span_features": ["label"]}, "E522"),
                                            ({"pretrained": False, "width": 16, "depth": 1, "span_features": ["colour"]}, "E520")])
def test_bad_span_feature_settings_are_refused(settings, code):
    with pytest.raises(ValueError, match=code):
        tagger = make_cnn_tagger(**settings)
        tagger.initialize([spacy.blank("en").make_doc("a b")])


def test_the_plain_cnn_settings_are_unchanged():
    """Saved taggers of earlier releases have no new keys in backend.json; a default tagger writes none."""
    assert make_cnn_tagger(pretrained=False, width=16, depth=2).config == {
        "@misc": "spacy_sanitize.seq_cnn.v1", "pretrained": False, "width": 16, "depth": 2, "learning_rate": 0.001, "mask_weight": 1.0,
    }


def test_train_seq_with_span_features_trains_on_the_detectors_spans(tmp_path):
    from spacy_sanitize.training.seq_train import main as train_seq

    path = tmp_path / "cases.json"
    srsly.write_json(path, [_case("a", 2), _case("b", 1)])
    train_seq([str(path), str(tmp_path / "tagger"), "--width", "16", "--depth", "1", "--epochs", "1", "--span-features", "label,early",
               "--detector", "default"])
    tagger = load_tagger(tmp_path / "tagger")
    assert tagger.settings["span_features"] == ["label", "early"]
    with pytest.raises(ValueError, match="E521"):  # the features without the detector's spans
        train_seq([str(path), str(tmp_path / "t2"), "--width", "16", "--depth", "1", "--epochs", "1", "--span-features", "label"])


def test_a_saved_span_feature_tagger_is_checked_for_the_spans_it_reads(references, tmp_path):
    # the check looked at the config-built tagger (no span features), not the loaded one that runs
    from spacy.training import Example

    tagger = dict(cnn_tagger(16, 1, span_features=["label"]), learning_rate=0.01)
    trained = train_risk_seq(references, tagger, epochs=1, detected=_detected(references)).get_pipe("risk_seq").tagger
    save_tagger(trained, tmp_path / "tagger")
    nlp = spacy.blank("en")
    component = nlp.add_pipe("risk_seq", config={"weights": str(tmp_path / "tagger")})
    examples = [Example(nlp.make_doc(ref.text), ref) for ref in references]
    with pytest.raises(ValueError, match="E521"):
        component.initialize(lambda: examples, nlp=nlp)
