"""PII types, identifier types and small shared types."""
from typing import Tuple

PII_TYPES: Tuple[str, ...] = (
    "PERSON",
    "ORG",
    "LOC",
    "DATETIME",
    "CODE",
    "QUANTITY",
    "DEM",
    "MISC",
)
IDENTIFIER_TYPES: Tuple[str, ...] = ("DIRECT", "QUASI", "NO_MASK")
MASK_LABELS: Tuple[str, ...] = ("DIRECT", "QUASI")

DEFAULT_SPANS_KEY = "pii"
GOLD_MASK_KEY = "mask"

CharSpan = Tuple[int, int]
