"""risk_seq: window/aggregation logic, training on a tiny corpus with a tiny BERT and the
CNN, serialization round trips, fail-closed behaviour."""
from pathlib import Path

import numpy as np
import pytest
import spacy
import srsly

import spacy_sanitize  # noqa: F401 - registers factories
from spacy_sanitize.corpus import create_tab_corpus_reader, read_tab
from spacy_sanitize.risk.seq_models import load_tagger, token_labels, windows
from spacy_sanitize.training.seq_train import examples_from, train_risk_seq

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

SENTENCES = [
    ("John Smith was born in Oslo in 1970 and works as a nurse .", ["John Smith", "Oslo", "1970"], ["nurse"]),
    ("Mary Jones studied law in Paris and lives in a small town .", ["Mary Jones", "Paris"], ["law"]),
    ("Peter Brown joined the army in 1990 , then moved to Berlin .", ["Peter Brown", "1990", "Berlin"], ["army"]),
    ("Anna Lee plays the piano in London since 2001 with friends .", ["Anna Lee", "London", "2001"], ["piano"]),
]


def _mentions(text, masked, kept, doc_id):
    out = []
    for i, (surface, ident) in enumerate([(s, "QUASI") for s in masked] + [(s, "NO_MASK") for s in kept]):
        start = text.index(surface)
        out.append({
            "entity_type": "MISC", "entity_mention_id": f"{doc_id}_{i}", "start_offset": start,
            "end_offset": start + len(surface), "span_text": surface, "identifier_type": ident,
            "entity_id": f"{doc_id}_e{i}",
        })
    return out


@pytest.fixture
def corpus(tmp_path) -> Path:
    docs = []
    for n, (text, masked, kept) in enumerate(SENTENCES):
        doc_id = f"d{n}"
        docs.append({"doc_id": doc_id, "text": text, "annotations": {"a1": {"entity_mentions": _mentions(text, masked, kept, doc_id)}}})
    path = tmp_path / "tiny.json"
    srsly.write_json(path, docs)
    return path


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory) -> Path:
    """A 2-layer BERT with a vocabulary of the corpus words, saved with its fast tokenizer."""
    from transformers import BertConfig, BertModel, BertTokenizerFast

    path = tmp_path_factory.mktemp("tiny_bert")
    words = sorted({w.lower() for text, _, _ in SENTENCES for w in text.split()} | {"x", "the"})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + words + ["##s", "##e"]
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n")
    BertTokenizerFast(vocab_file=str(path / "vocab.txt"), do_lower_case=True).save_pretrained(path)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=64)
    BertModel(config).save_pretrained(path)
    return path


def _trf(model, **kw):
    return {"@misc": "spacy_sanitize.seq_transformer.v1", "model": str(model), "learning_rate": 0.01,
            "save_dtype": "float32", **kw}


CNN = {"@misc": "spacy_sanitize.seq_cnn.v1", "pretrained": False, "width": 32, "depth": 2, "learning_rate": 0.01}


def _tag_docs(nlp, references):
    docs = []
    for ref in references:
        doc = nlp.make_doc(ref.text)
        doc.spans["pii"] = [doc.char_span(s.start_char, s.end_char, label=s.label_) for s in ref.spans["pii"]]
        doc._.doc_id = ref._.doc_id
        docs.append(doc)
    return docs


@pytest.mark.parametrize("n,size,stride", [(0, 8, 4), (5, 8, 4), (8, 8, 4), (9, 8, 4), (30, 8, 4), (31, 8, 6), (100, 10, 10)])
def test_windows_cover_everything_and_overlap(n, size, stride):
    spans = windows(n, size, stride)
    covered = set()
    for s, e in spans:
        assert 0 <= s < e <= n or n == 0
        assert e - s <= size
        covered.update(range(s, e))
    assert covered == set(range(n))
    assert spans[-1][1] == n
    for (s1, e1), (s2, _) in zip(spans, spans[1:]):
        assert s2 - s1 <= stride and s2 < e1 or size == stride


