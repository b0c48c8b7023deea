"""Cross-validated evaluation of pii_relabel on the 70 annotated Wikipedia biographies.

    python benchmarks/relabel_eval.py [--wiki PATH] [--output benchmarks/results/relabel_eval.json]

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
import itertools
import os
import random
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

import numpy
import srsly
from spacy.tokens import Doc

from spacy_sanitize import load_pipeline
from spacy_sanitize.corpus import load_tab, tab_to_docs
from spacy_sanitize.evaluation import Tokens, detection_scores
from spacy_sanitize.evaluation.tab_metrics import _token_labels
from spacy_sanitize.ner.relabel import PIIRelabel, doc_features, gold_span_labels, relabel_decisions

DEFAULT_WIKI = Path(os.environ.get("SPACY_SANITIZE_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")) / "wiki" / "wiki_dev.json"
TYPES = ["PERSON", "ORG", "LOC", "DATETIME", "CODE", "QUANTITY", "DEM", "MISC"]
GRID = {"C": [0.3, 1.0, 3.0], "none_class": [False, True], "min_prob": [0.0, 0.5, 0.7], "entity_vote": [False, True]}
DEFAULTS = {"C": 1.0, "none_class": False, "min_prob": 0.5, "entity_vote": True}


def detect(nlp, texts: Sequence[str]) -> List[Doc]:
    """The default detector's docs (without pii_relabel and the masker)."""
    disable = [n for n in ("pii_relabel", "masker") if n in nlp.pipe_names]
    with nlp.select_pipes(disable=disable):
        return list(nlp.pipe(texts))


def folds(n: int, k: int, seed: int) -> List[List[int]]:
    order = list(range(n))
    random.Random(seed).shuffle(order)
    return [sorted(order[i::k]) for i in range(k)]


FEATURES: Dict[int, List[Dict[str, float]]] = {}


def features_of(doc: Doc) -> List[Dict[str, float]]:
    """Feature dicts of a detected doc, computed once."""
    if id(doc) not in FEATURES:
        FEATURES[id(doc)] = doc_features(doc)
    return FEATURES[id(doc)]


def fit(params: Dict[str, Any], predicted: Sequence[Doc], references: Sequence[Doc], family: str = "lr"):
    component = PIIRelabel("pii_relabel", "pii", None, params["min_prob"], params["entity_vote"], params["C"], params["none_class"], 2)
    features = [features_of(doc) for doc in predicted]
    if family == "lr":
        component.fit(predicted, references, features)
        return component
    rows, y = component.training_rows(predicted, references, features)
    component.model = fit_boosting(rows, y)
    return component


class BoostingModel:
    """Gradient boosting behind the LabelModel interface (comparison only, not shipped)."""

    def __init__(self, vectorizer, clf) -> None:
        self.vectorizer, self.clf = vectorizer, clf
        self.labels = [str(c) for c in clf.classes_]

    def predict_log_proba(self, rows):
        X = self.vectorizer.transform(rows).toarray()
        return numpy.log(numpy.clip(self.clf.predict_proba(X), 1e-9, 1.0))


def fit_boosting(rows, y) -> BoostingModel:
    from collections import Counter

    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.feature_extraction import DictVectorizer

    counts = Counter(name for row in rows for name in row)
    kept = [{k: v for k, v in row.items() if counts[k] >= 3} for row in rows]
    vectorizer = DictVectorizer()
    X = vectorizer.fit_transform(kept).toarray()
    from threadpoolctl import threadpool_limits

    clf = HistGradientBoostingClassifier(max_iter=100, learning_rate=0.1, max_leaf_nodes=15, random_state=0)
    with threadpool_limits(1):
        clf.fit(X, y)
    return BoostingModel(vectorizer, clf)


def relabelled(component: PIIRelabel, docs: Sequence[Doc]) -> List[List[list]]:
    out = []
    for doc in docs:
        decisions = relabel_decisions(component.model, doc, "pii", component.min_prob, component.entity_vote, rows=features_of(doc))
        out.append([[s.start_char, s.end_char, d[0]] for s, d in zip(doc.spans.get("pii", []), decisions)])
    return out


def unchanged(docs: Sequence[Doc]) -> List[List[list]]:
    return [[[s.start_char, s.end_char, s.label_] for s in doc.spans.get("pii", [])] for doc in docs]


def doc_counts(document, predictions, tokens: Tokens) -> Dict[str, List[int]]:
    """Per-label [tp, pred, gold] token counts of one document (as detection_scores counts);
    key "_unlabelled" holds the unlabelled counts."""
    info = tokens(document.text)
    pred_labels = _token_labels(info, predictions)
    counts: Dict[str, List[int]] = defaultdict(lambda: [0, 0, 0])
    for mentions in document.annotations.values():
        gold_labels = _token_labels(info, [(m.start, m.end, m.entity_type) for m in mentions])
        for p, g in zip(pred_labels, gold_labels):
            if p:
                counts[p][1] += 1
                counts["_unlabelled"][1] += 1
            if g:
                counts[g][2] += 1
                counts["_unlabelled"][2] += 1
            if p and g:
                counts["_unlabelled"][0] += 1
                counts[p][0] += p == g
    return dict(counts)


def micro_f1(per_doc: Sequence[Dict[str, List[int]]]) -> float:
    tp = pred = gold = 0
    for counts in per_doc:
        for label, (a, b, c) in counts.items():
            if label != "_unlabelled":
                tp, pred, gold = tp + a, pred + b, gold + c
    return 2 * tp / (pred + gold) if pred + gold else 0.0


