"""Cross-validated evaluation of risk_llm_prob (seed 000, tables "manual" and "automatic") on
annotated documents in TAB format: 5 folds by document (all annotators of a document in one
fold); classifiers are trained on the gold spans and masking decisions of the training folds
and applied to the test documents' gold spans ("gold") or to a detector's spans ("detected").
Predictions are per document, so several annotators' spans of one document are pooled.

    python benchmarks/quality/risk_llm_eval.py --data ../shared/data/wiki/wiki_dev.json \
        --scorer frequency --scorer hf:minilm_mlm --with-text --detected \
        --output benchmarks/results/risk_llm_eval.json
    # the court cases, with court's detector (cached detections of benchmarks/quality/tab_eval.py)
    python benchmarks/quality/risk_llm_eval.py --data ../shared/data/tab/tab_dev.json \
        --scorer frequency --scorer hf:minilm_mlm --with-text --detected \
        --detector court --cache corpus/tab_detected_court.json \
        --output benchmarks/results/risk_llm_eval_tab.json
"""
import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Sequence

import numpy
import spacy
import srsly

from tab_eval import detected_rows, span_docs

from spacy_sanitize.corpus import tab, wiki_dev_path
from spacy_sanitize.evaluation import Tokens, tab_scores
from spacy_sanitize.lm import FrequencyScorer, lm_token_weighting
from spacy_sanitize.lm.frequency import WORD
from spacy_sanitize.risk.llm_prob import labels_and_groups
from spacy_sanitize.risk.span_classifier import group_folds, select_and_fit

HF_CACHE = "/tmp/spacy_sanitize_llm_cache"
SYSTEMS = {"logreg": "logreg", "hgb": "hgb", "ensemble": "ensemble", "auto": "auto"}


def scorer_config(spec: str) -> Dict[str, Any]:
    if spec == "frequency":
        return {"@misc": "spacy_sanitize.lm.frequency.v1"}
    if spec.startswith("hf:"):
        # The disk cache: annotators' views of one document share most spans (one LM pass each).
        return {"@misc": "spacy_sanitize.lm.hf.v1", "model": spec[3:], "window": 256, "batch_size": 32, "cache_dir": HF_CACHE}
    raise SystemExit(f"unknown scorer {spec!r}: use frequency or hf:<model>")


def cached_weighting(scorer) -> Any:
    """-log p weights of every word unit of a text, computed once per text."""
    base = lm_token_weighting(scorer)
    per_text: Dict[str, Dict[tuple, float]] = {}

    def weighting(text: str, spans: Sequence[tuple]) -> List[float]:
        if text not in per_text:
            units = [m.span() for m in WORD.finditer(text)]
            per_text[text] = dict(zip(units, base(text, units)))
        return [per_text[text].get((int(s), int(e)), 1.0) for s, e in spans]

    return weighting


def predictions_for(docs, scored, probs, threshold: float) -> Dict[str, List[List[int]]]:
    """Spans with P(mask) >= threshold, plus unscorable spans (fail closed)."""
    out: Dict[str, List[List[int]]] = {}
    cursor = 0
    for doc, results in zip(docs, scored):
        keep = out.setdefault(doc._.doc_id, [])
        for span, result in zip(doc.spans.get("pii", []), results if not isinstance(results, str) else [None] * len(doc.spans.get("pii", []))):
            if result is None or result.error is not None:
                keep.append([span.start_char, span.end_char])
                continue
            if probs[cursor] >= threshold:
                keep.append([span.start_char, span.end_char])
            cursor += 1
    return out


def seen_spans(docs) -> Dict[str, List[List[int]]]:
    """Every span a system decided on, per document (its views pooled)."""
    out: Dict[str, List[List[int]]] = {}
    for doc in docs:
        out.setdefault(doc._.doc_id, []).extend([s.start_char, s.end_char] for s in doc.spans.get("pii", []))
    return out


