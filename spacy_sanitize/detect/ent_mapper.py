"""pii_ent_mapper: maps a generic NER's entities (``doc.ents``) onto the 8 PII types.

Default mapping (OntoNotes labels of spaCy's English models):

========================================  ==========
generic label                             PII type
========================================  ==========
PERSON                                    PERSON
ORG                                       ORG
GPE, LOC, FAC                             LOC
DATE, TIME                                DATETIME
CARDINAL, MONEY, PERCENT, QUANTITY,       QUANTITY
ORDINAL
NORP, LANGUAGE                            DEM
EVENT, WORK_OF_ART, LAW, PRODUCT          MISC
========================================  ==========

A leading article and a trailing possessive or punctuation are trimmed off, and paragraph
numbers ("1." at the start of a line) are dropped.
"""
from typing import Dict, Tuple

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..extensions import register_extensions
from ..spans import add_pii_spans, check_label, is_list_number, name_detector

DEFAULT_LABEL_MAP: Dict[str, str] = {
    "PERSON": "PERSON",
    "ORG": "ORG",
    "GPE": "LOC",
    "LOC": "LOC",
    "FAC": "LOC",
    "DATE": "DATETIME",
    "TIME": "DATETIME",
    "CARDINAL": "QUANTITY",
    "MONEY": "QUANTITY",
    "PERCENT": "QUANTITY",
    "QUANTITY": "QUANTITY",
    "NORP": "DEM",
    "LANGUAGE": "DEM",
    "EVENT": "MISC",
    "WORK_OF_ART": "MISC",
    "LAW": "MISC",
    "PRODUCT": "MISC",
    "ORDINAL": "QUANTITY",
}


LEADING_WORDS = frozenset({"the", "a", "an"})
TRAILING_WORDS = frozenset({"'s", "’s", "'"})


def trim(doc: Doc, start: int, end: int) -> Tuple[int, int]:
    """Drop a leading article and a trailing possessive: not part of the identifier."""
    while start < end and doc[start].lower_ in LEADING_WORDS:
        start += 1
    while end > start and (doc[end - 1].lower_ in TRAILING_WORDS or doc[end - 1].is_punct):
        end -= 1
    return start, end


class EntMapper:
    """Copies ``doc.ents`` into ``doc.spans[spans_key]`` with PII labels."""

    def __init__(self, name: str, label_map: Dict[str, str], spans_key: str, skip_list_numbers: bool) -> None:
        self.name = name
        self.skip_list_numbers = skip_list_numbers
        self.label_map = {source: check_label(target) for source, target in label_map.items()}
        self.spans_key = spans_key

    def __call__(self, doc: Doc) -> Doc:
        spans = []
        for ent in doc.ents:
            label = self.label_map.get(ent.label_)
            if label is None:
                continue
            start, end = trim(doc, ent.start, ent.end)
            if self.skip_list_numbers and is_list_number(doc, start, end):
                continue
            if start < end:
                span = Span(doc, start, end, label=label)
                name_detector(span, f"{self.name}:{ent.label_}")
                spans.append(span)
        add_pii_spans(doc, spans, self.spans_key)
        return doc


@Language.factory(
    "pii_ent_mapper",
    default_config={"label_map": DEFAULT_LABEL_MAP, "spans_key": "pii", "skip_list_numbers": True},
    requires=["doc.ents"],
    assigns=["doc.spans", "span._.risk_explain"],
)
def make_ent_mapper(nlp: Language, name: str, label_map: Dict[str, str], spans_key: str, skip_list_numbers: bool) -> EntMapper:
    """Build the mapper. label_map (Dict[str, str]): generic NER label -> PII type; labels
    not in the map are dropped. spans_key (str): the span group to write.
    skip_list_numbers (bool): drop paragraph numbers ("1." at the start of a line)."""
    register_extensions()
    return EntMapper(name, label_map, spans_key, skip_list_numbers)
