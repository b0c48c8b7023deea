"""Loading pipelines by name (``default``, an installed package, a directory or a config)
and sanitizing texts of any length with them."""
import importlib.resources
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple, Union

import spacy
from spacy.language import Language
from spacy.tokens import Doc
from thinc.api import Config

from .errors import Errors
from .models import ENGLISH_MODELS, english_model_name
from .shipped import resolve_shipped

DEFAULT_CHUNK_CHARS = 100_000


def config_path(name: str) -> Path:
    """Path of a config shipped with the package, e.g. ``config_path("default")``."""
    return Path(str(importlib.resources.files("spacy_sanitize") / "configs" / f"{name}.cfg"))


def shipped_configs() -> List[str]:
    return sorted(p.stem for p in config_path("default").parent.glob("*.cfg"))


def _with_installed_english(config: Config) -> Config:
    """Resolve ``source`` names: the English model that is installed, and
    ``spacy_sanitize:NAME`` for pipelines shipped in the package's data folder."""
    installed = english_model_name()
    for component in config.get("components", {}).values():
        source = component.get("source")
        if source in ENGLISH_MODELS:
            component["source"] = installed
        elif isinstance(source, str) and (shipped := resolve_shipped(source)) is not None:
            component["source"] = str(shipped)
    return config


def load_config_pipeline(path: Union[str, Path], overrides: Optional[Dict[str, Any]] = None) -> Language:
    overrides = overrides or {}
    config = _with_installed_english(Config().from_disk(path, overrides=overrides))
    nlp = spacy.util.load_model_from_config(config, auto_fill=True, validate=True)
    nlp.max_length = max(nlp.max_length, DEFAULT_CHUNK_CHARS * 2)
    return nlp


def load_directory_pipeline(path: Union[str, Path], overrides: Optional[Dict[str, Any]] = None) -> Language:
    """A pipeline saved with ``nlp.to_disk``, with config overrides. Unlike ``spacy.load``,
    which flattens a dict value into dotted keys (merged into the saved section, and an
    error for a section the saved config lacks), a dict value replaces the whole section: the
    CLI's ``components.masker.strategy = {"@strategies": "spacy_sanitize.redact.v1"}`` must not inherit the saved
    strategy's parameters, and ``components.masker.operators`` may add types."""
    path = Path(path)
    overrides = overrides or {}
    config = Config().from_disk(path / "config.cfg", overrides=overrides)
    nlp = spacy.util.load_model_from_config(config, meta=spacy.util.get_model_meta(path))
    return nlp.from_disk(path, overrides=overrides)


def load_pipeline(name: Union[str, Path] = "default", overrides: Optional[Dict[str, Any]] = None) -> Language:
    """``name``: a shipped config name (``default``...), a ``.cfg`` file, a pipeline
    directory, or an installed pipeline package."""
    try:
        if str(name) in shipped_configs():
            return load_config_pipeline(config_path(str(name)), overrides)
        path = Path(name)
        if path.suffix == ".cfg" and path.exists():
            return load_config_pipeline(path, overrides)
        if (path / "config.cfg").is_file():
            return load_directory_pipeline(path, overrides)
        return spacy.load(name, config=overrides or {})
    except OSError as err:
        raise OSError(Errors.E005.format(name=name, err=err)) from None


def split_text(text: str, max_chars: int = DEFAULT_CHUNK_CHARS) -> List[Tuple[int, str]]:
    """Cut ``text`` into pieces of at most ``max_chars`` at paragraph, line, sentence or
    space boundaries; returns (offset, piece) pairs whose concatenation is ``text``."""
    pieces: List[Tuple[int, str]] = []
    start = 0
    while len(text) - start > max_chars:
        window = text[start : start + max_chars]
        cut = -1
        for sep in ("\n\n", "\n", ". ", " "):
            cut = window.rfind(sep, max_chars // 2)
            if cut != -1:
                cut += len(sep)
                break
        if cut <= 0:
            cut = max_chars
        pieces.append((start, text[start : start + cut]))
        start += cut
    pieces.append((start, text[start:]))
    return pieces


def sanitize_texts(
    nlp: Language, texts: Iterable[str], batch_size: int = 16, max_chars: int = DEFAULT_CHUNK_CHARS
) -> Iterator[Tuple[str, List[Doc], List[int]]]:
    """Run ``nlp`` over texts, cutting texts longer than ``max_chars`` into pieces (at
    paragraph or sentence boundaries) that are processed as separate docs: coreference
    ids are then per piece. Yields (text, docs, offsets of the docs in the text)."""

    def pieces() -> Iterator[Tuple[int, int, str]]:
        for index, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(Errors.E010.format(doc_id=index, type_name=type(text).__name__))
            split = split_text(text, max_chars) if text else [(0, "")]
            for offset, piece in split:
                yield index, offset, piece

    current: List[Any] = []
    current_index = None
    stream = pieces()
    indexed = ((meta, piece) for meta, piece in (((i, o), p) for i, o, p in stream))
    for doc, (index, offset) in nlp.pipe(((piece, meta) for meta, piece in indexed), as_tuples=True, batch_size=batch_size):
        if current_index is not None and index != current_index:
            yield _assemble(current)
            current = []
        current_index = index
        current.append((offset, doc))
    if current:
        yield _assemble(current)


def _assemble(parts: List[Tuple[int, Doc]]) -> Tuple[str, List[Doc], List[int]]:
    return "".join(doc.text for _, doc in parts), [doc for _, doc in parts], [offset for offset, _ in parts]


def merged_output(docs: List[Doc], offsets: List[int]) -> Tuple[str, List[List[Any]]]:
    """Sanitized text and replacement rows (offsets in the whole text) of a text cut into
    pieces; entity ids are prefixed with the piece number when there are several."""
    sanitized: List[str] = []
    rows: List[List[Any]] = []
    out_offset = 0
    for number, (doc, offset) in enumerate(zip(docs, offsets)):
        text = doc._.sanitized if doc._.sanitized is not None else doc.text
        for row in doc._.replacements or []:
            start, end, label, entity_id, replacement, out_start, out_end = row
            if len(docs) > 1:
                entity_id = f"{number}:{entity_id}"
            rows.append([start + offset, end + offset, label, entity_id, replacement, out_start + out_offset, out_end + out_offset])
        sanitized.append(text)
        out_offset += len(text)
    return "".join(sanitized), rows
