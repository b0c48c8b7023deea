"""One fold splitter (evaluation.document_folds): the other fold helpers reshape its folds, and
each permutation gives the folds the committed tables were made with (the implementations they
replaced are written out here)."""
import random

import numpy
import pytest

from spacy_sanitize.evaluation.folds import document_folds
from spacy_sanitize.risk.span_classifier import group_folds
from spacy_sanitize.training.adversarial import fold_indices

GROUPS = [f"doc{i % 23:02d}" for i in range(101)]  # 23 documents, several rows each, unsorted


def _legacy_group_folds(groups, n_folds, seed):
    unique = sorted(set(groups))
    order = numpy.random.RandomState(seed).permutation(len(unique))
    fold_of = {unique[i]: n % n_folds for n, i in enumerate(order)}
    folds = numpy.asarray([fold_of[g] for g in groups])
    return [(numpy.flatnonzero(folds != k), numpy.flatnonzero(folds == k)) for k in range(n_folds) if (folds == k).any()]


def _legacy_fold_indices(n, folds, seed):
    order = numpy.random.default_rng(seed).permutation(n)
    return [numpy.sort(order[f::folds]) for f in range(folds)]


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_group_folds_are_the_numpy_permutations_folds(seed):
    for k in (3, 5):
        new, old = group_folds(GROUPS, k, seed), _legacy_group_folds(GROUPS, k, seed)
        assert len(new) == len(old) and all((a == c).all() and (b == d).all() for (a, b), (c, d) in zip(new, old))


@pytest.mark.parametrize("seed", [0, 3])
def test_fold_indices_are_the_generator_permutations_folds(seed):
    parts, fold_of = fold_indices(37, 5, seed)
    assert [p.tolist() for p in parts] == [p.tolist() for p in _legacy_fold_indices(37, 5, seed)]
    assert all(fold_of[i] == k for k, part in enumerate(parts) for i in part)


def test_folds_keep_a_documents_rows_together_and_cover_every_row():
    for permutation in ("python", "numpy", "numpy-generator"):
        folds = document_folds(GROUPS, 5, 0, permutation=permutation)
        assert sorted(i for fold in folds for i in fold) == list(range(len(GROUPS)))
        assert all(len({GROUPS[i] for i in fold} & {GROUPS[i] for i in other}) == 0
                   for a, fold in enumerate(folds) for b, other in enumerate(folds) if a != b)
    # the python permutation is the shuffled, dealt split of the sorted ids
    ids = sorted(set(GROUPS))
    shuffled = list(ids)
    random.Random(0).shuffle(shuffled)
    assert [{GROUPS[i] for i in fold} for fold in document_folds(GROUPS, 5, 0)] == [set(shuffled[k::5]) for k in range(5)]
    with pytest.raises(ValueError, match="permutation"):
        document_folds(GROUPS, 5, 0, permutation="torch")


def test_an_unknown_permutation_is_a_coded_error():
    from spacy_sanitize.evaluation.folds import document_folds

    with pytest.raises(ValueError, match="E097"):
        document_folds(["a", "b"], 2, permutation="torch")
