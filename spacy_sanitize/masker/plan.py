"""The masking plan: which character regions of a document get replaced.

The masker's lower layer, with no component in it: the masker, ``risk_infer`` (the attacker reads the
text as the masker will write it) and the evaluation all call ``masking_plan(doc,
settings)`` with the same ``PlanSettings``. The text helpers it builds on (the propagation
engine ``occurrences``, the name-part rule ``NamePartRule``, ``fold``, the common words)
are in ``text.py``, which the detectors use too.

1. Detected spans: a span is masked unless ``Span._.mask`` is False (fail closed), and
   every mention of an entity with one masked mention is masked.
2. Allow-list: spans whose text is listed are never masked.
3. Deny-list: listed strings are masked wherever they occur as whole words.
4. Propagation: each masked string is also masked wherever else it occurs as a whole
   word (and, for PERSON, each name part, skipping titles, short and common words).
   PERSON strings match in any casing ("INGRID SOLHEIM", "kodnani") and as a plural
   ("the Solheims"), except a lower-case repeat of a single common word ("smith").
5b. Titles (``mask_titles``): a PERSON region takes in the title right before it ("Mr
   Galip Yalman", as TAB's court annotators mark a name; a title tells the gender).
6. Layout: a region never covers a line break; it is split there and the separator kept.
5. Overlaps: ``union`` merges overlapping regions into one (label and entity of the
   longest member); ``separate`` keeps the first and trims the next to what remains.
   Both leave no character of a region unreplaced.
"""
import re
from dataclasses import dataclass, field, replace
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from spacy.tokens import Doc

from ..doc_reads import doc_text
from ..errors import Errors
from ..spans import entity_key
from ..text import COMMON_WORDS, NamePartRule, name_parts, occurrences
from ..types import DEFAULT_SPANS_KEY, PERSON_TITLES, PII_TYPES

OVERLAP_POLICIES = ("union", "separate")
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


@dataclass(frozen=True)
class PlanSettings:
    """The masker's settings that decide what is replaced (its config keys of the same
    names): spans_key, overlap (``union`` or ``separate``), allow_list, deny_list (strings
    or [text, label] pairs; ``deny_label`` for bare strings), propagate,
    propagate_person_parts, min_propagate_chars, mask_titles."""

    spans_key: str = DEFAULT_SPANS_KEY
    overlap: str = "union"
    allow_list: Tuple[str, ...] = ()
    deny_list: Tuple[Any, ...] = ()
    deny_label: str = "MISC"
    propagate: bool = True
    propagate_person_parts: bool = True
    min_propagate_chars: int = 3
    mask_titles: bool = False
    allow: FrozenSet[str] = field(init=False, repr=False, compare=False)
    deny: Tuple[Tuple[str, str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.overlap not in OVERLAP_POLICIES:
            raise ValueError(Errors.E104.format(policy=self.overlap))
        object.__setattr__(self, "allow_list", tuple(self.allow_list))
        object.__setattr__(self, "deny_list", tuple(tuple(d) if isinstance(d, (list, tuple)) else d for d in self.deny_list))
        object.__setattr__(self, "allow", frozenset(s.strip() for s in self.allow_list))
        object.__setattr__(self, "deny", tuple(parse_deny_list(self.deny_list, self.deny_label)))

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any]) -> "PlanSettings":
        """The settings in a masker config (other keys are ignored, missing ones default)."""
        names = (
            "spans_key", "overlap", "allow_list", "deny_list", "deny_label", "propagate", "propagate_person_parts", "min_propagate_chars",
            "mask_titles",
        )
        return cls(**{name: cfg[name] for name in names if name in cfg})

    @property
    def part_rule(self) -> NamePartRule:
        return NamePartRule(self.min_propagate_chars)


def row_entity_id(region: "Region", aliases: Dict[str, str]) -> str:
    """The entity id a replacement row shows: the span's ``entity_id``, or for a key made of the
    original text (``entity_key``'s "LABEL:text" for a span without an id, a deny-list region's
    "deny:term") an alias ``t1``, ``t2``... numbered in the doc (``aliases`` holds them): rows
    are kept and shared with the sanitized text, so they must not carry the text it replaced."""
    key = region.entity_id
    if not key.startswith((f"{region.label}:", "deny:")):
        return key
    return aliases.setdefault(key, f"t{len(aliases) + 1}")


