"""Which character regions of a document the masker replaces.

1. Detected spans: a span is masked unless ``Span._.mask`` is False (fail closed), and
   every mention of an entity with one masked mention is masked.
2. Allow-list: spans whose text is listed are never masked.
3. Deny-list: listed strings are masked wherever they occur as whole words.
4. Propagation: each masked string is also masked wherever else it occurs as a whole
   word (and, for PERSON, each name part, skipping titles, short and common words).
5. Overlaps: ``union`` merges overlapping regions into one (label and entity of the
   longest member); ``separate`` keeps the first and trims the next to what remains.
   Both leave no character of a region unreplaced.
"""
import re
from dataclasses import dataclass, replace
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.tokens import Doc

from ..types import PERSON_TITLES, PII_TYPES
from .errors import Errors
from .strategies.dates import MONTHS, WEEKDAYS

OVERLAP_POLICIES = ("union", "separate")
COMMON_WORDS: FrozenSet[str] = frozenset(STOP_WORDS) | {m.lower() for m in MONTHS + WEEKDAYS} | PERSON_TITLES
_POSSESSIVE = re.compile(r"['’]s?$")


@dataclass
class Region:
    start: int
    end: int
    label: str
    entity_id: str
    source: str = "detected"  # detected | entity | deny | propagated

    @property
    def length(self) -> int:
        return self.end - self.start


def whole_word_pattern(strings: Iterable[str]) -> Optional["re.Pattern[str]"]:
    """One regex for all strings, longest first, matching whole words only."""
    unique = sorted({s for s in strings if s}, key=len, reverse=True)
    if not unique:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(s) for s in unique) + r")(?!\w)")


def parse_deny_list(entries: Sequence[object], default_label: str) -> List[Tuple[str, str]]:
    out: List[Tuple[str, str]] = []
    for entry in entries:
        if isinstance(entry, str) and entry:
            out.append((entry, default_label))
        elif isinstance(entry, (list, tuple)) and len(entry) == 2 and isinstance(entry[0], str) and entry[0] and entry[1] in PII_TYPES:
            out.append((entry[0], str(entry[1])))
        else:
            raise ValueError(Errors.E112.format(entry=entry))
    return out


def detected_regions(doc: Doc, spans_key: str, allow: FrozenSet[str]) -> List[Region]:
    spans = list(doc.spans.get(spans_key, []))
    def eid(span) -> str:
        return span._.entity_id or f"{span.label_}:{span.text}"
    masked_entities = {eid(s) for s in spans if s._.mask is not False}
    regions = []
    for span in spans:
        if span.text.strip() in allow or not span.text.strip():
            continue
        if span._.mask is not False:
            regions.append(Region(span.start_char, span.end_char, span.label_, eid(span)))
        elif eid(span) in masked_entities:
            regions.append(Region(span.start_char, span.end_char, span.label_, eid(span), "entity"))
    return regions


def name_parts(text: str, min_chars: int) -> List[str]:
    parts = []
    for token in text.split():
        token = _POSSESSIVE.sub("", token.strip(".,;:()\"'"))
        if len(token) >= min_chars and token.lower() not in COMMON_WORDS and any(c.isalpha() for c in token):
            parts.append(token)
    return parts


def propagated_regions(text: str, sources: List[Region], allow: FrozenSet[str], person_parts: bool, min_chars: int) -> List[Region]:
    """Whole-word occurrences of masked strings (and PERSON name parts) anywhere."""
    owner: Dict[str, Region] = {}
    for region in sorted(sources, key=lambda r: -r.length):
        string = text[region.start : region.end].strip()
        candidates = [string]
        if person_parts and region.label == "PERSON":
            candidates += name_parts(string, min_chars)
        for candidate in candidates:
            if candidate in allow or candidate.lower() in COMMON_WORDS or len(candidate) < min_chars:
                continue
            owner.setdefault(candidate, region)
    pattern = whole_word_pattern(owner)
    if pattern is None:
        return []
    return [
        Region(m.start(), m.end(), owner[m.group(0)].label, owner[m.group(0)].entity_id, "propagated")
        for m in pattern.finditer(text)
    ]


def deny_regions(text: str, deny: List[Tuple[str, str]]) -> List[Region]:
    labels = dict(deny)
    pattern = whole_word_pattern(labels)
    if pattern is None:
        return []
    return [Region(m.start(), m.end(), labels[m.group(0)], f"deny:{m.group(0)}", "deny") for m in pattern.finditer(text)]


def resolve_overlaps(regions: List[Region], policy: str) -> List[Region]:
    """Non-overlapping regions that together cover every character of ``regions``."""
    if policy not in OVERLAP_POLICIES:
        raise ValueError(Errors.E104.format(policy=policy))
    ordered = sorted((r for r in regions if r.end > r.start), key=lambda r: (r.start, -r.end))
    out: List[Region] = []
    longest: Optional[Region] = None
    for region in ordered:
        if out and region.start < out[-1].end:
            last = out[-1]
            if region.end <= last.end and policy == "separate":
                continue
            if policy == "separate":
                out.append(Region(last.end, region.end, region.label, region.entity_id, region.source))
                longest = out[-1]
                continue
            assert longest is not None
            if region.length > longest.length:
                longest = region
            out[-1] = Region(last.start, max(last.end, region.end), longest.label, longest.entity_id, last.source)
        else:
            out.append(Region(region.start, region.end, region.label, region.entity_id, region.source))
            longest = region
    return out


def regions_to_mask(
    doc: Doc,
    spans_key: str = "pii",
    allow: FrozenSet[str] = frozenset(),
    deny: Sequence[Tuple[str, str]] = (),
    propagate: bool = True,
    person_parts: bool = True,
    min_chars: int = 3,
    overlap: str = "union",
) -> List[Region]:
    """The regions to replace, sorted and non-overlapping (see the module docstring)."""
    text = doc.text
    regions = detected_regions(doc, spans_key, allow)
    regions += deny_regions(text, list(deny))
    if propagate:
        regions += propagated_regions(text, regions, allow, person_parts, min_chars)
    return one_label_per_mention(resolve_overlaps(regions, overlap), text)


def one_label_per_mention(regions: List[Region], text: str) -> List[Region]:
    """Repeated identical mentions of one entity take the type of the first: the masker
    replaces such a mention once, so detectors disagreeing on its type must not give it two.
    Other mentions keep their own type, which surrogates and generalization need."""
    first: Dict[Tuple[str, str], str] = {}
    out = []
    for region in regions:
        label = first.setdefault((region.entity_id, text[region.start : region.end]), region.label)
        out.append(region if label == region.label else replace(region, label=label))
    return out
