"""Cross-validated evaluation of risk_perturb on annotated documents in TAB format, the
Wikipedia biographies or the court cases (seed 000, "Perturbations" and tables
"manual"/"automatic").

The influences do not depend on the threshold, so they are computed once per document
(timed: spans/s), then 5 folds by document: on the training folds the threshold maximizing
the objective (``paper``: P + R_direct + R_quasi, seed 000; ``f1``) is chosen on the gold
spans, and applied to the test documents' gold spans ("gold") and, with --detected, to the
spans of a detector ("detected", ``--detector``). Test predictions of the folds are pooled and
scored with spacy_sanitize.evaluation.tab_scores against every annotator. A document's gold
spans are its first annotator's (annotators of one document mark nearly the same spans and
differ in what they mask; the threshold is fitted against all of them).

Target modes: ``person`` (targets = mentions of the main PERSON entity; n + 1 rows per
document) on all documents, ``all`` (every span is a target, seed 000; about n * (n + 1)
rows) on a subsample of --all-docs documents when the CPU budget is short.

    python benchmarks/quality/perturb_eval.py --modes person,all --all-docs 12 --detected \
        --output benchmarks/results/perturb_eval.json
    # the court cases, person targets, court's cached detections (--docs N: a subsample)
    python benchmarks/quality/perturb_eval.py --data ../shared/data/tab/tab_dev.json --modes person \
        --detected --detector court --cache corpus/tab_detected_court.json \
        --output benchmarks/results/perturb_eval_tab.json
"""

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import spacy

from tab_eval import detected_rows, span_docs

from spacy_sanitize.corpus import tab, wiki_dev_path
from spacy_sanitize.evaluation import Tokens, tab_scores
from spacy_sanitize.risk.perturb import fit_threshold, predictions_at, span_table
from spacy_sanitize.risk.span_classifier import group_folds

