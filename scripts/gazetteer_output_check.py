"""Check that a change to the gazetteer matcher keeps every output: dump the matches of
``GazetteerMatcher`` (shipped gazetteer and a synthetic 100k-term one, over the wiki_dev
biographies and the first unlabeled wikibio texts) and the spans of the default pipeline
on wiki_dev, from one source tree, then compare two dumps.

    PYTHONPATH=/path/to/old/tree python scripts/gazetteer_output_check.py dump old.json
    PYTHONPATH=$PWD python scripts/gazetteer_output_check.py dump new.json
    python scripts/gazetteer_output_check.py compare old.json new.json
"""

import argparse
import json
import os
import random
import sys
import warnings
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("SPACY_SANITIZE_DATA", ROOT.parent.parent / "shared" / "data"))
if not DATA.exists():
    DATA = ROOT.parent / "shared" / "data"


def texts(n_unlabeled: int) -> List[str]:
    out = [d["text"] for d in json.loads((DATA / "wiki" / "wiki_dev.json").read_text())]
    path = DATA / "unlabeled" / "wikibio.jsonl"
    if path.exists() and n_unlabeled:
        with path.open() as stream:
            for line, _ in zip(stream, range(n_unlabeled)):
                out.append(json.loads(line)["text"])
    return out


def synthetic_records(n: int) -> List[Dict[str, Any]]:
    from wordfreq import top_n_list

    vocab = [w for w in top_n_list("en", 50000) if w.isalpha()]
    rng = random.Random(0)
    terms = set()
    while len(terms) < n:
        terms.add(" ".join(rng.choice(vocab) for _ in range(rng.choice((1, 2, 2, 3, 3, 4)))))
    return [{"term": t, "label": "DEM"} for t in sorted(terms)]


def dump(output: Path, n_unlabeled: int) -> None:
    import spacy

    from spacy_sanitize import load_pipeline
    from spacy_sanitize.detect.gazetteer.component import load_gazetteer
    from spacy_sanitize.detect.gazetteer.matcher import GazetteerMatcher

    all_texts = texts(n_unlabeled)
    tokenizer = spacy.blank("en")
    docs = list(tokenizer.pipe(all_texts))
    result: Dict[str, Any] = {}
    for name, matcher in (
        ("shipped", load_gazetteer(None)),
        ("synthetic100k", GazetteerMatcher.build(synthetic_records(100_000))),
    ):
        result[name] = [
            sorted([s, e, matcher.term(entry)] for s, e, entry in matcher.find_in_doc(doc))
            for doc in docs
        ]
        result[name + "_text"] = [
            sorted([s, e, matcher.term(entry)] for s, e, entry in matcher.find(text))
            for text in all_texts[:200]
        ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nlp = load_pipeline("default")
    wiki = all_texts[:70]

    def rows(doc: Any) -> List[Any]:
        return sorted(
            [
                s.start,
                s.end,
                s.label_,
                s._.entity_id or "",
                json.dumps(s._.risk_explain, sort_keys=True, default=str),
            ]
            for s in doc.spans["pii"]
        )

    result["pipeline"] = [rows(doc) for doc in nlp.pipe(wiki)]
    result["pipeline_per_doc"] = [rows(nlp(text)) for text in wiki]
    output.write_text(json.dumps(result))
    print(f"{output}: {len(all_texts)} texts", {k: sum(map(len, v)) for k, v in result.items()})


def compare(old: Path, new: Path) -> int:
    a, b = json.loads(old.read_text()), json.loads(new.read_text())
    bad = 0
    for key in sorted(set(a) | set(b)):
        rows_a, rows_b = a.get(key, []), b.get(key, [])
        differ = [i for i, (x, y) in enumerate(zip(rows_a, rows_b)) if x != y]
        if len(rows_a) != len(rows_b) or differ:
            bad += 1
            print(f"{key}: DIFFERENT in {len(differ)} docs, e.g. doc {differ[:1]}")
            for i in differ[:2]:
                print("  old only:", [r for r in rows_a[i] if r not in rows_b[i]][:10])
                print("  new only:", [r for r in rows_b[i] if r not in rows_a[i]][:10])
        else:
            print(f"{key}: identical ({len(rows_a)} docs, {sum(map(len, rows_a))} items)")
    return 1 if bad else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("output", type=Path)
    d.add_argument("--unlabeled", type=int, default=2000)
    c = sub.add_parser("compare")
    c.add_argument("old", type=Path)
    c.add_argument("new", type=Path)
    args = parser.parse_args()
    if args.cmd == "dump":
        dump(args.output, args.unlabeled)
    else:
        sys.exit(compare(args.old, args.new))


if __name__ == "__main__":
    main()
