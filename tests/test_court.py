"""The court pipeline and what it is built with: grouped folds, the fresh CNN tagger on long
documents (no truncation), train-seq's CNN options, and ``load_pipeline("court")``."""
import importlib.util
import json

import numpy as np
import pytest
import spacy
import srsly

import spacy_sanitize  # noqa: F401 - registers factories
from spacy_sanitize.corpus import read_tab
from spacy_sanitize.evaluation import document_folds
from spacy_sanitize.risk.seq_models import load_tagger, save_tagger
from spacy_sanitize.shipped import data_path
from spacy_sanitize.training.seq_train import cnn_tagger, main as train_seq, train_risk_seq


def test_document_folds_keep_every_annotator_of_a_case_in_one_fold():
    ids = ["c1", "c1", "c2", "c3", "c3", "c3", "c4", "c5", "c2"]
    folds = document_folds(ids, 3, seed=0)
    assert sorted(i for fold in folds for i in fold) == list(range(len(ids)))
    for fold in folds:
        held = {ids[i] for i in fold}
        assert all(ids[i] not in held for other in folds if other is not fold for i in other)
    assert all(folds)  # 5 cases over 3 folds: none empty


def _case(doc_id, n_sentences):
    """A long court-like text: the applicant's name (masked) and "the Government" (kept)."""
    sentence = "On 3 May 2001 Mr Galip Yalman applied to the Court and the Government replied. "
    text = sentence * n_sentences
    mentions = []
    for k in range(n_sentences):
        base = k * len(sentence)
        for i, (surface, label, ident) in enumerate(
            [("Mr Galip Yalman", "PERSON", "DIRECT"), ("the Government", "ORG", "NO_MASK"), ("3 May 2001", "DATETIME", "QUASI")]
        ):
            start = base + sentence.index(surface)
            mentions.append({
                "entity_type": label, "entity_mention_id": f"{doc_id}_a1_em{k * 3 + i}", "start_offset": start,
                "end_offset": start + len(surface), "span_text": surface, "identifier_type": ident,
                "entity_id": f"{doc_id}_{surface}",
            })
    return {"doc_id": doc_id, "text": text, "annotations": {"annotator1": {"entity_mentions": mentions}}}


def test_cnn_tagger_trains_and_tags_a_long_case_whole(tmp_path):
    """A 20k-character case (as TAB's longest) is trained on and tagged whole: one probability
    per token, none cut off at any length."""
    path = tmp_path / "cases.json"
    srsly.write_json(path, [_case("long", 260), _case("short", 3)])
    references = read_tab(path, spacy.blank("en"))
    assert len(references[0].text) > 20_000
    nlp = train_risk_seq(references, dict(cnn_tagger(16, 1), learning_rate=0.01), epochs=3)
    doc = nlp.make_doc(references[0].text)
    probs = nlp.get_pipe("risk_seq").tagger.predict([doc])[0]
    assert probs.shape == (len(doc),) and np.isfinite(probs).all()
    masked = references[0].spans["mask"]
    first = doc.char_span(masked[0].start_char, masked[0].end_char)
    last = doc.char_span(masked[-1].start_char, masked[-1].end_char)
    assert probs[last.start : last.end].max() == pytest.approx(probs[first.start : first.end].max(), abs=0.05)


def test_train_seq_cnn_width_builds_a_fresh_small_tagger(tmp_path):
    path = tmp_path / "cases.json"
    srsly.write_json(path, [_case("a", 2), _case("b", 2)])
    train_seq([str(path), str(tmp_path / "tagger"), "--width", "16", "--depth", "2", "--epochs", "1"])
    backend = json.loads((tmp_path / "tagger" / "backend.json").read_text())
    assert backend["pretrained"] is False and backend["width"] == 16 and backend["depth"] == 2
    assert load_tagger(tmp_path / "tagger").predict([spacy.blank("en").make_doc("Mr Yalman")])[0].shape == (2,)
    assert cnn_tagger() == {"@misc": "spacy_sanitize.seq_cnn.v1"}  # width 0: the pretrained default


@pytest.mark.parametrize("name,tagger", [("court", "risk_seq_court"), ("court_accurate", "risk_seq_court_trf")])
def test_court_pipeline_loads_offline_and_keeps_names_masked(name, tagger):
    from spacy_sanitize import load_pipeline

    if not (data_path(tagger) / "backend.json").exists():
        pytest.skip(f"no court tagger; build it with `spacy project run build-{name.replace('_', '-')}`")
    if name == "court_accurate" and importlib.util.find_spec("torch") is None:
        pytest.skip("court_accurate needs the [torch] extra")
    nlp = load_pipeline(name)
    expected = {"court": "spacy_sanitize.seq_cnn.v1", "court_accurate": "spacy_sanitize.seq_transformer.v1"}[name]
    assert nlp.get_pipe("risk_seq").tagger.config["@misc"] == expected
    assert nlp.pipe_names[-4:] == ["risk_seq", "risk_stack", "risk_threshold", "masker"]
    decider = nlp.get_pipe("risk_threshold")
    assert decider.indicator == "stack"
    doc = nlp("The case originated in an application against the Republic of Turkey lodged with the Court "
              "by a Turkish national, Mr Galip Yalman, on 3 May 2001. The Government were represented by their Agent.")
    assert doc.spans["pii"]
    for span in doc.spans["pii"]:
        assert 0.0 <= span._.risk["seq"] <= 1.0  # the tagger's score, which risk_stack combines
        risk = span._.risk["stack"]
        assert 0.0 <= risk <= 1.0 and span._.risk_explain["stack"]["indicators"]["seq"] == round(span._.risk["seq"], 4)
        assert span._.mask == (risk >= decider.threshold or decider.protection(span) is not None)
    assert "Galip Yalman" not in doc._.sanitized


