"""Learning curves: would more annotated documents still help the default pipeline's tagger?

The grouped 5-fold CV of ``tab_eval.py`` on both corpora at once (each fold a fifth of the
biographies and a fifth of the court cases, all annotators of a document in one fold). In each
fold the tagger (``default``'s CNN: width 64, depth 3, 4 passes over the documents, once per
document on the share of annotators masking each token) is trained on a sample of N of the
training folds' documents (each corpus in its share, the same seed for every N, the smaller
samples inside the larger ones) and scored on the held-out fold: the tagger's risk decides at a
fixed threshold (0.5, not tuned) under ``default``'s protection rules, end to end from the
default detector's spans. F1, P, R_direct and R_quasi per corpus against N.

    python benchmarks/quality/learning_curve.py --data ../shared/data/wiki/wiki_dev.json ../shared/data/tab/tab_dev.json \
        --cache corpus/both_detected_v5.json --output benchmarks/results/learning_curve.json

About 25 minutes on 2 cores (25 taggers); the detections are read from (or written to) ``--cache``.
"""
import argparse
import json
import random
import time
from pathlib import Path
from typing import Dict, List

import spacy


import tab_eval as te

from spacy_sanitize.corpus import docs_to_tab, load_tab, tab_to_docs
from spacy_sanitize.evaluation import Tokens
from spacy_sanitize.masker.plan import PlanSettings
from spacy_sanitize.training.seq_train import cnn_tagger, train_risk_seq


def nested_samples(train_ids: List[str], sizes: List[int], strata: Dict[str, str], seed: int) -> Dict[int, List[str]]:
    """For each size, that many of ``train_ids``, each corpus in its share; a smaller sample
    is the start of a larger one (one shuffled order per corpus)."""
    rng = random.Random(seed)
    by_corpus: Dict[str, List[str]] = {}
    for doc_id in sorted(train_ids):
        by_corpus.setdefault(strata[doc_id], []).append(doc_id)
    for ids in by_corpus.values():
        rng.shuffle(ids)
    out = {}
    for size in sizes:
        n = min(size, len(train_ids))
        chosen: List[str] = []
        for ids in by_corpus.values():
            chosen += ids[: max(1, round(n * len(ids) / len(train_ids)))]
        out[size] = sorted(chosen)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", nargs="+", type=Path, required=True)
    parser.add_argument("--cache", type=Path, required=True, help="the default detector's spans (tab_eval.py's cache)")
    parser.add_argument("--sizes", nargs="+", type=int, default=[20, 40, 80, 120, 10_000], help="training documents (10000: all)")
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args()

    corpora = {data.stem: load_tab(data) for data in args.data}
    te.STRATA.update({d.doc_id: corpus for corpus, docs in corpora.items() for d in docs})
    blank = spacy.blank("en")
    references = sorted(tab_to_docs([d for docs in corpora.values() for d in docs], blank), key=lambda d: (d._.doc_id, d._.annotator or ""))
    gold = docs_to_tab(references)
    texts = {doc.doc_id: doc.text for doc in gold}
    doc_ids = sorted(texts)
    rows = te.detected_rows([texts[i] for i in doc_ids], doc_ids, args.cache, "default")
    tagger = cnn_tagger(64, 3, 1, [])
    rules = te.policy_rules(te.POLICIES[te.DEFAULT_POLICY])
    masked = te.Masker(texts, rows, {}, PlanSettings(mask_titles=True))
    predictions: Dict[int, Dict[str, List[List[int]]]] = {size: {} for size in args.sizes}
    trained: Dict[int, List[int]] = {size: [] for size in args.sizes}
    for k, test in enumerate(te.folds_of(doc_ids, args.folds, args.seed)):
        held = sorted(doc_ids[i] for i in test)
        train_ids = [d for d in doc_ids if d not in set(held)]
        samples = nested_samples(train_ids, args.sizes, te.STRATA, args.seed + k)
        docs = te.span_docs(blank, texts, rows, held)
        for size, chosen in samples.items():
            start = time.perf_counter()
            keep = set(chosen)
            nlp = train_risk_seq([r for r in references if r._.doc_id in keep], tagger, args.epochs, batch_size=2, seed=args.seed + k,
                                 detected=rows, merge=True)
            probs = {doc._.doc_id: [float(x) for x in p] for doc, p in zip(docs, nlp.get_pipe("risk_seq").tagger.predict(docs))}
            tagged = te.tagged_rows(docs, probs)
            predictions[size].update(masked(te.with_proposals(tagged, None), args.threshold, rules))
            trained[size].append(len(chosen))
            print(f"fold {k}, {len(chosen)} training documents: {time.perf_counter() - start:.0f}s", flush=True)
    tokens = Tokens()
    names = {size: f"{round(sum(trained[size]) / len(trained[size]))} documents" for size in args.sizes}
    scored = te.by_corpus(gold, {names[size]: predictions[size] for size in args.sizes}, tokens)
    results = {
        "data": [str(d) for d in args.data], "folds": args.folds, "seed": args.seed, "threshold": args.threshold, "epochs": args.epochs,
        "tagger": tagger, "policy": te.DEFAULT_POLICY, "training_documents_per_fold": {names[s]: trained[s] for s in args.sizes},
        "by_corpus": scored,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=1))
    for corpus, table in scored.items():
        print(f"\n{corpus}\n| training documents | P | F1 | R_direct | R_quasi |\n|---|---|---|---|---|")
        for name, row in table.items():
            print(f"| {name} | {row['P']:.3f} | {row['F1']:.3f} | {row['R_direct']:.3f} | {row['R_quasi']:.3f} |")


if __name__ == "__main__":
    main()
