"""Start-up cost of each pipeline on the command line: wall-clock seconds and peak memory (RSS)
of `spacy-sanitize sanitize` on a one-line file, in a fresh process each time, best of N runs.

Two figures per pipeline: ``seconds``, with every imported module's bytecode compiled once
beforehand (as ``pip install .`` leaves an installed package; here in a temporary
PYTHONPYCACHEPREFIX, so the checkout is not written), and ``seconds_from_source``, the
interpreter as it is called (an editable install under PYTHONDONTWRITEBYTECODE=1 compiles
each of the package's modules from source on every start, about 0.2 s on this machine).

    python benchmarks/speed/startup.py --pipelines default strict accurate --rounds 3 \
        --output benchmarks/results/startup.json
"""
import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, Optional

LINE = "Anna Berg (anna.berg@example.org) moved to Oslo on 3 May 2020.\n"


def one_run(pipeline: str, path: Path, env: Optional[Dict[str, str]] = None) -> dict:
    """One fresh process: its wall time and its peak RSS (ru_maxrss of the finished child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "spacy_sanitize", "sanitize", str(path), "-p", pipeline, "-q"],
                          capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{pipeline}: exit {done.returncode}: {done.stderr[-500:]}")
    # RUSAGE_CHILDREN is the largest child so far: one pipeline per measuring process (main)
    peak_kb = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before)
    return {"seconds": round(seconds, 3), "peak_rss_mb": round(peak_kb / 1024, 1), "output": done.stdout.strip()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pipelines", nargs="+", default=["strict", "default"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--output")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "one_line.txt"
        path.write_text(LINE, encoding="utf-8")
        for pipeline in args.pipelines:
            # each pipeline's peak in a process of its own: ru_maxrss of children is a running
            # maximum, so this script reruns itself per pipeline
            out = subprocess.run([sys.executable, __file__, "--one", pipeline, str(path), str(args.rounds)], capture_output=True, text=True)
            if out.returncode != 0:
                raise SystemExit(out.stderr[-800:])
            results[pipeline] = json.loads(out.stdout)
            print(pipeline, results[pipeline]["seconds"], "s (from source", results[pipeline]["seconds_from_source"], "s)",
                  results[pipeline]["peak_rss_mb"], "MB", file=sys.stderr)
    report = {"command": "python benchmarks/speed/startup.py " + " ".join(sys.argv[1:]), "line": LINE.strip(), "rounds": args.rounds,
              "machine": {"python": platform.python_version(), "cpus": len(__import__("os").sched_getaffinity(0))},
              "pipelines": results}
    print(json.dumps(report, indent=1))
    if args.output:
        Path(args.output).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


def compiled_env(prefix: str) -> Dict[str, str]:
    """The environment of a child that reads (and may write) bytecode under ``prefix``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = prefix
    return env


def measure_one(pipeline: str, path: str, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as prefix:
        env = compiled_env(prefix)
        one_run(pipeline, Path(path), env)  # writes the bytecode of every module it imports
        runs = [one_run(pipeline, Path(path), env) for _ in range(rounds)]
    source = [one_run(pipeline, Path(path)) for _ in range(rounds)]
    best = min(runs, key=lambda r: r["seconds"])
    print(json.dumps({"seconds": best["seconds"], "all_seconds": [r["seconds"] for r in runs],
                      "seconds_from_source": min(r["seconds"] for r in source),
                      "all_seconds_from_source": [r["seconds"] for r in source],
                      "peak_rss_mb": max(r["peak_rss_mb"] for r in runs + source), "output": best["output"]}))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        measure_one(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        main()
