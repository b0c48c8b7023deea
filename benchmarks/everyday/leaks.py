"""Leak benchmark: texts whose identifiers must not survive sanitization.

Each line of ``leak_cases.jsonl`` is ``{text, must_not_appear: [...], why, category}``. A
case leaks when any of its strings is still readable in ``Doc._.sanitized``: compared
case-insensitively and after NFC normalisation (a decomposed name is as readable as a
composed one), in the raw output and as a reader of its markup sees it. Reports, for each pipeline, the number of texts with a leak (overall and by
category) and lists the leaking cases.

    python benchmarks/everyday/leaks.py [--pipelines default risk_seq] [--cases PATH] [--output PATH] [--show]
    PYTHONPATH=/tmp/presidio_pkgs:. python benchmarks/everyday/leaks.py --presidio   # and Presidio's count

With ``--presidio``, Microsoft Presidio (not a dependency: installed next to this project, as
for benchmarks/speed/presidio_compare.py) runs on the same cases with its default recognizers; it
is skipped, with a message, when it cannot be imported.

tests/test_leaks_benchmark.py gates every category for the default pipeline (no text with a
leak) and checks that benchmarks/results/leaks.json, the committed run, says the same.
"""
import argparse
import html
import importlib.util
import json
import re
import time
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

from spacy_sanitize import load_pipeline  # noqa: E402
from spacy_sanitize.pipeline import shipped_configs  # noqa: E402

CASES = Path(__file__).parent / "leak_cases.jsonl"
PRESIDIO = "presidio"


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


def presidio_ranges() -> Optional[Callable[[str], List[List[Any]]]]:
    """Presidio's analyzer (its default recognizers, our English spaCy model, every result:
    threshold 0, its default) as a function giving a text's ``[start, end, TYPE]`` ranges,
    overlapping ones merged as its anonymizer merges them; None when Presidio cannot be imported."""
    try:
        from presidio_analyzer import AnalyzerEngine
        from presidio_analyzer.nlp_engine import NlpEngineProvider
    except ImportError:
        return None
    from spacy_sanitize.models import english_model_name

    provider = NlpEngineProvider(nlp_configuration={"nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": english_model_name()}]})
    analyzer = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])

    def ranges(text: str) -> List[List[Any]]:
        found = sorted((r.start, r.end, r.entity_type) for r in analyzer.analyze(text=text, language="en"))
        merged: List[List[Any]] = []
        for start, end, label in found:
            if merged and start < merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end, label])
        return merged

    return ranges


def presidio_masker() -> Optional[Callable[[str], str]]:
    """Each of Presidio's ranges (``presidio_ranges``) replaced by ``<TYPE>``, as its
    anonymizer's default operator does; None when Presidio cannot be imported."""
    ranges = presidio_ranges()
    if ranges is None:
        return None

    def mask(text: str) -> str:
        out, cursor = [], 0
        for start, end, label in ranges(text):
            out += [text[cursor:start], f"<{label}>"]
            cursor = end
        return "".join(out) + text[cursor:]

    return mask


def sanitized_texts(pipeline: str, texts: List[str]) -> List[str]:
    """``texts`` as ``pipeline`` (a shipped name, or ``PRESIDIO``) sanitizes them."""
    if pipeline == PRESIDIO:
        mask = presidio_masker()
        assert mask is not None
        return [mask(t) for t in texts]
    return [doc._.sanitized for doc in load_pipeline(pipeline).pipe(texts)]


def with_presidio(names: List[str], wanted: bool) -> List[str]:
    """``names``, and Presidio when ``wanted`` and importable (else a message says why not)."""
    if wanted and importlib.util.find_spec("presidio_analyzer") is not None:
        return [*names, PRESIDIO]
    if wanted:
        print("Presidio skipped: presidio_analyzer cannot be imported (pip install --no-deps --target /tmp/presidio_pkgs "
              "presidio-analyzer phonenumbers tldextract requests-file, then PYTHONPATH=/tmp/presidio_pkgs:.)", flush=True)
    return list(names)


def run(pipeline: str, cases: List[Dict[str, Any]]) -> Dict[str, Any]:
    texts = [c["text"] for c in cases]
    start = time.perf_counter()
    outputs = sanitized_texts(pipeline, texts)
    seconds = time.perf_counter() - start
    leaks = []
    for index, (case, output) in enumerate(zip(cases, outputs)):
        found = leaked(case, output)
        if found:
            leaks.append({"index": index, "category": case.get("category"), "why": case["why"], "leaked": found, "output": output})
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
    parser.add_argument("--pipelines", nargs="*", default=shipped_configs())
    parser.add_argument("--cases", type=Path, default=CASES)
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--show", action="store_true", help="print each leaking case")
    parser.add_argument("--presidio", action="store_true", help="also count Presidio's leaks (needs presidio-analyzer importable)")
    args = parser.parse_args()
    cases = read_cases(args.cases)
    results = {}
    for name in with_presidio(args.pipelines, args.presidio):
        result = results[name] = run(name, cases)
        cats = ", ".join(f"{c} {v}" for c, v in result["by_category"].items())
        print(f"| {name} | {result['texts_with_leak']}/{result['texts']} | {cats} |", flush=True)
        if args.show:
            for leak in result["leaks"]:
                print(f"    #{leak['index']} {leak['why']}: {leak['leaked']!r} in {leak['output'][:120]!r}")
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf8")
