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

It runs after the other detectors and adds only the parts of a run that no span covers, so
it never overrides what they found or the label they gave. The label: ``PERSON`` when the
run is two to four words, each a listed name or rare, the first a shipped given name (``detect/names.py``:
"Marie-Claire Heureuse Félicité Bonheur"), ``ORG`` when its last word is an organisation
head ("RFC", "University", "Society", ``org_heads``), else ``MISC``.
"""
from typing import List, Sequence, Set, Tuple

from spacy.language import Language
from spacy.tokens import Doc

from ..extensions import register_extensions
from ..masking_plan import COMMON_WORDS
from ..spans import add_char_spans, check_label
from ..types import PERSON_TITLES
from .gazetteer.filters import SENTENCE_BREAKS, term_zipf
from .names import NameLists, name_lists

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
# a quote or bracket before a word says nothing about the sentence: look at the word before it
_OPENERS = frozenset({'"', "“", "‘", "'", "(", "["})
_LINE_END = ("\n", "\r", "\u2028", "\u2029")
_HYPHENS = frozenset({"-", "‐", "‑"})


def _capitalised(text: str) -> bool:
    return text[:1].isupper() and any(c.isalpha() for c in text)


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
        return lowered not in COMMON_WORDS and term_zipf(lowered) < self.max_zipf

    @staticmethod
    def _sentence_start(doc: Doc, i: int) -> bool:
        j = i - 1
        while j >= 0 and doc[j].text in _OPENERS and not doc[j].whitespace_.endswith(_LINE_END):
            j -= 1
        if j < 0:
            return True
        previous = doc[j]
        return previous.is_space or previous.text in SENTENCE_BREAKS or any(e in previous.whitespace_ for e in _LINE_END)

    def runs(self, doc: Doc) -> List[Tuple[int, int]]:
        """Token ranges of capitalised runs, sentence-initial common words left out."""
        found: List[Tuple[int, int]] = []
        n = len(doc)
        i = 0
        while i < n:
            if not _capitalised(doc[i].text):
                i += 1
                continue
            end = i + 1  # one past the last capitalised word (or closing number)
            j = i + 1
            while j < n and not any(e in doc[j - 1].whitespace_ for e in _LINE_END):
                text = doc[j].text
                if _capitalised(text):
                    end = j = j + 1
                elif text in _HYPHENS and not doc[j - 1].whitespace_ and not doc[j].whitespace_ and j + 1 < n and _capitalised(doc[j + 1].text):
                    j += 1  # "Marie-Claire", tokenized in three
                elif (
                    text.lower() in self.connectors and j + 1 < n and _capitalised(doc[j + 1].text)
                    # "Pontypool RFC and Newport RFC" are two
                    and not (text.lower() in ("and", "&") and doc[j - 1].lower_ in self.org_heads)
                ):
                    j += 1
                else:
                    if _number(text) and doc[j - 1].whitespace_:
                        end = j + 1
                    break
            start = i
            # titles stay in clear (as pii_titles leaves them), so does a sentence's first common word
            while start < end and (
                doc[start].lower_.rstrip(".") in PERSON_TITLES
                or (start == i and self._sentence_start(doc, start) and not self._rare(doc[start].text))
            ):
                start += 1
                while start < end and not _capitalised(doc[start].text):
                    start += 1
            if start < end and any(self._rare(doc[k].text) for k in range(start, end) if _capitalised(doc[k].text)):
                found.append((start, end))
            i = max(end, i + 1)
        return found

    def _label(self, doc: Doc, start: int, end: int, lists: NameLists) -> str:
        if doc[end - 1].lower_ in self.org_heads:
            return "ORG"
        tokens = [doc[k].text for k in range(start, end) if doc[k].text not in _HYPHENS]
        name_words = all(
            _capitalised(w) and (w.lower() in lists.given or w.lower() in lists.family or self._rare(w)) for w in tokens
        )
        if name_words and tokens[0].lower() in lists.given and 2 <= len(doc[start:end].text.split()) <= 4:
            return "PERSON"
        return self.label

    def __call__(self, doc: Doc) -> Doc:
        taken = {k for span in doc.spans.get(self.spans_key, []) for k in range(span.start, span.end)}
        lists = name_lists()
        found = []
        for start, end in self.runs(doc):
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
                while a < b and not _capitalised(doc[a].text):
                    a += 1
                while b > a and not (_capitalised(doc[b - 1].text) or (_number(doc[b - 1].text) and b == end)):
                    b -= 1
                if a < b and any(self._rare(doc[m].text) for m in range(a, b) if _capitalised(doc[m].text)):
                    found.append((doc[a].idx, doc[b - 1].idx + len(doc[b - 1].text), self._label(doc, a, b, lists), self.name))
                k = part_end
        add_char_spans(doc, found, key=self.spans_key)
        return doc


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
