"""The one output record of a sanitized text, whatever the front door (CLI JSONL, the
service's response, batch and Ray columns, the review report).

A record holds the sanitized text, one row per detected span and the replacement rows, with
offsets in the whole text (a long text is sanitized in pieces), and ``error`` when the text
could not be sanitized (its whole text is then replaced: fail closed). A span row never holds
the span's original text unless asked (``with_text``: the CLI's ``--keep-original``, the
report), so a record can be shared.
"""
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Sequence

from spacy.tokens import Doc

from ..detect.confidence import reported_confidences
from ..report.why import span_why, without_errors
from ..spans import SortedRanges
from .pieces import piece_output

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow

SPAN_FIELDS = ("start", "end", "label", "text", "entity_id", "risk", "confidence", "mask", "why")
REPLACEMENT_FIELDS = ("start", "end", "label", "entity_id", "replacement", "out_start", "out_end")
OUTPUT_COLUMNS = ("sanitized", "spans", "replacements", "error")
# risk scores as the JSON writer (srsly) gives them: one value whatever the front door
RISK_DECIMALS = 10
SHARED_NOTE = "details left out (they may quote the text; keep the original text to see them)"


@dataclass
class SanitizedRecord:
    """sanitized (str): the text with the masked spans replaced. spans (list of dict): the
    detected spans (``SPAN_FIELDS``; ``text`` only when built ``with_text``). replacements
    (list of list): ``[start, end, label, entity_id, replacement, out_start, out_end]``.
    error (str or None): why the text could not be sanitized (its type and code, never its
    message, which may quote the text); ``sanitized`` is then the failed text."""

    sanitized: str
    spans: List[Dict[str, Any]] = field(default_factory=list)
    replacements: List[List[Any]] = field(default_factory=list)
    error: Optional[str] = None

    def to_json(self) -> Dict[str, Any]:
        """The JSON form (the CLI's JSONL fields, the service's answer): ``error`` only when set."""
        out: Dict[str, Any] = {"sanitized": self.sanitized, "spans": self.spans, "replacements": self.replacements}
        if self.error is not None:
            out["error"] = self.error
        return out


def span_rows(doc: Doc, offset: int, spans_key: str = "pii", with_text: bool = False) -> List[Dict[str, Any]]:
    """One row per detected span of a piece, offsets shifted by ``offset`` (where the piece
    starts in its text)."""
    replaced = SortedRanges(doc._.replacements or [])
    spans = list(doc.spans.get(spans_key, []))
    rows = []
    for span, confidence in zip(spans, reported_confidences(spans)):
        row = {
            "start": span.start_char + offset,
            "end": span.end_char + offset,
            "label": span.label_,
            "text": span.text,
            "entity_id": span._.entity_id,
            "risk": {name: round(float(value), RISK_DECIMALS) for name, value in span._.risk.items()},
            "confidence": confidence,
            "mask": span._.mask,
            "why": span_why(span, replaced),  # the report's explanation
        }
        if not with_text:
            # a shareable record: an indicator's error message may quote the text
            del row["text"]
            row["why"] = without_errors(row["why"], SHARED_NOTE)
        rows.append(row)
    return rows


class RecordBuilder:
    """A record built piece by piece, keeping strings and rows only (never the Docs), so a
    text of any length streams: ``add`` each piece in order, then ``finish``."""

    def __init__(self, spans_key: str = "pii", with_text: bool = False) -> None:
        self.spans_key = spans_key
        self.with_text = with_text
        self.text: List[str] = []
        self.sanitized: List[str] = []
        self.spans: List[Dict[str, Any]] = []
        self.rows: List[List[Any]] = []
        self.out_offset = 0

    def add(self, offset: int, doc: Doc) -> List[List[Any]]:
        """Add a piece starting at ``offset`` in the text; its replacement rows in the whole
        text's offsets (for a submission or a mapping)."""
        sanitized, rows = piece_output(doc, offset, self.out_offset)
        self.out_offset += len(sanitized)
        self.text.append(doc.text)
        self.sanitized.append(sanitized)
        self.spans += span_rows(doc, offset, self.spans_key, self.with_text)
        self.rows += rows
        return rows

    def finish(self) -> SanitizedRecord:
        return SanitizedRecord("".join(self.sanitized), self.spans, self.rows)


def record_of(docs: Sequence[Doc], offsets: Sequence[int], spans_key: str = "pii", with_text: bool = False) -> SanitizedRecord:
    """The record of a text sanitized in pieces (``sanitize_texts``' docs and offsets)."""
    builder = RecordBuilder(spans_key, with_text)
    for doc, offset in zip(docs, offsets):
        builder.add(offset, doc)
    return builder.finish()


def failed_record(text: str, error: str) -> SanitizedRecord:
    """A text that could not be sanitized: replaced whole by ``text``, ``error`` says why."""
    return SanitizedRecord(text, [], [], error)


def output_schema(with_text: bool = False) -> Dict[str, "pyarrow.DataType"]:
    """The Arrow types of the output columns. ``risk`` is a map (its keys are the pipeline's
    risk components); ``why`` is its JSON text (Arrow has no free-form objects); a span's
    ``text`` only ``with_text``."""
    import pyarrow as pa

    types = {
        "start": pa.int64(), "end": pa.int64(), "label": pa.string(), "text": pa.string(), "entity_id": pa.string(),
        "risk": pa.map_(pa.string(), pa.float64()), "confidence": pa.float64(), "mask": pa.bool_(), "why": pa.string(),
    }
    span = pa.struct([(name, types[name]) for name in SPAN_FIELDS if with_text or name != "text"])
    replacement = pa.struct([
        ("start", pa.int64()), ("end", pa.int64()), ("label", pa.string()), ("entity_id", pa.string()),
        ("replacement", pa.string()), ("out_start", pa.int64()), ("out_end", pa.int64()),
    ])
    return {"sanitized": pa.string(), "spans": pa.list_(span), "replacements": pa.list_(replacement), "error": pa.string()}


def table_values(record: SanitizedRecord) -> Dict[str, Any]:
    """The record as table cells (pandas, Arrow): replacement rows as dicts, ``why`` as JSON."""
    return {
        "sanitized": record.sanitized,
        "spans": [{**span, "why": json.dumps(span["why"], sort_keys=True)} for span in record.spans],
        "replacements": [dict(zip(REPLACEMENT_FIELDS, row)) for row in record.replacements],
        "error": record.error,
    }


def to_arrow(records: Iterable[SanitizedRecord], with_text: bool = False) -> Dict[str, "pyarrow.Array"]:
    """The output columns of ``records`` as Arrow arrays (built ``with_text`` or not)."""
    import pyarrow as pa

    values = [table_values(record) for record in records]
    return {name: pa.array([v[name] for v in values], type=kind) for name, kind in output_schema(with_text).items()}
