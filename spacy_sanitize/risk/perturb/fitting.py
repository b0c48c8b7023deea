"""Threshold fitting for risk_perturb: the influence table of gold documents and the
threshold that maximizes the TAB objective (also used by benchmarks/quality/perturb_eval.py)."""
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from spacy.tokens import Doc

from ...types import DEFAULT_SPANS_KEY
from .influence import DocInfluence

OBJECTIVES = ("paper", "f1")
SpanTable = List[Tuple[int, int, Optional[float]]]


def span_table(doc: Doc, info: Union[DocInfluence, str], spans_key: str = DEFAULT_SPANS_KEY) -> SpanTable:
    """(start, end, influence) per span; influence None when it could not be measured."""
    spans = list(doc.spans.get(spans_key, []))
    values: Sequence[Optional[float]] = (
        [None] * len(spans) if isinstance(info, str) else info.span_influences()
    )
    return [(s.start_char, s.end_char, v) for s, v in zip(spans, values)]


def predictions_at(table: Dict[str, SpanTable], threshold: float) -> Dict[str, List[List[int]]]:
    """The spans masked at ``threshold``: influence >= threshold, or not measurable (fail closed)."""
    return {
        doc_id: [[s, e] for s, e, v in rows if v is None or v >= threshold]
        for doc_id, rows in table.items()
    }


def candidate_thresholds(table: Dict[str, SpanTable], n: int = 80) -> List[float]:
    """Thresholds between the observed influences (quantiles), plus one below all of them
    (mask everything) and one above (mask only what cannot be measured)."""
    import numpy

    values = numpy.asarray(
        sorted(v for rows in table.values() for _, _, v in rows if v is not None)
    )
    if not len(values):
        return [0.0]
    qs = numpy.unique(numpy.quantile(values, numpy.linspace(0, 1, n + 1)))
    mids = [(a + b) / 2 for a, b in zip(qs[:-1], qs[1:])]
    return [float(values[0] - 1.0)] + [float(m) for m in mids] + [float(values[-1] + 1.0)]


def fit_threshold(
    gold: Sequence[Any],
    table: Dict[str, SpanTable],
    objective: str = "paper",
    tokens: Any = None,
    n_candidates: int = 80,
) -> Tuple[float, List[Dict[str, float]]]:
    """The threshold maximizing ``objective`` (``paper``: P + R_direct + R_quasi, seed 000's
    "cost_function"; ``F1``) of the TAB scores on ``gold`` (TabDocuments), chosen by
    :func:`~spacy_sanitize.evaluation.thresholds.best_threshold` (ties: the lowest, more
    masking). Returns it and the whole curve."""
    from ...evaluation import tab_scores
    from ...evaluation.thresholds import best_threshold, objective_value, scores_row

    gold = [g for g in gold if g.doc_id in table]
    rows = {t: scores_row(tab_scores(gold, predictions_at(table, t), tokens=tokens)) for t in candidate_thresholds(table, n_candidates)}
    curve = [{"threshold": t, "objective": objective_value(row, objective), **row} for t, row in rows.items()]
    return best_threshold(rows, objective), curve
