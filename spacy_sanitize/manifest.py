"""The run manifest of ``spacy-sanitize sanitize``: what produced an output (pipeline name,
config hash, package, spaCy and model versions, start time, options), so a sanitized file
can be traced to the exact pipeline and settings. The CLI writes it next to the output
(``OUTPUT.manifest.json``) or where ``--manifest`` says, and with ``--manifest-in-records``
as a ``_sanitize`` field of each JSONL record."""
import datetime
import hashlib
import platform
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional

import spacy
from spacy.language import Language

from .shipped import data_path

MANIFEST_SUFFIX = ".manifest.json"


def config_hash(nlp: Language) -> str:
    """sha256 of the pipeline's resolved config (``nlp.config`` as text): the same config
    gives the same hash, any changed setting or override another one."""
    return hashlib.sha256(nlp.config.to_str().encode("utf8")).hexdigest()


@lru_cache(maxsize=64)
def folder_hash(path: str) -> str:
    """sha256 over the relative names and contents of the files under ``path`` (or of one file)."""
    root = Path(path)
    digest = hashlib.sha256()
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    for file in files:
        digest.update(str(file.relative_to(root) if file != root else file.name).encode("utf8") + b"\0")
        with open(file, "rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def model_versions(nlp: Language) -> List[Dict[str, Any]]:
    """The models a pipeline runs: each shipped artefact named in ``[initialize.components]``
    (``shipped``) with the sha256 of its files, and each sourced component with its package
    name and version."""
    config = nlp.config
    models: List[Dict[str, Any]] = []
    for name in nlp.pipe_names:
        proc = nlp.get_pipe(name)
        if type(proc).__module__.split(".")[0] == "spacy":
            # a trained spaCy component (the shipped configs source them from the English
            # model: ``english_model``); its weights' hash tells one copy from another
            entry: Dict[str, Any] = {"component": name, "factory": nlp.get_pipe_meta(name).factory}
            model = getattr(proc, "model", None)
            if model is not None and hasattr(proc, "to_bytes"):
                entry["sha256"] = hashlib.sha256(proc.to_bytes(exclude=["vocab"])).hexdigest()
            models.append(entry)
    for name, settings in (config.get("initialize", {}).get("components", {}) or {}).items():
        if not isinstance(settings, Mapping) or not settings.get("shipped") or name not in nlp.pipe_names:
            continue
        shipped = str(settings["shipped"])
        folder = (Path(settings["data"]) if settings.get("data") else data_path()) / shipped
        entry: Dict[str, Any] = {"component": name, "shipped": shipped}
        if folder.exists():
            entry["sha256"] = folder_hash(str(folder))
        models.append(entry)
    return models


def english_model() -> Optional[Dict[str, Optional[str]]]:
    """The generic English model installed (the shipped configs source their ner from it)."""
    from .models import english_model_name

    try:
        name = english_model_name()
    except OSError:
        return None
    return {"name": name, "version": spacy.util.get_package_version(name)}


def run_manifest(nlp: Language, pipeline: str, options: Mapping[str, Any], started: Optional[datetime.datetime] = None) -> Dict[str, Any]:
    """The manifest of a run of ``nlp`` (loaded as ``pipeline``) with the CLI ``options``."""
    from . import __version__

    started = started or datetime.datetime.now(datetime.timezone.utc)
    return {
        "tool": "spacy-sanitize",
        "version": __version__,
        "spacy": spacy.__version__,
        "python": platform.python_version(),
        "pipeline": str(pipeline),
        "components": list(nlp.pipe_names),
        "config_sha256": config_hash(nlp),
        "models": model_versions(nlp),
        "english_model": english_model(),
        "started_utc": started.isoformat(timespec="seconds"),
        "options": dict(options),
    }


def manifest_path(output: Optional[str], given: Optional[str]) -> Optional[str]:
    """Where the manifest goes: ``--manifest PATH`` when given, else next to an output file
    (``OUTPUT.manifest.json``); none for stdout without ``--manifest``."""
    if given:
        return given
    if output in (None, "-"):
        return None
    return str(output) + MANIFEST_SUFFIX