def detected_regions(doc: Doc, spans_key: str, allow: FrozenSet[str]) -> List[Region]:
    """The regions of the detected spans: those not decided False, and every mention of an
    entity with a masked mention."""
    spans = list(doc.spans.get(spans_key, []))
    # each extension value read once per span (an Underscore read costs more than the rest)
    keys = [entity_key(s) for s in spans]
    masked = [s._.mask is not False for s in spans]
    masked_entities = {key for key, m in zip(keys, masked) if m}
    regions = []
    for span, key, mask in zip(spans, keys, masked):
        stripped = span.text.strip()
        if stripped in allow or not stripped:
            continue
        if mask:
            regions.append(Region(span.start_char, span.end_char, span.label_, key))
        elif key in masked_entities:
            regions.append(Region(span.start_char, span.end_char, span.label_, key, "entity"))
    return regions


def propagation_strings(text: str, region: Region, allow: FrozenSet[str], person_parts: bool, rule: NamePartRule) -> List[str]:
    """The strings a masked region propagates: its text and, for PERSON, its name parts."""
    string = text[region.start : region.end].strip()
    candidates = [string]
    if person_parts and region.label == "PERSON":
        candidates += name_parts(string, rule)
    return [c for c in candidates if c not in allow and c.lower() not in COMMON_WORDS and len(c) >= rule.min_chars]


def propagation_owners(text: str, sources: List[Region], allow: FrozenSet[str], person_parts: bool, rule: NamePartRule) -> Dict[str, Region]:
    """Each string to propagate and the region it comes from (the longest one first)."""
    owner: Dict[str, Region] = {}
    for region in sorted(sources, key=lambda r: -r.length):
        for candidate in propagation_strings(text, region, allow, person_parts, rule):
            owner.setdefault(candidate, region)
    return owner


def propagated_regions(text: str, sources: List[Region], allow: FrozenSet[str], person_parts: bool, min_chars: int) -> List[Region]:
    """Whole-word occurrences of masked strings (and PERSON name parts) anywhere."""
    owner = propagation_owners(text, sources, allow, person_parts, NamePartRule(min_chars))
    names = [string for string, region in owner.items() if region.label == "PERSON"]
    return [
        Region(start, end, owner[string].label, owner[string].entity_id, "propagated")
        for start, end, string in occurrences(text, owner, any_case=names)
    ]


def deny_regions(text: str, deny: Sequence[Tuple[str, str]]) -> List[Region]:
    labels = dict(deny)
    return [Region(start, end, labels[string], f"deny:{string}", "deny") for start, end, string in occurrences(text, labels)]


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


def masking_plan(doc: Doc, settings: Optional[PlanSettings] = None, text: Optional[str] = None) -> List[Region]:
    """The regions to replace, sorted and non-overlapping (see the module docstring).
    ``text``: ``doc.text`` when the caller already has it (``Doc.text`` joins every token)."""
    settings = settings or PlanSettings()
    text = doc_text(doc) if text is None else text
    regions = detected_regions(doc, settings.spans_key, settings.allow)
    regions += deny_regions(text, settings.deny)
    if settings.propagate:
        regions += propagated_regions(text, regions, settings.allow, settings.propagate_person_parts, settings.min_propagate_chars)
    if settings.mask_titles:
        regions = with_titles(regions, text)
    return one_label_per_mention(split_at_line_breaks(resolve_overlaps(regions, settings.overlap), text), text)


# A title word ("Mr", "Dr.", "Judge") and the spaces (not a line break) after it, ending
# where a PERSON region starts.
_TITLE_BEFORE = re.compile(r"(?<!\w)([A-Z][a-z]*\.?)[ \t]+$")


def with_titles(regions: List[Region], text: str) -> List[Region]:
    """PERSON regions extended to the title right before them ("Mr " of "Mr Galip Yalman")."""
    out = []
    for region in regions:
        if region.label == "PERSON":
            match = _TITLE_BEFORE.search(text, max(0, region.start - 16), region.start)
            if match and match.group(1).rstrip(".").lower() in PERSON_TITLES:
                region = replace(region, start=match.start())
        out.append(region)
    return out


_LINE_BREAK = re.compile(r"(?<!\s)\s*[\n\r\v\f\u2028\u2029\x1c-\x1e\x85]\s*")


def split_at_line_breaks(regions: List[Region], text: str) -> List[Region]:
    """Each region cut at the line breaks inside it, with the whitespace at its edges
    left out: a replacement never swallows the layout ("John Smith\nAge" keeps its line
    break). Parts of whitespace only are dropped."""
    out: List[Region] = []
    for region in regions:
        piece = text[region.start : region.end]
        if not _LINE_BREAK.search(piece):
            out.append(region)
            continue
        start = region.start
        for match in list(_LINE_BREAK.finditer(piece)) + [None]:
            end = region.start + match.start() if match else region.end
            left, right = start, end
            while left < right and text[left].isspace():
                left += 1
            while right > left and text[right - 1].isspace():
                right -= 1
            if right > left:
                out.append(replace(region, start=left, end=right))
            if match:
                start = region.start + match.end()
    return out

