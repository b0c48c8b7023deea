"""pii_titles: person names introduced by a title or honorific ("Mr Per Aasen", "Dr. Nilsen").

Generic NER models miss names whose first word is also a common word ("Mr Per Aasen": "Per"
reads as a preposition). A title followed by one to four capitalised words on its line, up
to the end of the sentence, marks those words as a PERSON span; the title itself stays in clear text (it is not identifying, and TAB's
recall does not count mr/mrs/ms).
"""
import re
from typing import List

from spacy.language import Language
from spacy.tokens import Doc

from ..extensions import register_extensions
from ..spans import add_char_spans, check_label

DEFAULT_TITLES: List[str] = ["Mr", "Mrs", "Ms", "Miss", "Mx", "Dr", "Prof", "Professor", "Sir", "Dame", "Lady", "Lord", "Judge", "Justice", "Madam", "Monsieur", "Madame", "Herr", "Frau"]
# A period ends a name word only after an initial ("J. R. Smith"): after a longer word it
# ends the sentence, and the next sentence is not part of the name ("Mr Per Aasen. Ticket").
NAME_WORD = r"(?:[A-Z]\.|[A-Z][\w'’-]*|(?:van|von|de|der|den|da|di|du|le|la|bin|ibn|al)(?=[ \t]+[A-Z]))"


class TitleDetector:
    def __init__(self, name: str, titles: List[str], label: str, spans_key: str) -> None:
        self.name = name
        self.label = check_label(label)
        self.spans_key = spans_key
        alternatives = "|".join(sorted((re.escape(t) for t in titles), key=len, reverse=True))
        self.pattern = re.compile(rf"\b(?:{alternatives})\.?\s+((?:{NAME_WORD})(?:[ \t]+(?:{NAME_WORD})){{0,3}})")

    def __call__(self, doc: Doc) -> Doc:
        text = doc.text
        found = []
        for match in self.pattern.finditer(text):
            start, end = match.span(1)
            while end > start and text[end - 1] == ".":
                end -= 1
            found.append((start, end, self.label, f"{self.name}:title"))
        add_char_spans(doc, found, self.spans_key)
        return doc


@Language.factory(
    "pii_titles",
    default_config={"titles": DEFAULT_TITLES, "label": "PERSON", "spans_key": "pii"},
    assigns=["doc.spans", "span._.risk_explain"],
)
def make_title_detector(nlp: Language, name: str, titles: List[str], label: str, spans_key: str) -> TitleDetector:
    """titles (List[str]): words that introduce a person name (matched with or without a
    final period). label (str): PII type of the names."""
    register_extensions()
    return TitleDetector(name, titles, label, spans_key)
