"""GazetteerMatcher vs spaCy's PhraseMatcher(attr="LOWER") on synthetic gazetteers.

For each size (default 10k, 100k, 1M terms of 1-4 words drawn from wordfreq's 50,000
most frequent English words): our build time and size on disk; then, in one fresh
process per size, our load time and memory (RSS growth), PhraseMatcher's build time and
memory (it has no binary format: loading it means rebuilding it from the term list, as an
EntityRuler does), and matching throughput in tokens/s over pre-tokenized documents
(tokenization not timed) for both matchers in the same process, repeats interleaved
(PhraseMatcher, ours per Doc, ours batched, ...) so that load on the machine hits all of
them alike; the best repeat counts. Texts: the 70 wiki_dev biographies and the first
``--unlabeled`` texts of the unlabeled wikibio set (short biographies).

Matching modes: PhraseMatcher is called per Doc (it has no batch API); ours per Doc
(``find_in_doc``: lists of tuples), and batched (``match_docs`` on batches of
``--batch-size`` Docs: numpy arrays; ``find_in_docs``: the same as per-Doc lists).

    python benchmarks/speed/gazetteer_matcher_bench.py --sizes 10000 100000 1000000
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
from typing import Any, Callable, Dict, List

ROOT = Path(__file__).resolve().parents[2]
DATA_DIRS = [Path(os.environ["SPACY_SANITIZE_DATA"])] if "SPACY_SANITIZE_DATA" in os.environ else []
DATA_DIRS += [ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data"]
DATA = next((d for d in DATA_DIRS if (d / "wiki" / "wiki_dev.json").exists()), DATA_DIRS[0])
WIKI = DATA / "wiki" / "wiki_dev.json"
UNLABELED = DATA / "unlabeled" / "wikibio.jsonl"


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


def text_sets(n_unlabeled: int) -> Dict[str, List[str]]:
    sets: Dict[str, List[str]] = {}
    if WIKI.exists():
        sets["wiki_dev"] = [d["text"] for d in json.loads(WIKI.read_text())]
    if UNLABELED.exists() and n_unlabeled:
        with UNLABELED.open() as stream:
            sets["wikibio"] = [
                json.loads(line)["text"] for line, _ in zip(stream, range(n_unlabeled))
            ]
    if not sets:
        from wordfreq import top_n_list

        vocab = top_n_list("en", 5000)
        rng = random.Random(1)
        sets["synthetic"] = [
            " ".join(rng.choice(vocab) for _ in range(500)) + "." for _ in range(100)
        ]
    return sets


def timed(run: Callable[[], int]) -> Dict[str, float]:
    started = time.perf_counter()
    matches = run()
    return {"seconds": time.perf_counter() - started, "matches": matches}


def make_modes(
    phrase: Any, ours: Any, docs: List[Any], batches: List[List[Any]]
) -> Dict[str, Callable[[], int]]:
    """The timed runs: each returns its number of matches. (A matcher without the batch
    API, like the old format 1's, is timed per Doc only: copy this script into an older tree to
    measure it.)"""
    modes: Dict[str, Callable[[], int]] = {
        "phrase_matcher.per_doc": lambda: sum(len(phrase(doc)) for doc in docs),
        "gazetteer_matcher.per_doc": lambda: sum(len(ours.find_in_doc(doc)) for doc in docs),
    }
    if hasattr(ours, "match_docs"):
        modes["gazetteer_matcher.batch_arrays"] = lambda: sum(
            len(ours.match_docs(b)) for b in batches
        )
        modes["gazetteer_matcher.batch_lists"] = lambda: sum(
            sum(map(len, ours.find_in_docs(b))) for b in batches
        )
    return modes


def child(path: str, terms_path: str, n_unlabeled: int, repeats: int, batch_size: int) -> None:
    """Runs in a fresh process: load ours, build PhraseMatcher, then interleaved timings."""
    import spacy
    from spacy.matcher import PhraseMatcher
    from spacy_sanitize.detect.gazetteer.matcher import GazetteerMatcher

    nlp = spacy.blank("en")
    doc_sets = {name: list(nlp.pipe(texts)) for name, texts in text_sets(n_unlabeled).items()}
    result: Dict[str, Any] = {"gazetteer_matcher": {}, "phrase_matcher": {}}
    before = rss_mb()
    started = time.perf_counter()
    ours = GazetteerMatcher.from_disk(path)
    result["gazetteer_matcher"]["load_s"] = time.perf_counter() - started
    result["gazetteer_matcher"]["memory_mb"] = rss_mb() - before

    terms = Path(terms_path).read_text().splitlines()
    before = rss_mb()
    started = time.perf_counter()
    phrase = PhraseMatcher(nlp.vocab, attr="LOWER")
    for start in range(0, len(terms), 10000):
        phrase.add("TERM", list(nlp.tokenizer.pipe(terms[start : start + 10000])))
    result["phrase_matcher"]["load_s"] = result["phrase_matcher"]["build_s"] = (
        time.perf_counter() - started
    )
    result["phrase_matcher"]["memory_mb"] = rss_mb() - before

    def batches(docs: List[Any]) -> List[List[Any]]:
        return [docs[i : i + batch_size] for i in range(0, len(docs), batch_size)]

    for set_name, docs in doc_sets.items():
        n_tokens = sum(len(doc) for doc in docs)
        modes = make_modes(phrase, ours, docs, batches(docs))
        cold = {mode: timed(run) for mode, run in modes.items()}
        best = {mode: float("inf") for mode in modes}
        for _ in range(repeats):
            for mode, run in modes.items():
                best[mode] = min(best[mode], timed(run)["seconds"])
        for mode in modes:
            matcher_name, how = mode.split(".")
            result[matcher_name].setdefault(set_name, {"tokens": n_tokens, "docs": len(docs)})
            result[matcher_name][set_name][how] = {
                "matches": cold[mode]["matches"],
                "cold_tokens_per_s": n_tokens / cold[mode]["seconds"],
                "tokens_per_s": n_tokens / best[mode],
            }
        phrase_speed = result["phrase_matcher"][set_name]["per_doc"]["tokens_per_s"]
        result.setdefault("speedup_vs_phrase_matcher", {})[set_name] = {
            how: result["gazetteer_matcher"][set_name][how]["tokens_per_s"] / phrase_speed
            for how in ("per_doc", "batch_arrays", "batch_lists")
            if how in result["gazetteer_matcher"][set_name]
        }
    print(json.dumps(result))


def run_child(args: argparse.Namespace, path: Path, terms_path: Path) -> Dict[str, Any]:
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    command = [sys.executable, __file__, "--child", str(path), str(terms_path)]
    command += ["--unlabeled", str(args.unlabeled), "--repeats", str(args.repeats)]
    command += ["--batch-size", str(args.batch_size)]
    out = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def build_ours(terms: List[str], path: Path) -> Dict[str, Any]:
    from spacy_sanitize.detect.gazetteer.matcher import GazetteerMatcher

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
    matcher.to_disk(path)
    size = sum(f.stat().st_size for f in path.iterdir())
    del matcher
    return {"build_s": build_s, "build_memory_mb": build_memory, "disk_mb": size / 2**20}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000, 1000000])
    parser.add_argument("--unlabeled", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--child", nargs=2, default=None, help=argparse.SUPPRESS)
    parser.add_argument(
        "--output", type=Path, default=ROOT / "benchmarks" / "results" / "gazetteer_matcher.json"
    )
    args = parser.parse_args()
    if args.child:
        child(*args.child, args.unlabeled, args.repeats, args.batch_size)
        return
    results: Dict[str, Any] = {
        "texts": {name: len(texts) for name, texts in text_sets(args.unlabeled).items()},
        "cpu_count": os.cpu_count(),
        "repeats": args.repeats,
        "batch_size": args.batch_size,
        "started_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        "sizes": {},
    }
    for size in args.sizes:
        terms = synthetic_terms(size)
        with tempfile.TemporaryDirectory() as tmp:
            ours = build_ours(terms, Path(tmp) / "ours")
            terms_path = Path(tmp) / "terms.txt"
            terms_path.write_text("\n".join(terms))
            row = run_child(args, Path(tmp) / "ours", terms_path)
        row["gazetteer_matcher"].update(ours)
        results["sizes"][str(size)] = row
        print(size, json.dumps(row["speedup_vs_phrase_matcher"]), flush=True)
    results["finished_utc"] = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
