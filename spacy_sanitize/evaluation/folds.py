"""Cross-validation folds by document: every item (an annotator's reference doc, a span
row) of one document lands in the same fold, so no annotator of a test case is seen in
training (TAB cases have 1-10 annotators each)."""
import random
from typing import Dict, List, Mapping, Optional, Sequence


def document_folds(doc_ids: Sequence[str], k: int, seed: int = 0, strata: Optional[Mapping[str, str]] = None) -> List[List[int]]:
    """``k`` folds of item indices, grouped by ``doc_ids[i]``: the distinct ids (sorted) are
    shuffled with ``seed`` and dealt round-robin. With one item per id (sorted by id) this is
    the plain shuffled split the biography benchmarks have always used. ``strata`` (doc id ->
    corpus) deals each corpus in turn, so every fold holds its share of each; one corpus (or
    none) gives the plain split."""
    unique = sorted(set(doc_ids))
    fold_of: Dict[str, int] = {}
    dealt = 0
    for stratum in sorted({(strata or {}).get(d, "") for d in unique}):
        ids = [d for d in unique if (strata or {}).get(d, "") == stratum]
        order = list(range(len(ids)))
        random.Random(seed).shuffle(order)
        fold_of.update({ids[j]: (dealt + n) % k for n, j in enumerate(order)})
        dealt += len(ids)
    folds: List[List[int]] = [[] for _ in range(k)]
    for i, doc_id in enumerate(doc_ids):
        folds[fold_of[doc_id]].append(i)
    return folds
