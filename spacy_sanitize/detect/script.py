"""pii_script: text in a non-Latin script inside Latin-script text.

In English documents a run of Hebrew, Greek, Cyrillic, Arabic, Devanagari or CJK letters is
nearly always a name given in its native spelling ("Naftali Bennett (Hebrew: נַפְתָּלִי
בֶּנֶט)"), which a Latin-script NER misses. Each such run becomes a span (default label
PERSON). Documents mostly written in another script are left alone.

With ``marked_latin`` (on by default) the same holds for the Latin letters of Vietnamese
(ơ, ư and the letters with a dot below or hook above: "ễ", "ầ", "ị"), which English words
never carry: a run of capitalised words with one such word is a name in its native
spelling ("Nguyễn Văn An and Trần Thị Bình signed the lease."), the unmarked words next to
it included ("An"; a stop word or title does not start a run). Documents written in Vietnamese
(where more than a tenth of the lower-case words carry these letters) are left alone.
"""
import re
import unicodedata
from typing import List, Optional

from spacy.language import Language
from spacy.tokens import Doc, Token

from ..extensions import register_extensions
from ..spans import add_char_spans, add_pii_spans, check_label
from ..types import PERSON_TITLES

WORD = re.compile(r"[^\W\d_]+")
JOINER = re.compile(r"[\s\u200e\u200f·'’-]*")
# Vietnamese letters of Latin Extended Additional (U+1EA0-U+1EF9) and Latin Extended-B
# (ơ, ư): no English word has them.
MARKED_LATIN = re.compile("[\u1ea0-\u1ef9\u01a0\u01a1\u01af\u01b0]")
# In a text written in Vietnamese many lower-case words carry them; in English text, none.
MAX_MARKED_LOWER_SHARE = 0.1


def _script(char: str) -> Optional[str]:
    """A coarse script name from the Unicode character name (LATIN, GREEK, CJK...)."""
    try:
        name = unicodedata.name(char)
    except ValueError:
        return None
    return name.split()[0]


class ScriptDetector:
    def __init__(self, name: str, label: str, spans_key: str, max_share: float, marked_latin: bool = True) -> None:
        self.name = name
        self.label = check_label(label)
        self.spans_key = spans_key
        self.max_share = max_share
        self.marked_latin = marked_latin

    def __call__(self, doc: Doc) -> Doc:
        text = doc.text  # joins every token: built once
        if self.marked_latin and MARKED_LATIN.search(text):
            self._marked_latin(doc)
        letters = [c for c in text if c.isalpha()]
        foreign = [c for c in letters if _script(c) not in ("LATIN", None)]
        if not foreign or len(foreign) / len(letters) > self.max_share:
            add_pii_spans(doc, [], self.spans_key)  # the span group exists, empty
            return doc
        runs: List[List[int]] = []
        for match in WORD.finditer(text):
            if _script(match.group()[0]) in ("LATIN", None):
                continue
            if runs and JOINER.fullmatch(text, runs[-1][1], match.start()):
                runs[-1][1] = match.end()
            else:
                runs.append([match.start(), match.end()])
        add_char_spans(doc, ((start, end, self.label, f"{self.name}:{_script(text[start])}") for start, end in runs), self.spans_key)
        return doc


    def _marked_latin(self, doc: Doc) -> None:
        lower = [t for t in doc if t.is_alpha and t.is_lower]
        if lower and sum(bool(MARKED_LATIN.search(t.text)) for t in lower) > MAX_MARKED_LOWER_SHARE * len(lower):
            return
        found = []
        i = 0
        while i < len(doc):
            if not (_capitalised(doc[i]) and MARKED_LATIN.search(doc[i].text)):
                i += 1
                continue
            start, end = i, i + 1
            while start > 0 and _capitalised(doc[start - 1]) and doc[start - 1].whitespace_ and not doc[start - 1].is_stop and doc[start - 1].lower_ not in PERSON_TITLES:
                start -= 1
            while end < len(doc) and _capitalised(doc[end]) and doc[end - 1].whitespace_:
                end += 1
            found.append((doc[start].idx, doc[end - 1].idx + len(doc[end - 1]), self.label, f"{self.name}:marked_latin"))
            i = end
        add_char_spans(doc, found, self.spans_key)


def _capitalised(token: Token) -> bool:
    return token.is_alpha and token.text[0].isupper() and not token.is_upper


@Language.factory(
    "pii_script",
    default_config={"label": "PERSON", "spans_key": "pii", "max_share": 0.5, "marked_latin": True},
    assigns=["doc.spans", "span._.risk_explain"],
)
def make_script_detector(nlp: Language, name: str, label: str, spans_key: str, max_share: float, marked_latin: bool) -> ScriptDetector:
    """label (str): PII type of the runs. max_share (float): skip documents where more than
    this share of the letters is non-Latin (they are written in that script). marked_latin
    (bool): also take capitalised runs with a Vietnamese letter ("Nguyễn Văn An")."""
    register_extensions()
    return ScriptDetector(name, label, spans_key, max_share, marked_latin)
