"""False-positive benchmark: sentences of everyday text with nothing to mask.

Each line of ``plain_sentences.jsonl`` is ``{text, genre}``: a sentence or line (letters, chat,
SMS, instructions, headings and form labels, news, legal boilerplate, medical notes, logs,
recipes, markup, workplace and support text) in which a careful anonymizer would change nothing.
A sentence counts as a false positive when the sanitized text differs from it in any way.
Written before the fixes it measures, like the leak benchmark (benchmarks/leaks.py): the two
are read together, so recall is not bought with false alarms.

    python benchmarks/false_positives.py [--pipelines default strict] [--output PATH] [--show]
    PYTHONPATH=/tmp/presidio_pkgs:. python benchmarks/false_positives.py --presidio

tests/test_false_positives_benchmark.py gates the default pipeline and checks the committed run.
"""
import argparse
import importlib.util
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List

sys.path[:0] = [str(Path(__file__).resolve().parents[1])]  # this checkout's package

from spacy_sanitize import load_pipeline  # noqa: E402

SENTENCES = Path(__file__).parent / "plain_sentences.jsonl"
PRESIDIO = "presidio"


def read_sentences(path: Path) -> List[Dict[str, Any]]:
    with open(path, encoding="utf8") as stream:
        return [json.loads(line) for line in stream if line.strip()]


def sanitize(pipeline: str, texts: List[str]) -> List[str]:
    if pipeline == PRESIDIO:
        spec = importlib.util.spec_from_file_location("leaks_benchmark", Path(__file__).parent / "leaks.py")
        leaks = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(leaks)
        mask = leaks.presidio_masker()
        assert mask is not None
        return [mask(t) for t in texts]
    return [doc._.sanitized for doc in load_pipeline(pipeline).pipe(texts)]


def run(pipeline: str, sentences: List[Dict[str, Any]]) -> Dict[str, Any]:
    texts = [s["text"] for s in sentences]
    start = time.perf_counter()
    outputs = sanitize(pipeline, texts)
    seconds = time.perf_counter() - start
    changed = [{"index": i, "genre": s["genre"], "text": s["text"], "output": out}
               for i, (s, out) in enumerate(zip(sentences, outputs)) if out != s["text"]]
    by_genre = Counter(c["genre"] for c in changed)
    totals = Counter(s["genre"] for s in sentences)
    return {
        "sentences": len(sentences),
        "changed": len(changed),
        "rate": round(len(changed) / len(sentences), 4),
        "by_genre": {g: f"{by_genre.get(g, 0)}/{n}" for g, n in sorted(totals.items())},
        "seconds": round(seconds, 1),
        "examples": changed,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--pipelines", nargs="*", default=["default", "strict"])
    parser.add_argument("--sentences", type=Path, default=SENTENCES)
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--show", action="store_true", help="print each changed sentence")
    parser.add_argument("--presidio", action="store_true", help="also count Presidio's (needs presidio-analyzer importable)")
    args = parser.parse_args()
    sentences = read_sentences(args.sentences)
    names = list(args.pipelines)
    if args.presidio:
        if importlib.util.find_spec("presidio_analyzer") is not None:
            names.append(PRESIDIO)
        else:
            print("Presidio skipped: presidio_analyzer cannot be imported (see benchmarks/leaks.py)", flush=True)
    results = {}
    for name in names:
        result = results[name] = run(name, sentences)
        genres = ", ".join(f"{g} {v}" for g, v in result["by_genre"].items())
        print(f"| {name} | {result['changed']}/{result['sentences']} ({100 * result['rate']:.1f}%) | {genres} |", flush=True)
        if args.show:
            for case in result["examples"]:
                print(f"    #{case['index']} [{case['genre']}] {case['text'][:80]!r} -> {case['output'][:80]!r}")
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf8")
