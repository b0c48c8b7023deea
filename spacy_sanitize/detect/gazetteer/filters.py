"""pii_gazetteer's noise-control settings and the cached look-ups its filters make per match."""
from functools import lru_cache
from typing import Dict

from ...text import zipf
from .normalize import term_key


SETTINGS = ("min_chars", "max_zipf", "max_zipf_capitalized", "min_count")
DEFAULT_FILTERS: Dict[str, Dict[str, float]] = {
    "all": {"min_chars": 3, "max_zipf": 5.0, "max_zipf_capitalized": 6.0, "min_count": 0},
}
SENTENCE_BREAKS = frozenset({".", "!", "?", ":", ";", '"', "“", "”", "(", "-", "–", "—", "•", "*"})


@lru_cache(maxsize=200_000)
def term_zipf(term: str) -> float:
    return float(zipf(term))


@lru_cache(maxsize=200_000)
def cached_term_key(text: str) -> str:
    """``term_key`` of a term or a matched text, cached: the same few thousand recur."""
    return term_key(text)
