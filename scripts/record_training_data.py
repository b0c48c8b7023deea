"""Record next to a trained artefact which documents it was fit on (``training_data.json``),
so ``spacy-sanitize evaluate`` warns when it is scored on them. The training tools write it
themselves; this adds it to an artefact trained before they did:

    python scripts/record_training_data.py spacy_sanitize/data/risk_seq WIKI.json \
        --benchmark "benchmarks/quality/seq_eval.py (spacy project run evaluate-seq)"
"""
import argparse
from pathlib import Path

from spacy_sanitize.corpus import load_tab  # noqa: E402
from spacy_sanitize.evaluation.provenance import write_training_data  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("artefact", type=Path, help="the trained artefact's folder")
    parser.add_argument("data", type=Path, help="the TAB JSON it was trained on (all of its documents)")
    parser.add_argument("--benchmark", required=True, help="what gives the held-out (cross-validated) figure")
    parser.add_argument("--labels", default="gold", help="what supervised it: gold, silver, none")
    args = parser.parse_args()
    gold = load_tab(args.data)
    path = write_training_data(args.artefact, ((d.doc_id, d.text) for d in gold), source=args.data.name, benchmark=args.benchmark, labels=args.labels)
    print(f"{len(gold)} documents of {args.data.name} -> {path}")


if __name__ == "__main__":
    main()
