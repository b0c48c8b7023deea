"""False-positive benchmark: sentences of everyday text with nothing to mask.

Each line of ``plain_sentences.jsonl`` is ``{text, genre}``: a sentence or line (letters, chat,
SMS, instructions, headings and form labels, news, legal boilerplate, medical notes, logs,
recipes, markup, workplace and support text) in which a careful anonymizer would change nothing.
A sentence counts as a false positive when the sanitized text differs from it in any way.
Written before the fixes it measures, like the leak benchmark (benchmarks/everyday/leaks.py): the two
are read together, so recall is not bought with false alarms.

    python benchmarks/everyday/false_positives.py [--pipelines default strict] [--output PATH] [--show]
    PYTHONPATH=/tmp/presidio_pkgs:. python benchmarks/everyday/false_positives.py --presidio

tests/test_false_positives_benchmark.py gates the default pipeline and checks the committed run.
"""
import argparse
import importlib.util
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List

# the leak benchmark's reading, sanitizing and Presidio helpers
_spec = importlib.util.spec_from_file_location("leaks_benchmark", Path(__file__).parent / "leaks.py")
leaks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(leaks)

SENTENCES = Path(__file__).parent / "plain_sentences.jsonl"
read_sentences = leaks.read_cases


def run(pipeline: str, sentences: List[Dict[str, Any]]) -> Dict[str, Any]:
    texts = [s["text"] for s in sentences]
    start = time.perf_counter()
    outputs = leaks.sanitized_texts(pipeline, texts)
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
    results = {}
    for name in leaks.with_presidio(args.pipelines, args.presidio):
        result = results[name] = run(name, sentences)
        genres = ", ".join(f"{g} {v}" for g, v in result["by_genre"].items())
        print(f"| {name} | {result['changed']}/{result['sentences']} ({100 * result['rate']:.1f}%) | {genres} |", flush=True)
        if args.show:
            for case in result["examples"]:
                print(f"    #{case['index']} [{case['genre']}] {case['text'][:80]!r} -> {case['output'][:80]!r}")
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf8")
