"""Train a shipped risk_llm_prob classifier on annotated documents in TAB format and save it
where ``initialize`` finds it (``shipped = "risk_llm_prob"``, one folder per scorer): the
biographies into ``risk_llm_prob``, the court cases into ``risk_llm_prob_court``:

    python scripts/train_risk_llm_prob.py WIKI.json spacy_sanitize/data/risk_llm_prob/frequency \
        [--classifier auto] [--scorer frequency | --scorer hf:PATH]
    python scripts/train_risk_llm_prob.py TAB.json spacy_sanitize/data/risk_llm_prob_court/minilm_mlm \
        --scorer hf:minilm_mlm --cache-dir /tmp/spacy_sanitize_llm_cache
"""
import argparse
import json
from pathlib import Path

import spacy

from spacy_sanitize.corpus import load_tab, tab
from spacy_sanitize.evaluation.provenance import write_training_data


BENCHMARK = "benchmarks/quality/risk_llm_eval.py (spacy project run evaluate-risk; evaluate-court-indicators for the court cases)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data", help="TAB-format JSON (every annotator's view is a training doc)")
    parser.add_argument("output")
    parser.add_argument("--classifier", default="auto")
    parser.add_argument("--scorer", default="frequency")
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache-dir", default=None, help="hf scorer: SQLite cache of LM rows (annotators' views share spans)")
    args = parser.parse_args()
    if args.scorer == "frequency":
        scorer = {"@misc": "spacy_sanitize.lm.frequency.v1"}
    else:
        scorer = {"@misc": "spacy_sanitize.lm.hf.v1", "model": args.scorer.removeprefix("hf:"), "window": 256, "cache_dir": args.cache_dir}
    nlp = spacy.blank("en")
    component = nlp.add_pipe(
        "risk_llm_prob",
        config={"scorer": scorer, "model": None, "classifier": args.classifier, "threshold": args.threshold, "seed": args.seed},
    )
    clf = component.fit(tab.read_tab(args.data, nlp))
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    component.to_disk(args.output)
    # What it was fit on, so `spacy-sanitize evaluate` flags in-sample figures.
    gold = load_tab(args.data)
    write_training_data(args.output, ((d.doc_id, d.text) for d in gold), source=Path(args.data).name, benchmark=BENCHMARK)
    print(json.dumps({"output": args.output, "selected": clf.cv.get("selected"), "cv": clf.cv.get("scores"), **component.meta}))


if __name__ == "__main__":
    main()
