"""Combining two indicators on the court cases (issue #14 item 3, in part), by the same grouped
5-fold CV as ``tab_eval.py`` and on its cached detections and risk_seq out-of-fold risks:

- ``risk_llm_prob`` with the frequency scorer and a logistic-regression span classifier, trained
  per fold on the gold spans of the training folds' annotator views (outer folds: applied to the
  detected spans of the test cases; inner folds, the same ones tab_eval uses: to choose settings);
- the decisions: llm_prob alone, ">= 1 of 2" and "2 of 2" with risk_seq (one threshold per
  indicator), and a logistic-regression stack of the two risks; every threshold is chosen by the
  inner CV on the training folds only (best F1), labels CODE and PERSON protected (court's policy).

    python benchmarks/quality/tab_vote_eval.py   # after benchmarks/quality/tab_eval.py (its caches)
"""
import argparse
import json
import time
from itertools import product
from pathlib import Path
from typing import Any, Dict, List, Sequence

import numpy as np
import spacy
from sklearn.linear_model import LogisticRegression


from tab_eval import Masker, Row, scores, span_docs

from spacy_sanitize.corpus import docs_to_tab, read_tab, shared_data_dir
from spacy_sanitize.evaluation import Tokens, document_folds
from spacy_sanitize.risk.llm_prob import labels_and_groups
from spacy_sanitize.risk.span_classifier import select_and_fit

PROTECT = ["CODE", "PERSON"]
# Coarse grids: one TAB scoring of the training folds takes ~5 s on the shared 2 cores.
GRID = [0.3, 0.5, 0.7]  # single indicators, and per indicator for the k-of-2 rules (9 pairs)
STACK_GRID = [0.3, 0.4, 0.5, 0.6, 0.7]


def scored_matrix(comp, docs) -> tuple:
    """Features of the scorable spans of ``docs`` and their (doc_id, start, end) keys."""
    scored = comp.score_docs(docs)
    X = comp.features(docs, scored)
    keys = [(d._.doc_id, s.start_char, s.end_char) for d, r in zip(docs, scored) if not isinstance(r, str)
            for s, x in zip(d.spans.get("pii", []), r) if x.error is None]
    return scored, X, keys


def with_risk(rows: Dict[str, List[Row]], risk: Dict[tuple, float]) -> Dict[str, List[Row]]:
    """Rows with the given per-span risk (a span without one stays unscored: masked)."""
    return {d: [r[:4] + [risk.get((d, r[0], r[1]))] for r in rs] for d, rs in rows.items()}


