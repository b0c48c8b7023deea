"""Big plain-text files through the CLI: time, throughput and peak memory.

Builds inputs of the given sizes from court texts (TAB dev texts, then unlabeled ECHR
judgments), runs ``python -m spacy_sanitize sanitize FILE -o OUT -q`` on each as a
subprocess (each under its own wrapper process, so ``RUSAGE_CHILDREN`` reads that run's
largest process: the CLI or one of its workers), and prints/writes seconds, characters
per second without the start-up (a one-line input's run time) and peak RSS.

    python benchmarks/speed/big_file.py [--sizes 0.1 1 5 10] [--n-process 1 2] [--pipeline default]
        [--output benchmarks/results/big_file.json]
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, Iterator, List

ROOT = Path(__file__).resolve().parents[2]

from spacy_sanitize.corpus import shared_data_dir  # noqa: E402

# Runs the CLI once and prints its wall time and the peak RSS of its process tree's largest process.
WRAPPER = """
import resource, subprocess, sys, time
start = time.perf_counter()
rc = subprocess.run(sys.argv[1:]).returncode
seconds = time.perf_counter() - start
print(rc, seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def court_texts() -> Iterator[str]:
    data = shared_data_dir()
    for path in (data / "tab" / "tab_dev_texts.jsonl", data / "unlabeled" / "echr.jsonl"):
        with open(path, encoding="utf8") as lines:
            for line in lines:
                text = json.loads(line).get("text")
                if text:
                    yield text


def build_input(chars: int, folder: Path) -> Path:
    path = folder / f"court_{chars}.txt"
    if path.exists() and path.stat().st_size >= chars:
        return path
    parts: List[str] = []
    total = 0
    for text in court_texts():
        parts.append(text)
        total += len(text) + 2
        if total >= chars:
            break
    path.write_text("\n\n".join(parts)[:chars], encoding="utf8")
    return path


def run_cli(path: Path, pipeline: str, n_process: int, out: Path) -> Dict[str, Any]:
    command = [sys.executable, "-m", "spacy_sanitize", "sanitize", str(path), "-o", str(out), "-q", "-p", pipeline, "--n-process", str(n_process)]
    result = subprocess.run([sys.executable, "-c", WRAPPER, *command], capture_output=True, text=True, cwd=ROOT, check=True)
    rc, seconds, max_rss_kb = result.stdout.split()
    if rc != "0":
        raise RuntimeError(f"{command} exited {rc}: {result.stderr[-2000:]}")
    return {"seconds": round(float(seconds), 2), "peak_rss_mb": round(int(max_rss_kb) / 1024, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[0.1, 1, 5, 10], help="input sizes in MB (millions of characters)")
    parser.add_argument("--n-process", type=int, nargs="+", default=[1])
    parser.add_argument("--pipeline", default="default")
    parser.add_argument("--inputs", default=str(Path(tempfile.gettempdir()) / "spacy_sanitize_big_file"), help="where the generated inputs are kept")
    parser.add_argument("--output", default=str(ROOT / "benchmarks" / "results" / "big_file.json"))
    parser.add_argument("--append", action="store_true", help="add to the runs already in --output")
    args = parser.parse_args()
    folder = Path(args.inputs)
    folder.mkdir(parents=True, exist_ok=True)
    one_line = folder / "one_line.txt"
    one_line.write_text("Mr John Smith lives in Paris.\n", encoding="utf8")
    output = Path(args.output)
    rows: List[Dict[str, Any]] = json.loads(output.read_text())["runs"] if args.append and output.exists() else []
    for n_process in args.n_process:
        startup = run_cli(one_line, args.pipeline, n_process, folder / "out.txt")
        print(json.dumps({"input": "one line", "n_process": n_process, **startup}), flush=True)
        rows.append({"input": "one line", "chars": one_line.stat().st_size, "n_process": n_process, **startup})
        write(output, args.pipeline, rows)
        for size in args.sizes:
            path = build_input(int(size * 1_000_000), folder)
            chars = len(path.read_text(encoding="utf8"))
            row: Dict[str, Any] = {"input": f"{size:g} MB", "chars": chars, "n_process": n_process}
            row.update(run_cli(path, args.pipeline, n_process, folder / "out.txt"))
            row["chars_per_s"] = round(chars / max(row["seconds"] - startup["seconds"], 1e-6))
            print(json.dumps(row), flush=True)
            rows.append(row)
            write(output, args.pipeline, rows)  # after each run: a long one interrupted keeps the others
    write(output, args.pipeline, rows)


def write(output: Path, pipeline: str, rows: List[Dict[str, Any]]) -> None:
    result = {"pipeline": pipeline, "machine": f"{platform.machine()}, {os.cpu_count()} cores (shared with other jobs)", "runs": rows}
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=2) + "\n", encoding="utf8")


if __name__ == "__main__":
    main()
