import json
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import DocBin, Span
from spacy.training import Example

from spacy_sanitize.training.silver import build_silver

ROOT = Path(__file__).resolve().parents[1]
TEXTS = [
    "Anna Berg was born in Oslo in 1970. Berg works for Statoil.",
    "Per Olsen moved to Bergen in 2001 and joined Telenor.",
    "Kari Nilsen lives in Tromsø since 1999.",
]


def _example(nlp, text, ents):
    reference = nlp.make_doc(text)
    reference.ents = [reference.char_span(text.index(t), text.index(t) + len(t), label=label) for t, label in ents]
    return Example(nlp.make_doc(text), reference)


def test_pii_ner_learns_writes_spans_and_keeps_ents():
    nlp, examples = _trained_pii_ner()
    doc = nlp.make_doc("Anna Berg lives in Oslo .")
    doc.ents = [Span(doc, 4, 5, label="GPE")]
    doc = nlp.get_pipe("pii_ner")(doc)
    assert [(s.text, s.label_) for s in doc.spans["pii"]] == [("Anna Berg", "PERSON"), ("Oslo", "LOC")]
    assert [(e.text, e.label_) for e in doc.ents] == [("Oslo", "GPE")]
    scores = nlp.evaluate(examples)
    assert scores["pii_f"] == 1.0


def test_pii_ner_round_trip(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_ner")
    examples = [_example(nlp, "Anna Berg lives in Oslo .", [("Anna Berg", "PERSON"), ("Oslo", "LOC")])]
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(20):
        nlp.update(examples, sgd=optimizer)
    nlp.to_disk(tmp_path / "model")
    loaded = spacy.load(tmp_path / "model")
    text = "Kari lives in Oslo ."
    doc_loaded, doc_original = loaded(text), nlp(text)
    assert [(s.text, s.label_) for s in doc_loaded.spans["pii"]] == [(s.text, s.label_) for s in doc_original.spans["pii"]]
    # Added next to a generic pipeline with add_pipe(source=...).
    combined = spacy.blank("en")
    combined.add_pipe("pii_codes")
    combined.add_pipe("pii_ner", source=loaded)
    doc = combined("Anna Berg lives in Oslo . anna@example.org")
    found = [(s.text, s.label_) for s in doc.spans["pii"]]
    assert ("Anna Berg", "PERSON") in found
    tokens = [i for s in doc.spans["pii"] for i in range(s.start, s.end)]
    assert len(tokens) == len(set(tokens))


def test_silver_builder_streams_skips_and_excludes_gold(tmp_path):
    source = tmp_path / "in.jsonl"
    lines = [json.dumps({"id": str(i), "text": t}) for i, t in enumerate(TEXTS)]
    lines += ['{"text": ', json.dumps({"id": "empty", "text": "  "}), json.dumps({"id": "gold", "text": "Gold doc opening words here. More."})]
    source.write_text("\n".join(lines) + "\n")
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([{"doc_id": "g", "text": "Gold doc opening words here.", "annotations": {}}]))
    counts = build_silver([str(source)], tmp_path / "silver", dev_share=0.0, exclude=[str(gold)])
    assert counts["docs"] == 3 and counts["empty"] == 1 and counts["gold_overlap"] == 1 and counts["bad_json"] == 1
    nlp = spacy.blank("en")
    docs = list(DocBin().from_disk(tmp_path / "silver" / "train.spacy").get_docs(nlp.vocab))
    assert [d.text for d in docs] == TEXTS
    ents = {(e.text, e.label_) for d in docs for e in d.ents}
    assert {("Anna Berg", "PERSON"), ("Oslo", "LOC"), ("1970", "DATETIME")} <= ents


def test_silver_pieces_skip_chars_starts_where_chars_per_input_stopped(tmp_path):
    """--skip-chars N reads exactly the records a run with --chars-per-input N left, so a
    corpus built in parts side by side equals the one built in one run (empty and gold
    records count in neither part)."""
    from collections import Counter

    from spacy_sanitize.training.silver import pieces

    source = tmp_path / "in.jsonl"
    records = [{"id": str(i), "text": f"Record number {i} here."} for i in range(8)]
    records.insert(2, {"id": "empty", "text": " "})
    records.insert(4, {"id": "gold", "text": "Gold doc opening words here."})
    source.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    prints = {"Gold doc opening words here."}

    def ids(**kwargs):
        return [piece_id.split("@")[0] for _, piece_id in pieces([str(source)], None, 3000, prints, Counter(), **kwargs)]

    first = ids(chars_per_input=50)
    rest = ids(skip_chars=50)
    assert first == ["0", "1", "2"]  # 22 + 22 < 50 <= 66: the record crossing 50 is the first part's
    assert first + rest == ids() == [str(i) for i in range(8)]
    assert ids(skip_chars=50, chars_per_input=30) == ["3", "4"]


