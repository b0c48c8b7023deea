"""GazetteerMatcher vs spaCy's PhraseMatcher(attr="LOWER") on synthetic gazetteers.

For each size (default 10k, 100k, 1M terms of 1-4 words drawn from wordfreq's 50,000
most frequent English words): build time, size on disk, load time and memory (RSS
growth when loading in a fresh process), and matching throughput in tokens/s over
pre-tokenized documents (the Wikipedia biographies when available; matching only, no
tokenization). PhraseMatcher has no binary format: its "load" is rebuilding from the
term list, which is what loading an EntityRuler does.

    python benchmarks/gazetteer_matcher_bench.py --sizes 10000 100000 1000000 --phrase-sizes 10000 100000
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parents[1]
DATA_DIRS = [Path(os.environ["SPACY_SANITIZE_DATA"])] if "SPACY_SANITIZE_DATA" in os.environ else []
DATA_DIRS += [ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data"]
WIKI = next(
    (d / "wiki" / "wiki_dev.json" for d in DATA_DIRS if (d / "wiki" / "wiki_dev.json").exists()),
    DATA_DIRS[0] / "wiki" / "wiki_dev.json",
)


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return float("nan")


def synthetic_terms(n: int, seed: int = 0) -> List[str]:
    from wordfreq import top_n_list

    vocab = [w for w in top_n_list("en", 50000) if w.isalpha()]
    rng = random.Random(seed)
    terms = set()
    while len(terms) < n:
        terms.add(" ".join(rng.choice(vocab) for _ in range(rng.choice((1, 2, 2, 3, 3, 4)))))
    return sorted(terms)


def texts() -> List[str]:
    if WIKI.exists():
        return [d["text"] for d in json.loads(WIKI.read_text())]
    from wordfreq import top_n_list

    vocab = top_n_list("en", 5000)
    rng = random.Random(1)
    return [" ".join(rng.choice(vocab) for _ in range(500)) + "." for _ in range(100)]


def throughput(match, docs: List[Any], repeats: int) -> Dict[str, float]:
    n_tokens = sum(len(doc) for doc in docs)
    timings = []
    hits = 0
    for _ in range(repeats):
        started = time.perf_counter()
        hits = sum(len(match(doc)) for doc in docs)
        timings.append(time.perf_counter() - started)
    return {
        "tokens": n_tokens,
        "matches": hits,
        "cold_tokens_per_s": n_tokens / timings[0],
        "tokens_per_s": n_tokens / min(timings[1:] or timings),
    }


def child_load(kind: str, path: str) -> None:
    """Runs in a fresh process: load, report time and memory growth as JSON."""
    import spacy

    nlp = spacy.blank("en")
    docs = list(nlp.pipe(texts()))
    before = rss_mb()
    started = time.perf_counter()
    if kind == "ours":
        sys.path.insert(0, str(ROOT))
        from spacy_sanitize.gazetteer.matcher import GazetteerMatcher

        matcher = GazetteerMatcher.from_disk(path)
        match = matcher.find_in_doc
    else:
        from spacy.matcher import PhraseMatcher

        terms = Path(path).read_text().splitlines()
        matcher = PhraseMatcher(nlp.vocab, attr="LOWER")
        for start in range(0, len(terms), 10000):
            matcher.add("TERM", list(nlp.tokenizer.pipe(terms[start : start + 10000])))
        match = matcher
    load_s = time.perf_counter() - started
    memory = rss_mb() - before
    result = {"load_s": load_s, "memory_mb": memory, **throughput(match, docs, repeats=4)}
    print(json.dumps(result))


def run_child(kind: str, path: str) -> Dict[str, Any]:
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    out = subprocess.run(
        [sys.executable, __file__, "--child", kind, path],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_ours(terms: List[str], workdir: Path) -> Dict[str, Any]:
    sys.path.insert(0, str(ROOT))
    from spacy_sanitize.gazetteer.matcher import GazetteerMatcher

    records = (
        {
            "term": t,
            "label": "DEM" if i % 2 else "MISC",
            "property": "P106",
            "qid": f"Q{i + 1}",
            "count": i % 97,
        }
        for i, t in enumerate(terms)
    )
    before = rss_mb()
    started = time.perf_counter()
    matcher = GazetteerMatcher.build(records)
    build_s = time.perf_counter() - started
    build_memory = rss_mb() - before
    path = workdir / "ours"
    matcher.to_disk(path)
    size = sum(f.stat().st_size for f in path.iterdir())
    del matcher
    return {
        "build_s": build_s,
        "build_memory_mb": build_memory,
        "disk_mb": size / 2**20,
        **run_child("ours", str(path)),
    }


def bench_phrase(terms: List[str], workdir: Path) -> Dict[str, Any]:
    path = workdir / "terms.txt"
    path.write_text("\n".join(terms))
    result = run_child("phrase", str(path))
    result["build_s"] = result["load_s"]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000, 1000000])
    parser.add_argument("--phrase-sizes", type=int, nargs="+", default=[10000, 100000])
    parser.add_argument("--child", nargs=2, default=None, help=argparse.SUPPRESS)
    parser.add_argument(
        "--output", type=Path, default=ROOT / "benchmarks" / "results" / "gazetteer_matcher.json"
    )
    args = parser.parse_args()
    if args.child:
        child_load(*args.child)
        return
    results: Dict[str, Any] = {
        "texts": str(WIKI) if WIKI.exists() else "synthetic",
        "cpu_count": os.cpu_count(),
        "sizes": {},
    }
    for size in sorted(set(args.sizes) | set(args.phrase_sizes)):
        terms = synthetic_terms(size)
        row: Dict[str, Any] = {}
        with tempfile.TemporaryDirectory() as tmp:
            if size in args.sizes:
                row["gazetteer_matcher"] = bench_ours(terms, Path(tmp))
            if size in args.phrase_sizes:
                row["phrase_matcher"] = bench_phrase(terms, Path(tmp))
        if "gazetteer_matcher" in row and "phrase_matcher" in row:
            row["speedup"] = (
                row["gazetteer_matcher"]["tokens_per_s"] / row["phrase_matcher"]["tokens_per_s"]
            )
        results["sizes"][str(size)] = row
        print(size, json.dumps(row), flush=True)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
