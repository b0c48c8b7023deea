"""What a trained artefact was fit on, so an evaluation on the same documents says so.

Every trained artefact the package ships (and every one the training tools write) has a
``training_data.json`` next to it: the source file, the benchmark that gives the held-out
(cross-validated) figure, and a fingerprint of each training document's text. Texts, not
doc ids, are compared: the same biography may carry another id in another file.
"""
import hashlib
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, List, Mapping, Tuple, Union

import srsly

from ..errors import Warnings

TRAINING_DATA = "training_data.json"


def text_fingerprint(text: str) -> str:
    """A short hash of ``text`` with its whitespace normalized (a re-export that rewraps
    lines still matches)."""
    return hashlib.sha256(" ".join(text.split()).encode("utf8")).hexdigest()[:16]


def write_training_data(folder: Union[str, Path], documents: Iterable[Tuple[str, str]], *, source: str, benchmark: str, labels: str = "gold") -> Path:
    """Record next to a trained artefact the ``(doc_id, text)`` pairs it was fit on.
    ``benchmark`` names what gives the held-out figure; ``labels``: what supervised it."""
    docs = list(documents)
    path = Path(folder) / TRAINING_DATA
    path.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(
        path,
        {
            "source": source,
            "labels": labels,
            "benchmark": benchmark,
            "doc_ids": [doc_id for doc_id, _ in docs],
            "text_sha256_16": [text_fingerprint(text) for _, text in docs],
        },
    )
    return path


@dataclass
class InSample:
    component: str
    artefact: Path
    source: str
    benchmark: str
    n_docs: int


def _artefact_folders(config: Mapping[str, Any]) -> List[Tuple[str, Path]]:
    """The (component, folder) of every shipped artefact a pipeline config initializes from
    (``[initialize.components.X] shipped = ...``, under ``data`` or the package data)."""
    from ..shipped import data_path

    paths = config.get("paths", {}) or {}
    found = []
    for name, settings in ((config.get("initialize", {}) or {}).get("components", {}) or {}).items():
        shipped = (settings or {}).get("shipped")
        if not isinstance(shipped, str):
            continue
        data = settings.get("data")
        if isinstance(data, str) and data.startswith("${paths."):
            data = paths.get(data[len("${paths.") : -1])
        found.append((name, (Path(data) if data else data_path()) / shipped))
    return found


def in_sample_artefacts(config: Mapping[str, Any], texts: Iterable[str]) -> List[InSample]:
    """The shipped artefacts of a pipeline ``config`` that were fit on any of ``texts``."""
    wanted = {text_fingerprint(text) for text in texts}
    hits = []
    for component, folder in _artefact_folders(config):
        records = sorted(folder.rglob(TRAINING_DATA)) if folder.is_dir() else []
        for record in records:
            meta = srsly.read_json(record)
            n_docs = len(wanted & set(meta.get("text_sha256_16", [])))
            if n_docs:
                hits.append(InSample(component, record.parent, meta.get("source", "?"), meta.get("benchmark", "?"), n_docs))
    return hits


def warn_if_in_sample(config: Mapping[str, Any], texts: Iterable[str]) -> List[InSample]:
    """Warn (W099) once per component whose shipped artefact was fit on the evaluated
    documents (risk_llm_prob's folder holds one model per scorer: one warning)."""
    texts = list(texts)
    hits = in_sample_artefacts(config, texts)
    warned = set()
    for hit in hits:
        if hit.component in warned:
            continue
        warned.add(hit.component)
        warnings.warn(
            Warnings.W099.format(
                component=hit.component, artefact=hit.artefact.name, n=hit.n_docs, total=len(texts), source=hit.source, benchmark=hit.benchmark
            ),
            stacklevel=2,
        )
    return hits
