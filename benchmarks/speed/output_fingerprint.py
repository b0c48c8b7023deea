"""Dumps every output of a pipeline over the dev texts, to check that a speed change changes none.

PYTHONPATH=. python benchmarks/speed/output_fingerprint.py OUT.jsonl [--pipelines default ensemble]
Then diff two dumps: any difference means the change altered an output.
"""
import argparse
import json
from pathlib import Path

import srsly

from spacy_sanitize import load_pipeline
from spacy_sanitize.corpus import load_tab

DATA = Path("../shared/data")


def _texts(data: Path) -> dict:
    leaks = Path(__file__).parents[1] / "everyday" / "leak_cases.jsonl"
    return {
        "wiki_dev": [d.text for d in load_tab(data / "wiki" / "wiki_dev.json")],
        "tab_dev": [r["text"] for r in srsly.read_jsonl(data / "tab" / "tab_dev_texts.jsonl")],
        "leak_cases": [r["text"] for r in srsly.read_jsonl(leaks)],
    }


def _record(doc) -> dict:
    return {
        "sanitized": doc._.sanitized,
        "replacements": doc._.replacements,
        "spans": [
            [s.start_char, s.end_char, s.label_, s._.entity_id, s._.confidence, dict(s._.risk), dict(s._.risk_explain)]
            for s in doc.spans.get("pii", [])
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--pipelines", nargs="+", default=["default", "ensemble"])
    parser.add_argument("--data", default=str(DATA))
    args = parser.parse_args()
    sets = _texts(Path(args.data))
    with open(args.out, "w", encoding="utf8") as out:
        for name in args.pipelines:
            nlp = load_pipeline(name)
            for set_name, texts in sets.items():
                # nlp.pipe (batched) and nlp() (one doc) both: components may have both paths
                for mode, docs in (("pipe", nlp.pipe(texts)), ("call", map(nlp, texts))):
                    for i, doc in enumerate(docs):
                        row = {"pipeline": name, "set": set_name, "mode": mode, "i": i, **_record(doc)}
                        out.write(json.dumps(row, ensure_ascii=False, sort_keys=True, default=repr) + "\n")


if __name__ == "__main__":
    main()