def test_token_labels_from_char_spans():
    doc = spacy.blank("en")("Anna Lee plays piano in London")
    assert token_labels(doc, [(0, 8), (24, 30)]).tolist() == [1, 1, 0, 0, 0, 1]


@pytest.mark.parametrize("aggregation,threshold,expected_risk,expected_mask", [
    ("max", 0.5, 0.9, True),    # partial match: one MASK token is enough
    ("min", 0.5, 0.2, False),   # full match: every token must be MASK
    ("mean", 0.5, 0.55, True),
    ("max", 0.95, 0.9, False),
])
def test_aggregation_full_and_partial(aggregation, threshold, expected_risk, expected_mask):
    nlp = spacy.blank("en")
    seq = nlp.add_pipe("risk_seq", config={"tagger": CNN, "aggregation": aggregation})
    decide = nlp.add_pipe("risk_threshold", config={"indicator": "seq", "threshold": threshold})
    doc = nlp.make_doc("Anna Lee plays piano")
    doc.spans["pii"] = [doc[0:2], doc[3:4]]
    seq.set_annotations([doc], [np.array([0.9, 0.2, 0.1, 0.3])])
    span = doc.spans["pii"][0]
    assert span._.mask is None  # the indicator only scores
    decide(doc)
    assert span._.risk["seq"] == pytest.approx(expected_risk)
    assert span._.mask is expected_mask
    assert span._.risk_explain["seq"]["token_probs"] == [0.9, 0.2]
    assert doc.spans["pii"][1]._.risk["seq"] == pytest.approx(0.3)


def test_windows_merge_across_borders_without_truncation(tiny_bert, corpus):
    """A text 3x longer than a window: every token gets a prediction, and pieces in the
    overlap get the mean of the windows that saw them."""
    nlp = spacy.blank("en")
    seq = nlp.add_pipe("risk_seq", config={"tagger": _trf(tiny_bert, window=12, stride=6)})
    references = read_tab(corpus, nlp)
    nlp.initialize(lambda: examples_from(references, nlp))
    tagger = seq.tagger
    doc = nlp.make_doc(" ".join(text for text, _, _ in SENTENCES[:3]))
    probs = tagger.predict([doc])[0]
    assert len(probs) == len(doc)
    assert (probs > 0).all() and (probs < 1).all()  # a truncated token would stay at 0

    sequences, spans, owners = tagger._windows(doc)
    assert len(spans) > 2
    piece_sum, piece_n = np.zeros(len(owners)), np.zeros(len(owners))
    with torch.no_grad():
        for seq_ids, (s, e) in zip(sequences, spans):
            logits = tagger.model(input_ids=torch.tensor([seq_ids])).logits
            piece_sum[s:e] += torch.softmax(logits, -1)[0, 1:-1, 1].numpy()
            piece_n[s:e] += 1
    expected = np.zeros(len(doc))
    for piece, owner in enumerate(owners):
        expected[owner] = max(expected[owner], piece_sum[piece] / piece_n[piece])
    assert np.allclose(probs, expected, atol=1e-5)

    # a PII span whose tokens straddle a window border gets the merged probabilities
    border = spans[1][0]
    first, last = owners[border - 1], owners[border]
    doc.spans["pii"] = [doc[first : last + 1]]
    seq.set_annotations([doc], [probs])
    assert doc.spans["pii"][0]._.risk["seq"] == pytest.approx(max(probs[first : last + 1]), abs=1e-4)


