"""The masking plan moved to ``spacy_sanitize.masking_plan`` (a lower layer that risk
components and the evaluation use too); these names stay importable from here."""
from typing import FrozenSet, List, Sequence, Tuple

from spacy.tokens import Doc

from ..masking_plan import (  # noqa: F401
    COMMON_WORDS,
    OVERLAP_POLICIES,
    PlanSettings,
    Region,
    deny_regions,
    detected_regions,
    masking_plan,
    name_parts,
    one_label_per_mention,
    parse_deny_list,
    propagated_regions,
    resolve_overlaps,
    whole_word_pattern,
)


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
    """``masking_plan`` with the settings as arguments (``deny`` as (text, label) pairs)."""
    settings = PlanSettings(spans_key, overlap, tuple(allow), tuple(deny), "MISC", propagate, person_parts, min_chars)
    return masking_plan(doc, settings)
