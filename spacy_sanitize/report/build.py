"""Collecting the report's entries: from a pipeline run (any input ``sanitize`` reads), or
from the JSONL ``sanitize`` wrote (no re-run). Both go through the JSONL record form, so
the report shows exactly what ``sanitize`` writes."""
import json
from collections import deque
from typing import Any, Deque, Dict, Iterable, Iterator, List, Optional, Tuple

from spacy.language import Language

from .data import entry, merge_privacy
from .why import uncovered_rows

RESULT_FIELDS = ("sanitized", "spans", "replacements")


def is_sanitized(line: Optional[Dict[str, Any]]) -> bool:
    """Whether a JSONL record is ``sanitize`` output (it carries the result fields)."""
    return isinstance(line, dict) and all(name in line for name in RESULT_FIELDS)


class _Lines:
    """An ``Output`` stand-in for ``cli.RecordWriter``: keeps the JSON lines it is given."""

    def __init__(self) -> None:
        self.lines: List[Dict[str, Any]] = []

    def write(self, text: str) -> None:
        self.lines.extend(json.loads(line) for line in text.splitlines() if line.strip())


def _region_sources(nlp: Language, doc: Any, offset: int) -> Dict[Tuple[int, int], str]:
    """``(start, end) -> source`` of the masker's regions of a piece (``masking_plan``), so
    an added region can say whether the deny list or propagation made it."""
    masker = nlp.get_pipe("masker") if "masker" in nlp.pipe_names else None
    if masker is None or not hasattr(masker, "regions"):
        return {}
    spans = [(s.start_char, s.end_char) for s in doc.spans.get(masker.cfg["spans_key"], [])]
    if not uncovered_rows(doc._.replacements or [], spans):
        return {}  # every replacement is a detected span's: the plan is not computed a second time
    return {(r.start + offset, r.end + offset): r.source for r in masker.regions(doc)}


def run_records(nlp: Language, records: Iterable[Any], original: bool = True, batch_size: int = 16, max_chars: int = 100_000) -> Tuple[List[Dict[str, Any]], Optional[Dict[str, Any]]]:
    """Run the pipeline over ``records`` (``io.Record``): the entries and the merged privacy
    report of all documents."""
    from ..cli import RecordWriter
    from ..pipeline import sanitize_pieces

    pending: Deque[Any] = deque()
    sink = _Lines()
    writer = RecordWriter(sink, "jsonl", newline=False, submission=None)  # type: ignore[arg-type]
    privacy: List[Optional[Dict[str, Any]]] = []
    entries: List[Dict[str, Any]] = []
    sources: Dict[Tuple[int, int], str] = {}

    def texts() -> Iterator[Any]:
        for record in records:
            pending.append(record)
            yield record.text

    for piece in sanitize_pieces(nlp, texts(), batch_size=batch_size, max_chars=max_chars):
        if piece.offset == 0:
            writer.begin(pending[0])
            sources = {}
        writer.add(piece.offset, piece.doc)
        sources.update(_region_sources(nlp, piece.doc, piece.offset))
        privacy.append(piece.doc._.privacy)
        if piece.last:
            writer.end()
            record = pending.popleft()
            line = sink.lines.pop()
            entries.append(entry(record.id, _text(record), line, original, sources))
    return entries, merge_privacy(privacy)


def _text(record: Any) -> str:
    return record.text if isinstance(record.text, str) else "".join(record.text)


def read_sanitized(records: Iterable[Any], original: bool = True) -> Tuple[List[Dict[str, Any]], Optional[Dict[str, Any]]]:
    """Entries from records of ``sanitize``'s JSONL output (``io.Record`` with ``source``)."""
    entries = []
    privacy = []
    for record in records:
        entries.append(entry(record.id, _text(record), record.source, original))
        privacy.append(record.source.get("privacy"))
    return entries, merge_privacy(privacy)