KEYS = ("P", "R_all", "F1", "R_ent", "R_direct", "R_quasi", "P_w")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", "--wiki", dest="data", default=str(wiki_dev_path()), help="TAB-format JSON")
    parser.add_argument("--docs", type=int, default=0, help="documents (random subsample) for every mode; 0 = all")
    parser.add_argument("--detector", default="accurate", help="pipeline whose detection stage gives the detected spans")
    parser.add_argument("--cache", type=Path, default=None, help="detections cached by benchmarks/quality/tab_eval.py (same --detector)")
    parser.add_argument("--model", default="minilm_mlm")
    parser.add_argument("--modes", default="person,all")
    parser.add_argument(
        "--all-docs",
        type=int,
        default=12,
        help="documents (random subsample) for mode 'all'; 0 = all",
    )
    parser.add_argument("--detected", action="store_true")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--window", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument(
        "--cache-dir",
        default="/tmp/spacy_sanitize_perturb_cache",
        help="SQLite cache of LM rows ('' = none)",
    )
    parser.add_argument("--output", default="benchmarks/results/perturb_eval.json")
    parser.add_argument("--predictions", type=Path, default=None, help="also write the out-of-fold masked spans (benchmarks/quality/kofn_eval.py reads them)")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    gold_tab = {d.doc_id: d for d in tab.load_tab(args.data)}
    gold_docs = {}
    for doc in tab.tab_to_docs(gold_tab.values(), spacy.blank("en")):
        gold_docs.setdefault(doc._.doc_id, doc)  # the first annotator's spans (module docstring)
    doc_ids = sorted(gold_docs)
    if args.docs and args.docs < len(doc_ids):
        doc_ids = sorted(random.Random(args.seed).sample(doc_ids, args.docs))
    conditions: dict[str, dict[str, Any]] = {"gold": gold_docs}
    timing: dict[str, Any] = {}
    if args.detected:
        t0 = time.time()
        texts = {i: gold_docs[i].text for i in doc_ids}
        rows = detected_rows([texts[i] for i in doc_ids], doc_ids, args.cache, args.detector)
        conditions["detected"] = dict(zip(doc_ids, span_docs(spacy.blank("en"), texts, rows, doc_ids)))
        timing["detector_s"] = round(time.time() - t0, 1)

    tokens = Tokens()

    def score(docs: list[str], preds: dict[str, list[list[int]]]) -> dict[str, float]:
        s = tab_scores([gold_tab[i] for i in docs], preds, tokens=tokens).as_dict()
        return {k: round(float(s[k]), 4) for k in KEYS}

    predictions: dict[str, Any] = {}
    results: dict[str, Any] = {
        "data": Path(args.data).name,
        "detector": args.detector,
        "model": args.model,
        "window": args.window,
        "folds": args.folds,
        "seed": args.seed,
        "threads": args.threads,
        "documents": len(doc_ids),
        "rows": {},
        "speed": {},
        "timing": timing,
    }
    for mode in args.modes.split(","):
        docs_here = doc_ids
        if mode == "all" and args.all_docs and args.all_docs < len(doc_ids):
            docs_here = sorted(random.Random(args.seed).sample(doc_ids, args.all_docs))
            results[f"subsample_{mode}"] = docs_here
        nlp = spacy.blank("en")
        comp = nlp.add_pipe(
            "risk_perturb",
            config={
                "targets": mode,
                "scorer": {
                    "@misc": "spacy_sanitize.lm.hf.v1",
                    "model": args.model,
                    "window": args.window,
                    "batch_size": args.batch_size,
                    "cache_dir": args.cache_dir or None,
                },
            },
        )
        comp.scorer.load()
        tables: dict[str, dict[str, Any]] = {}
        for cond, docs in conditions.items():
            batch = [docs[i] for i in docs_here]
            before = dict(comp.scorer.stats)
            t0 = time.time()
            infos = []
            for start in range(0, len(batch), 8):
                infos.extend(comp.influences(batch[start : start + 8]))
            seconds = time.time() - t0
            n_spans = sum(len(d.spans.get("pii", [])) for d in batch)
            stats = {k: comp.scorer.stats[k] - before.get(k, 0) for k in comp.scorer.stats}
            results["speed"][f"{cond}/{mode}"] = {
                "docs": len(batch),
                "spans": n_spans,
                "seconds": round(seconds, 1),
                "spans_per_s": round(n_spans / seconds, 2) if seconds else None,
                **stats,
            }
            print(
                f"{cond}/{mode}: {n_spans} spans in {seconds:.1f}s {stats}",
                file=sys.stderr,
                flush=True,
            )
            tables[cond] = {i: span_table(d, info) for i, d, info in zip(docs_here, batch, infos)}
            failed = sum(v is None for rows in tables[cond].values() for _, _, v in rows)
            results["speed"][f"{cond}/{mode}"]["unmeasurable_spans"] = failed
        results.setdefault("auc", {})[mode] = influence_auc(gold_docs, tables["gold"])
        folds = group_folds(docs_here, args.folds, args.seed)
        for cond, table in tables.items():
            results["rows"][f"{cond}/mask_all/{mode}-docs"] = score(
                docs_here, predictions_at(table, float("-inf"))
            )
        for objective in ("paper", "f1"):
            pooled: dict[str, dict[str, list[list[int]]]] = {cond: {} for cond in tables}
            thresholds = []
            for train, test in folds:
                train_ids = [docs_here[i] for i in train]
                test_ids = [docs_here[i] for i in test]
                t, _ = fit_threshold(
                    [gold_tab[i] for i in train_ids],
                    {i: tables["gold"][i] for i in train_ids},
                    objective,
                    tokens=tokens,
                )
                thresholds.append(round(t, 3))
                for cond, table in tables.items():
                    pooled[cond].update(predictions_at({i: table[i] for i in test_ids}, t))
            for cond, table in tables.items():
                predictions[f"{cond}/perturb-{mode}/{objective}"] = {
                    "seen": {i: [[s, e] for s, e, _ in table[i]] for i in docs_here}, "masked": pooled[cond]}
                row = score(docs_here, pooled[cond])
                row["fold_thresholds"] = thresholds
                results["rows"][f"{cond}/perturb-{mode}/{objective}"] = row
            full_t, curve = fit_threshold(
                [gold_tab[i] for i in docs_here], tables["gold"], objective, tokens=tokens
            )
            results.setdefault("full_data_threshold", {})[f"{mode}/{objective}"] = round(full_t, 4)
            results.setdefault("curves", {})[f"{mode}/{objective}"] = [
                {k: round(v, 4) for k, v in p.items()} for p in curve
            ]
        write_results(results, args.output)  # a checkpoint after each mode
        if args.predictions:
            write_results(predictions, str(args.predictions))
    for name, row in results["rows"].items():
        print(name, {k: row[k] for k in KEYS}, row.get("fold_thresholds", ""))


def influence_auc(gold_docs: dict[str, Any], table: dict[str, Any]) -> dict[str, Any]:
    """ROC AUC of the influence against the annotators' decision (gold spans with a
    measurable influence): does a larger influence go with masking?"""
    from sklearn.metrics import roc_auc_score

    y, x = [], []
    for doc_id, rows in table.items():
        masked = {(s.start_char, s.end_char) for s in gold_docs[doc_id].spans.get("mask", [])}
        for start, end, value in rows:
            if value is not None:
                y.append(int((start, end) in masked))
                x.append(value)
    auc = roc_auc_score(y, x) if 0 < sum(y) < len(y) else None
    return {
        "spans": len(y),
        "masked": sum(y),
        "auc": round(float(auc), 4) if auc is not None else None,
    }


def write_results(results: dict[str, Any], path: str) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(results, indent=1) + "\n", encoding="utf8")


if __name__ == "__main__":
    main()
