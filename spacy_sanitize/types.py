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
# the rule detectors: refine trusts their spans as found, and a recognizer's span of the same
# characters keeps the rule's name (the rule is why it is there)
RULE_DETECTORS = ("pii_codes", "pii_script", "pii_titles", "pii_propn")

# English month and weekday names (dates strategy; never a name part on their own).
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
GOLD_MASK_KEY = "mask"


# Titles and honorifics: never a name part on their own (coreference, propagation).
PERSON_TITLES = frozenset(
    ["mr", "mrs", "ms", "miss", "mx", "dr", "prof", "professor", "sir", "dame", "lady", "lord", "judge", "justice", "president", "king", "queen", "prince", "princess", "emperor", "empress", "saint", "st", "rev", "father", "sister", "brother", "captain", "general", "colonel", "major", "lieutenant", "senator", "governor", "mayor", "chief", "bishop", "pope", "sheikh", "count", "duke", "baron", "jr", "sr", "madam", "madame", "monsieur", "herr", "frau"]
)
