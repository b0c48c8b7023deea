"""The review report as one self-contained HTML file: inlined CSS and JS, no network.

The summary (counts, privacy report, filters) is written here, every text through
``html.escape``; the documents are an embedded JSON blob the page renders a page at a time
(``page_size`` documents), so a report of 1,000 court cases stays usable.
"""
import html
import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from ..types import PII_TYPES
from .data import summary
from .why import DECISIONS

STATIC = Path(__file__).parent / "static"
# One colour per type: the report and the displaCy view (``render``) share them.
TYPE_COLORS: Dict[str, str] = {
    "PERSON": "#ffcdd2",
    "ORG": "#c5cae9",
    "LOC": "#c8e6c9",
    "DATETIME": "#fff59d",
    "CODE": "#ffccbc",
    "QUANTITY": "#b3e5fc",
    "DEM": "#e1bee7",
    "MISC": "#d7ccc8",
}
DECISION_NAMES = {"masked": "masked", "kept": "kept in clear", "failed_closed": "failed closed", "added": "added (propagation / deny list)"}
ORIGINAL_BANNER = (
    "This report contains the ORIGINAL PERSONAL DATA of the documents beside their sanitized "
    "text. Keep it as confidential as the input; share the --no-original version instead."
)
SANITIZED_BANNER = "Sanitized view only (--no-original): this report holds no original text, only the sanitized output and span types."


