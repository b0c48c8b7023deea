"""displaCy views of the PII spans: by type (the colours of the review report), or by
decision (each span labelled with its type, outcome and highest risk score).

``displacy.render(doc, style="span", options=displacy_options())`` works on any processed
Doc; ``render(doc, view="decision")`` builds the decision view (displaCy's
manual ``ent`` format: the labels inline).
Both work in Jupyter (``jupyter=None`` detects it, as displaCy does).
"""
from typing import Any, Dict, List, Optional

from spacy import displacy
from spacy.tokens import Doc

from ..errors import Errors
from ..types import DEFAULT_SPANS_KEY
from .html import TYPE_COLORS
from ..spans import SortedRanges
from .why import span_why

VIEWS = ("type", "decision")
DECISION_COLORS = {"masked": "#a5d6a7", "kept": "#ef9a9a", "failed_closed": "#ffcc80", "undecided": "#e0e0e0"}


def displacy_options(spans_key: str = DEFAULT_SPANS_KEY, **options: Any) -> Dict[str, Any]:
    """displaCy span options with the report's colour per PII type."""
    return {"spans_key": spans_key, "colors": dict(TYPE_COLORS), **options}


def _decision(span: Any, replaced: Optional[SortedRanges]) -> str:
    if replaced is None:  # no masker ran: only the decision is known
        return "undecided" if span._.mask is None else ("masked" if span._.mask else "kept")
    return str(span_why(span, replaced)["decision"])


def displacy_data(doc: Doc, spans_key: str = DEFAULT_SPANS_KEY) -> Dict[str, Any]:
    """The decision view in displaCy's manual ``ent`` format (labels inline, the text as it
    is), and its colours under ``"colors"``: each span labelled ``TYPE decision`` with its
    highest risk score."""
    spans: List[Dict[str, Any]] = []
    colors: Dict[str, str] = {}
    replaced = SortedRanges(doc._.replacements) if doc._.replacements is not None else None  # sorted once per doc
    for span in doc.spans.get(spans_key, []):
        decision = _decision(span, replaced)
        risks = span._.risk
        label = f"{span.label_} {decision.replace('_', ' ')}" + (f" · risk {max(risks.values()):.2f}" if risks else "")
        colors[label] = DECISION_COLORS[decision]
        spans.append({"start": span.start_char, "end": span.end_char, "label": label})
    return {"text": doc.text, "ents": spans, "title": None, "colors": colors}


def render(
    doc: Doc, view: str = "type", spans_key: str = DEFAULT_SPANS_KEY, jupyter: Optional[bool] = None, page: bool = False, options: Optional[Dict[str, Any]] = None
) -> Any:
    """displaCy markup of the PII spans of ``doc``. view (str): ``type`` (colour per PII
    type) or ``decision`` (masked / kept in clear / failed closed, with the risk).
    RETURNS (str): the markup; in Jupyter (``jupyter`` True, or None there) it is displayed
    instead and displaCy's display result returned, as ``displacy.render`` does."""
    if view not in VIEWS:
        raise ValueError(Errors.E902.format(view=view, views=", ".join(VIEWS)))
    if view == "type":
        return displacy.render(doc, style="span", jupyter=jupyter, page=page, options=displacy_options(spans_key, **(options or {})))
    data = displacy_data(doc, spans_key)
    colors = data.pop("colors")
    return displacy.render(data, style="ent", manual=True, jupyter=jupyter, page=page, options={"colors": colors, **(options or {})})
