"""Extension attributes of the data contract (see DESIGN.md).

Span values live in ``doc.user_data`` under spaCy's own key layout
``("._.", name, start_char, end_char)``: two spans with the same offsets share them,
and they survive ``DocBin(store_user_data=True)`` and multiprocessing. Dict-valued
attributes are created on first access, so ``span._.risk["x"] = 0.3`` just works.
"""
from typing import Any, Callable, Dict, List, Optional

from spacy.tokens import Doc, Span

SPAN_DICT_ATTRS = ("risk", "risk_explain")
# confidence: pii_confidence's calibrated probability that the span is a mention to mask.
SPAN_VALUE_ATTRS = {"entity_id": None, "mask": None, "confidence": None}
DOC_VALUE_ATTRS = {
    "sanitized": None,
    "replacements": None,
    "privacy": None,
    "doc_id": None,
    "annotator": None,
    "risk_infer": None,
    "protect": None,
    # the masker: spans its min_confidence kept in clear
    "kept_below_confidence": None,
}


_NESTED = (list, tuple, dict)


def _lists(value: Any) -> Any:
    """msgpack gives tuples back for lists (DocBin, multiprocessing): undo that, in place where
    the value is a list or a dict (read on every access: a value without tuples is not copied)."""
    if isinstance(value, tuple):
        return [_lists(v) for v in value]
    if isinstance(value, list):
        for i, v in enumerate(value):
            if isinstance(v, _NESTED):
                value[i] = _lists(v)
        return value
    if isinstance(value, dict):
        for key, v in value.items():
            if isinstance(v, _NESTED):
                value[key] = _lists(v)  # same keys: assigning during iteration is safe
        return value
    return value


def _span_key(name: str, span: Span) -> tuple:
    return ("._.", name, span.start_char, span.end_char)


def _dict_getter(name: str) -> Callable[[Span], Dict[str, Any]]:
    def getter(span: Span) -> Dict[str, Any]:
        return _lists(span.doc.user_data.setdefault(_span_key(name, span), {}))

    return getter


def _dict_setter(name: str) -> Callable[[Span, Optional[Dict[str, Any]]], None]:
    def setter(span: Span, value: Optional[Dict[str, Any]]) -> None:
        span.doc.user_data[_span_key(name, span)] = dict(value or {})

    return setter


def _doc_getter(name: str) -> Callable[[Doc], Any]:
    def getter(doc: Doc) -> Any:
        value = doc.user_data.get(("._.", name, None, None))
        return _lists(value) if isinstance(value, tuple) else value

    return getter


def _doc_setter(name: str) -> Callable[[Doc, Any], None]:
    def setter(doc: Doc, value: Any) -> None:
        doc.user_data[("._.", name, None, None)] = value

    return setter


def register_extensions(force: bool = False) -> None:
    """Register the contract's extension attributes (idempotent)."""
    for name in SPAN_DICT_ATTRS:
        if force or not Span.has_extension(name):
            Span.set_extension(name, getter=_dict_getter(name), setter=_dict_setter(name), force=True)
    for name, default in SPAN_VALUE_ATTRS.items():
        if force or not Span.has_extension(name):
            Span.set_extension(name, default=default, force=True)
    for name in DOC_VALUE_ATTRS:
        if force or not Doc.has_extension(name):
            Doc.set_extension(name, getter=_doc_getter(name), setter=_doc_setter(name), force=True)


def replacements_as_dicts(doc: Doc) -> List[Dict[str, Any]]:
    """``Doc._.replacements`` as a list of dicts (it is stored as msgpack-safe lists)."""
    fields = ("start", "end", "label", "entity_id", "replacement", "out_start", "out_end")
    return [dict(zip(fields, row)) for row in (doc._.replacements or [])]
