"""Training ``risk_seq`` taggers on gold TAB data, and the command that builds the shipped one:

    python -m spacy_sanitize train-seq ../shared/data/wiki/wiki_dev.json spacy_sanitize/data/risk_seq --family cnn
    python -m spacy_sanitize train-seq ../shared/data/tab/tab_dev.json spacy_sanitize/data/risk_seq_court --width 64 --depth 3 --epochs 2
"""
import argparse
import random
import time
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

import spacy
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import minibatch

from ..corpus.tab import load_tab, merge_views, tab_to_docs
from ..risk.seq_models import save_tagger

FAMILIES: Dict[str, Dict[str, Any]] = {
    "cnn": {"@misc": "spacy_sanitize.seq_cnn.v1"},
    "transformer": {"@misc": "spacy_sanitize.seq_transformer.v1"},
}
# Epochs fixed before cross-validation (not tuned on it): the CNN converges in ~10 passes
# over 56 biographies; the transformer gets 4 because CPU time is scarce.
DEFAULT_EPOCHS = {"cnn": 10, "transformer": 4}


def cnn_tagger(width: int = 0, depth: int = 4, window_size: int = 1, span_features: Sequence[str] = ()) -> Dict[str, Any]:
    """The CNN tagger's config: width 0 = the pretrained tok2vec of the small English pipeline;
    else a fresh one of ``width``, ``depth`` and ``window_size`` (smaller and ~3x faster to
    train on long court cases; it sees +-depth*window_size tokens), with embeddings of the
    detected spans' ``span_features`` (``risk.seq_features``) when given."""
    tagger = dict(FAMILIES["cnn"])
    if width:
        tagger.update(pretrained=False, width=width, depth=depth)
        if window_size != 1:
            tagger["window_size"] = window_size
        if span_features:
            tagger["span_features"] = list(span_features)
    return tagger


def set_detected(doc: Doc, rows: Sequence[Sequence[Any]], spans_key: str = "pii") -> Doc:
    """Put detected spans, rows of [start_char, end_char, label, entity_id, ...], on ``doc``."""
    spans = []
    for start, end, label, entity_id, *_ in rows:
        span = doc.char_span(start, end, label=label, alignment_mode="expand")
        if span is not None:
            span._.entity_id = entity_id
            spans.append(span)
    doc.spans[spans_key] = spans
    return doc


def detected_rows(nlp: Language, texts: Mapping[str, str], spans_key: str = "pii") -> Dict[str, List[List[Any]]]:
    """The spans a detector pipeline finds in each text, as rows for ``set_detected``."""
    from ..evaluation import detect_docs

    ids = sorted(texts)
    docs = detect_docs(nlp, [texts[i] for i in ids], ids)
    return {doc._.doc_id: [[s.start_char, s.end_char, s.label_, s._.entity_id] for s in doc.spans.get(spans_key, [])] for doc in docs}


def examples_from(references: Sequence[Doc], nlp: Language, detected: Optional[Mapping[str, Sequence[Sequence[Any]]]] = None) -> List[Example]:
    """Examples whose predicted doc is a fresh tokenization of each reference text, carrying
    the ``detected`` spans of its document when given (what risk_seq sees in a pipeline)."""
    out = []
    for reference in references:
        predicted = nlp.make_doc(reference.text)
        predicted._.doc_id = reference._.doc_id
        if detected is not None:
            set_detected(predicted, detected.get(reference._.doc_id, []))
        out.append(Example(predicted, reference))
    return out


