"""Artefacts shipped in the package's ``data`` folder.

Shipped configs reference them one way: ``[paths] sanitize_data`` (null: this package's data
folder, or any folder with the same layout) passed to a component's ``initialize`` as
``data``, with ``shipped`` naming the artefact's sub-folder::

    [initialize.components.pii_ner]
    data = ${paths.sanitize_data}
    shipped = "pii_ner"

``initialize`` loads the artefact and ``to_disk`` saves it with the component, so
``spacy.load`` of an assembled pipeline needs nothing else.

It imports only the error catalogue, so every module can use it."""
import importlib.resources
from pathlib import Path
from typing import Optional, Union

from .errors import Errors



def data_path(*parts: str) -> Path:
    """Path of a file or folder under the package's data folder, e.g. ``data_path("risk_seq")``."""
    return Path(str(importlib.resources.files("spacy_sanitize").joinpath("data", *parts)))


def artefact_path(shipped: str, data: Optional[Union[str, Path]] = None, *, component: str = "?") -> Path:
    """The folder (or file) of the shipped artefact ``shipped`` under ``data`` (None: the
    package's data folder). Raises OSError when it is not there: a missing artefact fails at
    load time, never as a fail-closed risk on every span at run time."""
    path = (Path(data) if data is not None else data_path()) / shipped
    if not path.exists():
        raise OSError(Errors.E018.format(name=shipped, path=path, component=component))
    return path


SHIPPED_MLM = "minilm_mlm"
"""The shipped domain MiniLM masked LM: its folder under ``data`` and its model name (the hf
scorer's ``model = null``, pii_relabel's stored ``encoder``; scorer name ``hf:minilm_mlm``)."""

# Artefacts saved before [paths] sanitize_data (the shipped pii_relabel model's "encoder",
# risk_llm_prob's meta "scorer", and pipelines users saved then) store the shipped MLM under
# its old name: read as today's.
_STORED_NAMES = {"spacy_sanitize:minilm-mlm": SHIPPED_MLM, "hf:spacy_sanitize:minilm-mlm": "hf:" + SHIPPED_MLM}


def current_name(name: str) -> str:
    """A model or scorer name as stored in an artefact -> the name used now."""
    return _STORED_NAMES.get(name, name)
