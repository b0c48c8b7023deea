"""Helpers for the ``doc.spans[key]`` PII span group: the longest-span merge rule."""
import bisect
from typing import Any, Iterable, List, Optional, Sequence, Tuple

from spacy.tokens import Doc, Span

from .errors import Errors
from .types import PII_TYPES, RULE_DETECTORS


class SortedRanges:
    """Non-overlapping character ranges (rows whose first two items are start and end: the
    masker's replacement rows, its plan's regions as pairs), searched by bisection: a document's
    spans are looked up in O(n log n), not O(n * rows)."""

    def __init__(self, rows: Sequence[Sequence[Any]]) -> None:
        self.rows = sorted(rows, key=lambda row: row[0])
        self.ends = [row[1] for row in self.rows]

    def covering(self, start: int, end: int) -> Optional[Sequence[Any]]:
        """The first row overlapping [start, end), or None."""
        i = bisect.bisect_right(self.ends, start)
        if i < len(self.rows) and self.rows[i][0] < end:
            return self.rows[i]
        return None


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


# Span._.risk_explain flag of an identifier whose format or check digits were verified
# (pii_codes: phone numbers, IP/MAC addresses, IBANs, cards, national IDs).
VALIDATED = "validated"


def is_validated(span: Span) -> bool:
    """Whether ``span`` is a validated identifier (read without creating an explain dict).
    The flag holds the label the validating detector wrote: a span of another label with
    the same offsets (they share ``risk_explain``) is not the validated one."""
    explain = span.doc.user_data.get(("._.", "risk_explain", span.start_char, span.end_char))
    return isinstance(explain, dict) and explain.get(VALIDATED) == span.label_


def _longest(ranked: List[Tuple[Span, int]]) -> List[Span]:
    ranked.sort(key=lambda item: (-(item[0].end - item[0].start), item[1], item[0].start))
    taken = set()
    kept: List[Span] = []
    for span, _ in ranked:
        tokens = range(span.start, span.end)
        if span.start == span.end or any(i in taken for i in tokens):
            continue
        taken.update(tokens)
        kept.append(span)
    return kept


def _outside(span: Span, taken: set) -> List[Span]:
    """The parts of ``span`` outside the ``taken`` tokens, with its label, entity id and
    explanation; parts of punctuation and spaces only are dropped."""
    doc = span.doc
    parts: List[Span] = []
    start = None
    for i in range(span.start, span.end + 1):
        inside = i < span.end and i not in taken
        if inside and start is None:
            start = i
        elif not inside and start is not None:
            if any(not (doc[j].is_punct or doc[j].is_space) for j in range(start, i)):
                part = Span(doc, start, i, label=span.label_)
                part._.entity_id = span._.entity_id
                part._.risk_explain = {**span._.risk_explain, "cut_by_validated_code": True}
                parts.append(part)
            start = None
    return parts


def longest_non_overlapping(existing: Iterable[Span], new: Iterable[Span]) -> List[Span]:
    """Merge two span lists so that no spans overlap: a validated identifier (``VALIDATED``)
    wins over every span it overlaps, which keeps its parts outside it ("Ring +44 20 7946
    0958" tagged PERSON becomes PERSON "Ring" + the CODE); otherwise the longer span wins, on
    equal length the existing one wins, then the earlier one, and a longer existing span is
    never split. Returns the kept spans sorted by position."""
    ranked = [(span, 0) for span in existing] + [(span, 1) for span in new]
    first = _longest([item for item in ranked if is_validated(item[0])])
    taken = {i for span in first for i in range(span.start, span.end)}
    rest: List[Tuple[Span, int]] = []
    for span, origin in ranked:
        if is_validated(span):
            continue
        if taken and any(i in taken for i in range(span.start, span.end)):
            rest.extend((part, origin) for part in _outside(span, taken))
        else:
            rest.append((span, origin))
    kept = first + _longest(rest)
    kept.sort(key=lambda span: (span.start, span.end))
    return kept


def name_detector(span: Span, name: str) -> None:
    """Record ``name`` as the detector of a recognizer's ``span`` unless a rule found the same
    characters first (``RULE_DETECTORS``): the rule is why the span is there (its protection,
    pii_refine's trust in rules), and ``Span._.risk_explain`` is shared by spans of the same characters."""
    if not str(span._.risk_explain.get("detector", "")).startswith(RULE_DETECTORS):
        span._.risk_explain["detector"] = name


def add_pii_spans(doc: Doc, spans: Iterable[Span], key: str = "pii", overwrite: bool = False) -> None:
    """Add ``spans`` to ``doc.spans[key]`` following the longest-span rule."""
    existing: List[Span] = [] if overwrite or key not in doc.spans else list(doc.spans[key])
    doc.spans[key] = longest_non_overlapping(existing, spans)


def add_char_spans(doc: Doc, found: Iterable[Tuple[int, int, str, str]], key: str = "pii", validated: bool = False) -> None:
    """Add rule matches given as characters, ``(start, end, label, detector)``: each becomes
    the token span covering [start, end) (none when no token is there), records its
    detector in ``Span._.risk_explain["detector"]`` (and, with ``validated``, its label
    under ``VALIDATED``), and joins ``doc.spans[key]`` by the longest-span rule."""
    spans = []
    for start, end, label, detector in found:
        span = doc.char_span(start, end, label=label, alignment_mode="expand")
        if span is not None:
            span._.risk_explain["detector"] = detector
            if validated:
                span._.risk_explain[VALIDATED] = label
            spans.append(span)
    add_pii_spans(doc, spans, key)


def entity_key(span: Any) -> str:
    """The entity a span belongs to: its ``entity_id``, else its label and text."""
    return span._.entity_id or f"{span.label_}:{span.text}"
