"""``spacy-sanitize train-stack``: fit risk_stack on out-of-fold risk_seq scores.

The detector's spans of every annotated document, each document's spans scored by a risk_seq
tagger trained on the other folds (all annotators of a document in one fold), and the
fraction of annotators masking each span: risk_stack learns from those, so it sees scores as
risk_seq gives them on documents it was not trained on (as in use).

    python -m spacy_sanitize train-stack ../shared/data/tab/tab_dev.json out/risk_stack_court --detector court
"""
import argparse
import time
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

import spacy
import srsly
from spacy.tokens import Doc

from ..corpus import TabDocument, load_tab, tab_to_docs
from ..evaluation import detect_docs, document_folds
from ..risk.seq import span_risk
from ..risk.stack import DEFAULT_PARAMS, SpanRow, StackModel, span_rows
from .seq_train import FAMILIES, cnn_tagger, set_detected, train_risk_seq

# The court tagger's settings (project.yml build-court).
COURT_TAGGER = {"width": 64, "depth": 3, "window_size": 1, "epochs": 2}


def detected(nlp: Any, texts: Mapping[str, str]) -> Dict[str, List[SpanRow]]:
    """The detector's spans of each text as risk_stack's rows."""
    ids = sorted(texts)
    return {doc._.doc_id: span_rows(doc) for doc in detect_docs(nlp, [texts[i] for i in ids], ids)}


def span_targets(document: TabDocument, rows: Sequence[SpanRow]) -> List[float]:
    """Per span, the fraction of the document's annotators who mask a mention overlapping it."""
    views = [[(m.start, m.end) for m in mentions if m.needs_masking] for mentions in document.annotations.values()]
    if not views:
        return [0.0] * len(rows)
    return [sum(any(s < row[1] and row[0] < e for s, e in view) for view in views) / len(views) for row in rows]


def seq_risks(nlp: Any, docs: Sequence[Doc]) -> Dict[str, List[float]]:
    """risk_seq's span risks (max of the token probabilities: the shipped aggregation)."""
    probs = nlp.get_pipe("risk_seq").tagger.predict(docs)
    return {doc._.doc_id: [span_risk(s, p) for s in doc.spans["pii"]] for doc, p in zip(docs, probs)}


def out_of_fold_seq_risks(references: Sequence[Doc], rows: Mapping[str, Sequence[SpanRow]], folds: int, seed: int,
                          tagger: Dict[str, Any], epochs: int, log: str = "", merge: bool = False, batch_size: int = 8) -> Dict[str, List[float]]:
    """Each document's span risks from a risk_seq trained on the other folds' annotator views
    (``references``: one doc per annotator view, gold ``mask`` spans; ``merge``: trained once per
    document on the share of its views, ``batch_size`` documents per update)."""
    blank = spacy.blank("en")
    ids = sorted({ref._.doc_id for ref in references})
    texts = {ref._.doc_id: ref.text for ref in references}
    as_detected = {doc_id: [[r[0], r[1], r[2], r[3]] for r in doc_rows] for doc_id, doc_rows in rows.items()}
    out: Dict[str, List[float]] = {}
    for k, test in enumerate(document_folds(ids, folds, seed)):
        held = sorted(ids[i] for i in test)
        start = time.perf_counter()
        nlp = train_risk_seq([ref for ref in references if ref._.doc_id not in set(held)], tagger, epochs, seed=seed + k, detected=as_detected,
                             merge=merge, batch_size=batch_size)
        docs = []
        for doc_id in held:
            doc = set_detected(blank.make_doc(texts[doc_id]), as_detected[doc_id])
            doc._.doc_id = doc_id
            docs.append(doc)
        out.update(seq_risks(nlp, docs))
        if log:
            print(f"{log} fold {k}: {time.perf_counter() - start:.0f}s", flush=True)
    return out


