"""The one LM layer: strided windows, the shared model loader, the linear-model export and
pii_relabel batched across documents, on tiny models built from configs (no downloads)."""
import os
import shutil

import numpy
import pytest
import spacy

from spacy_sanitize.lm import loader
from spacy_sanitize.lm.linear import LinearWeights, npy_array, npy_bytes
from spacy_sanitize.lm.windows import centred_window, strided_windows

from .lm_fixtures import build_tiny_bert
from .test_relabel import NAMES, TEMPLATES, held_out, make_pair


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    return build_tiny_bert(tmp_path_factory.mktemp("tiny_bert_layer"), max_positions=128)


# ----------------------------------------------------------------------------- windows
@pytest.mark.parametrize(
    "n,size,stride",
    [(0, 8, 4), (1, 8, 4), (8, 8, 4), (9, 8, 4), (30, 8, 4), (31, 8, 6), (100, 10, 10), (100, 10, 1), (10_000, 254, 192)],
)
def test_strided_windows_cover_every_item_overlap_and_never_truncate(n, size, stride):
    windows = strided_windows(n, size, stride)
    covered = numpy.zeros(n, dtype=int)
    for start, end in windows:
        assert 0 <= start < end <= n or n == 0
        assert end - start <= size
        covered[start:end] += 1
    assert (covered >= 1).all()
    assert windows[0][0] == 0 and windows[-1][1] == n
    for (s1, e1), (s2, e2) in zip(windows, windows[1:]):
        assert s2 - s1 == stride
        assert e1 - s2 == size - stride  # the overlap
        assert e1 < n  # no window after one that reached the end


def test_strided_windows_reject_bad_settings():
    for size, stride in [(0, 1), (8, 0), (8, 9)]:
        with pytest.raises(ValueError, match="E408"):
            strided_windows(10, size, stride)


@pytest.mark.parametrize("n,first,last,size,expected", [(5, 1, 2, 8, (0, 5)), (100, 50, 51, 10, (46, 56)), (100, 0, 0, 10, (0, 10)), (100, 99, 99, 10, (90, 100))])
def test_centred_window(n, first, last, size, expected):
    assert centred_window(n, first, last, size) == expected


# ----------------------------------------------------------------------------- loader
def test_one_model_path_is_loaded_once_and_heads_are_separate(tiny_bert, monkeypatch):
    from spacy_sanitize.lm.context import ContextEncoder
    from spacy_sanitize.lm.encoder import SpanTextEncoder
    from spacy_sanitize.lm.hf import HFMaskedLMScorer

    monkeypatch.chdir(os.path.dirname(tiny_bert))
    context, text = ContextEncoder(tiny_bert), SpanTextEncoder(os.path.basename(tiny_bert))  # relative path
    context.load()
    text.load()
    assert context._model is text._model and context._tokenizer is text._tok
    mlm = HFMaskedLMScorer(tiny_bert)
    assert mlm.model is not context._model
    assert mlm.model is HFMaskedLMScorer(tiny_bert).model
    assert not mlm.model.training and not context._model.training
    assert loader.load_pretrained(tiny_bert, "base", shared=False)[1] is not context._model


def test_the_bare_encoder_of_an_int8_model_is_the_masked_lm_base(tiny_bert, tmp_path):
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    from spacy_sanitize.lm.quantized import save_int8

    path = str(save_int8(AutoModelForMaskedLM.from_pretrained(tiny_bert), AutoTokenizer.from_pretrained(tiny_bert), tmp_path / "q"))
    _, mlm = loader.load_pretrained(path, "masked_lm")
    _, base = loader.load_pretrained(path, "base")
    assert base is mlm.base_model


def test_a_model_saved_again_is_reloaded(tiny_bert, tmp_path):
    copy = shutil.copytree(tiny_bert, tmp_path / "model")
    _, first = loader.load_pretrained(str(copy), "base")
    build_tiny_bert(copy, seed=1)
    _, second = loader.load_pretrained(str(copy), "base")
    assert second is not first


