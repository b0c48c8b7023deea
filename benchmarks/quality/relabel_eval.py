"""Cross-validated evaluation of pii_relabel on the 70 annotated Wikipedia biographies.

    python benchmarks/quality/relabel_eval.py [--wiki PATH] [--output benchmarks/results/relabel_eval.json]

The default detector (without pii_relabel and the masker) runs once over the gold texts.
Outer loop: 5 folds by document. In each, the hyper-parameters (C, whether spans that
overlap no gold mention are a class of their own, min_prob, entity_vote) are chosen by an
inner 4-fold CV on the training documents only; the model is refit on them and relabels the
held-out documents. Every document is relabelled exactly once, by a model that never saw it;
scores are token-level detection P/R/F1 (evaluation.detection_scores) of the pooled
held-out predictions, before and after, with per-fold spread and a 95% bootstrap interval
over documents. A second table compares model families with fixed settings (logistic
regression vs. gradient boosting).
"""
import argparse
import time
from pathlib import Path
from typing import Any, Dict, List, Sequence

import numpy
import srsly
from spacy.tokens import Doc

from spacy_sanitize.corpus import load_tab, tab_to_docs, wiki_dev_path
from spacy_sanitize.evaluation import Tokens, pool_detection_counts
from spacy_sanitize.types import PII_TYPES
from spacy_sanitize.detect.relabel import PIIRelabel, gold_span_labels
from spacy_sanitize.evaluation.tab_metrics import detection_counts
from spacy_sanitize.training.relabel_cv import ENCODER, ENCODER_LAYERS, ENCODER_SCALE, GRID, choose_params, detect, detector, features_of, fit, folds, micro_f1, relabelled, type_f1, unchanged

DEFAULT_WIKI = wiki_dev_path()
TYPES = PII_TYPES
# Fixed settings for the comparison of model families.
DEFAULTS = {"C": 1.0, "none_class": False, "min_prob": 0.5, "entity_vote": True}


class BoostingModel:
    """Gradient boosting behind the LabelModel interface (comparison only, not shipped)."""

    def __init__(self, vectorizer, clf) -> None:
        self.vectorizer, self.clf = vectorizer, clf
        self.labels = [str(c) for c in clf.classes_]
        self.meta: Dict[str, Any] = {}

    def predict_log_proba(self, rows):
        X = self.vectorizer.transform(rows).toarray()
        return numpy.log(numpy.clip(self.clf.predict_proba(X), 1e-9, 1.0))


def fit_boosting(params: Dict[str, Any], predicted: Sequence[Doc], references: Sequence[Doc]) -> PIIRelabel:
    from collections import Counter

    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.feature_extraction import DictVectorizer
    from threadpoolctl import threadpool_limits

    encoder, scale, layers = params.get("encoder"), params.get("encoder_scale", ENCODER_SCALE), params.get("encoder_layers", ENCODER_LAYERS)
    quantize = bool(params.get("encoder_quantize", False))
    component = PIIRelabel("pii_relabel", "pii", None, params["min_prob"], params["entity_vote"], params["C"], params["none_class"], 2, None, encoder, scale, layers, quantize)
    # The same features as the logistic regression (span vectors and min_count included).
    rows, y = component.training_rows(predicted, references, [features_of(doc, encoder, scale, layers, quantize) for doc in predicted])
    counts = Counter(name for row in rows for name in row)
    kept = [{k: v for k, v in row.items() if counts[k] >= component.min_count} for row in rows]
    vectorizer = DictVectorizer()
    X = vectorizer.fit_transform(kept).toarray()
    clf = HistGradientBoostingClassifier(max_iter=100, learning_rate=0.1, max_leaf_nodes=15, random_state=0)
    with threadpool_limits(1):
        clf.fit(X, y)
    component.model = BoostingModel(vectorizer, clf)  # type: ignore[assignment]
    return component