def row_doc_ids(docs, scored) -> List[str]:
    ids = []
    for doc, results in zip(docs, scored):
        if not isinstance(results, str):
            ids.extend(doc._.doc_id for r in results if r.error is None)
    return ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", "--wiki", dest="data", default=str(wiki_dev_path()), help="TAB-format JSON")
    parser.add_argument("--detector", default="accurate", help="pipeline whose detection stage gives the detected spans")
    parser.add_argument("--cache", type=Path, default=None, help="detections cached by benchmarks/quality/tab_eval.py (same --detector)")
    parser.add_argument("--scorer", action="append", default=[])
    parser.add_argument("--with-text", action="store_true")
    parser.add_argument("--detected", action="store_true")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--systems", default="logreg,hgb,ensemble,auto", help="classifier families to cross-validate")
    parser.add_argument("--output", default="benchmarks/results/risk_llm_eval.json")
    parser.add_argument("--predictions", type=Path, default=None, help="also write each system's out-of-fold masked spans (benchmarks/quality/kofn_eval.py reads them)")
    args = parser.parse_args()
    scorers = args.scorer or ["frequency"]

    import torch

    torch.set_num_threads(args.threads)
    gold_tab = tab.load_tab(args.data)
    blank = spacy.blank("en")
    gold_docs = tab.read_tab(args.data, blank)
    doc_ids = [d._.doc_id for d in gold_docs]
    folds = group_folds(doc_ids, args.folds, args.seed)
    tokens = Tokens()
    weighting = cached_weighting(FrequencyScorer())
    conditions = {"gold": gold_docs}
    if args.detected:
        t0 = time.time()
        # One Doc per document (not per annotator view), with the detector's spans.
        texts = {d._.doc_id: d.text for d in gold_docs}
        ids = sorted(texts)
        rows = detected_rows([texts[i] for i in ids], ids, args.cache, args.detector)
        conditions["detected"] = span_docs(blank, texts, rows, ids)
        print(f"detected spans in {time.time() - t0:.1f}s", file=sys.stderr)

    def score(preds) -> Dict[str, Any]:
        s = tab_scores(gold_tab, preds, tokens=tokens, token_weighting=weighting).as_dict()
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in s.items() if k != "counts"}

    predictions: Dict[str, Any] = {}
    results: Dict[str, Any] = {"data": Path(args.data).name, "detector": args.detector, "folds": args.folds, "seed": args.seed, "threshold": args.threshold, "documents": len(gold_docs), "rows": {}}
    for cond, docs in conditions.items():
        results["rows"][f"{cond}/mask_all"] = score(seen_spans(docs))
    for spec in scorers:
        with_text = args.with_text and spec == scorers[0]
        comp = spacy.blank("en").add_pipe("risk_llm_prob", config={"scorer": scorer_config(spec), "model": None, "with_text": with_text})
        timing: Dict[str, Any] = {}
        feats: Dict[str, Any] = {}
        for cond, docs in conditions.items():
            t0 = time.time()
            scored = comp.score_docs(docs)
            timing[f"{cond}_scoring_s"] = round(time.time() - t0, 2)
            timing[f"{cond}_spans"] = sum(len(d.spans.get("pii", [])) for d in docs)
            encoder, comp.encoder = comp.encoder, None
            X = comp.features(docs, scored)
            X_text = numpy.hstack([X, encoder.encode([s.text for d, r in zip(docs, scored) if not isinstance(r, str) for s, x in zip(d.spans.get("pii", []), r) if x.error is None])]) if encoder else None
            comp.encoder = encoder
            feats[cond] = (docs, scored, X, X_text, numpy.asarray(row_doc_ids(docs, scored)))
        y, _ = labels_and_groups(gold_docs, feats["gold"][1])
        gold_rows = feats["gold"][4]
        variants = [(name, family, False) for name, family in SYSTEMS.items() if name in args.systems.split(",")]
        if args.with_text and spec == scorers[0]:
            # span classification; one boosted-trees candidate (no nested selection: 399 features are slow)
            variants += [("text_logreg", "logreg", True), ("text_hgb", "hgb_small", True)]
        for name, family, with_text in variants:
            t0 = time.time()
            per_cond = {cond: numpy.zeros(len(f[4])) for cond, f in feats.items()}
            selected = []
            for train, test in folds:
                train_ids = {doc_ids[i] for i in train}
                test_ids = {doc_ids[i] for i in test}
                rows = numpy.isin(gold_rows, list(train_ids))
                Xg = feats["gold"][3] if with_text else feats["gold"][2]
                clf = select_and_fit(Xg[rows], y[rows], gold_rows[rows], family, args.folds, args.threshold, args.seed)
                selected.append(clf.cv.get("selected"))
                for cond, (docs, scored, X, X_text, rid) in feats.items():
                    mask = numpy.isin(rid, list(test_ids))
                    if mask.any():
                        per_cond[cond][mask] = clf.predict_proba((X_text if with_text else X)[mask])
            for cond, (docs, scored, *_rest) in feats.items():
                key = f"{cond}/{spec}/{name}"
                masked = predictions_for(docs, scored, per_cond[cond], args.threshold)
                predictions[key] = {"seen": seen_spans(docs), "masked": masked}
                results["rows"][key] = dict(score(masked), selected=selected)
                print(key, json.dumps({k: results["rows"][key][k] for k in ("P", "P_w", "R_all", "F1", "R_direct", "R_quasi")}), file=sys.stderr)
            timing[f"{name}_cv_s"] = round(time.time() - t0, 1)
        results[f"timing/{spec}"] = timing
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(args.output, results)
    if args.predictions:
        args.predictions.parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(args.predictions, predictions)


if __name__ == "__main__":
    main()
