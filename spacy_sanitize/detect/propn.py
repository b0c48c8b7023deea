"""pii_propn: runs of capitalised words that no other detector took ("Pontypool RFC", "Will &
Grace", "Zack and Miri Make a Porno", "PepsiCo").

A statistical recognizer knows the names it saw in training; names of teams, companies, works
and events it never saw are still written with capitals. This detector marks each run of
capitalised words on one line (joined by particles such as "of", "and", "&", "de", and
ending in an optional number; hyphenated words are one: "Marie-Claire": "Hamlet 2") when at least one of its capitalised words is
rare in general English (wordfreq Zipf below ``max_zipf``, lower-cased): "the Court", "The
Government", "THE FACTS" and "Article" are common words and stay as they are. A common
capitalised word that starts a sentence ("When the FBI", "After Adolf Hitler") is left out
of the run, as are leading titles ("Empress", "Dr"), and a lone common capitalised word at
a sentence start is no run at all.

It runs after the other detectors and pii_refine (which first completes their spans: "Empress
of Hayti") and adds only the parts of a run that no span covers, so
it never overrides what they found or the label they gave. The label: ``ORG`` when its last
word is an organisation head ("RFC", "University", "Society", ``org_heads``); ``PERSON`` when
the run is two to four words, each a listed name or rare, the first a shipped given name
(``detect/names.py``: "Marie-Claire Heureuse Félicité Bonheur"), or when it follows a PERSON
span, quotes between (the nickname and surname of 'Byron Scott "Buster" Brannon'); else
``label`` (MISC).
"""
from typing import List, Sequence, Set, Tuple

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..doc_reads import token_texts
from ..extensions import register_extensions
from ..text import COMMON_WORDS, QUOTES
from ..spans import add_char_spans, check_label
from ..types import PERSON_TITLES
from .gazetteer.filters import SENTENCE_BREAKS, term_zipf
from .names import NameLists, may_be_given_name, name_lists
from .refine import FIELD_LABELS, FIELD_WORDS, ROLE_ABBREVIATIONS, is_plain_span, is_product_span, lazy_capitalised, medication, names_no_one
from .syslog import log_noise

DEFAULT_CONNECTORS = [
    "of", "the", "and", "&", "de", "du", "des", "la", "le", "les", "von", "van", "der", "den",
    "da", "di", "del", "y", "a", "an", "on", "for", "in", "at", "to", "over", "'s", "’s",
]
DEFAULT_ORG_HEADS = [
    "rfc", "fc", "afc", "club", "university", "college", "school", "academy", "institute",
    "society", "association", "federation", "league", "union", "party", "committee", "council",
    "assembly", "company", "inc", "inc.", "ltd", "ltd.", "plc", "llc", "gmbh", "corporation",
    "corp", "corp.", "group", "bank", "foundation", "trust", "church", "ministry", "department",
    "agency", "hospital", "theatre", "theater", "museum", "orchestra", "band", "team", "records",
    "studios", "press", "army", "navy", "police", "commission", "court", "tribunal", "office",
]
DEFAULT_MAX_ZIPF = 4.0
# labels of form fields ("DOB", "SSN", "Tel") and occupations in capitals ("GP") are rare words but name no one
NOT_NAMES = FIELD_LABELS | FIELD_WORDS | {role.lower() for role in ROLE_ABBREVIATIONS}
# a quote or bracket before a word says nothing about the sentence: look at the word before it
_OPENERS = frozenset({'"', "“", "‘", "'", "(", "["})
_LINE_END = ("\n", "\r", "\u2028", "\u2029")
_HYPHENS = frozenset({"-", "‐", "‑"})


def _capitalised(text: str) -> bool:
    return text[:1].isupper() and any(c.isalpha() for c in text)


def _token_lists(doc: Doc) -> Tuple[List[str], List[str], List[bool]]:
    """Token texts, their whitespace and whether each is capitalised: a Token object per
    look-up was most of the detector's time."""
    words, spaces = token_texts(doc)
    return words, spaces, [_capitalised(w) for w in words]


