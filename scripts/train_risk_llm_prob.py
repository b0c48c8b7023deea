"""Train the shipped risk_llm_prob model on all annotated biographies and save it where
the component finds it by default (``model = "shipped"``):

    python scripts/train_risk_llm_prob.py WIKI.json spacy_sanitize/data/risk_llm_prob \
        [--classifier auto] [--scorer frequency | --scorer hf:PATH]
"""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import spacy

from spacy_sanitize.corpus import load_tab, tab
from spacy_sanitize.evaluation.provenance import write_training_data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("wiki")
    parser.add_argument("output")
    parser.add_argument("--classifier", default="auto")
    parser.add_argument("--scorer", default="frequency")
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.scorer == "frequency":
        scorer = {"@misc": "spacy_sanitize.lm.frequency.v1"}
    else:
        scorer = {"@misc": "spacy_sanitize.lm.hf.v1", "model": args.scorer.removeprefix("hf:"), "window": 256}
    nlp = spacy.blank("en")
    component = nlp.add_pipe(
        "risk_llm_prob",
        config={"scorer": scorer, "model": None, "classifier": args.classifier, "threshold": args.threshold, "seed": args.seed},
    )
    clf = component.fit(tab.read_tab(args.wiki, nlp))
    component.to_disk(args.output)
    # What it was fit on, so `spacy-sanitize evaluate` flags in-sample figures.
    gold = load_tab(args.wiki)
    write_training_data(args.output, ((d.doc_id, d.text) for d in gold), source=Path(args.wiki).name, benchmark="benchmarks/risk_llm_eval.py (spacy project run evaluate-risk)")
    print(json.dumps({"output": args.output, "selected": clf.cv.get("selected"), "cv": clf.cv.get("scores"), **component.meta}))


if __name__ == "__main__":
    main()
