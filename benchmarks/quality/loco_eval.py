"""Leave one corpus out: the default pipeline's decision trained on one annotated corpus and
scored on the other, against masking everything detected there. A decision learnt on court
cases must not un-mask what matters in biographies, and the reverse.

For each direction: risk_seq's CNN trained on every document of the training corpus (once
per document on the share of annotators masking each token, as build-default trains it),
risk_stack fit on that corpus' out-of-fold tagger risks (5 folds by document), its threshold
the best F1 of a 3-fold cross-fit within the training corpus (as tab_eval.py chooses it); then
the other corpus tagged, stacked, decided under the shipped protection rules and masked by the
masker's plan, end to end from the default detector's spans.

    python benchmarks/quality/loco_eval.py --data ../shared/data/wiki/wiki_dev.json ../shared/data/tab/tab_dev.json --doc-features
"""
import argparse
import json
import time
from pathlib import Path

import spacy

import tab_eval as te
from spacy_sanitize.corpus import docs_to_tab, read_tab
from spacy_sanitize.evaluation import Tokens
from spacy_sanitize.evaluation.thresholds import best_threshold
from spacy_sanitize.masker.plan import PlanSettings
from spacy_sanitize.training.seq_train import cnn_tagger, train_risk_seq


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, nargs=2, required=True, help="the two TAB JSON corpora")
    parser.add_argument("--pipeline", default="default")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=2)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", type=Path, default=Path("corpus/both_detected_default.json"))
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/loco_default.json"))
    parser.add_argument("--doc-features", action="store_true", help="risk_stack with document features, as the default pipeline ships it")
    parser.add_argument("--doc-weight", type=float, default=0.0, help="risk_stack's document weighting (StackModel.fit's doc_weight; the default pipeline's: 0.5)")
    parser.add_argument("--doc-fence", type=float, default=None, help="risk_stack's doc_fence (the default pipeline's: 1.5; none: no fence)")
    parser.add_argument("--stack-policy", default=te.DEFAULT_POLICY, choices=sorted(te.POLICIES),
                        help="the protection rules of the decision (default: the default pipeline's)")
    args = parser.parse_args()
    blank = spacy.blank("en")
    corpora = {path.stem: sorted(read_tab(path, blank), key=lambda d: (d._.doc_id, d._.annotator or "")) for path in args.data}
    gold = {name: docs_to_tab(refs) for name, refs in corpora.items()}
    texts = {d.doc_id: d.text for docs in gold.values() for d in docs}
    ids = sorted(texts)
    rows = te.detected_rows([texts[i] for i in ids], ids, args.cache, args.pipeline)
    tagger = cnn_tagger(64, 3)
    tokens = Tokens()
    masked = te.Masker(texts, rows, None, PlanSettings(mask_titles=True))
    rules = te.policy_rules(te.POLICIES[args.stack_policy])
    srows = te.stack_rows(texts, rows)
    results = {"data": [str(p) for p in args.data], "detector": args.pipeline, "epochs": args.epochs, "tagger": tagger, "doc_features": args.doc_features, "doc_weight": args.doc_weight, "doc_fence": args.doc_fence,
               "policy": args.stack_policy, "directions": {}}
    for train_name, test_name in (list(corpora), list(corpora)[::-1]):
        start = time.perf_counter()
        train_refs, train_gold, test_gold = corpora[train_name], gold[train_name], gold[test_name]
        train_ids = sorted(d.doc_id for d in train_gold)
        test_ids = sorted(d.doc_id for d in test_gold)
        by_id = {d.doc_id: d for d in train_gold + test_gold}
        # the stack learns from out-of-fold risks of the training corpus
        inner = te.with_proposals(te.tagged_rows(te.span_docs(blank, texts, rows, train_ids),
                                                 te.cross_val_probs(train_refs, texts, rows, args.folds, args.seed, tagger, args.epochs,
                                                                    f"{train_name} inner", True, args.batch_size)), None)
        inner_risks = te.seq_risks(rows, inner)
        crossfit = te.crossfit_stack(by_id, srows, rows, inner_risks, train_ids, 3, args.seed + 200, args.seed, args.doc_features, args.doc_weight, args.doc_fence)
        threshold = best_threshold({t: te.scores(train_gold, masked(crossfit, t, rules), tokens) for t in te.STACK_THRESHOLDS})
        nlp = train_risk_seq(train_refs, tagger, args.epochs, seed=args.seed, detected=rows, merge=True, batch_size=args.batch_size)
        docs = te.span_docs(blank, texts, rows, test_ids)
        probs = {doc._.doc_id: [float(x) for x in p] for doc, p in zip(docs, nlp.get_pipe("risk_seq").tagger.predict(docs))}
        test_rows = te.with_proposals(te.tagged_rows(docs, probs), None)
        test_stack = te.stacked(by_id, srows, rows, inner_risks, train_ids, te.seq_risks(rows, test_rows), test_ids, args.seed, args.doc_features, args.doc_weight, args.doc_fence)
        results["directions"][f"train {train_name}, test {test_name}"] = {
            "threshold": threshold,
            "mask all detected": te.scores(test_gold, masked({d: rows[d] for d in test_ids}, 0.0, te.NO_RULES), tokens),
            "learned decision": te.scores(test_gold, masked(test_stack, threshold, rules), tokens),
            "seconds": round(time.perf_counter() - start),
        }
        print(json.dumps(results["directions"], indent=1), flush=True)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
