"""Artifacts shipped in the package's ``data`` folder, and the ``spacy_sanitize:NAME``
references configs use for them (``spacy_sanitize:pii_ner``, ``spacy_sanitize:minilm-mlm``).

No imports from the rest of the package, so every module can use it."""
import importlib.resources
from pathlib import Path
from typing import Optional

SHIPPED_PREFIX = "spacy_sanitize:"


def data_path(*parts: str) -> Path:
    """Path of a file or folder under the package's data folder, e.g. ``data_path("risk_seq")``."""
    return Path(str(importlib.resources.files("spacy_sanitize").joinpath("data", *parts)))


def resolve_shipped(source: str) -> Optional[Path]:
    """``spacy_sanitize:NAME`` -> the shipped artifact's folder (``-`` in NAME read as ``_``:
    ``minilm-mlm`` is ``data/minilm_mlm``); None for any other source."""
    if not source.startswith(SHIPPED_PREFIX):
        return None
    return data_path(source[len(SHIPPED_PREFIX) :].replace("-", "_"))
