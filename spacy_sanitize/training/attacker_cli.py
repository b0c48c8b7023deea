"""``spacy-sanitize attacker train|evaluate``: train or evaluate the risk_infer attacker."""
import argparse
import json
from pathlib import Path
from typing import List, Optional

from ..risk.infer.attacker import ATTRS, LinearAttacker, accuracy_at_k, attr_nlp, read_labeled, sequences_of, train_attacker


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="spacy-sanitize attacker", description="Train or evaluate the risk_infer attacker.")
    sub = parser.add_subparsers(dest="command", required=True)
    train = sub.add_parser("train", help="train an attacker on JSONL documents with a label")
    train.add_argument("inputs", nargs="+", type=Path, help="JSONL file(s); the last positional is the output directory")
    train.add_argument("--label-field", default="label", help="dotted path of the label, e.g. meta.countries; alternatives with |, e.g. 'meta.countries|label'")
    train.add_argument("--text-field", default="text")
    train.add_argument("--attr", default="LOWER", choices=ATTRS)
    train.add_argument("--ngram-max", type=int, default=2)
    train.add_argument("--min-df", type=int, default=2)
    train.add_argument("--max-features", type=int, default=100_000)
    train.add_argument("--C", type=float, default=1.0)
    train.add_argument("--max-chars", type=int, default=0, help="cut each text to this many characters (0: no cut)")
    evaluate = sub.add_parser("evaluate", help="accuracy of a trained attacker on JSONL documents")
    evaluate.add_argument("model", type=Path)
    evaluate.add_argument("data", type=Path)
    evaluate.add_argument("--label-field", default="label")
    evaluate.add_argument("--text-field", default="text")
    args = parser.parse_args(argv)
    if args.command == "train":
        if len(args.inputs) < 2:
            parser.error("give at least one JSONL file and the output directory")
        *data_paths, output = args.inputs
        texts: List[str] = []
        labels: List[str] = []
        for data_path in data_paths:
            _, t, lab = read_labeled(data_path, args.label_field, args.text_field)
            texts += [x[: args.max_chars] if args.max_chars else x for x in t]
            labels += lab
        seqs = sequences_of(texts, attr_nlp(args.attr), args.attr)
        attacker = train_attacker(seqs, labels, attr=args.attr, ngram_max=args.ngram_max, min_df=args.min_df, max_features=args.max_features, C=args.C)
        attacker.to_disk(output)
        print(json.dumps({"output": str(output), "classes": attacker.classes, "n_features": attacker.n_features, "n_train": len(labels)}))
    else:
        attacker = LinearAttacker.from_disk(args.model)
        _, texts, labels = read_labeled(args.data, args.label_field, args.text_field)
        proba = attacker.proba_texts(texts, attr_nlp(attacker.attr))
        print(json.dumps({"n": len(labels), "accuracy": accuracy_at_k(proba, attacker.classes, labels, 1), "top3": accuracy_at_k(proba, attacker.classes, labels, 3)}))
    return 0
