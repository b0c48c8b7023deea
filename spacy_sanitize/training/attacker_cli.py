"""``spacy-sanitize attacker train|evaluate|adversarial``: train or evaluate the risk_infer
attacker; ``adversarial`` trains the attacker ensemble of cross-fitted adversarial rounds
(``training.adversarial``) and writes it where ``attacker_path`` loads it."""
import argparse
import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import srsly

from ..decide.infer.attacker import ATTRS, LinearAttacker, accuracy_at_k, attr_nlp, read_labeled, read_labeled_files, sequences_of, train_attacker


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
    adv = sub.add_parser("adversarial", help="train the attacker ensemble with cross-fitted adversarial rounds (runs the pipeline on the data)")
    adv.add_argument("data", type=Path, help="labelled JSONL documents the pipeline masks (e.g. tab/tab_dev_texts.jsonl)")
    adv.add_argument("output", type=Path, help="directory: attacker.msgpack + ensemble/N (initialize.components.risk_infer.attacker_path)")
    adv.add_argument("--label-field", default="meta.countries")
    adv.add_argument("--text-field", default="text")
    adv.add_argument("--extra-train", action="append", default=[], help="labelled JSONL for the raw attackers only (field 'label'); repeatable")
    adv.add_argument("-p", "--pipeline", default="default")
    adv.add_argument("--attackers", default="word:LOWER,char:LOWER")
    adv.add_argument("--criterion", choices=("prior", "guess"), default="guess")
    adv.add_argument("--tv-bound", type=float, default=0.05)
    adv.add_argument("--rounds", type=int, default=2)
    adv.add_argument("--folds", type=int, default=5)
    adv.add_argument("--seed", type=int, default=0)
    adv.add_argument("--min-df", type=int, default=2)
    adv.add_argument("--max-features", type=int, default=100_000, help="n-grams each attacker keeps (the most frequent; fewer: smaller files)")
    evaluate = sub.add_parser("evaluate", help="accuracy of a trained attacker on JSONL documents")
    evaluate.add_argument("model", type=Path)
    evaluate.add_argument("data", type=Path)
    evaluate.add_argument("--label-field", default="label")
    evaluate.add_argument("--text-field", default="text")
    args = parser.parse_args(argv)
    if args.command == "adversarial":
        from ..pipeline import load_pipeline

        ids, texts, labels = read_labeled(args.data, args.label_field, args.text_field)
        extra_texts, extra_labels = read_labeled_files(args.extra_train)
        nlp = load_pipeline(args.pipeline)
        nlp.add_pipe("risk_infer", before="masker", config={"criterion": args.criterion, "tv_bound": args.tv_bound, "score_existing": False})
        summary = train_adversarial_ensemble(
            nlp, texts, labels, args.output, kinds=args.attackers.split(","), rounds=args.rounds, folds=args.folds, seed=args.seed,
            extra_texts=extra_texts, extra_labels=extra_labels, min_df=args.min_df,
            max_features=args.max_features,
        )
        from ..evaluation.provenance import write_training_data

        # what it was fit on, so an evaluation on these texts is flagged as in-sample
        write_training_data(args.output, zip(ids, texts), source=args.data.name, labels=f"{args.label_field} (+ weak labels of {len(extra_texts)} texts)",
                            benchmark="benchmarks/attack/infer_attack_rounds.sh (spacy project run attack-rounds)")
        print(json.dumps(summary))
    elif args.command == "train":
        if len(args.inputs) < 2:
            parser.error("give at least one JSONL file and the output directory")
        *data_paths, output = args.inputs
        texts, labels = read_labeled_files(data_paths, args.label_field, args.text_field)
        texts = [x[: args.max_chars] if args.max_chars else x for x in texts]
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


def train_adversarial_ensemble(
    nlp: Any,
    texts: Sequence[str],
    labels: Sequence[str],
    output: Path,
    *,
    kinds: Sequence[str] = ("word:LOWER", "char:LOWER"),
    rounds: int = 2,
    folds: int = 5,
    seed: int = 0,
    extra_texts: Sequence[str] = (),
    extra_labels: Sequence[str] = (),
    infer_name: str = "risk_infer",
    **params: Any,
) -> Dict[str, Any]:
    """Run ``nlp`` (without risk_infer) on ``texts``, play the cross-fitted rounds and
    write the ensemble trained on all folds to ``output`` (the first attacker in
    ``output``, the others in ``output/ensemble/N``); returns a summary with the trace."""
    import warnings

    from .adversarial import AttackerFactory, adversarial_rounds

    with nlp.select_pipes(disable=[infer_name]):
        docs = list(nlp.pipe(texts, batch_size=8))
    factory = AttackerFactory(kinds, nlp.lang, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = adversarial_rounds(
            docs, labels, nlp.get_pipe(infer_name), nlp.get_pipe("masker"), factory, folds=folds, seed=seed, rounds=rounds,
            extra_texts=extra_texts, extra_labels=extra_labels, train_final=True,
        )
    output = Path(output)
    first, *others = result.final_attackers
    first.to_disk(output)
    for number, member in enumerate(others, start=1):
        member.to_disk(output / "ensemble" / str(number))
    summary = {"output": str(output), "n_attackers": len(result.final_attackers), "rounds_played": len(result.sanitized), "stopped": result.stopped, "trace": result.trace}
    srsly.write_json(output / "rounds.json", summary)
    return summary
