"""Cross-validation folds by document: every item (an annotator's reference doc, a span
row) of one document lands in the same fold, so no annotator of a test case is seen in
training (TAB cases have 1-10 annotators each). The project's one fold splitter: the other
fold helpers (``risk.span_classifier.group_folds``, ``training.adversarial.fold_indices``)
only reshape its folds."""
import random
from typing import Dict, List, Mapping, Optional, Sequence

from ..errors import Errors

# How the distinct document ids are shuffled. "python" (random.Random) for everything new; the
# two numpy generators reproduce the folds of the committed tables that were made with them
# (risk_llm_prob's model selection and the perturbation benchmark: RandomState; the risk_infer
# attacks: default_rng). The same seed gives other folds under each.
PERMUTATIONS = ("python", "numpy", "numpy-generator")


def _order(n: int, seed: int, permutation: str) -> List[int]:
    if permutation == "python":
        order = list(range(n))
        random.Random(seed).shuffle(order)
        return order
    import numpy

    if permutation == "numpy":
        return [int(i) for i in numpy.random.RandomState(seed).permutation(n)]
    if permutation == "numpy-generator":
        return [int(i) for i in numpy.random.default_rng(seed).permutation(n)]
    raise ValueError(Errors.E097.format(options=", ".join(PERMUTATIONS), value=permutation))


def document_folds(doc_ids: Sequence[str], k: int, seed: int = 0, strata: Optional[Mapping[str, str]] = None,
                   permutation: str = "python") -> List[List[int]]:
    """``k`` folds of item indices, grouped by ``doc_ids[i]``: the distinct ids (sorted) are
    shuffled with ``seed`` (by ``permutation``, see ``PERMUTATIONS``) and dealt round-robin.
    With one item per id (sorted by id) this is the plain shuffled split the biography
    benchmarks have always used. ``strata`` (doc id -> corpus) deals each corpus in turn, so
    every fold holds its share of each; one corpus (or none) gives the plain split."""
    unique = sorted(set(doc_ids))
    fold_of: Dict[str, int] = {}
    dealt = 0
    for stratum in sorted({(strata or {}).get(d, "") for d in unique}):
        ids = [d for d in unique if (strata or {}).get(d, "") == stratum]
        order = _order(len(ids), seed, permutation)
        fold_of.update({ids[j]: (dealt + n) % k for n, j in enumerate(order)})
        dealt += len(ids)
    folds: List[List[int]] = [[] for _ in range(k)]
    for i, doc_id in enumerate(doc_ids):
        folds[fold_of[doc_id]].append(i)
    return folds


def index_ids(n: int) -> List[str]:
    """Ids of documents 0..n-1 that sort as their numbers (folds of document indices)."""
    return [f"{i:09d}" for i in range(n)]