@pytest.mark.parametrize("family", ["transformer", "cnn"])
def test_training_learns_and_round_trips(family, tiny_bert, corpus, tmp_path):
    nlp = spacy.blank("en")
    tagger = _trf(tiny_bert) if family == "transformer" else CNN
    nlp.add_pipe("risk_seq", config={"tagger": tagger})
    nlp.add_pipe("risk_threshold", config={"indicator": "seq"})
    reader = create_tab_corpus_reader(corpus)
    examples = list(reader(nlp))
    nlp.initialize(lambda: examples)
    losses = [nlp.update(examples)["risk_seq"] for _ in range(40)]
    assert losses[-1] < losses[0] * 0.5

    docs = list(nlp.pipe(_tag_docs(nlp, [eg.reference for eg in examples])))
    masked = {s.text for d in docs for s in d.spans["pii"] if s._.mask}
    assert {"John Smith", "Oslo", "Mary Jones"} <= masked
    risks = [s._.risk["seq"] for d in docs for s in d.spans["pii"]]

    nlp.to_disk(tmp_path / "pipe")
    nlp2 = spacy.load(tmp_path / "pipe")
    docs2 = list(nlp2.pipe(_tag_docs(nlp2, [eg.reference for eg in examples])))
    assert [s._.risk["seq"] for d in docs2 for s in d.spans["pii"]] == pytest.approx(risks, abs=1e-5)

    seq3 = spacy.blank("en").add_pipe("risk_seq", config={"tagger": CNN})
    seq3.from_bytes(nlp.get_pipe("risk_seq").to_bytes())
    assert type(seq3.tagger) is type(nlp.get_pipe("risk_seq").tagger)

    weights = tmp_path / "weights"
    nlp.get_pipe("risk_seq").to_disk(weights)
    nlp4 = spacy.blank("en")
    nlp4.add_pipe("risk_seq", config={"weights": str(weights)})
    docs4 = list(nlp4.pipe(_tag_docs(nlp4, [eg.reference for eg in examples])))
    assert [s._.risk["seq"] for d in docs4 for s in d.spans["pii"]] == pytest.approx(risks, abs=1e-5)


def test_train_helper_and_load_tagger(corpus, tmp_path):
    references = read_tab(corpus, spacy.blank("en"))
    nlp = train_risk_seq(references, CNN, epochs=2, batch_size=2)
    tagger = nlp.get_pipe("risk_seq").tagger
    nlp.get_pipe("risk_seq").to_disk(tmp_path / "t")
    assert load_tagger(tmp_path / "t").predict([nlp.make_doc("Anna Lee")])[0].shape == (2,)
    assert tagger.config["@misc"] == "spacy_sanitize.seq_cnn.v1"


def test_fail_closed_on_a_document_the_model_cannot_process(tiny_bert, corpus):
    """Position embeddings of 64 but windows of 200 pieces: a long document makes the model
    fail; its spans get risk 1.0 and the reason, the short one in the same batch is tagged."""
    nlp = spacy.blank("en")
    # propose_threshold: a document the tagger could not read gets no spans of its own either
    seq = nlp.add_pipe("risk_seq", config={"tagger": _trf(tiny_bert, window=200, stride=100), "propose_threshold": 0.01})
    decide = nlp.add_pipe("risk_threshold", config={"indicator": "seq", "threshold": 1.0})
    references = read_tab(corpus, nlp)
    nlp.initialize(lambda: examples_from(references, nlp))
    short = _tag_docs(nlp, references[:1])[0]
    long = nlp.make_doc(" ".join([text for text, _, _ in SENTENCES] * 3))
    long.spans["pii"] = [long[0:2], long[40:41]]
    with pytest.warns(UserWarning, match=r"W501.*2 span\(s\) get risk 1.0"):
        short, long = list(seq.pipe([short, long]))
    decide(long)
    assert [(s.start, s.end) for s in long.spans["pii"]] == [(0, 2), (40, 41)]
    for span in long.spans["pii"]:
        assert span._.risk["seq"] == 1.0
        assert span._.mask is True
        assert span._.risk_explain["threshold"]["votes"]["seq"]["reason"] == "fail_closed"
        assert span._.risk_explain["seq"]["fail_closed"] is True
        assert "Error" in span._.risk_explain["seq"]["error"]  # the exception, named
    assert all(s._.risk["seq"] < 1.0 for s in short.spans["pii"])


