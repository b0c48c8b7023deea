"""benchmarks/attack/infer_signal.py on tiny data: its views leave gaps where tokens are dropped, its
cross-fitted attackers find a planted clue and lose it when the view drops it, and its document
encoder reads texts longer than the model's window (a tiny BERT built here)."""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks" / "attack"))
infer_signal = pytest.importorskip("infer_signal")

from spacy_sanitize.training.adversarial import fold_indices  # noqa: E402

STOP = {"the", "of", "in", "was", "a"}


def test_placeholders_become_one_word_and_views_keep_positions():
    assert infer_signal.rename_placeholders("the [ORG] and [PERSON 2].").split() == ["the", "zzphorg", "and", "zzphperson", "."]
    masked = [["the", "zzphorg", "oslo", "of", "court"]]
    views = infer_signal.views_of(masked, [["the", "x"]], STOP, seed=0)
    assert views["masked: stop words only"] == [["the", None, None, "of", None]]
    assert views["masked: stop words and placeholders only"] == [["the", "zzphorg", None, "of", None]]
    assert views["masked: content words only"] == [[None, None, "oslo", None, "court"]]
    assert all(len(v[0]) == 5 for name, v in views.items() if name != "text as written")
    assert infer_signal.kept_share(views["masked: stop words only"], masked) == pytest.approx(0.4)
    assert infer_signal.text_of(["the", None, "of"]) == "the\nof"


def test_cross_fitted_attacker_finds_the_clue_only_where_the_view_keeps_it():
    rng = np.random.default_rng(0)
    filler = ["court", "judge", "case", "appeal", "ruling", "claim"]
    seqs, labels = [], []
    for i in range(40):
        label = "NOR" if i % 2 else "FRA"
        words = list(rng.choice(filler, 6)) + ["the", "of", "oslo" if label == "NOR" else "paris"]
        rng.shuffle(words)
        seqs.append(words)
        labels.append(label)
    parts, fold_of = fold_indices(len(seqs), 5, seed=0)
    full = infer_signal.ngram_attack(seqs, labels, parts, fold_of, "word")
    views = infer_signal.views_of(seqs, seqs, STOP, seed=0)
    blind = infer_signal.ngram_attack(views["masked: stop words only"], labels, parts, fold_of, "word")
    assert full["accuracy"] == 1.0
    assert blind["accuracy"] <= 0.75
    lengths = infer_signal.vector_attack(np.ones((40, 1)), labels, parts, fold_of)
    assert lengths["accuracy"] <= 0.6  # a constant feature tells nothing


def test_document_vectors_read_past_the_window(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from spacy_sanitize.lm.context import ContextEncoder

    from .lm_fixtures import build_tiny_bert

    model = build_tiny_bert(tmp_path / "bert", max_positions=32)
    encoder = ContextEncoder(model, window=254, stride=192, batch_size=2)
    long_text = " ".join(["the applicant was born in oslo"] * 30)  # ~180 subwords: 6+ windows
    vectors = infer_signal.doc_vectors(encoder, [long_text, "the court"])
    assert encoder.window == 30
    assert vectors.shape == (2, 32) and np.isfinite(vectors).all()
    assert not np.allclose(vectors[0], vectors[1])
