"""``nlp.pipe(n_process=N)`` against one process on MANY documents (the biographies repeated,
the court texts), and what the extra processes cost: the machine's own two-process speed-up
(a pure-Python control loop, so a shared machine's load is visible), the parent's Doc
deserialization (spaCy's workers send every Doc back as bytes, the parent rebuilds them
one at a time) and the worker start-up.

    python benchmarks/speed/n_process.py [--pipeline default] [--n-process 1 2] [--wiki-repeat 4]
        [--court-limit 40] [--batch-size 32] [--output benchmarks/results/n_process.json]
"""
import argparse
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import srsly
from spacy.tokens import Doc

ROOT = Path(__file__).resolve().parents[2]

from spacy_sanitize import load_pipeline  # noqa: E402
from spacy_sanitize.corpus import load_tab, shared_data_dir, wiki_dev_path  # noqa: E402


def _spin(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


def cpu_parallelism(n_process: int, work: int = 3_000_000) -> float:
    """Speed-up of ``n_process`` processes over one on the same pure-Python work per process:
    what the machine gives right now (2.0 on two idle cores)."""
    start = time.perf_counter()
    for _ in range(n_process):
        _spin(work)
    serial = time.perf_counter() - start
    start = time.perf_counter()
    with mp.get_context("fork").Pool(n_process) as pool:
        pool.map(_spin, [work] * n_process)
    return round(serial / (time.perf_counter() - start), 2)


def run(nlp, texts: Sequence[str], n_process: int, batch_size: int) -> Tuple[Dict[str, float], List[Doc]]:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    stream = nlp.pipe(texts, n_process=n_process, batch_size=batch_size)
    docs = [next(stream)]
    first = time.perf_counter() - start
    docs.extend(stream)
    seconds = time.perf_counter() - start
    return {"seconds": round(seconds, 2), "docs_per_s": round(len(docs) / seconds, 2), "first_doc_s": round(first, 2)}, docs


def transfer_cost(docs: List[Doc]) -> Dict[str, float]:
    """What moving the finished Docs between processes costs: bytes, and the seconds of
    ``to_bytes`` (in a worker) and ``from_bytes`` (in the parent, serially)."""
    start = time.perf_counter()
    blobs = [doc.to_bytes() for doc in docs]
    to_bytes = time.perf_counter() - start
    vocab = docs[0].vocab
    start = time.perf_counter()
    for blob in blobs:
        Doc(vocab).from_bytes(blob)
    from_bytes = time.perf_counter() - start
    return {"kb_per_doc": round(sum(map(len, blobs)) / len(blobs) / 1024, 1), "to_bytes_s": round(to_bytes, 2), "from_bytes_s": round(from_bytes, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pipeline", default="default")
    parser.add_argument("--n-process", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--wiki-repeat", type=int, default=4, help="the 70 biographies this many times")
    parser.add_argument("--court-limit", type=int, help="only the first this many of the 127 court texts")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--output", type=Path, default=ROOT / "benchmarks" / "results" / "n_process.json")
    args = parser.parse_args()
    wiki = [d.text for d in load_tab(wiki_dev_path())] * args.wiki_repeat
    court = [r["text"] for r in srsly.read_jsonl(shared_data_dir() / "tab" / "tab_dev_texts.jsonl")][: args.court_limit]
    corpora = {f"wiki_dev x{args.wiki_repeat}": wiki, "court texts": court}
    nlp = load_pipeline(args.pipeline)
    list(nlp.pipe(wiki[:2]))  # warm-up, not timed
    results: Dict[str, Dict] = {
        "pipeline": args.pipeline,
        "cpus": len(os.sched_getaffinity(0)),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "torch_loaded": "torch" in sys.modules,
        "cpu_parallelism_control": {n: cpu_parallelism(n) for n in args.n_process if n > 1},
        "corpora": {},
    }
    for name, texts in corpora.items():
        row: Dict[str, object] = {"docs": len(texts), "chars": sum(map(len, texts))}
        for n in args.n_process:
            row[f"n_process={n}"], docs = run(nlp, texts, n, args.batch_size)
            print(name, n, row[f"n_process={n}"], flush=True)
        base = row[f"n_process={args.n_process[0]}"]["seconds"]  # type: ignore[index]
        row["speedup"] = {n: round(base / row[f"n_process={n}"]["seconds"], 2) for n in args.n_process}  # type: ignore[index]
        row["transfer"] = transfer_cost(docs)
        print(name, row["speedup"], row["transfer"], flush=True)
        results["corpora"][name] = row
    results["cpu_parallelism_control_after"] = {n: cpu_parallelism(n) for n in args.n_process if n > 1}
    print(results["cpu_parallelism_control"], results["cpu_parallelism_control_after"])
    args.output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(args.output, results)


if __name__ == "__main__":
    main()
