"""How often the `generalize.v1` strategy agrees with the generalizations annotators
selected on the Wikipedia biographies (Olstad et al. 2023; shared/data/wiki/wiki_dev.json).

For each annotated mention with at least one selected option other than '***', the
masker (generalize.v1, propagation off, gold spans and entity ids) produces a value, and
it is compared with the selected options:
- exact: equal after normalization (lower case, brackets, leading 'a/an/the' and the
  annotators' 'date in the' prefix removed: 'DATE' ~ 'a date');
- equivalent: exact, or PERSON numbered roles ignoring the number, QUANTITY with every
  number or range written as X (same unit skeleton: '$100-200 million' ~ '$X million'),
  and for LOC/ORG/DEM/MISC the same head noun ('country in
  Southern Asia' ~ 'country', 'sports club' ~ 'football club').
Also reported: the same comparison against any offered option. Nothing is fitted to
this data; the tables were written beforehand from general knowledge.

Usage: python benchmarks/quality/generalization_match.py [--data PATH] [--output PATH]
"""
import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Dict, List

import spacy

ROOT = Path(__file__).resolve().parents[2]

import spacy_sanitize  # noqa: E402,F401
from spacy_sanitize.types import PII_TYPES  # noqa: E402
from spacy_sanitize.corpus import wiki_dev_path  # noqa: E402


def norm(value: str) -> str:
    value = value.lower().strip().strip("[]").strip()
    value = re.sub(r"^date in the\s+", "", value)
    value = re.sub(r"^(?:a|an|the)\s+", "", value)
    return re.sub(r"\s+", " ", value)


def skeleton(value: str) -> str:
    return re.sub(r"(?:less than )?x(?:-x)?", "x", re.sub(r"\d[\d,.]*", "x", norm(value)))


def head(value: str) -> str:
    words = norm(value).split(" in ")[0].split()
    return words[-1] if words else ""


def equivalent(label: str, mine: str, option: str) -> bool:
    a, b = norm(mine), norm(option)
    if a == b:
        return True
    if label == "PERSON":
        return bool(re.fullmatch(r"person \d+", a) and re.fullmatch(r"person \d+", b))
    if label == "QUANTITY":
        return skeleton(mine) == skeleton(option)
    if label in ("LOC", "ORG", "DEM", "MISC"):
        return head(mine) != "" and head(mine) == head(option)
    return False


def run(data: Path) -> Dict[str, Dict[str, float]]:
    docs = json.loads(data.read_text(encoding="utf-8"))
    nlp = spacy.blank("en")
    masker = nlp.add_pipe("masker", config={"strategy": {"@strategies": "spacy_sanitize.generalize.v1"}, "propagate": False})
    counts: Dict[str, Dict[str, int]] = defaultdict(lambda: defaultdict(int))
    examples: Dict[str, List[List[str]]] = defaultdict(list)
    for record in docs:
        for annotation in record["annotations"].values():
            doc = nlp.make_doc(record["text"])
            spans, mentions = [], []
            for m in sorted(annotation["entity_mentions"], key=lambda m: m["start_offset"]):
                span = doc.char_span(m["start_offset"], m["end_offset"], label=m["entity_type"], alignment_mode="expand")
                if span is None or m["entity_type"] not in PII_TYPES:
                    continue
                span._.entity_id = m["entity_id"]
                spans.append(span)
                mentions.append(m)
            doc.spans["pii"] = spans
            masker(doc)
            by_start = {row[0]: row for row in doc._.replacements}
            for m, span in zip(mentions, spans):
                selection = (m.get("replacement") or {}).get("generalization_selection") or {}
                offered = [o for opts in ((m.get("replacement") or {}).get("generalizations") or {}).values() for o in opts if o != "***"]
                selected = [o for o in selection if o != "***"]
                row = by_start.get(span.start_char)
                if not selected or row is None or row[1] != span.end_char:
                    continue
                label, mine = m["entity_type"], row[4]
                c = counts[label]
                c["n"] += 1
                c["exact"] += any(norm(mine) == norm(o) for o in selected)
                c["equivalent"] += any(equivalent(label, mine, o) for o in selected)
                c["equivalent_offered"] += any(equivalent(label, mine, o) for o in offered)
                if len(examples[label]) < 5:
                    examples[label].append([m["span_text"], mine, " | ".join(selected)])
    table = {}
    total = defaultdict(int)
    for label in sorted(counts):
        c = counts[label]
        for key, value in c.items():
            total[key] += value
        table[label] = {"n": c["n"], **{k: round(c[k] / c["n"], 3) for k in ("exact", "equivalent", "equivalent_offered")}}
    table["ALL"] = {"n": total["n"], **{k: round(total[k] / total["n"], 3) for k in ("exact", "equivalent", "equivalent_offered")}}
    return {"table": table, "examples": examples, "data": str(data.name), "strategy": "generalize.v1 (defaults)"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=wiki_dev_path())
    parser.add_argument("--output", type=Path, default=ROOT / "benchmarks" / "results" / "generalization_match.json")
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"data not found: {args.data} (set SPACY_SANITIZE_DATA or --data)")
    result = run(args.data)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{'type':10} {'n':>5} {'exact':>7} {'equiv':>7} {'equiv(offered)':>15}")
    for label, row in result["table"].items():
        print(f"{label:10} {row['n']:>5} {row['exact']:>7.3f} {row['equivalent']:>7.3f} {row['equivalent_offered']:>15.3f}")


if __name__ == "__main__":
    main()
