"""A cheap guess whether a document is not English, for the English-only warning (W011).

The shipped models (pii_ner, the English NER model, the gazetteer, the relabel MiniLM, the
risk models) are English; on German text they mistype or miss PII ("Herr [PERSON] wohnt in
der [DATETIME]"). Function words give the language away without a model: in another
language's text its own stop words (those that are not English ones) outnumber the English
ones. On the development data (70 biographies, 92 court cases) no document comes near the
threshold (at most 11% foreign function words, against 25%).
"""
import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import Dict, FrozenSet, Optional, Tuple

from spacy.tokens import Doc

# Languages whose stop-word lists spaCy ships and whose text readers send most often.
CANDIDATES: Dict[str, str] = {
    "de": "German", "fr": "French", "es": "Spanish", "it": "Italian", "pt": "Portuguese",
    "nl": "Dutch", "nb": "Norwegian", "da": "Danish", "sv": "Swedish", "pl": "Polish",
    "fi": "Finnish", "tr": "Turkish", "ru": "Russian",
}
MIN_WORDS = 20
MAX_WORDS = 1000
MIN_SHARE = 0.25


@lru_cache(maxsize=1)
def _spacy_lang_dir() -> Path:
    """spaCy's ``spacy/lang`` folder, found without importing it."""
    return Path(importlib.util.find_spec("spacy.lang").submodule_search_locations[0])


def _spacy_stop_words(code: str) -> FrozenSet[str]:
    """spaCy's stop-word list of a language, read from its ``stop_words.py`` alone: importing
    ``spacy.lang.<code>.stop_words`` runs the language package first, whose tokenizer exceptions
    cost seconds (French alone 2.7 s) on every process's first document."""
    spec = importlib.util.spec_from_file_location(f"_spacy_sanitize_stop_words_{code}", _spacy_lang_dir() / code / "stop_words.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return frozenset(module.STOP_WORDS)


@lru_cache(maxsize=1)
def _stop_words() -> Tuple[FrozenSet[str], Dict[str, FrozenSet[str]]]:
    english = _spacy_stop_words("en")
    others = {code: frozenset(w for w in _spacy_stop_words(code) if w not in english) for code in CANDIDATES}
    return english, others


def foreign_language(doc: Doc) -> Optional[Tuple[str, float]]:
    """(language name, share of its function words) when the first ``MAX_WORDS`` words of
    ``doc`` look like another language than English; None when they look English or are
    too few (under ``MIN_WORDS``) to tell."""
    words = []
    for token in doc:
        if token.is_alpha:
            words.append(token.lower_)
            if len(words) >= MAX_WORDS:
                break
    if len(words) < MIN_WORDS:
        return None
    english, others = _stop_words()
    english_share = sum(w in english for w in words) / len(words)
    share, code = max((sum(w in stops for w in words) / len(words), code) for code, stops in others.items())
    if share >= MIN_SHARE and share > english_share:
        return CANDIDATES[code], share
    return None
