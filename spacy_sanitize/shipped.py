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



# The weights only the torch pipelines use ship in a distribution of their own
# (packages/torch-data: spacy-sanitize-torch-data), so that the plain install does not carry them.
TORCH_ARTEFACTS = frozenset({"minilm_mlm", "risk_seq_trf", "risk_seq_court_trf"})


def torch_data_dir() -> Optional[Path]:
    """The data folder of the installed spacy-sanitize-torch-data, or None."""
    try:
        import spacy_sanitize_torch_data
    except ImportError:
        return None
    return Path(spacy_sanitize_torch_data.DATA)


def data_path(*parts: str) -> Path:
    """Path of a file or folder under the package's data folder, e.g. ``data_path("risk_seq")``;
    the torch-only artefacts (``TORCH_ARTEFACTS``) under spacy-sanitize-torch-data's when it is
    installed (else where they would be in this package: a path that does not exist)."""
    if parts and parts[0] in TORCH_ARTEFACTS:
        folder = torch_data_dir()
        if folder is not None:
            return folder.joinpath(*parts)
    return Path(str(importlib.resources.files("spacy_sanitize").joinpath("data", *parts)))


def artefact_path(shipped: str, data: Optional[Union[str, Path]] = None, *, component: str = "?") -> Path:
    """The folder (or file) of the shipped artefact ``shipped`` under ``data`` (None: the
    package's data folder, or spacy-sanitize-torch-data's for the torch-only ones). Raises
    OSError when it is not there: a missing artefact fails at load time, never as a
    fail-closed risk on every span at run time."""
    path = Path(data) / shipped if data is not None else data_path(shipped)
    if not path.exists():
        if data is None and shipped in TORCH_ARTEFACTS:
            raise OSError(Errors.E057.format(name=shipped, component=component))
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
