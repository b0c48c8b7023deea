"""What several components read from the same Doc, built once and kept while the Doc lives.

spaCy's ``Doc.text`` joins every token's text on each read (0.2 ms for a court judgment, read
by a dozen components) and each Token a loop looks at is a new object: read once here, they
were a few hundredths of the default pipeline's time. Docs hash by identity; the values of a
doc are dropped when a retokenizer changed its number of tokens (its text never changes).
"""
import weakref
from typing import Any, Callable, Dict, List, Tuple, TypeVar

from spacy.tokens import Doc

T = TypeVar("T")
_VALUES: "weakref.WeakKeyDictionary[Doc, Dict[str, Any]]" = weakref.WeakKeyDictionary()
_TOKENS = "tokens"  # the number of tokens the values were read at


def per_doc(doc: Doc, key: str, build: Callable[[Doc], T]) -> T:
    """``build(doc)``, once per doc and ``key``."""
    values = _VALUES.get(doc)
    if values is None or values[_TOKENS] != len(doc):
        values = _VALUES[doc] = {_TOKENS: len(doc)}
    if key not in values:
        values[key] = build(doc)
    return values[key]


def doc_text(doc: Doc) -> str:
    """``doc.text``, joined once."""
    return per_doc(doc, "text", lambda d: d.text)


def _token_texts(doc: Doc) -> Tuple[List[str], List[str]]:
    return [t.text for t in doc], [t.whitespace_ for t in doc]


def token_texts(doc: Doc) -> Tuple[List[str], List[str]]:
    """Each token's text and its whitespace after it (plain strings; do not change them)."""
    return per_doc(doc, "token_texts", _token_texts)
