"""Collecting the report's entries: from a pipeline run (any input ``sanitize`` reads), or
from the JSONL ``sanitize`` wrote (no re-run). Both read the one record type
(``run.records``), so the report shows exactly what ``sanitize`` writes."""
from collections import deque
from typing import Any, Deque, Dict, Iterable, Iterator, List, Optional, Tuple

from spacy.language import Language

from .data import entry, merge_privacy
from .why import uncovered_rows

RESULT_FIELDS = ("sanitized", "spans", "replacements")


def is_sanitized(line: Optional[Dict[str, Any]]) -> bool:
    """Whether a JSONL record is ``sanitize`` output (it carries the result fields)."""
    return isinstance(line, dict) and all(name in line for name in RESULT_FIELDS)


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
    from ..run.records import RecordBuilder
    from ..run.session import Session

    session = Session(nlp, batch_size=batch_size, max_chars=max_chars)
    pending: Deque[Any] = deque()
    privacy: List[Optional[Dict[str, Any]]] = []
    entries: List[Dict[str, Any]] = []
    sources: Dict[Tuple[int, int], str] = {}
    builder = RecordBuilder(session.spans_key, with_text=True)

    def texts() -> Iterator[Any]:
        for record in records:
            pending.append(record)
            yield record.text

    for piece in session.pieces(texts()):
        if piece.offset == 0:
            builder = RecordBuilder(session.spans_key, with_text=True)
            sources = {}
        builder.add(piece.offset, piece.doc)
        sources.update(_region_sources(nlp, piece.doc, piece.offset))
        privacy.append(piece.doc._.privacy)
        if piece.last:
            record = pending.popleft()
            entries.append(entry(record.id, _text(record), builder.finish().to_json(), original, sources))
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