def type_f1(per_doc: Sequence[Dict[str, List[int]]], label: str) -> float:
    tp = sum(c.get(label, [0, 0, 0])[0] for c in per_doc)
    pred = sum(c.get(label, [0, 0, 0])[1] for c in per_doc)
    gold = sum(c.get(label, [0, 0, 0])[2] for c in per_doc)
    return 2 * tp / (pred + gold) if pred + gold else 0.0


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


def choose_params(predicted: Sequence[Doc], references: Sequence[Doc], gold, tokens: Tokens, seed: int) -> Tuple[Dict[str, Any], float]:
    """Grid search by inner 4-fold CV (by document) on the training documents only."""
    inner = folds(len(predicted), 4, seed + 1)
    scores: Dict[Tuple, List[Dict]] = defaultdict(list)
    for held in inner:
        train = [i for i in range(len(predicted)) if i not in held]
        for C, none_class in itertools.product(GRID["C"], GRID["none_class"]):
            base = fit({"C": C, "none_class": none_class, "min_prob": 0.0, "entity_vote": False}, [predicted[i] for i in train], [references[i] for i in train])
            for min_prob, vote in itertools.product(GRID["min_prob"], GRID["entity_vote"]):
                base.min_prob, base.entity_vote = min_prob, vote
                preds = relabelled(base, [predicted[i] for i in held])
                scores[(C, none_class, min_prob, vote)].extend(doc_counts(gold[i], p, tokens) for i, p in zip(held, preds))
    best = max(scores, key=lambda key: (round(micro_f1(scores[key]), 6), -abs(numpy.log(key[0]))))
    return dict(zip(("C", "none_class", "min_prob", "entity_vote"), best)), micro_f1(scores[best])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--wiki", type=Path, default=DEFAULT_WIKI)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-boosting", action="store_true", help="skip the gradient boosting comparison")
    parser.add_argument("--output", type=Path, default=Path(__file__).parent / "results" / "relabel_eval.json")
    args = parser.parse_args()
    start = time.perf_counter()
    gold = load_tab(args.wiki)
    nlp = load_pipeline("default")
    references = list(tab_to_docs(gold, nlp))
    predicted = detect(nlp, [d.text for d in gold])
    tokens = Tokens()
    print(f"detected {sum(len(d.spans['pii']) for d in predicted)} spans in {len(predicted)} docs ({time.perf_counter() - start:.0f}s)")
    labels = [gold_span_labels(p, r) for p, r in zip(predicted, references)]
    span_stats = {"spans": sum(map(len, labels)), "no_gold_overlap": sum(lab is None for ls in labels for lab in ls), "wrong_label_before": sum(lab is not None and lab != s.label_ for p, ls in zip(predicted, labels) for s, lab in zip(p.spans["pii"], ls))}

    before_preds = unchanged(predicted)
    after_preds: List[Any] = [None] * len(predicted)
    family_preds: Dict[str, List[Any]] = {"lr": [None] * len(predicted), "boosting": [None] * len(predicted)}
    fold_rows = []
    outer = folds(len(predicted), args.folds, args.seed)
    for k, held in enumerate(outer):
        train = [i for i in range(len(predicted)) if i not in held]
        tr_pred, tr_ref = [predicted[i] for i in train], [references[i] for i in train]
        params, inner_f1 = choose_params(tr_pred, tr_ref, [gold[i] for i in train], tokens, args.seed + k)
        component = fit(params, tr_pred, tr_ref)
        preds = relabelled(component, [predicted[i] for i in held])
        for i, p in zip(held, preds):
            after_preds[i] = p
        held_gold = [gold[i] for i in held]
        b = detection_scores(held_gold, {gold[i].doc_id: before_preds[i] for i in held}, tokens=tokens).as_dict()
        a = detection_scores(held_gold, {gold[i].doc_id: p for i, p in zip(held, preds)}, tokens=tokens).as_dict()
        fold_rows.append({"fold": k, "params": params, "inner_cv_micro_F1": round(inner_f1, 4), "before_micro_F1": b["micro_labelled"]["F1"], "after_micro_F1": a["micro_labelled"]["F1"], "after_unlabelled_F1": a["micro_unlabelled"]["F1"], "before_unlabelled_F1": b["micro_unlabelled"]["F1"]})
        print(fold_rows[-1], f"({time.perf_counter() - start:.0f}s)")
        for family in ("lr",) if args.no_boosting else ("lr", "boosting"):
            model = fit(DEFAULTS, tr_pred, tr_ref, family)
            for i, p in zip(held, relabelled(model, [predicted[i] for i in held])):
                family_preds[family][i] = p

    def scores(preds):
        return detection_scores(gold, {d.doc_id: p for d, p in zip(gold, preds)}, tokens=tokens).as_dict()

    before, after = scores(before_preds), scores(after_preds)
    before_counts = [doc_counts(d, p, tokens) for d, p in zip(gold, before_preds)]
    after_counts = [doc_counts(d, p, tokens) for d, p in zip(gold, after_preds)]
    assert abs(micro_f1(before_counts) - before["micro_labelled"]["F1"]) < 1e-6
    families = {}
    for family, preds in family_preds.items():
        if all(p is not None for p in preds):
            families[family] = {"params": DEFAULTS, "micro_labelled": scores(preds)["micro_labelled"]}
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
