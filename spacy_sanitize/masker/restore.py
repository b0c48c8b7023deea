"""Reversibility on request: the mapping from replacements back to the original text.

The mapping holds the ORIGINAL text of every replaced span: it is as sensitive as the
input. It is never written unless ``save_mapping`` is called.
"""
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any, Dict, List, Union

import srsly
from spacy.tokens import Doc

from ..errors import Errors, Warnings

MAPPING_VERSION = 1


def build_mapping(doc: Doc) -> Dict[str, Any]:
    """The mapping of one processed doc: one entry per replacement, in output order."""
    entries: List[Dict[str, Any]] = []
    text = doc.text
    for start, end, label, entity_id, replacement, out_start, out_end in doc._.replacements or []:
        entries.append({
            "out_start": out_start, "out_end": out_end, "replacement": replacement,
            "original": text[start:end], "label": label, "entity_id": entity_id,
        })
    return {"version": MAPPING_VERSION, "doc_id": doc._.doc_id, "entries": entries}


def save_mapping(mappings: Union[Dict[str, Any], List[Dict[str, Any]]], path: Union[str, Path]) -> None:
    """Write one mapping or a list of them as JSON (logs warning W101: it is sensitive).
    The file is readable by its owner only (0600): it is created so in the target folder
    and renamed over ``path`` (an existing, wider file is replaced, not rewritten)."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:  # mkstemp creates with O_EXCL and mode 0600; the umask can only narrow it
        with os.fdopen(fd, "w", encoding="utf8") as out:
            out.write(srsly.json_dumps(mappings, indent=2))
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    warnings.warn(Warnings.W101.format(path=path), stacklevel=2)


def load_mapping(path: Union[str, Path]) -> Any:
    return srsly.read_json(path)


def restore(sanitized: str, mapping: Dict[str, Any]) -> str:
    """The original text from the sanitized text and its mapping. Each replacement is
    expected at its recorded output offsets; if the text was edited, it is searched for
    after the previous one (E108 when it cannot be found)."""
    if not isinstance(mapping, dict) or mapping.get("version") != MAPPING_VERSION:
        raise ValueError(Errors.E107.format(version=mapping.get("version") if isinstance(mapping, dict) else None))
    pieces: List[str] = []
    cursor = 0
    for index, entry in enumerate(mapping["entries"]):
        replacement = entry["replacement"]
        start = entry["out_start"]
        if not (start >= cursor and sanitized[start : start + len(replacement)] == replacement):
            start = sanitized.find(replacement, cursor) if replacement else -1
            if start < 0:
                raise ValueError(Errors.E108.format(index=index, length=len(replacement), start=entry["out_start"], end=entry["out_end"]))
        pieces.append(sanitized[cursor:start])
        pieces.append(entry["original"])
        cursor = start + len(replacement)
    pieces.append(sanitized[cursor:])
    return "".join(pieces)
