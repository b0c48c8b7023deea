"""The one way a decision threshold is chosen from scores: every fitting (``risk_perturb``'s
``initialize``, the decision's inner cross-validation in ``benchmarks/quality/tab_eval.py`` and
``benchmarks/quality/loco_eval.py``) scores candidate thresholds and hands the curve here.

A curve maps each candidate threshold to its TAB scores (``P``, ``F1``, ``R_direct``,
``R_quasi``, ... as :func:`scores_row` writes them). Ties go to the lower threshold: a lower
threshold masks more, so when two settings score alike the safer one wins.
"""
from typing import Any, Callable, Dict, Mapping, Union

from ..errors import Errors

Curve = Mapping[float, Mapping[str, float]]
# Scores of the same counts tie exactly; a float sum of three may differ in its last bits.
TIE = 1e-12

# P + R_direct + R_quasi: seed 000's cost function ("cost_function"); "f1" as risk_perturb's
# setting writes it; any other name is a column.
OBJECTIVES: Dict[str, Callable[[Mapping[str, float]], float]] = {
    "paper": lambda row: row["P"] + row["R_direct"] + row["R_quasi"],
    "f1": lambda row: row["F1"],
}


def scores_row(scores: Any) -> Dict[str, float]:
    """The columns a curve holds, from :class:`~spacy_sanitize.evaluation.TabScores`."""
    return {"P": scores.precision, "R_all": scores.recall, "F1": scores.f1, "R_direct": scores.direct_recall, "R_quasi": scores.quasi_recall}


def objective_value(row: Mapping[str, float], objective: str = "F1") -> float:
    """``row``'s value under ``objective``: ``paper`` (P + R_direct + R_quasi) or a column name."""
    rule = OBJECTIVES.get(objective)
    return rule(row) if rule is not None else float(row[objective])


def best_threshold(curve: Curve, objective: Union[str, Callable[[Mapping[str, float]], float]] = "F1") -> float:
    """The threshold of ``curve`` with the best ``objective`` (a name for
    :func:`objective_value`, or a function of a row); ties go to the lower (safer) one."""
    if not curve:
        raise ValueError(Errors.E098)
    value = objective if callable(objective) else lambda row: objective_value(row, objective)
    values = {float(t): value(row) for t, row in curve.items()}
    top = max(values.values())
    return min(t for t, v in values.items() if v >= top - TIE)


def recall_first_threshold(curve: Curve, min_quasi: float) -> float:
    """The highest threshold whose R_quasi reaches ``min_quasi`` (recall first, then
    precision: how ``court``'s thresholds were chosen); the lowest when none does."""
    if not curve:
        raise ValueError(Errors.E098)
    ok = [float(t) for t, row in curve.items() if row["R_quasi"] >= min_quasi]
    return max(ok) if ok else float(min(curve))