def train_risk_seq(
    references: Sequence[Doc],
    tagger: Dict[str, Any],
    epochs: int,
    batch_size: int = 8,
    seed: int = 0,
    component_config: Optional[Dict[str, Any]] = None,
    detected: Optional[Mapping[str, Sequence[Sequence[Any]]]] = None,
    merge: bool = False,
) -> Language:
    """A blank English pipeline with a ``risk_seq`` trained on the reference docs (which
    carry gold ``mask`` spans), ``epochs`` shuffled passes in batches of ``batch_size`` docs.
    detected: per doc id, the detector's span rows (``set_detected``), needed by a tagger
    with span features. merge: one example per document whose token labels are the share of
    its annotator views that mask them (``corpus.tab.merge_views``); an epoch is then one pass
    over the documents instead of over the views."""
    if merge:
        references = merge_views(references)
    random.seed(seed)
    try:
        import torch

        torch.manual_seed(seed)
    except ImportError:
        pass
    from thinc.api import fix_random_seed

    fix_random_seed(seed)
    nlp = spacy.blank("en")
    nlp.add_pipe("risk_seq", config={"tagger": tagger, **(component_config or {})})
    examples = examples_from(references, nlp, detected)
    nlp.initialize(lambda: examples)
    for _ in range(epochs):
        random.shuffle(examples)
        for batch in minibatch(examples, batch_size):
            nlp.update(batch)
    return nlp


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(prog="spacy-sanitize train-seq", description="Train a risk_seq tagger on TAB JSON and save it.")
    parser.add_argument("data", type=Path, nargs="+", help="TAB JSON files with gold masking decisions (e.g. wiki_dev.json tab_dev.json)")
    parser.add_argument("output", type=Path, help="directory for the saved tagger")
    parser.add_argument("--family", choices=sorted(FAMILIES), default="cnn")
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2, help="torch threads (transformer)")
    parser.add_argument("--width", type=int, default=0, help="cnn: a fresh tok2vec this wide instead of the pretrained one")
    parser.add_argument("--depth", type=int, default=4, help="cnn: layers of the fresh tok2vec (with --width)")
    parser.add_argument("--window-size", type=int, default=1, help="cnn: words each layer of the fresh tok2vec sees on each side")
    parser.add_argument("--span-features", default="", help="cnn: comma-separated features of the detected spans (label,count,early,position); needs --detector")
    parser.add_argument("--batch-size", type=int, default=8, help="documents (or views) per update")
    parser.add_argument("--window-batch", type=int, default=None, help="transformer: windows per optimizer step (the tagger's update_batch_size; default its batch_size, 8)")
    parser.add_argument("--save-dtype", choices=("float16", "float32", "int8"), default=None, help="transformer: weights saved as (default float16)")
    parser.add_argument("--merge-views", action="store_true", help="train once per document on the share of annotators masking each token (soft labels)")
    parser.add_argument("--detector", default=None, help="a shipped pipeline (default) whose detector's spans the training docs carry, as in the pipeline")
    args = parser.parse_args(argv)
    features = [f for f in args.span_features.split(",") if f]
    tagger = cnn_tagger(args.width, args.depth, args.window_size, features) if args.family == "cnn" else dict(FAMILIES[args.family])
    if args.family == "transformer" and args.window_batch:
        tagger["update_batch_size"] = args.window_batch
    if args.family == "transformer" and args.save_dtype:
        tagger["save_dtype"] = args.save_dtype
    if args.family == "transformer":
        import torch

        torch.set_num_threads(args.threads)  # the tool's choice; components leave threads alone
    gold = load_tab(args.data)
    references = list(tab_to_docs(gold, spacy.blank("en")))
    start = time.perf_counter()
    detected = None
    if args.detector:
        from ..pipeline import load_detector

        detected = detected_rows(load_detector(args.detector), {ref._.doc_id: ref.text for ref in references})
    nlp = train_risk_seq(references, tagger, args.epochs or DEFAULT_EPOCHS[args.family], seed=args.seed, detected=detected, merge=args.merge_views,
                         batch_size=args.batch_size)
    save_tagger(nlp.get_pipe("risk_seq").tagger, args.output)
    # What it was fit on, so `spacy-sanitize evaluate` flags in-sample figures.
    from ..evaluation.provenance import write_training_data

    names = " ".join(data.name for data in args.data)
    benchmark = ("benchmarks/quality/tab_eval.py --data wiki_dev.json tab_dev.json --stack (spacy project run evaluate-default-decision)" if len(args.data) > 1
                 else f"benchmarks/quality/seq_eval.py --data {names} (spacy project run evaluate-seq on the biographies, evaluate-court-indicators on TAB)")
    write_training_data(args.output, ((d.doc_id, d.text) for d in gold), source=names, benchmark=benchmark)
    print(f"trained {args.family} on {len(references)} docs in {time.perf_counter() - start:.1f}s -> {args.output}")

