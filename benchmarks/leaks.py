"""Leak benchmark: texts whose identifiers must not survive sanitization.

Each line of ``leak_cases.jsonl`` is ``{text, must_not_appear: [...], why, category}``. A
case leaks when any of its strings is still readable in ``Doc._.sanitized``: compared
case-insensitively and after NFC normalisation (a decomposed name is as readable as a
composed one), in the raw output and as a reader of its markup sees it. Reports, for each pipeline, the number of texts with a leak (overall and by
category) and lists the leaking cases.

    python benchmarks/leaks.py [--pipelines default risk_seq] [--cases PATH] [--output PATH] [--show]

tests/test_leaks_benchmark.py gates the categories fixed so far (casing and layout among them);
others (markup, non-Latin names) are still open in #20.
"""
import argparse
import html
import json
import re
import time
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List

from spacy_sanitize import load_pipeline
from spacy_sanitize.pipeline import shipped_configs

CASES = Path(__file__).parent / "leak_cases.jsonl"


def read_cases(path: Path) -> List[Dict[str, Any]]:
    with open(path, encoding="utf8") as stream:
        return [json.loads(line) for line in stream if line.strip()]


# what a reader of markup or a terminal does not see: tags, comment delimiters, ANSI escapes
# (a second reading of the output: the raw text is read too, so nothing is hidden by it)
_MARKUP = re.compile(r"<[^<>]*>|\x1b\[[0-?]*[ -/]*[@-~]")


def _readable(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold()


def _as_read(text: str) -> str:
    return _readable(html.unescape(_MARKUP.sub("", text)))


def leaked(case: Dict[str, Any], sanitized: str) -> List[str]:
    """The strings of ``case`` still readable in ``sanitized``: in the raw text or as a
    reader of its markup sees it (tags and escapes gone, ``&eacute;`` read as "é")."""
    seen = (_readable(sanitized), _as_read(sanitized))
    return [s for s in case["must_not_appear"] if any(_readable(s) in form for form in seen)]


def run(pipeline: str, cases: List[Dict[str, Any]]) -> Dict[str, Any]:
    nlp = load_pipeline(pipeline)
    start = time.perf_counter()
    docs = list(nlp.pipe([c["text"] for c in cases]))
    seconds = time.perf_counter() - start
    leaks = []
    for index, (case, doc) in enumerate(zip(cases, docs)):
        found = leaked(case, doc._.sanitized)
        if found:
            leaks.append({"index": index, "category": case.get("category"), "why": case["why"], "leaked": found, "output": doc._.sanitized})
    by_category = Counter(leak["category"] for leak in leaks)
    totals = Counter(case.get("category") for case in cases)
    return {
        "texts": len(cases),
        "texts_with_leak": len(leaks),
        "by_category": {cat: f"{by_category.get(cat, 0)}/{n}" for cat, n in sorted(totals.items())},
        "seconds": round(seconds, 1),
        "leaks": leaks,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--pipelines", nargs="+", default=shipped_configs())
    parser.add_argument("--cases", type=Path, default=CASES)
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--show", action="store_true", help="print each leaking case")
    args = parser.parse_args()
    cases = read_cases(args.cases)
    results = {}
    for name in args.pipelines:
        result = results[name] = run(name, cases)
        cats = ", ".join(f"{c} {v}" for c, v in result["by_category"].items())
        print(f"| {name} | {result['texts_with_leak']}/{result['texts']} | {cats} |", flush=True)
        if args.show:
            for leak in result["leaks"]:
                print(f"    #{leak['index']} {leak['why']}: {leak['leaked']!r} in {leak['output'][:120]!r}")
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf8")