def test_cli_pipeline_court(tmp_path):
    from spacy_sanitize.cli import main

    if not (data_path("risk_seq_court") / "backend.json").exists():
        pytest.skip("no court tagger; build it with `spacy project run build-court`")
    source, out = tmp_path / "case.txt", tmp_path / "case.out.txt"
    source.write_text("The applicant, Mr Galip Yalman, is a Turkish national born in 1950 who lives in Izmir.", encoding="utf-8")
    assert main(["sanitize", str(source), "-o", str(out), "--pipeline", "court", "-q"]) == 0
    assert "Galip Yalman" not in out.read_text(encoding="utf-8")


def test_court_keeps_credentials_masked_whatever_the_risk():
    """The court pipeline's risk decision left a JWT and a GitHub token in clear: NER typed
    them ORG (inside 'Bearer ...'), so the CODE protection did not hold them."""
    from spacy_sanitize import load_pipeline

    nlp = load_pipeline("court")
    for text, secret in [
        ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r", "eyJhbGciOiJIUzI1NiJ9"),
        ("github token: ghp_16C7e42F292c6912E7710c838347Ae178B4a", "ghp_16C7e42F"),
    ]:
        assert secret not in nlp(text)._.sanitized


def test_court_keeps_listed_names_birth_dates_and_postcodes_masked_whatever_the_risk():
    """Issue #14: the court tagger un-masked a surname the recognizer typed LOC or ORG, dates of
    birth and a postcode typed LOC (the label protection did not hold them); the protection
    rules of parts/court.cfg (decide/rules.py) do, and a date of procedure stays in clear."""
    from spacy_sanitize import load_pipeline

    nlp = load_pipeline("court")
    for text, identifier in [
        ("Application no. 21784/16, Yilmaz and Others v. Turkey", "Yilmaz"),
        ("meet u at 14 Baker Rd, flat 2. buzzer says HOLLOWAY", "HOLLOWAY"),
        ("Patient: SMITH, JOHN. DOB: 12/03/1985.", "12/03/1985"),
        ("First name: Mateus\nLast name: Carvalho Lima\nDate of birth: 19/05/1994", "19/05/1994"),
        ("Address line 1: 7 Kirkgate Close\nTown: Otley\nPostcode: LS21 3HJ", "LS21 3HJ"),
        ("IN THE HIGH COURT OF JUSTICE\nBETWEEN:\nMARGARET ELSPETH DUNMORE\nClaimant\n- and -\nTHORNBURY HOLDINGS LIMITED\nDefendant",
         "THORNBURY"),
    ]:
        assert identifier not in nlp(text)._.sanitized, text
    doc = nlp("The applicant was born in 1950. The Court delivered its judgment on 3 May 2001.")
    assert "1950" not in doc._.sanitized
    decider = nlp.get_pipe("risk_threshold")
    procedure = [s for s in doc.spans["pii"] if s.text == "3 May 2001"]
    assert procedure and decider.protection(procedure[0]) is None  # no cue in its sentence


def test_a_loaded_cnn_tagger_predicts_with_numpys_blas_as_with_blis(tmp_path):
    """A saved tagger loads with numpy's matrix products (faster on CPUs without a tuned BLIS
    kernel) and gives the trained tagger's probabilities to float rounding."""
    from thinc.api import NumpyOps

    path = tmp_path / "cases.json"
    srsly.write_json(path, [_case("a", 3), _case("b", 3)])
    nlp = train_risk_seq(read_tab(path, spacy.blank("en")), dict(cnn_tagger(16, 2), learning_rate=0.01), epochs=2)
    trained = nlp.get_pipe("risk_seq").tagger
    save_tagger(trained, tmp_path / "t")
    loaded = load_tagger(tmp_path / "t")
    ops = {type(node.ops) for node in loaded.model.walk()}
    assert ops == {NumpyOps} and not any(node.ops.use_blis for node in loaded.model.walk())
    assert all(node.ops.use_blis for node in trained.model.walk() if type(node.ops) is NumpyOps)  # training: BLIS
    docs = [spacy.blank("en").make_doc(t) for t in ("Mr Yalman lives in Izmir.", "The Court held a hearing on 3 May 2001.")]
    for a, b in zip(trained.predict(docs), loaded.predict(docs)):
        assert np.allclose(a, b, atol=1e-5)
    # a document's probabilities do not depend on the documents batched with it (exactly)
    assert all(np.array_equal(loaded.predict([doc])[0], batched) for doc, batched in zip(docs, loaded.predict(docs[::-1])[::-1]))