def test_reading_a_lower_layer_leaves_the_shared_model_whole(tiny_bert):
    from spacy_sanitize.lm.context import ContextEncoder

    text = "john smith was born in paris ."
    shallow = ContextEncoder(tiny_bert, layers=1)
    full = ContextEncoder(tiny_bert)
    low = shallow.token_states(text)[0]
    high = full.token_states(text)[0]
    assert len(full._model.encoder.layer) == 2 and len(shallow._model.encoder.layer) == 1
    assert shallow._model.embeddings is full._model.embeddings  # weights shared, not copied
    assert not numpy.allclose(low, high)


def test_components_leave_the_torch_thread_count_alone(tiny_bert):
    import torch

    from spacy_sanitize.lm.context import ContextEncoder
    from spacy_sanitize.lm.hf import HFMaskedLMScorer

    before = torch.get_num_threads()
    target = 2 if before != 2 else 1
    with pytest.warns(UserWarning, match="W400"):
        scorer = HFMaskedLMScorer(tiny_bert, num_threads=target)
    with pytest.warns(UserWarning, match="W400"):
        encoder = ContextEncoder(tiny_bert, num_threads=target)
    scorer.load()
    encoder.span_vectors("john smith was born in paris .", [(0, 10)])
    assert torch.get_num_threads() == before


# ----------------------------------------------------------------------------- linear export
@pytest.mark.parametrize("n_classes", [2, 3])
def test_linear_weights_round_trip_and_softmax_rows(n_classes):
    from sklearn.linear_model import LogisticRegression

    rng = numpy.random.RandomState(0)
    X = rng.normal(size=(60, 5))
    y = numpy.arange(60) % n_classes
    clf = LogisticRegression().fit(X, y)
    restored = LinearWeights.from_dict(LinearWeights.from_sklearn(clf, softmax_rows=False).to_dict()).to_sklearn()
    numpy.testing.assert_allclose(restored.predict_proba(X), clf.predict_proba(X))
    rows = LinearWeights.from_sklearn(clf)
    assert rows.coef.shape == (n_classes, 5) and rows.classes == list(range(n_classes))
    z = X @ rows.coef.T + rows.intercept
    softmax = numpy.exp(z - z.max(axis=1, keepdims=True))
    numpy.testing.assert_allclose(softmax / softmax.sum(axis=1, keepdims=True), clf.predict_proba(X), atol=1e-10)
    array = rng.normal(size=(3, 4)).astype(numpy.float32)
    assert (npy_array(npy_bytes(array)) == array).all()


# ----------------------------------------------------------------------------- batched relabel
LONG = " ".join(["john smith was born in paris in 1988 and played football for the club ."] * 9)


def test_span_vectors_of_a_batch_equal_those_of_each_text(tiny_bert):
    from spacy_sanitize.lm.context import ContextEncoder

    encoder = ContextEncoder(tiny_bert, window=24, stride=16, batch_size=3)
    texts = [LONG, "mary jones studied law .", "", LONG[:200]]
    spans = [[(0, 10), (len(LONG) - 5, len(LONG))], [(0, 10)], [], [(50, 60)]]
    batched = encoder.span_vectors_batch(texts, spans)
    for text, doc_spans, vectors in zip(texts, spans, batched):
        numpy.testing.assert_allclose(vectors, encoder.span_vectors(text, doc_spans), atol=1e-5)
    assert batched[2].shape == (0, 32)


def test_relabel_pipe_batched_equals_one_doc_at_a_time(tiny_bert):
    nlp = spacy.blank("en")
    pairs = [make_pair(nlp, t, n) for t in TEMPLATES for n in NAMES[:10]]
    relabel = nlp.add_pipe("pii_relabel", config={"C": 10.0, "min_prob": 0.3, "entity_vote": False, "min_count": 1, "encoder": tiny_bert, "encoder_scale": 2.0})
    relabel.fit([p for p, _ in pairs], [r for _, r in pairs])

    def annotations(docs):
        return [[(s.start, s.end, s.label_, s._.risk_explain["pii_relabel"]) for s in doc.spans["pii"]] for doc in docs]

    one_by_one = annotations([relabel(doc) for doc in held_out(nlp)])
    assert annotations(relabel.pipe(held_out(nlp), batch_size=4)) == one_by_one
    assert annotations(relabel.pipe(held_out(nlp), batch_size=1000)) == one_by_one
