"""The context encoder and pii_relabel's contextual features, on a tiny BERT built from a
config (no downloads)."""
import numpy
import pytest
import spacy

from spacy_sanitize.lm.context import ContextEncoder

from .lm_fixtures import build_tiny_bert
from .test_relabel import NAMES, TEMPLATES, held_out, make_pair

TEXT = " ".join(["john smith was born in paris in 1988 and played football for the club ."] * 6)


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    return build_tiny_bert(tmp_path_factory.mktemp("tiny_bert"), max_positions=128)


def reference_states(model_dir, text):
    """Every window's hidden states computed directly (one forward pass per window)."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir).eval()
    ids = tok(text, add_special_tokens=False)["input_ids"]

    def run(start, size):
        x = torch.tensor([[tok.cls_token_id] + ids[start : start + size] + [tok.sep_token_id]])
        with torch.no_grad():
            return model(input_ids=x)[0][0, 1:-1].numpy()

    return ids, run


def test_short_text_is_one_forward_pass(tiny_bert):
    encoder = ContextEncoder(tiny_bert, window=120, stride=60)
    ids, run = reference_states(tiny_bert, "john smith was born in paris .")
    states, starts, ends = encoder.token_states("john smith was born in paris .")
    assert states.shape == (len(ids), 32)
    numpy.testing.assert_allclose(states, run(0, len(ids)), atol=1e-5)
    assert (starts[:2].tolist(), ends[:2].tolist()) == ([0, 5], [4, 10])


def test_long_text_takes_each_token_from_its_most_central_window(tiny_bert):
    window, stride = 24, 16
    encoder = ContextEncoder(tiny_bert, window=window, stride=stride, batch_size=3)
    states, _, _ = encoder.token_states(TEXT)
    ids, run = reference_states(tiny_bert, TEXT)
    n = len(ids)
    assert n > 3 * window
    starts = list(range(0, n - window + stride, stride))
    starts = [s for s in starts if s < n]
    if starts[-1] + window < n:
        starts.append(n - window)
    windows = {s: run(s, window) for s in starts}
    for i in range(n):
        def margin(s, i=i):
            size = min(window, n - s)
            left = i - s if s > 0 else numpy.inf
            right = s + size - 1 - i if s + size < n else numpy.inf
            return min(left, right)

        best = max((s for s in starts if s <= i < s + window), key=lambda s: (margin(s), -s))
        numpy.testing.assert_allclose(states[i], windows[best][i - best], atol=1e-5)


def test_span_vectors_are_unit_length_and_zero_without_subwords(tiny_bert):
    encoder = ContextEncoder(tiny_bert)
    text = "john smith   was born in paris ."
    vectors = encoder.span_vectors(text, [(0, 10), (10, 13), (25, 30)])
    assert vectors.shape == (3, 32)
    assert numpy.allclose(numpy.linalg.norm(vectors[[0, 2]], axis=1), 1.0)
    assert not vectors[1].any()
    assert encoder.span_vectors(text, []).shape == (0, 32)
    assert encoder.span_vectors("", [(0, 0)]).shape == (1, 32)


def test_unloadable_encoder_and_bad_windows_are_coded_errors(tmp_path):
    with pytest.raises(OSError, match="E420"):
        ContextEncoder(str(tmp_path / "missing")).load()
    with pytest.raises(ValueError, match="E421"):
        ContextEncoder("x", window=10, stride=10)


def test_relabel_with_an_encoder_records_it_and_round_trips(tiny_bert, tmp_path):
    nlp = spacy.blank("en")
    pairs = [make_pair(nlp, t, n) for t in TEMPLATES for n in NAMES[:10]]
    relabel = nlp.add_pipe("pii_relabel", config={"C": 10.0, "min_prob": 0.5, "entity_vote": False, "min_count": 1, "encoder": tiny_bert, "encoder_scale": 2.0})
    relabel.fit([p for p, _ in pairs], [r for _, r in pairs])
    assert relabel.model.meta["encoder"] == tiny_bert and relabel.model.meta["encoder_scale"] == 2.0
    assert any(f.startswith("enc") for f in relabel.model.features)
    labels = [[s.label_ for s in relabel(doc).spans["pii"]] for doc in held_out(nlp)]
    nlp.to_disk(tmp_path / "pipeline")
    restored = spacy.load(tmp_path / "pipeline")
    # The trained model's encoder is used, whatever the loading config says.
    assert restored.get_pipe("pii_relabel").encoder_name == tiny_bert
    assert [[s.label_ for s in restored.get_pipe("pii_relabel")(doc).spans["pii"]] for doc in held_out(restored)] == labels


def test_a_model_whose_encoder_is_gone_fails_loudly(tiny_bert, tmp_path):
    import shutil

    copy = shutil.copytree(tiny_bert, tmp_path / "encoder")
    nlp = spacy.blank("en")
    pairs = [make_pair(nlp, t, n) for t in TEMPLATES for n in NAMES[:10]]
    relabel = nlp.add_pipe("pii_relabel", config={"min_prob": 0.5, "entity_vote": False, "min_count": 1, "encoder": str(copy)})
    relabel.fit([p for p, _ in pairs], [r for _, r in pairs])
    relabel.to_disk(tmp_path / "model")
    shutil.rmtree(copy)
    other = spacy.blank("en").add_pipe("pii_relabel", config={"model": str(tmp_path / "model")})
    with pytest.raises(OSError, match="E420"):
        other(held_out(nlp)[0])


def test_reading_a_lower_layer_runs_only_the_layers_up_to_it(tiny_bert):
    import torch
    from transformers import AutoModel, AutoTokenizer

    text = "john smith was born in paris ."
    encoder = ContextEncoder(tiny_bert, layers=1)
    states, _, _ = encoder.token_states(text)
    assert len(encoder._model.encoder.layer) == 1
    tok = AutoTokenizer.from_pretrained(tiny_bert)
    model = AutoModel.from_pretrained(tiny_bert).eval()
    with torch.no_grad():
        hidden = model(**tok(text, return_tensors="pt"), output_hidden_states=True).hidden_states[1][0, 1:-1].numpy()
    numpy.testing.assert_allclose(states, hidden, atol=1e-5)
    with pytest.raises(OSError, match="E420"):
        ContextEncoder(tiny_bert, layers=5).load()


def test_an_int8_encoder_runs_quantized_linear_layers_close_to_float(tiny_bert):
    """quantize: the linear layers run in int8 (torch's dynamic quantization), the vectors stay
    close to float32's and the shared float model is left as it was."""
    import torch

    plain, int8 = ContextEncoder(tiny_bert), ContextEncoder(tiny_bert, quantize=True)
    spans = [(0, 10), (23, 28)]
    a, b = plain.span_vectors(TEXT, spans), int8.span_vectors(TEXT, spans)
    assert not any(isinstance(m, torch.nn.Linear) and type(m) is not torch.nn.Linear for m in plain._model.modules())
    assert any("quantized" in type(m).__module__ for m in int8._model.modules())
    assert not numpy.array_equal(a, b)
    assert numpy.all((a * b).sum(axis=1) > 0.95)  # unit vectors: cosine similarity


def test_relabel_records_an_int8_encoder_and_reads_its_vectors_so(tiny_bert, tmp_path):
    nlp = spacy.blank("en")
    pairs = [make_pair(nlp, t, n) for t in TEMPLATES for n in NAMES[:10]]
    relabel = nlp.add_pipe("pii_relabel", config={"C": 10.0, "min_prob": 0.5, "entity_vote": False, "min_count": 1, "encoder": tiny_bert,
                                                  "encoder_scale": 2.0, "encoder_quantize": True})
    relabel.fit([p for p, _ in pairs], [r for _, r in pairs])
    assert relabel.model.meta["encoder_quantize"] is True and relabel.context_encoder().quantize
    labels = [[s.label_ for s in relabel(doc).spans["pii"]] for doc in held_out(nlp)]
    nlp.to_disk(tmp_path / "pipeline")
    restored = spacy.load(tmp_path / "pipeline", config={"components": {"pii_relabel": {"encoder_quantize": False}}})
    # the trained model's setting wins over the loading config's
    assert restored.get_pipe("pii_relabel").context_encoder().quantize
    assert [[s.label_ for s in restored.get_pipe("pii_relabel")(doc).spans["pii"]] for doc in held_out(restored)] == labels
