"""Regular-expression helpers shared by the rule detectors."""
import re
from typing import Iterable


def alternatives(words: Iterable[str], space: str = r"\s+") -> str:
    """``words`` as one regex alternation, each escaped with its spaces matched by ``space``,
    longest first (so "Dr med" wins over "Dr" at the same position)."""
    return "|".join(sorted((re.escape(w).replace(r"\ ", space) for w in words), key=len, reverse=True))
