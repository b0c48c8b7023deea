"""pii_titles: person names introduced by a title or honorific ("Mr Per Aasen", "Dr. Nilsen")
or by the label of a form field ("Name: Mateus", "Print name: GIDEON ASANTE").

Generic NER models miss names whose first word is also a common word ("Mr Per Aasen": "Per"
reads as a preposition). A title followed by one to four capitalised words on its line, up
to the end of the sentence, marks those words as a PERSON span; the title itself stays in clear text (it is not identifying, and TAB's
recall does not count mr/mrs/ms). Likewise a field label of ``fields`` ("First name",
"Applicant", "Account holder") before ":" or "=" marks the name words after it on its line
(capitalised or all-caps words, initials, particles, one "Surname, Given" comma; a value
with a digit is no name): forms and captions write names where NER sees no sentence.
"""
import re
from typing import List, Optional, Tuple

from spacy.language import Language
from spacy.tokens import Doc

from ..extensions import register_extensions
from ..spans import add_char_spans, check_label

DEFAULT_TITLES: List[str] = ["Mr", "Mrs", "Ms", "Miss", "Mx", "Dr", "Prof", "Professor", "Sir", "Dame", "Lady", "Lord", "Judge", "Justice", "Madam", "Monsieur", "Madame", "Herr", "Frau"]
# A period ends a name word only after an initial ("J. R. Smith"): after a longer word it
# ends the sentence, and the next sentence is not part of the name ("Mr Per Aasen. Ticket").
DEFAULT_FIELDS: List[str] = [
    "Name", "First name", "Last name", "Surname", "Family name", "Given name", "Given names", "Forename",
    "Forenames", "Full name", "Print name", "Printed name", "Patient", "Patient name", "Applicant", "Respondent",
    "Claimant", "Defendant", "Plaintiff", "Appellant", "Petitioner", "Tenant", "Tenants", "Tenant(s)", "Landlord",
    "Account holder", "Policy holder", "Policyholder", "Cardholder", "Student", "Employee", "Witness",
    "Emergency contact", "Next of kin", "NOK", "Attn", "Guardian", "Parent", "Mother", "Father", "Spouse",
    "Reviewer", "Signed", "Signatory", "Customer", "Client", "Passenger", "Contact person", "Beneficiary",
]
# a word of a name in a field value: a capitalised or all-caps word (any script's case), an
# initial, a particle; "&" and "and" join the names of one field ("Rashida & Kwame Boateng")
FIELD_NAME_WORD = re.compile(r"^(?:[^\W\d_][\w'’.-]*|&|and|van|von|de|der|den|da|di|du|le|la|bin|ibn|al|ó|o')$")
NAME_WORD = r"(?:[A-Z]\.|[A-Z][\w'’-]*|(?:van|von|de|der|den|da|di|du|le|la|bin|ibn|al)(?=[ \t]+[A-Z]))"


def _field_name(text: str, start: int, end: int, titles: frozenset) -> Optional[Tuple[int, int]]:
    """The name at the start of the field value ``text[start:end]``: its words up to the
    first word that is no name word (None: no name there)."""
    # "+" and "&" part the words of a URL-encoded form ("name=Ingeborg+Lunde&email=...")
    words = [m for m in re.finditer(r"[^\s,+&]+|,", text[start:end])]
    kept: List["re.Match[str]"] = []
    commas = 0
    for m in words:
        word = m.group()
        if word == ",":
            commas += 1
            if commas > 1 or not kept:
                break
            continue
        if not kept and word.rstrip(".").lower() in titles:
            continue  # a title: pii_titles' own rule marks what follows
        if any(c.isdigit() for c in word) or not FIELD_NAME_WORD.match(word):
            break
        if word[0].isalpha() and not word[0].isupper() and word not in ("and",):
            break
        kept.append(m)
    while kept and kept[-1].group() in ("&", "and"):
        kept.pop()
    if not kept or not any(c.isupper() for c in kept[0].group()[:1]):
        return None
    first, last = start + kept[0].start(), start + kept[-1].end()
    while last > first and text[last - 1] in ".'’":
        last -= 1
    return first, last


class TitleDetector:
    def __init__(self, name: str, titles: List[str], label: str, spans_key: str, fields: Optional[List[str]] = None) -> None:
        self.name = name
        self.label = check_label(label)
        self.spans_key = spans_key
        alternatives = "|".join(sorted((re.escape(t) for t in titles), key=len, reverse=True))
        self.pattern = re.compile(rf"\b(?:{alternatives})\.?\s+((?:{NAME_WORD})(?:[ \t]+(?:{NAME_WORD})){{0,3}})")
        self.titles = frozenset(t.lower() for t in titles)
        labels = "|".join(sorted((re.escape(f).replace(r"\ ", r"[ \t]+") for f in fields or []), key=len, reverse=True))
        # the value: up to the end of the line, a wide gap, a table or list separator
        self.field = re.compile(rf"(?im)(?<![\w.-])(?:{labels})[ \t]*[:=][ \t]*([^\n|;<>()\t]*?)(?=[ \t]{{2,}}|[\n|;<>()\t]|$)") if labels else None

    def __call__(self, doc: Doc) -> Doc:
        text = doc.text
        found = []
        for match in self.pattern.finditer(text):
            start, end = match.span(1)
            while end > start and text[end - 1] == ".":
                end -= 1
            found.append((start, end, self.label, f"{self.name}:title"))
        if self.field is not None and (":" in text or "=" in text):
            for match in self.field.finditer(text):
                name = _field_name(text, match.start(1), match.end(1), self.titles)
                if name is not None:
                    found.append((*name, self.label, f"{self.name}:field"))
        add_char_spans(doc, found, self.spans_key)
        return doc


@Language.factory(
    "pii_titles",
    default_config={"titles": DEFAULT_TITLES, "label": "PERSON", "spans_key": "pii", "fields": DEFAULT_FIELDS},
    assigns=["doc.spans", "span._.risk_explain"],
)
def make_title_detector(nlp: Language, name: str, titles: List[str], label: str, spans_key: str, fields: List[str]) -> TitleDetector:
    """titles (List[str]): words that introduce a person name (matched with or without a
    final period). label (str): PII type of the names. fields (List[str]): form field labels
    whose value (after ":" or "=") starts with a person name ([]: none)."""
    register_extensions()
    return TitleDetector(name, titles, label, spans_key, fields)
