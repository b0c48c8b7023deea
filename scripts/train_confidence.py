"""Fit the shipped pii_confidence model and measure its calibration:

    python scripts/train_confidence.py WIKI.json TAB.json spacy_sanitize/data/pii_confidence [--pipeline ensemble]

The pipeline's detector (without the masker and pii_confidence) runs over the annotated
documents; a detected span is a positive when an annotator masks most of its characters.
C is chosen by out-of-fold log loss (5-fold CV grouped by document); the reliability table
and Brier score printed (and written to OUTPUT/calibration.json) are out of fold; the model
saved is then fit on all documents.
"""
import argparse
import json
from pathlib import Path

import srsly

from spacy_sanitize import load_pipeline  # noqa: E402
from spacy_sanitize.corpus import load_tab  # noqa: E402
from spacy_sanitize.detect.confidence import ConfidenceModel, PIIConfidence  # noqa: E402
from spacy_sanitize.training.confidence_cv import (  # noqa: E402
    brier,
    detected_rows,
    expected_calibration_error,
    log_loss,
    out_of_fold,
    reliability,
)

GRID_C = (0.1, 0.3, 1.0, 3.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("corpora", type=Path, nargs="+", help="TAB JSON files, then the output folder")
    parser.add_argument("--pipeline", default="ensemble")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    *corpora, output = args.corpora
    nlp = load_pipeline(args.pipeline)
    rows, targets, groups = [], [], []
    per_corpus = {}
    for path in corpora:
        r, t, g = detected_rows(nlp, load_tab(path), group_prefix=f"{path.stem}:")
        per_corpus[path.stem] = (len(rows), len(rows) + len(r))
        rows, targets, groups = rows + r, targets + t, groups + g
    scores = {C: out_of_fold(rows, targets, groups, args.folds, args.seed, C) for C in GRID_C}
    best = min(GRID_C, key=lambda C: (round(log_loss(scores[C], targets), 5), abs(C - 1.0)))
    oof = scores[best]
    report = {
        "pipeline": args.pipeline, "corpora": [p.name for p in corpora], "folds": args.folds, "seed": args.seed,
        "spans": len(targets), "positives": sum(targets), "C": best,
        "log_loss_by_C": {str(C): round(log_loss(scores[C], targets), 4) for C in GRID_C},
        "out_of_fold": {"brier": round(brier(oof, targets), 4), "ece": round(expected_calibration_error(oof, targets), 4),
                        "brier_base_rate": round(brier([sum(targets) / len(targets)] * len(targets), targets), 4),
                        "reliability": reliability(oof, targets)},
        "per_corpus": {},
    }
    for name, (lo, hi) in per_corpus.items():
        p, t = oof[lo:hi], targets[lo:hi]
        report["per_corpus"][name] = {"spans": len(t), "positives": sum(t), "brier": round(brier(p, t), 4),
                                      "ece": round(expected_calibration_error(p, t), 4), "reliability": reliability(p, t)}
    component = PIIConfidence("pii_confidence")
    component.model = ConfidenceModel.fit(rows, targets, C=best)
    component.model.meta.update(pipeline=args.pipeline, corpora=report["corpora"], cv_brier=report["out_of_fold"]["brier"],
                                cv_ece=report["out_of_fold"]["ece"], folds=args.folds, seed=args.seed)
    output.mkdir(parents=True, exist_ok=True)
    component.to_disk(output)
    srsly.write_json(output / "calibration.json", report)
    print(json.dumps({k: v for k, v in report.items() if k != "per_corpus"}, indent=1))


if __name__ == "__main__":
    main()
