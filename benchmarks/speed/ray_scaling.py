"""Throughput of the default pipeline on the court texts: one local process, ``n_process=2``,
and Ray Data (``spacy_sanitize.batch.sanitize_dataset``) with 1 and 2 actors on a local Ray
instance; plus the resident memory of one actor after a batch. Docs/s and chars/s are over
the whole run, so the Ray figures include starting the actors and loading the pipeline in
each (reported on its own as ``load_s``, measured in this process); docs/scale-out.md
projects them to a cluster.

    python benchmarks/speed/ray_scaling.py --limit 40 --output benchmarks/results/ray_scaling.json
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List

import srsly

ROOT = Path(__file__).resolve().parents[2]

from spacy_sanitize.corpus import shared_data_dir  # noqa: E402


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def timed(name: str, texts: List[str], run: Callable[[], List[str]]) -> Dict[str, Any]:
    started = time.perf_counter()
    outputs = run()
    seconds = time.perf_counter() - started
    assert len(outputs) == len(texts)
    chars = sum(map(len, texts))
    row = {"setup": name, "seconds": round(seconds, 2), "docs_per_s": round(len(texts) / seconds, 3), "chars_per_s": round(chars / seconds)}
    print(json.dumps(row), file=sys.stderr)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=40, help="court texts to sanitize (default 40)")
    parser.add_argument("--pipeline", default="default")
    parser.add_argument("--batch-size", type=int, default=4, help="records per Ray batch")
    parser.add_argument("--output", help="write the results as JSON here")
    args = parser.parse_args()

    import ray
    import ray.data

    import spacy_sanitize
    from spacy_sanitize.batch import RecordSanitizer, sanitize_dataset
    from spacy_sanitize.pipeline import sanitize_texts

    load_before = round(os.getloadavg()[0], 1)  # other jobs on the machine: the ratios are indicative
    path = shared_data_dir() / "tab" / "tab_dev_texts.jsonl"
    rows = list(srsly.read_jsonl(path))[: args.limit]
    texts = [row["text"] for row in rows]
    records = [{"id": row["doc_id"], "text": row["text"]} for row in rows]

    started = time.perf_counter()
    nlp = spacy_sanitize.load_pipeline(args.pipeline)
    load_s = round(time.perf_counter() - started, 2)
    sanitize_texts(nlp, texts[:1]).__next__()  # warm-up: lazily built tables, first-call costs
    results = [
        timed("local, 1 process", texts, lambda: [t for t, _, _ in sanitize_texts(nlp, texts)]),
        timed("local, n_process=2", texts, lambda: [t for t, _, _ in sanitize_texts(nlp, texts, n_process=2)]),
    ]
    ray.init(address="local", num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    try:
        for workers in (1, 2):
            def run(workers: int = workers) -> List[str]:
                ds = sanitize_dataset(ray.data.from_items(records), args.pipeline, num_workers=workers, batch_size=args.batch_size)
                return [row["sanitized"] for row in ds.take_all()]

            results.append(timed(f"ray, {workers} actor(s)", texts, run))

        @ray.remote(num_cpus=1)
        class Probe:
            def __init__(self, pipeline: str) -> None:
                self.sanitizer = RecordSanitizer(pipeline)

            def run(self, batch: List[str]) -> float:
                self.sanitizer.sanitize(batch)
                return rss_mb()

        actor_mb = ray.get(Probe.remote(args.pipeline).run.remote(texts[: args.batch_size]))
    finally:
        ray.shutdown()
    report = {
        "pipeline": args.pipeline,
        "docs": len(texts),
        "chars": sum(map(len, texts)),
        "cpus": os.cpu_count(),
        "load_s": load_s,
        "actor_rss_mb": actor_mb,
        "load_average_before_after": [load_before, round(os.getloadavg()[0], 1)],
        "results": results,
        "note": "shared machine: other jobs ran at the same time (load average on its cores above), so the ratios are indicative",
    }
    print(json.dumps(report, indent=2))
    if args.output:
        Path(args.output).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
