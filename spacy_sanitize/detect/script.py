"""pii_script: text in a non-Latin script inside Latin-script text.

In English documents a run of Hebrew, Greek, Cyrillic, Arabic, Devanagari or CJK letters is
nearly always a name given in its native spelling ("Naftali Bennett (Hebrew: נַפְתָּלִי
בֶּנֶט)"), which a Latin-script NER misses. Each such run becomes a span (default label
PERSON). Documents mostly written in another script are left alone.
"""
import re
import unicodedata
from typing import List, Optional

from spacy.language import Language
from spacy.tokens import Doc

from ..extensions import register_extensions
from ..spans import add_char_spans, add_pii_spans, check_label

WORD = re.compile(r"[^\W\d_]+")
JOINER = re.compile(r"[\s\u200e\u200f·'’-]*")


def _script(char: str) -> Optional[str]:
    """A coarse script name from the Unicode character name (LATIN, GREEK, CJK...)."""
    try:
        name = unicodedata.name(char)
    except ValueError:
        return None
    return name.split()[0]


class ScriptDetector:
    def __init__(self, name: str, label: str, spans_key: str, max_share: float) -> None:
        self.name = name
        self.label = check_label(label)
        self.spans_key = spans_key
        self.max_share = max_share

    def __call__(self, doc: Doc) -> Doc:
        text = doc.text
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


@Language.factory(
    "pii_script",
    default_config={"label": "PERSON", "spans_key": "pii", "max_share": 0.5},
    assigns=["doc.spans", "span._.risk_explain"],
)
def make_script_detector(nlp: Language, name: str, label: str, spans_key: str, max_share: float) -> ScriptDetector:
    """label (str): PII type of the runs. max_share (float): skip documents where more than
    this share of the letters is non-Latin (they are written in that script)."""
    register_extensions()
    return ScriptDetector(name, label, spans_key, max_share)
