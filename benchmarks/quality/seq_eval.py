"""5-fold cross-validation (by document: all annotators of a document in one fold) of risk_seq
on annotated documents in TAB format, the Wikipedia biographies or the court cases.

For each tagger family, each fold's tagger is trained on the other folds' gold masking
decisions only, then tags the held-out documents twice: with the annotated PII spans (each
annotator's view; a document's predictions pool its views) and with the spans of a
detector (``--detector``: its detection stage, without pii_relabel, which was fitted on the
biographies). Risks are the max (partial match) or min (full match) of the span's token
probabilities; spans with risk >= threshold are masked and scored with
spacy_sanitize.evaluation.tab_scores over all documents (pooled out-of-fold predictions).

    python benchmarks/quality/seq_eval.py --data ../shared/data/wiki/wiki_dev.json
    # the court cases: court's CNN (a fresh tok2vec, as benchmarks/quality/tab_eval.py) and detector
    python benchmarks/quality/seq_eval.py --data ../shared/data/tab/tab_dev.json --families cnn \
        --width 64 --depth 3 --epochs cnn=2 --detector court --cache corpus/tab_detected_court.json \
        --output benchmarks/results/seq_eval_tab.json --plot docs/risk_seq_pr_tab.png
"""
import argparse
import json
import time
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import spacy


from tab_eval import METRICS, detected_rows
from tab_eval import span_docs as row_docs

from spacy_sanitize.corpus import docs_to_tab, read_tab, wiki_dev_path
from spacy_sanitize.evaluation import Tokens, document_folds, tab_scores
from spacy_sanitize.training.seq_train import DEFAULT_EPOCHS, FAMILIES, cnn_tagger, train_risk_seq

THRESHOLDS = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
MATCHES = {"partial": np.max, "full": np.min}


def span_docs(nlp, references, source: str, detector: str = "accurate", cache=None):
    """Docs to tag, one per reference: the annotated pii spans copied onto a fresh tokenization,
    or the detector's spans (one detection per document, cached in ``cache`` as tab_eval does)."""
    ids = [ref._.doc_id for ref in references]
    if source == "detected":
        texts = {ref._.doc_id: ref.text for ref in references}
        unique = sorted(texts)
        rows = detected_rows([texts[i] for i in unique], unique, cache, detector)
        return row_docs(nlp, texts, rows, ids)
    docs = []
    for ref, doc_id in zip(references, ids):
        doc = nlp.make_doc(ref.text)
        doc.spans["pii"] = [doc.char_span(s.start_char, s.end_char, label=s.label_) for s in ref.spans["pii"]]
        doc._.doc_id = doc_id
        docs.append(doc)
    return docs


def span_probs(docs, token_probs) -> List[List[Any]]:
    return [
        [[s.start_char, s.end_char, probs[s.start : s.end].tolist()] for s in doc.spans.get("pii", [])]
        for doc, probs in zip(docs, token_probs)
    ]


def masked_spans(doc_ids, spans_per_doc, match: str, threshold: float) -> Dict[str, List[List[int]]]:
    """Spans whose risk (max or min of their token probabilities) is >= threshold, per document
    (its annotator views pooled); a span without tokens is masked (fail closed)."""
    agg = MATCHES[match]
    predictions: Dict[str, List[List[int]]] = {}
    for doc_id, spans in zip(doc_ids, spans_per_doc):
        predictions.setdefault(doc_id, []).extend([s, e] for s, e, probs in spans if (agg(probs) if probs else 1.0) >= threshold)
    return predictions


