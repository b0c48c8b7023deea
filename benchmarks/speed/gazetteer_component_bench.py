"""End-to-end throughput of the pii_gazetteer component (matching, noise control, merging
into the span group, explanations) with the shipped gazetteer, on the wiki_dev
biographies already processed by the rest of the default pipeline (tokenization, NER,
rules: not timed). Per-Doc calls (``component(doc)``) and ``component.pipe`` (batched
matching), best of several repeats on fresh copies of the Docs.

Run it once per source tree to compare versions; each run adds its ``--tag`` to the
results file:

    PYTHONPATH=/path/to/old/tree python benchmarks/speed/gazetteer_component_bench.py --tag before
    PYTHONPATH=$PWD python benchmarks/speed/gazetteer_component_bench.py --tag after
"""

import argparse
import json
import os
import time
import warnings
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("SPACY_SANITIZE_DATA", ROOT.parent.parent / "shared" / "data"))
if not (DATA / "wiki" / "wiki_dev.json").exists():
    DATA = ROOT.parent / "shared" / "data"


def best_time(run, docs: List[Any], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        copies = [doc.copy() for doc in docs]
        started = time.perf_counter()
        run(copies)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tag", required=True)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument(
        "--output", type=Path, default=ROOT / "benchmarks" / "results" / "gazetteer_component.json"
    )
    args = parser.parse_args()
    from spacy_sanitize import load_pipeline

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nlp = load_pipeline("default")
    texts = [d["text"] for d in json.loads((DATA / "wiki" / "wiki_dev.json").read_text())]
    with nlp.select_pipes(disable=["pii_gazetteer", "pii_coref", "masker"]):
        docs = list(nlp.pipe(texts))
    component = nlp.get_pipe("pii_gazetteer")
    component(docs[0].copy())  # load the gazetteer, warm the caches
    n_tokens = sum(len(doc) for doc in docs)
    per_doc = pipe = float("inf")
    for _ in range(args.repeats):  # interleaved, so that load on the machine hits both
        per_doc = min(per_doc, best_time(lambda ds: [component(d) for d in ds], docs, 1))
        pipe = min(pipe, best_time(lambda ds: list(component.pipe(ds, batch_size=128)), docs, 1))
    result: Dict[str, Any] = {
        "documents": len(docs),
        "tokens": n_tokens,
        "per_doc_tokens_per_s": n_tokens / per_doc,
        "pipe_tokens_per_s": n_tokens / pipe,
        "spans": sum(len(component(d.copy()).spans["pii"]) for d in docs),
        "cpu_count": os.cpu_count(),
        "time_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
    }
    results = json.loads(args.output.read_text()) if args.output.exists() else {}
    results[args.tag] = result
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=1))
    print(args.tag, json.dumps(result))


if __name__ == "__main__":
    main()