def test_missing_model_and_untrained_are_clear_errors(corpus, tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("risk_seq", config={"tagger": _trf(tmp_path / "nope")})
    references = read_tab(corpus, nlp)
    with pytest.raises(OSError, match="E501"):
        nlp.initialize(lambda: examples_from(references, nlp))
    with pytest.raises(OSError, match="E505"):
        spacy.blank("en").add_pipe("risk_seq", config={"weights": str(tmp_path / "nope")})
    untrained = spacy.blank("en")
    untrained.add_pipe("risk_seq", config={"tagger": CNN})
    with pytest.raises(ValueError, match="E504"):
        untrained("Anna Lee")


def test_gold_without_mask_spans_is_rejected(corpus):
    nlp = spacy.blank("en")
    nlp.add_pipe("risk_seq", config={"tagger": CNN})
    examples = examples_from(read_tab(corpus, nlp), nlp)
    for eg in examples:
        del eg.reference.spans["mask"]
    with pytest.raises(ValueError, match="E502"):
        nlp.initialize(lambda: examples)


def test_risk_seq_never_writes_mask_alone_or_next_to_other_indicators():
    """The old risk_seq decided when it was the only risk_* component: a pipeline's output
    depended on what else was in it. Now it only scores, alone or not."""
    nlp = spacy.blank("en")
    seq = nlp.add_pipe("risk_seq", config={"tagger": CNN})
    for others in ([], ["risk_web"]):
        for other in others:
            nlp.add_pipe(other)
        doc = nlp.make_doc("Anna Lee")
        doc.spans["pii"] = [doc[0:2]]
        seq.set_annotations([doc], [np.array([0.9, 0.9])])
        assert doc.spans["pii"][0]._.mask is None
        assert doc.spans["pii"][0]._.risk["seq"] == pytest.approx(0.9)


def test_shipped_pipeline_scores_and_masks_detected_spans():
    from spacy_sanitize import load_pipeline
    from spacy_sanitize.risk.seq import shipped_weights

    if not (shipped_weights() / "backend.json").exists():
        pytest.skip("no shipped tagger; build it with `spacy project run build-seq`")
    nlp = load_pipeline("risk_seq")
    assert nlp.pipe_names[-3:] == ["risk_seq", "risk_threshold", "masker"]
    doc = nlp("Angela Merkel was born in Hamburg in 1954 and studied physics in Leipzig.")
    spans = list(doc.spans["pii"])
    assert spans
    for span in spans:
        assert 0.0 <= span._.risk["seq"] <= 1.0
        # names and codes are protected (kept masked whatever the score)
        assert span._.mask == (span._.risk["seq"] >= 0.1 or span.label_ in ("CODE", "PERSON"))
        assert len(span._.risk_explain["seq"]["token_probs"]) == len(span)
    assert "Angela Merkel" not in doc._.sanitized


@pytest.fixture
def two_annotators(tmp_path) -> Path:
    """The tiny corpus seen by two annotators: both mask the names, places and years; only
    ``a1`` masks the occupations and hobbies (``kept``)."""
    docs = []
    for n, (text, masked, kept) in enumerate(SENTENCES):
        doc_id = f"d{n}"
        docs.append({"doc_id": doc_id, "text": text, "annotations": {
            "a1": {"entity_mentions": _mentions(text, masked + kept, [], doc_id)},
            "a2": {"entity_mentions": _mentions(text, masked, kept, doc_id)}}})
    path = tmp_path / "two.json"
    srsly.write_json(path, docs)
    return path


def test_merged_views_label_each_token_with_the_share_of_annotators(two_annotators):
    from spacy_sanitize.corpus.tab import merge_views
    from spacy_sanitize.risk.seq_models import view_share

    views = read_tab(two_annotators, spacy.blank("en"))
    merged = merge_views(views)
    assert len(views) == 8 and [d._.doc_id for d in merged] == ["d0", "d1", "d2", "d3"]
    doc = merged[0]
    group = doc.spans["mask"]
    assert group.attrs["view_sizes"] == [4, 3]
    share = dict(zip([t.text for t in doc], view_share(doc, [(s.start_char, s.end_char) for s in group], group.attrs["view_sizes"])))
    assert share["John"] == share["Oslo"] == share["1970"] == 1.0
    assert share["nurse"] == 0.5 and share["born"] == 0.0
    # the views are untouched, and a group whose sizes do not add up is refused
    assert len(views[0].spans["mask"]) == 4 and "view_sizes" not in views[0].spans["mask"].attrs
    with pytest.raises(ValueError, match="do not add up"):
        view_share(doc, [(0, 4)], [4, 3])


def test_soft_loss_is_torch_weighted_cross_entropy_on_hard_labels():
    from spacy_sanitize.risk.seq_models import _soft_cross_entropy

    torch.manual_seed(0)
    logits = torch.randn(3, 5, 2)
    hard = torch.tensor([[0, 1, 1, -100, 0], [1, 1, 0, 0, -100], [0, 0, 0, 1, 1]])
    expected = torch.nn.functional.cross_entropy(logits.reshape(-1, 2), hard.reshape(-1), weight=torch.tensor([1.0, 3.0]), ignore_index=-100)
    assert float(_soft_cross_entropy(torch, logits, hard.float(), 3.0)) == pytest.approx(float(expected), rel=1e-6)
    # a share of 0.5 costs the mean of the two hard losses (weights 1)
    one = torch.zeros(1, 1, 2)
    assert float(_soft_cross_entropy(torch, one, torch.tensor([[0.5]]), 1.0)) == pytest.approx(np.log(2), rel=1e-6)


@pytest.mark.parametrize("family", ["transformer", "cnn"])
def test_training_on_merged_views_learns_the_annotators_share(family, tiny_bert, two_annotators):
    tagger = _trf(tiny_bert) if family == "transformer" else CNN
    references = read_tab(two_annotators, spacy.blank("en"))
    nlp = train_risk_seq(references, tagger, epochs=60, batch_size=4, merge=True)
    model = nlp.get_pipe("risk_seq").tagger
    docs = [nlp.make_doc(text) for text, _, _ in SENTENCES]
    probs = model.predict(docs)
    by_kind = {"both": [], "one": [], "none": []}
    for doc, p, (_, masked, kept) in zip(docs, probs, SENTENCES):
        words_masked = {w for s in masked for w in s.split()}
        for token, prob in zip(doc, p):
            by_kind["both" if token.text in words_masked else "one" if token.text in kept else "none"].append(prob)
    both, one, none = (float(np.mean(by_kind[k])) for k in ("both", "one", "none"))
    if family == "cnn":
        assert both > 0.9 and none < 0.1
        assert 0.35 < one < 0.65  # half the annotators: about even
    else:  # 16 hidden units learn the names, not the rest (nor from the views one by one)
        assert both - none > 0.3


def test_update_batch_size_is_saved_only_when_set(tiny_bert, corpus, tmp_path):
    from spacy_sanitize.risk.seq_models import make_transformer_tagger

    assert "update_batch_size" not in make_transformer_tagger(model=str(tiny_bert)).settings
    references = read_tab(corpus, spacy.blank("en"))
    nlp = train_risk_seq(references, _trf(tiny_bert, update_batch_size=1), epochs=1, merge=True)
    nlp.get_pipe("risk_seq").to_disk(tmp_path / "t")
    assert load_tagger(tmp_path / "t").settings["update_batch_size"] == 1


def test_int8_tagger_round_trips_and_a_tagger_starts_from_an_int8_masked_lm(tiny_bert, corpus, tmp_path):
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    from spacy_sanitize.lm.quantized import INT8_WEIGHTS, save_int8

    references = read_tab(corpus, spacy.blank("en"))
    nlp = train_risk_seq(references, _trf(tiny_bert, save_dtype="int8"), epochs=20, batch_size=4)
    tagger = nlp.get_pipe("risk_seq").tagger
    docs = [nlp.make_doc(text) for text, _, _ in SENTENCES]
    before = tagger.predict(docs)
    nlp.get_pipe("risk_seq").to_disk(tmp_path / "t")
    assert (tmp_path / "t" / "model" / INT8_WEIGHTS).exists()
    after = load_tagger(tmp_path / "t").predict(docs)
    assert max(float(np.abs(a - b).max()) for a, b in zip(before, after)) < 0.05  # rows quantized to 1/127 of their max
    # the shipped domain MiniLM is an int8 masked LM: a tagger fine-tunes its encoder
    mlm_dir = save_int8(AutoModelForMaskedLM.from_pretrained(tiny_bert), AutoTokenizer.from_pretrained(tiny_bert), tmp_path / "mlm")
    from spacy_sanitize.lm import loader

    _, start = loader.load_pretrained(str(mlm_dir), "token_classification", shared=False, num_labels=2)
    original = AutoModelForMaskedLM.from_pretrained(tiny_bert).bert.encoder.layer[0].attention.self.query.weight.detach()
    copied = start.bert.encoder.layer[0].attention.self.query.weight.detach()
    assert start.config.num_labels == 2 and torch.allclose(copied, original, atol=float(original.abs().max()) / 100)
    nlp2 = train_risk_seq(references, _trf(mlm_dir), epochs=2, batch_size=4)
    assert len(nlp2.get_pipe("risk_seq").tagger.predict(docs[:1])[0]) == len(docs[0])


def test_proposed_spans_are_new_runs_or_widen_the_span_they_touch():
    from spacy_sanitize.extensions import register_extensions
    from spacy_sanitize.risk.seq import proposed_spans

    register_extensions()
    nlp = spacy.blank("en")
    doc = nlp.make_doc("Dr. Brennan saw the Naroda Patiya massacre , ( in Oslo ) today .")
    #                  Dr.  Brennan saw  the  Naroda Patiya massacre ,   (    in   Oslo )    today .
    probs = np.array([0.9, 0.1, 0.1, 0.2, 0.3, 0.3, 0.95, 0.9, 0.8, 0.3, 0.9, 0.7, 0.2, 0.9])
    person, event = doc[1:2], doc[4:6]
    person.label_, event.label_ = "PERSON", "MISC"
    event._.entity_id = "e1"
    event._.risk_explain = {"detector": "pii_gazetteer", "llm_prob": {"p": 0.1}}
    event._.risk["llm_prob"] = 0.1
    new, widened = proposed_spans(doc, [person, event], probs, 0.6, "MISC")
    # "( in Oslo )" loses its parentheses and is new; the lone "." is no span
    assert [(s.text, s.label_) for s in new] == [("Oslo", "MISC")]
    assert {i: (s.text, s.label_) for i, s in widened.items()} == {0: ("Dr. Brennan", "PERSON"), 1: ("Naroda Patiya massacre", "MISC")}
    # the widened span is the same mention: its entity and detector, not the old span's scores
    assert widened[1]._.entity_id == "e1"
    assert widened[1]._.risk_explain == {"detector": "pii_gazetteer"} and widened[1]._.risk == {}
    assert proposed_spans(doc, [], probs, 1.0, "MISC") == ([], {})


def test_the_tagger_proposes_what_the_detector_missed_and_the_decider_masks_it(corpus, tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("risk_seq", config={"tagger": CNN, "propose_threshold": 0.5})
    nlp.add_pipe("risk_threshold", config={"indicator": "seq", "threshold": 0.5})
    nlp.add_pipe("masker")
    examples = list(create_tab_corpus_reader(corpus)(nlp))
    nlp.initialize(lambda: examples)
    for _ in range(40):
        nlp.update(examples)
    doc = nlp.make_doc(SENTENCES[0][0])
    doc.spans["pii"] = [doc.char_span(0, 4, label="PERSON")]  # the detector found John, missed Smith, Oslo and 1970
    doc = nlp(doc)
    spans = {s.text: s for s in doc.spans["pii"]}
    assert spans["John Smith"]._.risk_explain["seq"]["widened_from"] == [0, 4]
    assert spans["John Smith"].label_ == "PERSON"
    proposed = [s for s in doc.spans["pii"] if s._.risk_explain["seq"].get("proposed")]
    assert {s.text for s in proposed} >= {"Oslo", "1970"}
    assert "nurse" not in spans  # annotators keep it
    for span in proposed:
        assert span.label_ == "MISC" and span._.risk_explain["detector"] == "risk_seq"
    for span in doc.spans["pii"]:
        assert span._.risk["seq"] >= 0.5 and span._.mask is True
    assert doc._.sanitized.startswith("[PERSON] was born in [MISC] in [MISC]")
    assert doc._.sanitized.endswith("works as a nurse .")

    # the setting travels with the pipeline; off, the detector's spans are all there is
    nlp.to_disk(tmp_path / "pipe")
    assert spacy.load(tmp_path / "pipe").get_pipe("risk_seq").propose_threshold == 0.5
    nlp.get_pipe("risk_seq").propose_threshold = None
    doc = nlp.make_doc(SENTENCES[0][0])
    doc.spans["pii"] = [doc.char_span(0, 4, label="PERSON")]
    assert [s.text for s in nlp(doc).spans["pii"]] == ["John"]


@pytest.mark.parametrize("config", [{"propose_threshold": 0.0}, {"propose_threshold": 1.5}, {"propose_label": "NAME"}])
def test_bad_proposal_settings_are_clear_errors(config):
    with pytest.raises(ValueError, match="E508"):
        spacy.blank("en").add_pipe("risk_seq", config={"tagger": CNN, **config})


def test_shipped_biography_pipeline_masks_by_the_mean_of_two_taggers():
    """biography: the CNN tagger (which also adds and widens spans) and the MiniLM tagger score
    every span, risk_vote masks the mean at 0.5; names stay masked whatever the mean."""
    from spacy_sanitize import load_pipeline
    from spacy_sanitize.shipped import data_path

    if not (data_path("risk_seq_trf") / "backend.json").exists():
        pytest.skip("no shipped MiniLM tagger; build it with `spacy project run build-seq`")
    nlp = load_pipeline("biography")
    assert nlp.pipe_names[-4:] == ["risk_seq", "risk_seq_trf", "risk_vote", "masker"]
    assert nlp.get_pipe("risk_seq").tagger.config["@misc"] == "spacy_sanitize.seq_cnn.v1"
    assert nlp.get_pipe("risk_seq_trf").tagger.config["@misc"] == "spacy_sanitize.seq_transformer.v1"
    assert nlp.get_pipe("risk_seq").propose_threshold == 0.7
    doc = nlp("Maya Kodnani is a former Minister of Women and Child Development in the Government of Gujarat. "
              "She was sentenced to 28 years of imprisonment for her part in the Naroda Patiya massacre.")
    assert doc.spans["pii"]
    for span in doc.spans["pii"]:
        mean = (span._.risk["seq"] + span._.risk["seq_trf"]) / 2  # both taggers scored every span
        assert span._.risk_explain["vote"]["mean"] == pytest.approx(mean, abs=1e-6)
        assert span._.mask == (mean >= 0.5 or span.label_ in {"PERSON", "CODE"})
    assert "Kodnani" not in doc._.sanitized


@pytest.mark.parametrize("name", ["../escaped.bin", "{tmp}/absolute_escape.bin", "model/../../escaped.bin", ""])
def test_from_bytes_refuses_member_paths_outside_its_folder(tmp_path, monkeypatch, name):
    """RiskSeq.from_bytes wrote each member where its name pointed: untrusted bytes could write
    files outside its temporary folder (issue #36, Low)."""
    import tempfile

    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(work))  # the component's temporary folder is made in here
    nlp = spacy.blank("en")
    seq = nlp.add_pipe("risk_seq", config={"tagger": CNN})
    with pytest.raises(ValueError, match="E509"):
        seq.from_bytes(srsly.msgpack_dumps({name.format(tmp=tmp_path): b"x", "backend.json": b"{}"}))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["work"] and list(work.iterdir()) == []
