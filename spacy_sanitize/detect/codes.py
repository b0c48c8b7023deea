"""pii_codes: rule-based detection of CODE identifiers (case and application numbers,
phone numbers, e-mail addresses, IBANs, URLs, ID-like tokens).

Patterns are plain regular expressions over the text, given by name in the config so
users can add or replace them; matches are widened to whole tokens.
"""
import re
from typing import Dict, List, Tuple

from spacy.language import Language
from spacy.tokens import Doc

from ..extensions import register_extensions
from ..spans import add_char_spans

DEFAULT_PATTERNS: Dict[str, str] = {
    "email": r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+",
    "url": r"(?:https?://|www\.)[^\s<>\"]+[^\s<>\".,;:!?)\]]",
    "iban": r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b",
    "application_number": r"\b\d{1,6}/\d{2,4}(?:/\d{2,4})?\b",
    "phone": r"(?<![\w/])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]\d{2,4}){2,6}(?![\w/])",
    "long_number": r"(?<![\w.,/])\d{6,}(?![\w/]|[.,]\d)",
    "id_token": r"\b(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9-]{4,}\b",
}
# Tokens with letters and digits that are ordinary words, not identifiers.
NOT_IDS = re.compile(r"^(?:\d+(?:st|nd|rd|th|s|am|pm|km|kg|cm|mm|m|g)|\d+-\w+|[A-Za-z]+-\d+s?)$", re.IGNORECASE)
MIN_PHONE_DIGITS = 8
# All-numeric calendar dates (2013-09-25, 25.09.2013, 09/25/2013) look like phone or
# application numbers to the patterns above: they are written as DATETIME instead, found
# (and validated) before the other patterns run, so that "2013-09-25 2014-10-26" is two
# dates, not one phone number.
_DATE = r"(?:(?P<year>\d{4})(?P<s1>[-./])(?P<month>\d{1,2})(?P=s1)(?P<day>\d{1,2})|(?P<a>\d{1,2})(?P<s2>[-./])(?P<b>\d{1,2})(?P=s2)(?:\d{4}|\d{2}))"
NUMERIC_DATE = re.compile(_DATE)
NUMERIC_DATE_IN_TEXT = re.compile(rf"(?<![\w/.-]){_DATE}(?![\w/]|[.-]\d)")
DATE_LABEL = "DATETIME"


def _valid_date(match: "re.Match[str]") -> bool:
    if match.group("year"):
        return 1 <= int(match.group("month")) <= 12 and 1 <= int(match.group("day")) <= 31
    first, second = int(match.group("a")), int(match.group("b"))
    return 1 <= min(first, second) <= 12 and 1 <= max(first, second) <= 31


def is_numeric_date(value: str) -> bool:
    """Whether ``value`` is a valid all-numeric date: year-month-day, or day-month-year /
    month-day-year with a 2- or 4-digit year, one separator kind (``-``, ``.`` or ``/``)."""
    match = NUMERIC_DATE.fullmatch(value)
    return match is not None and _valid_date(match)


class CodeDetector:
    def __init__(self, name: str, patterns: Dict[str, str], spans_key: str, label: str) -> None:
        self.name = name
        self.patterns = {key: re.compile(value) for key, value in patterns.items()}
        self.spans_key = spans_key
        self.label = label

    def find(self, text: str) -> List[Tuple[int, int, str]]:
        """(start, end, pattern name) of every match; ``numeric_date`` for all-numeric dates."""
        found = []
        dates = [m for m in NUMERIC_DATE_IN_TEXT.finditer(text) if _valid_date(m)]
        if dates:
            found.extend((m.start(), m.end(), "numeric_date") for m in dates)
            chars = list(text)
            for m in dates:  # blank them (same length: offsets stay) for the other patterns
                chars[m.start() : m.end()] = " " * (m.end() - m.start())
            text = "".join(chars)
        for key, pattern in self.patterns.items():
            for match in pattern.finditer(text):
                value = match.group()
                if key == "id_token" and NOT_IDS.match(value):
                    continue
                # a date the text pass skipped ("-2013-09-25": no date boundary before it)
                if key in ("phone", "application_number") and is_numeric_date(value):
                    found.append((match.start(), match.end(), "numeric_date"))
                    continue
                if key == "phone" and sum(c.isdigit() for c in value) < MIN_PHONE_DIGITS:
                    continue
                found.append((match.start(), match.end(), key))
        return found

    def __call__(self, doc: Doc) -> Doc:
        found = self.find(doc.text)
        add_char_spans(doc, ((start, end, DATE_LABEL if key == "numeric_date" else self.label, f"{self.name}:{key}") for start, end, key in found), self.spans_key)
        return doc


@Language.factory(
    "pii_codes",
    default_config={"patterns": DEFAULT_PATTERNS, "spans_key": "pii", "label": "CODE"},
    assigns=["doc.spans", "span._.risk_explain"],
)
def make_code_detector(nlp: Language, name: str, patterns: Dict[str, str], spans_key: str, label: str) -> CodeDetector:
    """patterns (Dict[str, str]): name -> regular expression. label (str): the PII type written."""
    register_extensions()
    return CodeDetector(name, patterns, spans_key, label)
