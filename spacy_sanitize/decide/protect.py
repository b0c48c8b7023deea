"""The person to protect (``Doc._.protect``): an optional input naming the person(s) whose
identity the masking is for (TAB's annotators are told: ``meta.applicant``).

When a document names them, the deciders (``risk_vote``, ``risk_threshold``) keep masked every
detected span that shares a name part with them, whatever its label and the indicators' votes:
an indicator that learnt "court names stay in clear" must not un-mask "the Yalman family".
Matching is case-insensitive and ignores titles ("Mr", "Judge"): a span matches when one of its
word tokens is one of the name's non-title parts of two or more characters (initials alone are
too ambiguous to decide on).
"""
import warnings
from typing import Any, FrozenSet, List, Mapping, Optional, Sequence

from ..errors import Errors, Warnings
from ..text import words
from ..types import PERSON_TITLES

MIN_PART_CHARS = 2


def protected_names(value: Any) -> List[str]:
    """``Doc._.protect`` as a list of names: None = nobody, a string = one person, a list or
    tuple of strings = several. Anything else is a coded error (the user's setting cannot be
    read, so it is not silently dropped)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return [v for v in value if v.strip()]
    raise ValueError(Errors.E706.format(value=value))


def name_parts(names: Sequence[str]) -> FrozenSet[str]:
    """The casefolded non-title word parts of the names ("Mr Galip Yalman" -> galip, yalman)."""
    return frozenset(w for name in names for w in words(name) if w not in PERSON_TITLES and len(w) >= MIN_PART_CHARS)


def matched_parts(span_text: str, parts: FrozenSet[str]) -> List[str]:
    """The protected name parts among the span's words, sorted (empty: no match)."""
    return sorted({w for w in words(span_text) if w in parts})


def protect_from_record(record_meta: Mapping[str, Any], field: str) -> Optional[Any]:
    """The value for ``Doc._.protect`` from a record's metadata: ``field`` is a dotted path
    (``meta.applicant`` reads ``record_meta["meta"]["applicant"]``). A record without the field
    gives None and warning W701 (the user asked for a field: its absence is said, not hidden);
    a value that is not a name or a list of names is error E706."""
    value: Any = record_meta
    for key in field.split("."):
        if not isinstance(value, Mapping) or key not in value:
            warnings.warn(Warnings.W701.format(field=field), stacklevel=2)
            return None
        value = value[key]
    protected_names(value)  # validate
    return list(value) if isinstance(value, tuple) else value
