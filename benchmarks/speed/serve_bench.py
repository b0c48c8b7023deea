"""Latency and throughput of ``spacy-sanitize serve`` against the one-shot CLI.

Starts the service on loopback (the default pipeline), then measures: the time to ready and
the resident memory per process; the latency of one-line requests sent one after another;
the throughput on the 70 annotated biographies sent as records (10 per request, after a
warm-up pass over the same texts), by one client, and by 4 concurrent clients against 1 and
2 worker processes; a bounded load test (8 and 32 concurrent clients sending one-line
requests: errors, requests per second, p50/p95/p99 latency, memory before and after); and,
for comparison, one CLI call for one line.

    python benchmarks/speed/serve_bench.py --output benchmarks/results/serve.json
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Dict, List

import httpx
import srsly

ROOT = Path(__file__).resolve().parents[2]

from spacy_sanitize.corpus import wiki_dev_path  # noqa: E402

LINE = "Anna Berg (anna.berg@example.org) moved to Oslo in May 2019."


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rss_mb(pid: int) -> float:
    """Resident memory of a process and its children (uvicorn's workers), in MB."""
    pids = [pid] + [int(p) for p in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()]
    total = 0
    for p in pids:
        for line in Path(f"/proc/{p}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return round(total / 1024, 1)


def start(pipeline: str, workers: int) -> Dict[str, Any]:
    url = f"http://127.0.0.1:{free_port()}"
    command = [sys.executable, "-m", "spacy_sanitize", "serve", "-p", pipeline, "--port", url.rsplit(":", 1)[1], "--workers", str(workers)]
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ready = set()
    while len(ready) < workers:  # every worker answers /health once it has loaded the pipeline
        try:
            ready.add(httpx.get(url + "/health", timeout=5).json()["pid"])
        except httpx.TransportError:
            if process.poll() is not None:
                raise RuntimeError("the server exited") from None
            time.sleep(0.2)
    return {"url": url, "process": process, "ready_s": round(time.perf_counter() - started, 2)}


def post(url: str, payload: Dict[str, Any]) -> Dict[str, Any]:
    response = httpx.post(url + "/sanitize", json=payload, timeout=300)
    response.raise_for_status()
    return response.json()


def throughput(url: str, records: List[Dict[str, Any]], clients: int, per_request: int = 10) -> Dict[str, Any]:
    batches = [records[i : i + per_request] for i in range(0, len(records), per_request)]
    chars = sum(len(r["text"]) for r in records)
    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(lambda batch: post(url, {"records": batch}), batches))
    seconds = time.perf_counter() - started
    return {"clients": clients, "docs": len(records), "seconds": round(seconds, 2), "docs_per_s": round(len(records) / seconds, 2), "chars_per_s": round(chars / seconds)}


def load_test(url: str, clients: int, requests: int) -> Dict[str, Any]:
    """``requests`` one-line requests from ``clients`` concurrent clients (bounded: each client
    waits for its answer): errors (any non-200 or transport failure), latency percentiles,
    requests per second, and whether every answer equals the first (the same text each time)."""
    texts = [f"{LINE} Ref {i % 7}." for i in range(requests)]

    def one(text: str) -> Any:
        t0 = time.perf_counter()
        try:
            response = httpx.post(url + "/sanitize", json={"text": text}, timeout=300)
            ok = response.status_code == 200
            body = response.json()["sanitized"] if ok else None
        except (httpx.HTTPError, ValueError):
            ok, body = False, None
        return ok, (time.perf_counter() - t0) * 1000, body

    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        answers = list(pool.map(one, texts))
    seconds = time.perf_counter() - started
    latencies = sorted(ms for _, ms, _ in answers)
    by_text: Dict[str, set] = {}
    for text, (_, _, body) in zip(texts, answers):
        by_text.setdefault(text, set()).add(body)

    def pct(q: float) -> float:
        return round(latencies[min(len(latencies) - 1, int(q * len(latencies)))], 1)

    return {"clients": clients, "requests": requests, "errors": sum(not ok for ok, _, _ in answers), "req_per_s": round(requests / seconds, 1),
            "ms": {"p50": pct(0.5), "p95": pct(0.95), "p99": pct(0.99), "max": round(latencies[-1], 1)},
            "same_answer_for_the_same_text": all(len(bodies) == 1 for bodies in by_text.values())}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pipeline", default="default")
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--load-requests", type=int, default=1200, help="one-line requests per load test (8 and 32 clients)")
    parser.add_argument("--output", default=str(ROOT / "benchmarks" / "results" / "serve.json"))
    args = parser.parse_args()
    records = [{"id": d["doc_id"], "text": d["text"]} for d in json.loads(Path(wiki_dev_path()).read_text(encoding="utf8"))]
    result: Dict[str, Any] = {"pipeline": args.pipeline, "cpus": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 2)}

    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "spacy_sanitize", "sanitize", "-", "-p", args.pipeline, "-q"], input=LINE, text=True, cwd=ROOT, capture_output=True, check=True)
    result["cli_one_line_s"] = round(time.perf_counter() - started, 2)

    for workers in (1, 2):
        server = start(args.pipeline, workers)
        try:
            url = server["url"]
            row: Dict[str, Any] = {"ready_s": server["ready_s"], "rss_mb": rss_mb(server["process"].pid)}
            # A first pass over new texts also fills the vocabulary and caches: warm every
            # worker up on the same texts so that the timed passes compare like with like.
            for _ in range(workers):
                throughput(url, records, 4)
            if workers == 1:
                latencies = []
                for _ in range(args.requests):
                    t0 = time.perf_counter()
                    post(url, {"text": LINE})
                    latencies.append((time.perf_counter() - t0) * 1000)
                latencies.sort()
                row["one_line_ms"] = {"p50": round(statistics.median(latencies), 1), "p95": round(latencies[int(0.95 * len(latencies)) - 1], 1), "n": len(latencies)}
                row["wiki_dev_1_client"] = throughput(url, records, 1)
            row["wiki_dev_4_clients"] = throughput(url, records, 4)
            # the bounded load test: many clients at once, no error allowed, p99 reported
            rss_before = rss_mb(server["process"].pid)
            row["load"] = [load_test(url, clients, args.load_requests) for clients in (8, 32)]
            row["rss_mb_after_load"] = {"before": rss_before, "after": rss_mb(server["process"].pid)}
            result[f"workers_{workers}"] = row
        finally:
            server["process"].terminate()
            server["process"].wait(timeout=30)
    print(json.dumps(result, indent=2))
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(args.output, result)


if __name__ == "__main__":
    main()
