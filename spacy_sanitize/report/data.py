"""The report's data: a ``sanitize`` JSONL record (text, sanitized, spans with ``why``,
replacements) turned into the compact entry the page renders, and the summary counts.

An entry holds both texts, their paragraphs aligned (``[start, end, out_start, out_end]``)
and every mark ``[start, end, out_start, out_end, label, why]``: a detected span, or a
replaced region no span covers (``added``). With ``original=False`` the entry holds no
original text and no original offsets: only the sanitized side, with span types.
"""
import bisect
import re
from typing import Any, Dict, List, Optional, Sequence

from ..spans import SortedRanges
from .why import DECISIONS, added_why, uncovered_rows, without_errors

_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n\s*")


class OffsetMap(SortedRanges):
    """Original offsets -> sanitized offsets, for positions outside replaced regions (and
    at their edges): the text between regions is unchanged (the data contract). Also the
    rows' ``covering`` lookup."""

    def __call__(self, position: int) -> int:
        i = bisect.bisect_right(self.ends, position) - 1
        if i < 0:
            return position
        row = self.rows[i]
        return row[6] + position - row[1]


def paragraphs(text: str, to_out: OffsetMap) -> List[List[int]]:
    """``[start, end, out_start, out_end]`` of each paragraph (cut at blank lines, which are
    left out; a line break is never inside a replaced region, so both sides cut at the same
    places)."""
    out: List[List[int]] = []
    start = 0
    for match in _PARAGRAPH_BREAK.finditer(text):
        out.append([start, match.start(), to_out(start), to_out(match.start())])
        start = match.end()
    if start < len(text) or not out:
        out.append([start, len(text), to_out(start), to_out(len(text))])
    return out


def fallback_why(span: Dict[str, Any], row: Optional[Sequence[Any]]) -> Dict[str, Any]:
    """A ``why`` for a span of a JSONL file written before ``why`` existed (``row``: the
    replacement over it): the outcome and the scores, nothing else is known."""
    return {
        "decision": "kept" if row is None else "masked",
        "detectors": [],
        "indicators": {key: {"risk": round(float(value), 4)} for key, value in (span.get("risk") or {}).items()},
        "vote": None,
        "policy": None,
        "replacement": None if row is None else row[4],
        "summary": ("kept in clear" if row is None else "masked") + " (the input JSONL has no 'why': re-run sanitize for the explanation)",
    }


def entry(record_id: str, text: str, line: Dict[str, Any], original: bool = True, sources: Optional[Dict[tuple, str]] = None) -> Dict[str, Any]:
    """The page's entry for one record (``line``: its sanitize JSONL output, ``text``: the
    original text). ``sources``: ``(start, end) -> region source`` of the replaced regions,
    when the pipeline ran here (``added`` regions then say deny list or propagation)."""
    rows = [list(row) for row in line.get("replacements") or []]
    to_out = OffsetMap(rows)
    marks: List[List[Any]] = []
    spans = line.get("spans") or []
    for span in spans:
        row = to_out.covering(span["start"], span["end"])
        why = span.get("why") or fallback_why(span, row)
        out = [row[5], row[6]] if row is not None else [to_out(span["start"]), to_out(span["end"])]
        marks.append([span["start"], span["end"], *out, span["label"], why])
    for row in uncovered_rows(rows, ((s["start"], s["end"]) for s in spans)):
        marks.append([row[0], row[1], row[5], row[6], row[2], added_why(row, (sources or {}).get((row[0], row[1])))])
    marks.sort(key=lambda mark: (mark[2], mark[0]))
    result: Dict[str, Any] = {"id": record_id, "s": line.get("sanitized", ""), "p": paragraphs(text, to_out), "m": marks}
    if original:
        result["t"] = text
    else:
        result["p"] = [p[2:] for p in result["p"]]
        result["m"] = [[*mark[2:5], without_errors(mark[5])] for mark in marks]
    return result




def summary(entries: Sequence[Dict[str, Any]], original: bool = True) -> Dict[str, Any]:
    """Counts over the entries: documents, and per type the spans of each decision."""
    per_type: Dict[str, Dict[str, int]] = {}
    for item in entries:
        for mark in item["m"]:
            label, why = (mark[4], mark[5]) if original else (mark[2], mark[3])
            counts = per_type.setdefault(label, {name: 0 for name in DECISIONS})
            counts[why["decision"]] += 1
    totals = {name: sum(counts[name] for counts in per_type.values()) for name in DECISIONS}
    return {"documents": len(entries), "per_type": dict(sorted(per_type.items())), "totals": totals}


def merge_privacy(reports: Sequence[Optional[Dict[str, Any]]]) -> Optional[Dict[str, Any]]:
    """One privacy report over many documents (``Doc._.privacy`` of each): per type its
    strategy, policy and the largest epsilon; the assumptions (mechanism, p and its source)
    as the documents give them (the distinct ones, when they differ)."""
    reports = [report for report in reports if report]
    if not reports:
        return None
    labels: Dict[str, Dict[str, Any]] = {}
    for report in reports:
        for label, info in (report.get("labels") or {}).items():
            known = labels.setdefault(label, dict(info))
            if float(info.get("epsilon") or 0.0) > float(known.get("epsilon") or 0.0):
                known.update(info)
    epsilons = [float(report.get("epsilon") or 0.0) for report in reports]
    return {
        "epsilon": max(epsilons),
        "mechanism": sorted({str(report.get("mechanism")) for report in reports}),
        "p": sorted({report.get("p") for report in reports if report.get("p") is not None}),
        "p_source": sorted({str(report.get("p_source")) for report in reports}),
        "labels": dict(sorted(labels.items())),
    }
