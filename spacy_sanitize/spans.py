"""Helpers for the ``doc.spans[key]`` PII span group: the longest-span merge rule."""
from typing import Iterable, List, Tuple

from spacy.tokens import Doc, Span

from .errors import Errors
from .types import PII_TYPES


def char_before(doc: Doc, i: int) -> str:
    """The character of ``doc.text`` just before token ``i`` ("" at the start), without
    building ``doc.text`` (which joins every token of the document)."""
    if i <= 0:
        return ""
    prev = doc[i - 1]
    return prev.whitespace_ or prev.text[-1:]


def char_after(doc: Doc, i: int) -> str:
    """The character of ``doc.text`` just after token ``i`` ("" at the end)."""
    token = doc[i]
    if token.whitespace_:
        return token.whitespace_
    return doc[i + 1].text[:1] if i + 1 < len(doc) else ""


def is_list_number(doc: Doc, start: int, end: int) -> bool:
    """A paragraph or list number ("1.", "12)") at the start of a line: structure, not PII."""
    if end - start != 1 or not doc[start].like_num:
        return False
    if char_after(doc, start) not in (".", ")"):
        return False
    # First on its line: only whitespace between the previous line break and the number.
    for j in range(start - 1, -1, -1):
        if not doc[j].is_space:
            return False
        if "\n" in doc[j].text:
            return True
    return True


def check_label(label: str) -> str:
    if label not in PII_TYPES:
        raise ValueError(Errors.E001.format(label=label, labels=", ".join(PII_TYPES)))
    return label


def longest_non_overlapping(existing: Iterable[Span], new: Iterable[Span]) -> List[Span]:
    """Merge two span lists so that no spans overlap: the longer span wins, on equal
    length the existing one wins, then the earlier one. A longer existing span is never
    split. Returns the kept spans sorted by position."""
    ranked = [(span, 0) for span in existing] + [(span, 1) for span in new]
    ranked.sort(key=lambda item: (-(item[0].end - item[0].start), item[1], item[0].start))
    taken = set()
    kept: List[Span] = []
    for span, _ in ranked:
        tokens = range(span.start, span.end)
        if span.start == span.end or any(i in taken for i in tokens):
            continue
        taken.update(tokens)
        kept.append(span)
    kept.sort(key=lambda span: (span.start, span.end))
    return kept


def add_pii_spans(doc: Doc, spans: Iterable[Span], key: str = "pii", overwrite: bool = False) -> None:
    """Add ``spans`` to ``doc.spans[key]`` following the longest-span rule."""
    existing: List[Span] = [] if overwrite or key not in doc.spans else list(doc.spans[key])
    doc.spans[key] = longest_non_overlapping(existing, spans)


def add_char_spans(doc: Doc, found: Iterable[Tuple[int, int, str, str]], key: str = "pii") -> None:
    """Add rule matches given as characters, ``(start, end, label, detector)``: each becomes
    the token span covering [start, end) (none when no token is there), records its
    detector in ``Span._.risk_explain["detector"]``, and joins ``doc.spans[key]`` by the
    longest-span rule."""
    spans = []
    for start, end, label, detector in found:
        span = doc.char_span(start, end, label=label, alignment_mode="expand")
        if span is not None:
            span._.risk_explain["detector"] = detector
            spans.append(span)
    add_pii_spans(doc, spans, key)