def test_silver_builder_disables_the_components_it_is_told_to(tmp_path, default_nlp):
    """--disable leaves components out of the labelling (the first pii_ner's corpus is the
    accurate pipeline without pii_relabel); a name the pipeline lacks is an error, not a
    silently different corpus."""
    from spacy_sanitize.io import InputError

    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": "1", "text": "Anna Berg wrote to anna@example.org from Oslo."}) + "\n")
    disable = [n for n in default_nlp.pipe_names if n not in ("pii_codes", "masker")]
    build_silver([str(source)], tmp_path / "silver", dev_share=0.0, disable=disable)
    (doc,) = DocBin().from_disk(tmp_path / "silver" / "train.spacy").get_docs(spacy.blank("en").vocab)
    assert [(e.text, e.label_) for e in doc.ents] == [("anna@example.org", "CODE")]
    with pytest.raises(InputError, match="E027.*pii_nothing"):
        build_silver([str(source)], tmp_path / "other", disable=["pii_nothing"])


@pytest.mark.slow
def test_project_ner_workflow_on_tiny_corpus(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(json.dumps({"text": t}) for t in TEXTS * 10) + "\n")
    wiki = tmp_path / "wiki.json"
    wiki.write_text(json.dumps([{"doc_id": "w", "text": TEXTS[0], "annotations": {"a": {"entity_mentions": [
        {"entity_mention_id": "m", "start_offset": 0, "end_offset": 9, "entity_type": "PERSON", "identifier_type": "DIRECT", "entity_id": "e"}]}}}]))
    overrides = [f"--vars.silver_inputs={source}", f"--vars.wiki={wiki}", "--vars.silver_limit=30", "--vars.ner_steps=10",
                 f"--vars.silver_dir={tmp_path}/silver", f"--vars.ner_output={tmp_path}/ner"]
    for command in ("silver", "train-ner", "evaluate-ner"):
        result = subprocess.run([sys.executable, "-m", "spacy", "project", "run", command, str(ROOT), *overrides, "--force"], capture_output=True, text=True, cwd=ROOT)
        assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "ner" / "model-best").exists()


def _trained_pii_ner(spans_key="pii"):
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_ner", config={"spans_key": spans_key})
    examples = [
        _example(nlp, "Anna Berg lives in Oslo .", [("Anna Berg", "PERSON"), ("Oslo", "LOC")]),
        _example(nlp, "Per Olsen works in Bergen .", [("Per Olsen", "PERSON"), ("Bergen", "LOC")]),
    ]
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(40):
        nlp.update(examples, sgd=optimizer)
    return nlp, examples


def test_pii_ner_predict_leaves_docs_untouched():
    nlp, _ = _trained_pii_ner()
    ner = nlp.get_pipe("pii_ner")
    doc = nlp.make_doc("Anna Berg lives in Oslo .")
    doc.ents = [Span(doc, 4, 5, label="GPE")]
    before = [(t.ent_iob_, t.ent_type_) for t in doc]
    predictions = ner.predict([doc])
    assert [(t.ent_iob_, t.ent_type_) for t in doc] == before
    assert "pii" not in doc.spans
    ner.set_annotations([doc], predictions)
    assert [(s.text, s.label_) for s in doc.spans["pii"]] == [("Anna Berg", "PERSON"), ("Oslo", "LOC")]
    assert [(t.ent_iob_, t.ent_type_) for t in doc] == before


def test_pii_ner_scorer_reads_the_configured_spans_key():
    nlp, examples = _trained_pii_ner(spans_key="found")
    doc = nlp("Anna Berg lives in Oslo .")
    assert "pii" not in doc.spans and len(doc.spans["found"]) == 2
    scores = nlp.evaluate(examples)
    assert scores["pii_f"] == 1.0


def test_pii_ner_numpy_gemm_predicts_as_blis_on_one_blas_thread():
    """use_blis=False (the default) moves the matrix products to numpy's BLAS, limited to one
    thread while predicting; the predictions are BLIS's (use_blis=True)."""
    from thinc.api import NumpyOps
    from threadpoolctl import threadpool_info

    from spacy_sanitize.models import one_blas_thread

    nlp, _ = _trained_pii_ner()
    ner = nlp.get_pipe("pii_ner")
    assert all(type(n.ops) is NumpyOps and not n.ops.use_blis for n in ner.model.walk())
    texts = ["Anna Berg lives in Oslo .", "Per Olsen works in Bergen and Kari in Oslo ."]
    numpy_found = [[(s.text, s.label_) for s in doc.spans["pii"]] for doc in nlp.pipe(texts)]
    blis = NumpyOps()
    for node in ner.model.walk():
        node.ops = blis
    assert [[(s.text, s.label_) for s in doc.spans["pii"]] for doc in nlp.pipe(texts)] == numpy_found
    with one_blas_thread():
        assert all(lib["num_threads"] == 1 for lib in threadpool_info() if lib["user_api"] == "blas")
    default = spacy.blank("en").add_pipe("pii_ner", config={"use_blis": True})
    assert all(n.ops.use_blis for n in default.model.walk())


def test_pii_ner_on_a_doc_without_entities_leaves_them_missing():
    """A doc no generic NER has seen is predicted on in place (no copy): doc.ents stays
    unset ("missing", as the tokenizer left it) and the predictions go to the span group."""
    nlp, _ = _trained_pii_ner()
    doc = nlp.make_doc("Anna Berg lives in Oslo .")
    nlp.get_pipe("pii_ner")(doc)
    assert [(s.text, s.label_) for s in doc.spans["pii"]] == [("Anna Berg", "PERSON"), ("Oslo", "LOC")]
    assert not doc.has_annotation("ENT_IOB") and doc.ents == ()
