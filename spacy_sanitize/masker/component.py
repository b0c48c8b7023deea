"""masker: turns masking decisions into the sanitized text.

A span in ``doc.spans[spans_key]`` is masked unless ``Span._.mask`` is False: a span no
component decided on is masked (fail closed). Overlapping spans to mask are merged into
their union and replaced once, so no character of a span to mask survives. The text
outside replaced spans is copied unchanged.
"""
from typing import Any, Dict, List, Optional, Tuple

from spacy.language import Language
from spacy.tokens import Doc

from ..extensions import register_extensions
from ..registry import strategies
from .strategies import Strategy

Region = Tuple[int, int, str, str]  # start, end, label, entity_id


def regions_to_mask(doc: Doc, spans_key: str) -> List[Region]:
    """Union of the spans to mask; a merged region takes the label and entity id of its
    longest member."""
    spans = sorted(
        (s for s in doc.spans.get(spans_key, []) if s._.mask is not False),
        key=lambda s: (s.start_char, -s.end_char),
    )
    regions: List[Region] = []
    longest = 0
    for span in spans:
        entity_id = span._.entity_id or f"{span.label_}:{span.text}"
        if regions and span.start_char < regions[-1][1]:
            start, end, label, eid = regions[-1]
            if span.end_char - span.start_char > longest:
                label, eid, longest = span.label_, entity_id, span.end_char - span.start_char
            regions[-1] = (start, max(end, span.end_char), label, eid)
        else:
            regions.append((span.start_char, span.end_char, span.label_, entity_id))
            longest = span.end_char - span.start_char
    return regions


def apply_regions(text: str, regions: List[Region], strategy_for: Dict[str, Strategy], default: Strategy) -> Tuple[str, List[List[Any]]]:
    """Replace each region; returns the new text and the replacement rows
    ``[start, end, label, entity_id, replacement, out_start, out_end]``."""
    pieces: List[str] = []
    rows: List[List[Any]] = []
    cursor = out = 0
    for start, end, label, entity_id in regions:
        pieces.append(text[cursor:start])
        out += start - cursor
        replacement = strategy_for.get(label, default)(text[start:end], label, entity_id)
        pieces.append(replacement)
        rows.append([start, end, label, entity_id, replacement, out, out + len(replacement)])
        out += len(replacement)
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces), rows


class Masker:
    def __init__(self, name: str, strategy: Dict[str, Any], operators: Dict[str, Dict[str, Any]], spans_key: str) -> None:
        self.name = name
        self.spans_key = spans_key
        self.default = _build(strategy)
        self.strategy_for = {label: _build(cfg) for label, cfg in operators.items() if label != "DEFAULT"}
        if "DEFAULT" in operators:
            self.default = _build(operators["DEFAULT"])

    def __call__(self, doc: Doc) -> Doc:
        sanitized, rows = apply_regions(doc.text, regions_to_mask(doc, self.spans_key), self.strategy_for, self.default)
        doc._.sanitized = sanitized
        doc._.replacements = rows
        return doc


def _build(cfg: Optional[Dict[str, Any]]) -> Strategy:
    cfg = dict(cfg or {"name": "typed.v1"})
    name = cfg.pop("name", "typed.v1")
    try:
        factory = strategies.get(name)
    except Exception:
        raise ValueError(f"E011: strategy '{name}' is not registered. Registered: {', '.join(sorted(strategies.get_all()))}.") from None
    try:
        return factory(**cfg)
    except TypeError as err:
        raise ValueError(f"E012: invalid parameter for strategy '{name}': {err}.") from None


@Language.factory(
    "masker",
    default_config={"strategy": {"name": "typed.v1"}, "operators": {}, "spans_key": "pii"},
    requires=["doc.spans"],
    assigns=["doc._.sanitized", "doc._.replacements"],
)
def make_masker(nlp: Language, name: str, strategy: Dict[str, Any], operators: Dict[str, Dict[str, Any]], spans_key: str) -> Masker:
    """strategy (dict): ``{"name": "<registered strategy>", **params}`` for every type.
    operators (dict): per-PII-type strategies, with an optional ``DEFAULT``."""
    register_extensions()
    return Masker(name, strategy, operators, spans_key)