def _json_for_script(value: Any) -> str:
    """JSON safe inside <script>: no "</script>" or "<!--" can close or confuse the element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


# A ``why`` in the page: its shape (a template, shared by many spans) and its leaves (the
# numbers and the replacement, which differ from span to span); 1,000 court cases carry about
# 100,000 explanations, and sharing their shapes makes the page a third of the size.
LEAF = "\u0000"


def _split_why(value: Any, leaves: List[Any], key: str = "") -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool) or key == "replacement":
        leaves.append(value)
        return LEAF
    if isinstance(value, dict):
        return {k: _split_why(value[k], leaves, k) for k in sorted(value)}  # the order the page walks
    if isinstance(value, list):
        return [_split_why(v, leaves) for v in value]
    return value


def pack(entries: Sequence[Dict[str, Any]], original: bool = True) -> Dict[str, Any]:
    """The page's data: each mark's ``why`` becomes ``[template index, leaves]`` into the
    shared ``whys`` templates (the page puts the leaves back, ``unpack`` here)."""
    templates: Dict[str, int] = {}
    docs = []
    at = 5 if original else 3
    for item in entries:
        marks = []
        for mark in item["m"]:
            leaves: List[Any] = []
            shape = json.dumps(_split_why(mark[at], leaves))
            marks.append([*mark[:at], templates.setdefault(shape, len(templates)), leaves])
        docs.append({**item, "m": marks})
    return {"whys": [json.loads(shape) for shape in templates], "docs": docs}


def unpack(template: Any, leaves: List[Any]) -> Any:
    """A packed ``why`` back (what the page's ``whyOf`` does)."""
    it = iter(leaves)

    def fill(value: Any) -> Any:
        if value == LEAF:
            return next(it)
        if isinstance(value, dict):
            return {k: fill(v) for k, v in value.items()}
        if isinstance(value, list):
            return [fill(v) for v in value]
        return value

    return fill(template)


def _privacy_html(privacy: Optional[Dict[str, Any]]) -> str:
    esc = html.escape
    if not privacy:
        return "<p class='notes'>No privacy report in the input (a report made by running the pipeline has one).</p>"
    rows = "".join(
        f"<tr><td>{esc(label)}</td><td>{esc(str(info.get('strategy', '')))}</td><td>{esc(str(info.get('policy', '')))}</td>"
        f"<td>{esc(_number(info.get('epsilon')))}</td><td>{esc(str(info.get('note', '')))}</td></tr>"
        for label, info in privacy["labels"].items()
    )
    assumptions = "".join(
        f"<li>{esc(text)}</li>"
        for text in [*privacy["mechanism"], *[f"p = {p}" for p in privacy["p"]], *privacy["p_source"]]
    )
    return (
        f"<p>largest &epsilon; over the documents: <b>{esc(_number(privacy['epsilon']))}</b></p>"
        "<table id='privacy'><tr><th>type</th><th>strategy</th><th>policy</th><th>&epsilon;</th><th>note</th></tr>"
        f"{rows}</table><p class='notes'>Assumptions:</p><ul class='notes'>{assumptions}</ul>"
    )


def _number(value: Any) -> str:
    if value is None:
        return "-"
    value = float(value)
    return "inf" if value == float("inf") else f"{value:.3g}"


def _summary_html(counts: Dict[str, Any]) -> str:
    esc = html.escape
    head = "".join(f"<th>{esc(DECISION_NAMES[name])}</th>" for name in DECISIONS)
    rows = []
    for label, per in [*counts["per_type"].items(), ("all", counts["totals"])]:
        total = sum(per.values())
        masked = total - per["kept"]
        share = f"{100.0 * masked / total:.1f}%" if total else "-"
        cells = "".join(f"<td>{per[name]}</td>" for name in DECISIONS)
        rows.append(f"<tr><td>{esc(label)}</td><td>{total}</td>{cells}<td>{share}</td></tr>")
    return (
        f"<p><b id='n-docs'>{counts['documents']}</b> document(s), <b>{sum(counts['totals'].values())}</b> span(s), "
        f"<b id='n-failed'>{counts['totals']['failed_closed']}</b> failed closed, "
        f"<b id='n-kept'>{counts['totals']['kept']}</b> kept in clear.</p>"
        f"<table id='summary'><tr><th>type</th><th>spans</th>{head}<th>% masked</th></tr>{''.join(rows)}</table>"
    )


def _controls_html(types: Sequence[str]) -> str:
    esc = html.escape
    type_options = "".join(f"<option value='{esc(t)}'>{esc(t)}</option>" for t in types)
    decision_options = "".join(f"<option value='{name}'>{esc(DECISION_NAMES[name])}</option>" for name in DECISIONS)
    return (
        "<div id='controls'>"
        f"<label>type <select id='f-type'><option value=''>all</option>{type_options}</select></label>"
        f"<label>decision <select id='f-decision'><option value=''>all</option>{decision_options}</select></label>"
        "<label><input type='checkbox' id='f-kept'> kept in clear only</label>"
        "<span id='pager'><button id='prev' type='button'>&larr; previous</button>"
        "<span id='pager-info'></span><button id='next' type='button'>next &rarr;</button></span>"
        "</div>"
    )


def build_html(entries: List[Dict[str, Any]], original: bool = True, privacy: Optional[Dict[str, Any]] = None, title: str = "spacy-sanitize review report", page_size: int = 20) -> str:
    """The report page for ``entries`` (``data.entry``); ``original=False``: entries made
    without the original text (the banner says so)."""
    esc = html.escape
    counts = summary(entries, original)
    types = [t for t in PII_TYPES if t in counts["per_type"]] + [t for t in counts["per_type"] if t not in PII_TYPES]
    colors = "".join(f"mark.t-{t} {{ background: {TYPE_COLORS.get(t, '#eeeeee')}; }}\n" for t in types)
    legend = "".join(f"<span><mark class='pii d-{name} t-PERSON' data-label=''>{esc(DECISION_NAMES[name])}</mark></span>" for name in DECISIONS)
    banner = f"<div class='banner' id='banner' role='alert'>{esc(ORIGINAL_BANNER)}</div>" if original else (
        f"<div class='banner sanitized-only' id='banner' role='note'>{esc(SANITIZED_BANNER)}</div>"
    )
    blob = _json_for_script({"original": original, "page_size": page_size, **pack(entries, original)})
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
        f"<title>{esc(title)}</title><style>{(STATIC / 'report.css').read_text(encoding='utf8')}{colors}</style></head><body>"
        f"{banner}<header><h1>{esc(title)}</h1>{_summary_html(counts)}"
        f"<h2>Privacy report</h2>{_privacy_html(privacy)}"
        f"<p class='legend'>{legend}</p>"
        "<p class='notes'>Hover over or focus (Tab) a highlighted span for why: its detector, each risk indicator's "
        "score and threshold, the vote, the policy that forced masking and the replacement. The filters list the "
        "documents with matching spans and dim the others.</p></header>"
        f"{_controls_html(types)}<main><p id='empty'>No document matches the filter.</p><div id='docs'></div></main>"
        "<div id='tip' role='tooltip'></div>"
        f"<script type='application/json' id='report-data'>{blob}</script>"
        f"<script>{(STATIC / 'report.js').read_text(encoding='utf8')}</script></body></html>\n"
    )
