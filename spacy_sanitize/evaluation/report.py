"""What ``spacy-sanitize evaluate`` reports: checks that keep a figure from misleading
(predictions for other documents, scores without support) and the printed table."""
import warnings
from typing import Any, Dict, Mapping, Optional, Sequence

from ..corpus.tab import TabDocument
from ..errors import Errors, Warnings
from ..io import InputError
from .tab_metrics import MASKING_KEYS


class PredictionsMismatch(InputError):
    """No predicted doc id names a gold document (bad input: the CLI exits 2)."""


def check_prediction_ids(gold: Sequence[TabDocument], predictions: Mapping[str, Any], path: str) -> None:
    """Raise (E099) when no predicted doc id names a gold document: scoring would print zeros
    as if the system masked nothing. Warn (W098) when only some do."""
    gold_ids = {document.doc_id for document in gold}
    unmatched = [doc_id for doc_id in predictions if doc_id not in gold_ids]
    matched = len(predictions) - len(unmatched)
    if gold_ids and not matched:
        examples = ", ".join(repr(doc_id) for doc_id in unmatched[:3]) or "none"
        raise PredictionsMismatch(
            Errors.E099.format(path=path, n=len(predictions), n_gold=len(gold_ids), examples=examples, gold_example=repr(sorted(gold_ids)[0]))
        )
    if unmatched or matched < len(gold_ids):
        warnings.warn(
            Warnings.W098.format(
                path=path, unmatched=len(unmatched), n=len(predictions), missing=len(gold_ids) - matched, n_gold=len(gold_ids),
                examples=", ".join(repr(doc_id) for doc_id in unmatched[:3]) or "none",
            ),
            stacklevel=2,
        )


def _undefined(row: Mapping[str, Any]) -> Dict[str, Any]:
    """A P/R/F1 row with the ratios that have no denominator as None: recall and F1 of a
    type with no gold token, precision of one with no predicted token (0.000 would read as
    a measured failure)."""
    row = dict(row)
    if not row.get("support"):
        row["R"] = row["F1"] = None
    if "predicted" in row and not row["predicted"]:
        row["P"] = row["F1"] = None
    return row


def with_undefined(detection: Mapping[str, Any]) -> Dict[str, Any]:
    """``DetectionScores.as_dict()`` with the undefined ratios as None (null in JSON)."""
    return {
        **detection,
        "per_type": {label: _undefined(row) for label, row in detection["per_type"].items()},
        "micro_labelled": _undefined(detection["micro_labelled"]),
        "micro_unlabelled": _undefined(detection["micro_unlabelled"]),
    }


def _cell(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.3f}"


def format_table(result: Mapping[str, Any]) -> str:
    """The masking scores and, when present, the detection scores as Markdown tables;
    a ratio without support prints ``-``."""
    masking = result["masking"]
    lines = ["| " + " | ".join(MASKING_KEYS) + " |", "|" + "---|" * len(MASKING_KEYS), "| " + " | ".join(_cell(masking[k]) for k in MASKING_KEYS) + " |"]
    if "detection" in result:
        det = result["detection"]
        lines += ["", "| detection | P | R | F1 | support |", "|---|---|---|---|---|"]
        rows = [*det["per_type"].items(), *((name, det[name]) for name in ("micro_labelled", "micro_unlabelled"))]
        for label, row in rows:
            lines.append(f"| {label} | {_cell(row['P'])} | {_cell(row['R'])} | {_cell(row['F1'])} | {int(row.get('support', 0))} |")
    return "\n".join(lines)
