"""Train the shipped pii_relabel model on all annotated biographies and save it where
``shipped = "pii_relabel"`` in initialize finds it:

    python scripts/train_relabel.py WIKI.json spacy_sanitize/data/pii_relabel [--seed 0]

The default detector (without pii_relabel and the masker) runs over the gold texts; its spans
are labelled with the gold type of most of their tokens; their features include contextual
vectors from the shipped domain MiniLM (``--encoder``). The hyper-parameters (C, a class for
spans that overlap no gold mention, min_prob, entity_vote) are chosen by 5-fold CV by
document; the model is then fit on all documents. The held-out estimate of what it gains is
benchmarks/quality/relabel_eval.py (nested CV), not the CV score printed here.
"""
import argparse
import json
from pathlib import Path

from spacy_sanitize.corpus import load_tab, tab_to_docs  # noqa: E402
from spacy_sanitize.evaluation import Tokens  # noqa: E402
from spacy_sanitize.evaluation.provenance import write_training_data  # noqa: E402
from spacy_sanitize.training.relabel_cv import ENCODER, ENCODER_LAYERS, ENCODER_SCALE, choose_params, detect, detector, fit  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("wiki", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--encoder", default=ENCODER, help="context encoder of the span vectors ('none': binary features only)")
    parser.add_argument("--encoder-scale", type=float, default=ENCODER_SCALE)
    parser.add_argument("--encoder-layers", type=int, default=ENCODER_LAYERS, help="hidden layer read (0: the last)")
    parser.add_argument("--encoder-quantize", action="store_true", help="run the encoder's linear layers in int8 (lm/context.py)")
    args = parser.parse_args()
    encoder = None if args.encoder.lower() == "none" else args.encoder
    gold = load_tab(args.wiki)
    # The ensemble detector pii_relabel runs after in accurate (its features read doc.ents).
    nlp = detector()
    references = list(tab_to_docs(gold, nlp))
    predicted = detect(nlp, [d.text for d in gold])
    params, cv_f1 = choose_params(predicted, references, gold, Tokens(), args.seed, k=args.folds, encoder=encoder, encoder_scale=args.encoder_scale, encoder_layers=args.encoder_layers, encoder_quantize=args.encoder_quantize)
    component = fit(params, predicted, references)
    component.model.meta.update(  # type: ignore[union-attr]
        cv_micro_labelled_F1=round(cv_f1, 4), cv_folds=args.folds, seed=args.seed, data=args.wiki.name, detector="spacy_sanitize/configs/accurate.cfg without pii_relabel"
    )
    component.to_disk(args.output)
    # What it was fit on, so `spacy-sanitize evaluate` flags in-sample figures.
    write_training_data(args.output, ((d.doc_id, d.text) for d in gold), source=args.wiki.name, benchmark="benchmarks/quality/relabel_eval.py (spacy project run evaluate-relabel)")
    print(json.dumps({"output": str(args.output), "params": params, "cv_micro_labelled_F1": round(cv_f1, 4), "features": len(component.model.features), "labels": component.model.labels}))  # type: ignore[union-attr]


if __name__ == "__main__":
    main()