def _number(text: str) -> bool:
    return text.isdigit() and len(text) <= 4


class ProperNounDetector:
    def __init__(
        self,
        name: str,
        spans_key: str,
        max_zipf: float,
        connectors: Sequence[str],
        org_heads: Sequence[str],
        label: str,
    ) -> None:
        self.name = name
        self.spans_key = spans_key
        self.max_zipf = max_zipf
        self.connectors: Set[str] = {c.lower() for c in connectors}
        self.org_heads: Set[str] = {h.lower() for h in org_heads}
        self.label = check_label(label)

    def _rare(self, word: str) -> bool:
        lowered = word.lower()
        return lowered not in COMMON_WORDS and lowered not in NOT_NAMES and term_zipf(lowered) < self.max_zipf

    @staticmethod
    def _sentence_start(words: List[str], spaces: List[str], i: int) -> bool:
        j = i - 1
        while j >= 0 and words[j] in _OPENERS and not spaces[j].endswith(_LINE_END):
            j -= 1
        if j < 0:
            return True
        return words[j].isspace() or words[j] in SENTENCE_BREAKS or any(e in spaces[j] for e in _LINE_END)

    def runs(self, doc: Doc) -> List[Tuple[int, int]]:
        """Token ranges of capitalised runs, sentence-initial common words left out."""
        return self._runs(*_token_lists(doc))

    def _runs(self, words: List[str], spaces: List[str], caps: List[bool]) -> List[Tuple[int, int]]:
        found: List[Tuple[int, int]] = []
        n = len(words)
        i = 0
        while i < n:
            if not caps[i]:
                i += 1
                continue
            end = i + 1  # one past the last capitalised word (or closing number)
            j = i + 1
            while j < n and not any(e in spaces[j - 1] for e in _LINE_END):
                text = words[j]
                if caps[j]:
                    end = j = j + 1
                elif text in _HYPHENS and not spaces[j - 1] and not spaces[j] and j + 1 < n and caps[j + 1]:
                    j += 1  # "Marie-Claire", tokenized in three
                elif (
                    text.lower() in self.connectors and j + 1 < n and caps[j + 1]
                    # "Pontypool RFC and Newport RFC" are two
                    and not (text.lower() in ("and", "&") and words[j - 1].lower() in self.org_heads)
                ):
                    j += 1
                else:
                    if _number(text) and spaces[j - 1]:
                        end = j + 1
                    break
            start = i
            # titles stay in clear (as pii_titles leaves them), so does a sentence's first common word
            while start < end and (
                words[start].lower().rstrip(".") in PERSON_TITLES
                or (start == i and self._sentence_start(words, spaces, start) and not self._rare(words[start]) and not self._name_opener(words, start, end))
            ):
                start += 1
                while start < end and not caps[start]:
                    start += 1
            if start < end and any(self._rare(words[k]) for k in range(start, end) if caps[k]):
                found.append((start, end))
            i = max(end, i + 1)
        return found

    def _name_opener(self, words: List[str], start: int, end: int) -> bool:
        """Whether a run's first word, a common one the corpora write capitalised as often as
        not ("Rose", "Mark", "HOPE"), opens a two-word name with a name word after it ("- Rose
        Whitfield", "HOPE ABIOLA"): a sentence's first word then belongs to the name."""
        if end - start != 2 or not words[start + 1].isalpha():
            return False
        lists = name_lists()
        second = words[start + 1].lower()
        return may_be_given_name(words[start].lower(), lists) and (second in lists.family or second in lists.given or self._rare(words[start + 1]))

    def _label(self, words: List[str], spaces: List[str], start: int, end: int, lists: NameLists) -> str:
        if words[end - 1].lower() in self.org_heads:
            return "ORG"
        tokens = [w for w in words[start:end] if w not in _HYPHENS]
        name_words = all(
            _capitalised(w) and (w.lower() in lists.given or w.lower() in lists.family or self._rare(w)) for w in tokens
        )
        # words as written: "Marie-Claire" is one of them
        written = "".join(w + space for w, space in zip(words[start:end], spaces[start:end])).split()
        if name_words and tokens[0].lower() in lists.given and 2 <= len(written) <= 4:
            return "PERSON"
        return self.label

    @staticmethod
    def _after_person(words: List[str], spaces: List[str], start: int, persons: Set[int]) -> bool:
        """Whether a PERSON span ends right before ``start``, quotes between ("Byron Scott
        "Buster" Brannon": the nickname and the surname are the person's name too)."""
        k = start - 1
        while k >= 0 and words[k] in QUOTES:
            k -= 1
        return k >= 0 and k in persons and "\n" not in spaces[k]

    def __call__(self, doc: Doc) -> Doc:
        spans = doc.spans.get(self.spans_key, [])
        taken = {k for span in spans for k in range(span.start, span.end)}
        persons = {k for span in spans if span.label_ == "PERSON" for k in range(span.start, span.end)}
        lists = name_lists()
        words, spaces, caps = _token_lists(doc)
        proper = lazy_capitalised(doc)
        nameless = None
        found = []
        for start, end in self._runs(words, spaces, caps):
            drug = medication(doc, start, end)
            if drug is not None:  # a drug before its dose: a health fact (MISC), none in a text naming no one
                nameless = names_no_one(doc, spans) if nameless is None else nameless
                if nameless or drug[0] in taken:
                    continue
                start, end = drug[0], drug[0] + 1
            # the parts of the run no detector covered, trimmed to capitalised words
            k = start
            while k < end:
                if k in taken:
                    k += 1
                    continue
                part_end = k
                while part_end < end and part_end not in taken:
                    part_end += 1
                a, b = k, part_end
                while a < b and not caps[a]:
                    a += 1
                while b > a and not (caps[b - 1] or (_number(words[b - 1]) and b == end)):
                    b -= 1
                # a heading or a sentence's first words, all plain ("DISCHARGE SUMMARY", "Preheat"), is no name
                # judged on its words: a closing number ("Indexed 1532" after a log level) is no name's
                w = b - 1 if b - 1 > a and not caps[b - 1] else b
                if (a < b and any(self._rare(words[m]) for m in range(a, b) if caps[m]) and not _plain_or_product(Span(doc, a, w, self.label), proper)
                        and not log_noise(Span(doc, a, b), self.name, ())):  # a syslog line's header
                    label = self._label(words, spaces, a, b, lists)
                    if label == self.label and self._after_person(words, spaces, a, persons):
                        label = "PERSON"
                    if label == "PERSON":
                        persons.update(range(a, b))
                    start_char = doc[a].idx
                    found.append((start_char, doc[b - 1].idx + len(words[b - 1]), label, self.name))
                k = part_end
        add_char_spans(doc, found, key=self.spans_key)
        return doc


def _plain_or_product(span: Span, proper) -> bool:
    """pii_refine's plain-word and product rules, for a run found here ("Preheat", "Dropbox")."""
    return is_plain_span(span, proper) or is_product_span(span)


@Language.factory(
    "pii_propn",
    default_config={
        "spans_key": "pii",
        "max_zipf": DEFAULT_MAX_ZIPF,
        "connectors": DEFAULT_CONNECTORS,
        "org_heads": DEFAULT_ORG_HEADS,
        "label": "MISC",
    },
    assigns=["doc.spans", "span._.risk_explain"],
)
def make_propn_detector(
    nlp: Language,
    name: str,
    spans_key: str,
    max_zipf: float,
    connectors: List[str],
    org_heads: List[str],
    label: str,
) -> ProperNounDetector:
    """spans_key (str): the span group to complete. max_zipf (float): a run needs one
    capitalised word rarer than this in general English (wordfreq Zipf, lower-cased).
    connectors (List[str]): lower-case words that may join capitalised words inside a run.
    org_heads (List[str]): last words that make a run an ORG. label (str): the type of the
    other runs."""
    register_extensions()
    return ProperNounDetector(name, spans_key, max_zipf, connectors, org_heads, label)