def bootstrap(before: Sequence[Dict], after: Sequence[Dict], n: int = 1000, seed: int = 0) -> Dict[str, Any]:
    rng = numpy.random.default_rng(seed)
    diffs, afters = [], []
    for _ in range(n):
        idx = rng.integers(0, len(before), len(before))
        b, a = micro_f1([before[i] for i in idx]), micro_f1([after[i] for i in idx])
        diffs.append(a - b)
        afters.append(a)
    lo, hi = numpy.percentile(diffs, [2.5, 97.5])
    alo, ahi = numpy.percentile(afters, [2.5, 97.5])
    return {"delta_micro_F1_95ci": [round(float(lo), 4), round(float(hi), 4)], "after_micro_F1_95ci": [round(float(alo), 4), round(float(ahi), 4)], "p_delta_le_0": float(numpy.mean(numpy.asarray(diffs) <= 0)), "n": n}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--wiki", type=Path, default=DEFAULT_WIKI)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-boosting", action="store_true", help="skip the gradient boosting comparison")
    parser.add_argument("--encoder", default=ENCODER, help="context encoder of the span vectors ('none': binary features only)")
    parser.add_argument("--encoder-scale", type=float, default=ENCODER_SCALE)
    parser.add_argument("--encoder-layers", type=int, default=ENCODER_LAYERS, help="hidden layer read (0: the last)")
    parser.add_argument("--encoder-quantize", action="store_true", help="run the encoder's linear layers in int8 (lm/context.py)")
    parser.add_argument("--output", type=Path, default=Path(__file__).parents[1] / "results" / "relabel_eval.json")
    args = parser.parse_args()
    encoder = None if args.encoder.lower() == "none" else args.encoder
    start = time.perf_counter()
    gold = load_tab(args.wiki)
    nlp = detector()  # the ensemble detector pii_relabel follows
    references = list(tab_to_docs(gold, nlp))
    predicted = detect(nlp, [d.text for d in gold])
    tokens = Tokens()
    print(f"detected {sum(len(d.spans['pii']) for d in predicted)} spans in {len(predicted)} docs ({time.perf_counter() - start:.0f}s)")
    labels = [gold_span_labels(p, r) for p, r in zip(predicted, references)]
    span_stats = {"spans": sum(map(len, labels)), "no_gold_overlap": sum(lab is None for ls in labels for lab in ls), "wrong_label_before": sum(lab is not None and lab != s.label_ for p, ls in zip(predicted, labels) for s, lab in zip(p.spans["pii"], ls))}

    before_preds = unchanged(predicted)
    before_counts = [detection_counts(d, p, tokens) for d, p in zip(gold, before_preds)]
    after_counts: List[Any] = [None] * len(predicted)
    after_preds: List[Any] = [None] * len(predicted)
    family_preds: Dict[str, List[Any]] = {"lr": [None] * len(predicted), "boosting": [None] * len(predicted)}
    fold_rows = []
    outer = folds(len(predicted), args.folds, args.seed)
    for k, held in enumerate(outer):
        train = [i for i in range(len(predicted)) if i not in held]
        tr_pred, tr_ref = [predicted[i] for i in train], [references[i] for i in train]
        params, inner_f1 = choose_params(tr_pred, tr_ref, [gold[i] for i in train], tokens, args.seed + k + 1, encoder=encoder, encoder_scale=args.encoder_scale, encoder_layers=args.encoder_layers, encoder_quantize=args.encoder_quantize)
        component = fit(params, tr_pred, tr_ref)
        preds = relabelled(component, [predicted[i] for i in held])
        for i, p in zip(held, preds):
            after_preds[i] = p
            after_counts[i] = detection_counts(gold[i], p, tokens)
        b = pool_detection_counts([before_counts[i] for i in held]).as_dict()
        a = pool_detection_counts([after_counts[i] for i in held]).as_dict()
        fold_rows.append({"fold": k, "params": params, "inner_cv_micro_F1": round(inner_f1, 4), "before_micro_F1": b["micro_labelled"]["F1"], "after_micro_F1": a["micro_labelled"]["F1"], "after_unlabelled_F1": a["micro_unlabelled"]["F1"], "before_unlabelled_F1": b["micro_unlabelled"]["F1"]})
        print(fold_rows[-1], f"({time.perf_counter() - start:.0f}s)")
        for family in ("lr",) if args.no_boosting else ("lr", "boosting"):
            fixed = {**DEFAULTS, "encoder": encoder, "encoder_scale": args.encoder_scale, "encoder_layers": args.encoder_layers, "encoder_quantize": args.encoder_quantize}
            model = (fit if family == "lr" else fit_boosting)(fixed, tr_pred, tr_ref)
            for i, p in zip(held, relabelled(model, [predicted[i] for i in held])):
                family_preds[family][i] = p

    before, after = pool_detection_counts(before_counts).as_dict(), pool_detection_counts(after_counts).as_dict()
    families = {}
    for family, preds in family_preds.items():
        if all(p is not None for p in preds):
            counts = [detection_counts(d, p, tokens) for d, p in zip(gold, preds)]
            families[family] = {"params": DEFAULTS, "micro_labelled": pool_detection_counts(counts).micro_labelled}
    fold_types = {t: [] for t in TYPES}
    for held in outer:
        for t in TYPES:
            fold_types[t].append([type_f1([before_counts[i] for i in held], t), type_f1([after_counts[i] for i in held], t)])
    result = {
        "data": str(args.wiki.name),
        "n_docs": len(gold),
        "span_stats": span_stats,
        "grid": GRID,
        "folds": fold_rows,
        "before": before,
        "after": after,
        "per_type_fold_F1_before_after": fold_types,
        "bootstrap": bootstrap(before_counts, after_counts),
        "families_fixed_params": families,
        "seconds": round(time.perf_counter() - start, 1),
    }
    print(table(before, after, fold_rows))
    print("bootstrap", result["bootstrap"], "families", {f: v["micro_labelled"]["F1"] for f, v in families.items()})
    args.output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(args.output, result)


def table(before: Dict, after: Dict, fold_rows: List[Dict]) -> str:
    lines = ["| type | support | F1 before | F1 after | P before -> after | R before -> after |", "|---|---|---|---|---|---|"]
    for t in TYPES:
        b, a = before["per_type"].get(t), after["per_type"].get(t)
        if not b and not a:
            continue
        b = b or {"P": 0, "R": 0, "F1": 0, "support": 0}
        a = a or {"P": 0, "R": 0, "F1": 0, "support": 0}
        lines.append(f"| {t} | {int(a['support'])} | {b['F1']:.3f} | {a['F1']:.3f} | {b['P']:.2f} -> {a['P']:.2f} | {b['R']:.2f} -> {a['R']:.2f} |")
    for key, name in (("micro_labelled", "micro (labelled)"), ("micro_unlabelled", "micro (unlabelled)")):
        b, a = before[key], after[key]
        lines.append(f"| {name} | {int(a['support'])} | {b['F1']:.3f} | {a['F1']:.3f} | {b['P']:.2f} -> {a['P']:.2f} | {b['R']:.2f} -> {a['R']:.2f} |")
    deltas = [r["after_micro_F1"] - r["before_micro_F1"] for r in fold_rows]
    lines.append(f"\nper-fold labelled micro F1 gain: {', '.join(f'{d:+.3f}' for d in deltas)} (mean {numpy.mean(deltas):+.3f}, sd {numpy.std(deltas):.3f})")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