def fit_stack(gold: Mapping[str, TabDocument], rows: Mapping[str, Sequence[SpanRow]], risks: Mapping[str, Sequence[float]],
              doc_ids: Sequence[str], params: Optional[Dict[str, Any]] = None, seed: int = 0, info: Optional[Dict[str, Any]] = None,
              doc_features: bool = False, doc_weight: float = 0.0) -> StackModel:
    """risk_stack's model over risk_seq's risks of the documents ``doc_ids`` (``doc_features``:
    with the document features of ``risk.stack.DOC_FEATURES``; ``doc_weight``: see ``StackModel.fit``)."""
    docs = [(gold[i].text, rows[i], [[r] for r in risks[i]], span_targets(gold[i], rows[i])) for i in doc_ids]
    return StackModel.fit(docs, ["seq"], params, seed=seed, info=info, doc_features=doc_features, doc_weight=doc_weight)


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(prog="spacy-sanitize train-stack", description="Fit risk_stack on out-of-fold risk_seq risks of TAB JSON and save it.")
    parser.add_argument("data", type=Path, nargs="+", help="TAB JSON files with gold masking decisions (e.g. tab_dev.json, or wiki_dev.json tab_dev.json)")
    parser.add_argument("output", type=Path, help="directory for the saved model (learned.json)")
    parser.add_argument("--detector", default="court", help="the shipped pipeline whose detection stage (before its risk components) finds the spans")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--width", type=int, default=COURT_TAGGER["width"])
    parser.add_argument("--depth", type=int, default=COURT_TAGGER["depth"])
    parser.add_argument("--epochs", type=int, default=COURT_TAGGER["epochs"])
    parser.add_argument("--family", choices=sorted(FAMILIES), default="cnn", help="the tagger family (transformer: MiniLM, needs torch)")
    parser.add_argument("--merge-views", action="store_true", help="train once per document on the share of annotators masking each token")
    parser.add_argument("--batch-size", type=int, default=8, help="documents (or views) per update")
    parser.add_argument("--window-batch", type=int, default=None, help="transformer: windows per optimizer step")
    parser.add_argument("--threads", type=int, default=2, help="torch threads (transformer)")
    parser.add_argument("--doc-features", action="store_true", help="with document features (length, span density, mean risk): the kind of text")
    parser.add_argument("--doc-weight", type=float, default=0.0,
                        help="each span of a document with n spans weighs n ** -DOC_WEIGHT (0: every span alike; default's decision: 0.5)")
    args = parser.parse_args(argv)
    from ..pipeline import load_detector

    if args.family == "transformer":
        import torch

        torch.set_num_threads(args.threads)  # the tool's choice; components leave threads alone

    start = time.perf_counter()
    documents = load_tab(args.data)
    references = list(tab_to_docs(documents, spacy.blank("en")))
    gold = {d.doc_id: d for d in documents}
    names = " ".join(data.name for data in args.data)
    rows = detected(load_detector(args.detector), {i: d.text for i, d in gold.items()})
    tagger = cnn_tagger(args.width, args.depth) if args.family == "cnn" else dict(FAMILIES[args.family])
    if args.family == "transformer" and args.window_batch:
        tagger["update_batch_size"] = args.window_batch
    risks = out_of_fold_seq_risks(references, rows, args.folds, args.seed, tagger, args.epochs, log="train-stack",
                                  merge=args.merge_views, batch_size=args.batch_size)
    info = {"data": names, "detector": args.detector, "folds": args.folds, "seed": args.seed, "tagger": tagger, "epochs": args.epochs,
            "params": DEFAULT_PARAMS}
    if args.merge_views:
        info.update(merge_views=True, batch_size=args.batch_size)
    if args.doc_features:
        info["doc_features"] = True
    if args.doc_weight:
        info["doc_weight"] = args.doc_weight
    model = fit_stack(gold, rows, risks, sorted(gold), seed=args.seed, info=info, doc_features=args.doc_features, doc_weight=args.doc_weight)
    args.output.mkdir(parents=True, exist_ok=True)
    srsly.write_json(args.output / "learned.json", model.to_dict())
    from ..evaluation.provenance import write_training_data

    benchmark = ("benchmarks/quality/tab_eval.py --family transformer --stack (spacy project run evaluate-court-accurate)" if args.family == "transformer"
                 else "benchmarks/quality/tab_eval.py --data wiki_dev.json tab_dev.json --stack (spacy project run evaluate-default-decision)" if len(args.data) > 1
                 else "benchmarks/quality/tab_eval.py --stack (spacy project run evaluate-court)")
    write_training_data(args.output, ((d.doc_id, d.text) for d in gold.values()), source=names, benchmark=benchmark)
    print(f"fit risk_stack on {len(gold)} docs in {time.perf_counter() - start:.0f}s -> {args.output}")
