"""Fitting and checking pii_confidence: the detector runs over annotated documents, each
detected span is a positive when an annotator masks most of it, and the calibration is
measured out of fold with CV grouped by document (``scripts/train_confidence.py``)."""
import math
from typing import Any, Dict, List, Sequence, Tuple

from spacy.language import Language

from ..corpus.tab import TabDocument
from ..detect.confidence import ConfidenceModel, doc_features, span_targets
from ..evaluation.folds import document_folds
from ..evaluation.scorer import detect_docs

Rows = List[List[str]]


def masked_offsets(document: TabDocument) -> List[List[int]]:
    """The character spans any annotator of ``document`` masks (DIRECT or QUASI)."""
    return [[m.start, m.end] for mentions in document.annotations.values() for m in mentions if m.needs_masking]


def detected_rows(nlp: Language, documents: Sequence[TabDocument], group_prefix: str = "") -> Tuple[Rows, List[int], List[str]]:
    """(indicator rows, 0/1 targets, group ids) of the spans ``nlp``'s detector finds in
    ``documents``, as pii_confidence sees them: the components before it run (the whole
    pipeline but the masker when it has none)."""
    names = nlp.pipe_names
    own = [i for i, n in enumerate(names) if nlp.get_pipe_meta(n).factory == "pii_confidence"]
    disable = names[own[0]:] if own else []
    with nlp.select_pipes(disable=disable):
        docs = detect_docs(nlp, [d.text for d in documents])
    rows: Rows = []
    targets: List[int] = []
    groups: List[str] = []
    for document, doc in zip(documents, docs):
        doc_rows = doc_features(doc)
        rows += doc_rows
        targets += span_targets(doc, masked_offsets(document))
        groups += [group_prefix + document.doc_id] * len(doc_rows)
    return rows, targets, groups


def out_of_fold(rows: Rows, targets: Sequence[int], groups: Sequence[str], k: int = 5, seed: int = 0, C: float = 1.0) -> List[float]:
    """Each span's confidence from a model fit on the other folds (all spans of one
    document in one fold)."""
    predicted = [0.0] * len(rows)
    for held in document_folds(groups, k, seed):
        if not held:
            continue
        held_set = set(held)
        train = [i for i in range(len(rows)) if i not in held_set]
        model = ConfidenceModel.fit([rows[i] for i in train], [targets[i] for i in train], C=C)
        for i, p in zip(held, model.predict([rows[i] for i in held])):
            predicted[i] = p
    return predicted


def brier(predicted: Sequence[float], targets: Sequence[int]) -> float:
    return sum((p - t) ** 2 for p, t in zip(predicted, targets)) / max(1, len(targets))


def log_loss(predicted: Sequence[float], targets: Sequence[int]) -> float:
    eps = 1e-6
    return -sum(t * math.log(max(p, eps)) + (1 - t) * math.log(max(1 - p, eps)) for p, t in zip(predicted, targets)) / max(1, len(targets))


def reliability(predicted: Sequence[float], targets: Sequence[int], bins: int = 10) -> List[Dict[str, Any]]:
    """Per bin of predicted confidence ([0, 0.1), ... [0.9, 1]): spans, mean predicted and
    observed precision (the share of them an annotator masks)."""
    table = []
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        members = [i for i, p in enumerate(predicted) if low <= p < high or (b == bins - 1 and p == 1.0)]
        if not members:
            continue
        table.append({
            "bin": f"{low:.1f}-{high:.1f}",
            "spans": len(members),
            "predicted": round(sum(predicted[i] for i in members) / len(members), 3),
            "observed": round(sum(targets[i] for i in members) / len(members), 3),
        })
    return table


def expected_calibration_error(predicted: Sequence[float], targets: Sequence[int], bins: int = 10) -> float:
    n = max(1, len(targets))
    return sum(row["spans"] / n * abs(row["predicted"] - row["observed"]) for row in reliability(predicted, targets, bins))