def score(gold, doc_ids, spans_per_doc, match: str, threshold: float, tokens: Tokens) -> Dict[str, float]:
    predictions = masked_spans(doc_ids, spans_per_doc, match, threshold)
    scores = tab_scores(gold, predictions, tokens=tokens).as_dict()
    return {k: round(float(scores[k]), 4) for k in METRICS}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=wiki_dev_path())
    parser.add_argument("--families", default="cnn,transformer")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--epochs", default="", help="e.g. cnn=10,transformer=4")
    parser.add_argument("--width", type=int, default=0, help="CNN: 0 = the family's tagger (pretrained tok2vec), else a fresh tok2vec this wide")
    parser.add_argument("--depth", type=int, default=3, help="CNN with --width: layers of the fresh tok2vec")
    parser.add_argument("--batch-size", type=int, default=8, help="documents (or views) per update")
    parser.add_argument("--window-batch", type=int, default=None, help="transformer: windows per optimizer step (the tagger's update_batch_size; default its batch_size, 8)")
    parser.add_argument("--merge-views", action="store_true", help="train once per document on the share of annotators masking each token (soft labels)")
    parser.add_argument("--detector", default="accurate", help="pipeline whose detection stage gives the detected spans")
    parser.add_argument("--cache", type=Path, default=None, help="detections cached by benchmarks/quality/tab_eval.py (same --detector)")
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/seq_eval.json"))
    parser.add_argument("--plot", type=Path, default=Path("docs/risk_seq_pr.png"))
    parser.add_argument("--predictions", type=Path, default=None,
                        help="also write the out-of-fold masked spans at 0.5 (benchmarks/quality/kofn_eval.py reads them)")
    parser.add_argument("--report", action="store_true", help="only print the table and redraw the plot from --output")
    args = parser.parse_args()
    if args.report:
        results = json.loads(args.output.read_text())
        print(markdown(results))
        plot(results, args.plot)
        return
    epochs = dict(DEFAULT_EPOCHS, **{k: int(v) for k, v in (p.split("=") for p in args.epochs.split(",") if p)})

    blank = spacy.blank("en")
    references = sorted(read_tab(args.data, blank), key=lambda d: d._.doc_id)
    gold = docs_to_tab(references)
    doc_ids = [ref._.doc_id for ref in references]
    folds = document_folds(doc_ids, args.folds, args.seed)

    docs = {"annotated": span_docs(blank, references, "annotated"), "detected": span_docs(blank, references, "detected", args.detector, args.cache)}
    tokens = Tokens()
    predictions: Dict[str, Any] = {}
    results: Dict[str, Any] = {"data": str(args.data), "detector": args.detector, "width": args.width, "depth": args.depth, "folds": args.folds, "seed": args.seed, "epochs": epochs, "merge_views": args.merge_views, "batch_size": args.batch_size,
                               "thresholds": THRESHOLDS, "families": {}, "baselines": {}}
    for source, source_docs in docs.items():
        all_spans = [[[s.start_char, s.end_char, []] for s in d.spans.get("pii", [])] for d in source_docs]
        results["baselines"][f"mask_all_{source}"] = score(gold, doc_ids, all_spans, "partial", 0.0, tokens)

    for family in [f for f in args.families.split(",") if f]:
        tagger = cnn_tagger(args.width, args.depth, 1, []) if family == "cnn" and args.width else dict(FAMILIES[family])
        if family == "transformer" and args.window_batch:
            tagger["update_batch_size"] = args.window_batch
        if family == "transformer":
            import torch

            torch.set_num_threads(args.threads)  # the benchmark's choice; components leave threads alone
        spans = {source: [None] * len(references) for source in docs}
        train_times, tag_times, n_tagged = [], [], 0
        for k, test in enumerate(folds):
            train = [references[i] for i in range(len(references)) if i not in set(test)]
            start = time.perf_counter()
            nlp = train_risk_seq(train, tagger, epochs[family], seed=args.seed + k, merge=args.merge_views, batch_size=args.batch_size)
            train_times.append(time.perf_counter() - start)
            model = nlp.get_pipe("risk_seq").tagger
            for source, source_docs in docs.items():
                test_docs = [source_docs[i] for i in test]
                start = time.perf_counter()
                probs = model.predict(test_docs)
                tag_times.append(time.perf_counter() - start)
                n_tagged += len(test_docs)
                for i, doc_spans in zip(test, span_probs(test_docs, probs)):
                    spans[source][i] = doc_spans
            print(f"{family} fold {k}: trained in {train_times[-1]:.1f}s", flush=True)
        table = {
            source: {match: {str(t): score(gold, doc_ids, spans[source], match, t, tokens) for t in THRESHOLDS} for match in MATCHES}
            for source in docs
        }
        for source in docs:
            for match in MATCHES:
                predictions[f"{'gold' if source == 'annotated' else source}/seq-{family}/{match}"] = {
                    "seen": masked_spans(doc_ids, spans[source], match, float("-inf")),
                    "masked": masked_spans(doc_ids, spans[source], match, 0.5)}
        results["families"][family] = {
            "tagger": tagger,
            "train_seconds_per_fold": round(float(np.mean(train_times)), 1),
            "tag_docs_per_second": round(n_tagged / sum(tag_times), 1),
            "scores": table,
        }
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(results, indent=1))
        if args.predictions:
            args.predictions.parent.mkdir(parents=True, exist_ok=True)
            args.predictions.write_text(json.dumps(predictions))
    print(markdown(results))
    plot(results, args.plot)


def markdown(results: Dict[str, Any], thresholds=(0.05, 0.1, 0.2, 0.5)) -> str:
    lines = ["| spans | family | match | threshold | " + " | ".join(METRICS) + " |", "|" + "---|" * (4 + len(METRICS))]
    for source in ("annotated", "detected"):
        base = results["baselines"][f"mask_all_{source}"]
        lines.append(f"| {source} | mask all spans | - | - | " + " | ".join(f"{base[m]:.3f}" for m in METRICS) + " |")
        for family, res in results["families"].items():
            for match in MATCHES:
                for t in thresholds:
                    row = res["scores"][source][match][str(t)]
                    lines.append(f"| {source} | {family} | {match} | {t} | " + " | ".join(f"{row[m]:.3f}" for m in METRICS) + " |")
    lines += ["", "| family | train s/fold | tagging docs/s |", "|---|---|---|"]
    for family, res in results["families"].items():
        lines.append(f"| {family} | {res['train_seconds_per_fold']} | {res['tag_docs_per_second']} |")
    return "\n".join(lines)


def plot(results: Dict[str, Any], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install 'spacy-sanitize[bench]'): no plot")
        return
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    for ax, source in zip(axes, ("annotated", "detected")):
        for family, res in results["families"].items():
            for match, style in (("partial", "-o"), ("full", "--s")):
                rows = [res["scores"][source][match][str(t)] for t in results["thresholds"]]
                ax.plot([r["R_all"] for r in rows], [r["P"] for r in rows], style, label=f"{family} {match}", markersize=3)
        base = results["baselines"][f"mask_all_{source}"]
        ax.plot([base["R_all"]], [base["P"]], "k*", label="mask all spans")
        ax.set_title(f"{source} spans (5-fold CV, {Path(results['data']).stem})")
        ax.set_xlabel("R_all")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("P")
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