def combine(seq: Dict[str, List[Row]], llm: Dict[tuple, float], rule: str, t_seq: float, t_llm: float) -> Dict[str, List[Row]]:
    """Rows whose risk is 1 when the rule masks (k of 2 votes; a missing score votes MASK), else 0."""
    out = {}
    for d, rs in seq.items():
        rows = []
        for r in rs:
            p = llm.get((d, r[0], r[1]))
            votes = [r[4] is None or r[4] >= t_seq, p is None or p >= t_llm]
            rows.append(r[:4] + [float(sum(votes) >= (1 if rule == "any" else 2))])
        out[d] = rows
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=shared_data_dir() / "tab" / "tab_dev.json")
    parser.add_argument("--cache", type=Path, default=Path("corpus/tab_detected_court.json"))
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--inner-folds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/tab_vote_eval.json"))
    args = parser.parse_args()
    start = time.perf_counter()
    blank = spacy.blank("en")
    references = sorted(read_tab(args.data, blank), key=lambda d: (d._.doc_id, d._.annotator or ""))
    gold = docs_to_tab(references)
    texts = {doc.doc_id: doc.text for doc in gold}
    doc_ids = sorted(texts)
    rows = json.loads(args.cache.read_text())
    oof = json.loads(args.cache.with_name(f"{args.cache.stem}_oof.json").read_text())
    tokens = Tokens()
    masked = Masker(texts, rows)

    comp = spacy.blank("en").add_pipe("risk_llm_prob", config={"model": None, "with_text": False})
    _, X_gold, _ = scored_matrix(comp, references)
    y_gold, groups = labels_and_groups(references, comp.score_docs(references))
    groups_arr = np.asarray(groups)
    _, X_det, det_keys = scored_matrix(comp, span_docs(blank, texts, rows, doc_ids))
    det_doc = np.asarray([k[0] for k in det_keys])
    print(f"features: {len(y_gold)} gold spans, {len(det_keys)} detected, {time.perf_counter() - start:.0f}s", flush=True)

    def llm_risk(train_docs: Sequence[str], test_docs: Sequence[str], seed: int) -> Dict[tuple, float]:
        fit = np.isin(groups_arr, list(train_docs))
        clf = select_and_fit(X_gold[fit], y_gold[fit], groups_arr[fit], "logreg", 3, 0.5, seed)
        test = np.isin(det_doc, list(test_docs))
        probs = clf.predict_proba(X_det[test])
        return {k: float(p) for k, p in zip([det_keys[i] for i in np.flatnonzero(test)], probs)}

    names = ["llm_prob alone", ">= 1 of 2 (seq, llm_prob)", "2 of 2 (seq, llm_prob)", "logreg stack (seq, llm_prob)", "risk_seq alone (tab_eval)"]
    predictions: Dict[str, Dict[str, List[List[int]]]] = {n: {} for n in names}
    chosen: Dict[str, List[Any]] = {n: [] for n in names}
    by_id = {doc_id: [ref for ref in references if ref._.doc_id == doc_id] for doc_id in doc_ids}
    for k, test in enumerate(document_folds(doc_ids, args.folds, args.seed)):
        held = {doc_ids[i] for i in test}
        train_ids = [d for d in doc_ids if d not in held]
        train_refs = [ref for d in train_ids for ref in by_id[d]]
        inner_gold = [g for g in gold if g.doc_id not in held]
        # Inner out-of-fold llm risks on the training cases, folds as tab_eval's inner risk_seq.
        ref_ids = [ref._.doc_id for ref in train_refs]
        inner_llm: Dict[tuple, float] = {}
        for j, inner_test in enumerate(document_folds(ref_ids, args.inner_folds, args.seed + 100 + k)):
            inner_held = {ref_ids[i] for i in inner_test}
            inner_llm.update(llm_risk([d for d in train_ids if d not in inner_held], inner_held, args.seed + k))
        outer_llm = llm_risk(train_ids, held, args.seed + k)
        inner_seq = oof["inner"][str(k)]
        outer_seq = {d: oof["outer"][d] for d in held}

        def f1(candidate: Dict[str, List[Row]], t: float, inner_gold=inner_gold) -> float:
            return scores(inner_gold, masked(candidate, t, PROTECT), tokens)["F1"]

        t = max(GRID, key=lambda t: (f1(with_risk(inner_seq, inner_llm), t), -t))
        chosen[names[0]].append(t)
        predictions[names[0]].update(masked(with_risk(outer_seq, outer_llm), t, PROTECT))
        for name, rule in ((names[1], "any"), (names[2], "all")):
            best = max(product(GRID, GRID), key=lambda ts: (f1(combine(inner_seq, inner_llm, rule, *ts), 0.5), -ts[0] - ts[1]))
            chosen[name].append(list(best))
            predictions[name].update(masked(combine(outer_seq, outer_llm, rule, *best), 0.5, PROTECT))
        # The stack: fit on the inner out-of-fold risks (one row per span and annotator view).
        X_in, y_in = [], []
        for ref in train_refs:
            mask_offsets = [(s.start_char, s.end_char) for s in ref.spans.get("mask", [])]
            for r in inner_seq[ref._.doc_id]:
                p = inner_llm.get((ref._.doc_id, r[0], r[1]))
                if r[4] is None or p is None:
                    continue
                X_in.append([r[4], p])
                y_in.append(int(any(s < r[1] and e > r[0] for s, e in mask_offsets)))
        stack = LogisticRegression().fit(np.asarray(X_in), np.asarray(y_in))

        def stacked(seq_rows: Dict[str, List[Row]], llm: Dict[tuple, float], stack=stack) -> Dict[str, List[Row]]:
            keys = [(d, i) for d, rs in seq_rows.items() for i, r in enumerate(rs)
                    if r[4] is not None and llm.get((d, r[0], r[1])) is not None]
            X = [[seq_rows[d][i][4], llm[(d, seq_rows[d][i][0], seq_rows[d][i][1])]] for d, i in keys]
            risk = dict(zip(keys, stack.predict_proba(np.asarray(X))[:, 1])) if X else {}
            return {d: [r[:4] + [None if (d, i) not in risk else float(risk[(d, i)])] for i, r in enumerate(rs)] for d, rs in seq_rows.items()}

        inner_stacked = stacked(inner_seq, inner_llm)
        t = max(STACK_GRID, key=lambda t: (f1(inner_stacked, t), -t))
        chosen[names[3]].append([t, [round(float(c), 3) for c in stack.coef_[0]], round(float(stack.intercept_[0]), 3)])
        predictions[names[3]].update(masked(stacked(outer_seq, outer_llm), t, PROTECT))
        t = max([0.5, 0.6, 0.7], key=lambda t: (f1(inner_seq, t), -t))  # tab_eval chose 0.6-0.7
        chosen[names[4]].append(t)
        predictions[names[4]].update(masked(outer_seq, t, PROTECT))
        print(f"fold {k}: {time.perf_counter() - start:.0f}s", {n: c[-1] for n, c in chosen.items()}, flush=True)
    results = {
        "data": str(args.data), "folds": args.folds, "inner_folds": args.inner_folds, "seed": args.seed, "protect": PROTECT,
        "rows": {n: scores(gold, predictions[n], tokens) for n in names}, "chosen_by_inner_cv": chosen,
        "seconds": round(time.perf_counter() - start),
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=1))
    for n, r in results["rows"].items():
        print(f"| {n} | " + " | ".join(f"{v:.3f}" for v in r.values()) + " |")


if __name__ == "__main__":
    main()
