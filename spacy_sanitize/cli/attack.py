"""``attack``: the attribute-inference attack benchmark on the command line.

Registered in ``spacy_sanitize/cli/main.py`` (``spacy-sanitize attack``) with
``add_attack_subparser(sub)``.
"""
import argparse
import json
import logging
from pathlib import Path
from typing import Any, List

import srsly

from ..errors import Errors
from ..io import InputError
from ..decide.infer.attacker import ATTRS, read_labeled, read_labeled_files
from ..decide.infer.search import SEARCHES

logger = logging.getLogger("spacy_sanitize")


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="JSONL documents with a text and a label field (e.g. tab/tab_dev_texts.jsonl)")
    parser.add_argument("--label-field", default="meta.countries", help="dotted path of the attribute (default: meta.countries)")
    parser.add_argument("--text-field", default="text")
    parser.add_argument("--extra-train", action="append", default=[], help="extra labelled JSONL used only for training (field 'label'); repeatable")
    parser.add_argument("--extra-label-field", default="label")
    parser.add_argument("-p", "--pipeline", default="default", help="pipeline with a masker (default: default)")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-docs", type=int, default=0, help="evaluate on a random subsample of this many documents (0: all)")
    parser.add_argument("--max-chars", type=int, default=0, help="cut each evaluated document to this many characters (0: no cut)")
    parser.add_argument("--threshold", type=float, default=0.37, help="maximum class probability below which a text counts as de-identified")
    parser.add_argument("--search", choices=SEARCHES, default="greedy")
    parser.add_argument("--max-removals", type=int, default=100)
    parser.add_argument("--top-k", type=int, default=3)
    parser.add_argument("--attr", choices=ATTRS, default="LOWER")
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--min-df", type=int, default=2)
    parser.add_argument("--gold", help="TAB gold JSON (e.g. wiki/wiki_dev.json): TAB scores with and without risk_infer")
    parser.add_argument("--no-search-comparison", action="store_true", help="skip exact vs greedy vs beam on short snippets")
    parser.add_argument("--snippet-chars", type=int, default=300)
    parser.add_argument("-o", "--output", help="write the results as JSON here")
    rounds = parser.add_argument_group("adversarial rounds (--criterion prior)")
    rounds.add_argument("--criterion", choices=("maxprob", "prior", "guess"), default="maxprob", help="maxprob: seed 001's threshold (the a/b/c report); prior / guess: the ensemble's criterion with adversarial rounds, one row per level")
    rounds.add_argument("--tv-bound", type=float, action="append", help="total-variation bound to the prior; repeatable, one level each (default 0.05)")
    rounds.add_argument("--rounds", type=int, default=2, help="adversarial rounds after round 0")
    rounds.add_argument("--attackers", default="word:LOWER,word:NORM,char:LOWER", help="the ensemble, ANALYZER:ATTR comma-separated (the first is the reported fixed attacker)")
    rounds.add_argument("--adapt-attackers", default=None, help="the kinds retrained on sanitized text (default: --attackers)")
    rounds.add_argument("--tab-gold", help="TAB gold JSON of the same documents (e.g. tab/tab_dev.json): TAB P/R per level")
    rounds.add_argument("--remove-stop-words", action="store_true", help="let risk_infer remove stop words (keep_stop_words = false)")
    rounds.add_argument("--plot", help="write the privacy-utility curve here (PNG, needs matplotlib: the bench extra)")


def add_attack_subparser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``attack`` on the main CLI's subparsers (``python -m spacy_sanitize attack``)."""
    parser = subparsers.add_parser(
        "attack",
        help="attribute-inference attack benchmark: attacker accuracy on raw, masked and risk_infer-masked text",
        description=(
            "Train a bag-of-n-grams attacker on folds of DATA (plus --extra-train) and report its accuracy on the "
            "held-out documents as written, after the pipeline's masking, and after masking plus risk_infer, with "
            "the fraction of tokens masked."
        ),
    )
    _add_arguments(parser)
    parser.set_defaults(func=run_attack)
    return parser


def run_attack(args: argparse.Namespace) -> int:
    import numpy as np

    # Checked here, before minutes of work: read_labeled's own message (E605) is about a
    # trained attacker and would send the user to train one for a mistyped data path.
    inputs = [("input", args.data)] + [("--extra-train file", path) for path in args.extra_train]
    for what, path in inputs + ([("--gold file", args.gold)] if args.gold else []):
        if not Path(path).is_file():
            raise InputError(Errors.E120.format(what=what, path=path))

    from ..pipeline import load_pipeline
    from ..training.attack import run_attack_benchmark

    ids, texts, labels = read_labeled(args.data, args.label_field, args.text_field)
    if args.max_docs and args.max_docs < len(texts):
        keep = np.sort(np.random.default_rng(args.seed).choice(len(texts), args.max_docs, replace=False))
        ids, texts, labels = [ids[i] for i in keep], [texts[i] for i in keep], [labels[i] for i in keep]
    if args.max_chars:
        texts = [t[: args.max_chars] for t in texts]
    extra_texts, extra_labels = read_labeled_files(args.extra_train, args.extra_label_field)
    nlp = load_pipeline(args.pipeline)
    nlp.add_pipe("risk_infer", before="masker", config={"threshold": args.threshold, "search": args.search, "max_removals": args.max_removals, "score_existing": args.criterion == "maxprob", "keep_stop_words": not args.remove_stop_words})
    if args.criterion != "maxprob":
        return _run_rounds(args, texts, labels, ids, extra_texts, extra_labels, nlp)
    result = run_attack_benchmark(
        texts,
        labels,
        nlp,
        extra_texts=extra_texts,
        extra_labels=extra_labels,
        folds=args.folds,
        seed=args.seed,
        k=args.top_k,
        attacker_params={"attr": args.attr, "C": args.C, "min_df": args.min_df},
        gold_path=args.gold,
        compare_searches=not args.no_search_comparison,
        snippet_chars=args.snippet_chars,
        progress=lambda message: logger.info(message),
    )
    result["settings"] = {k: v for k, v in vars(args).items() if k != "func"}
    _write(args, result)
    return 0


def _write(args: argparse.Namespace, result: Any) -> None:
    print(json.dumps(result, indent=1))
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(args.output, result)


def _run_rounds(args: argparse.Namespace, texts: List[str], labels: List[str], ids: List[str], extra_texts: List[str], extra_labels: List[str], nlp: Any) -> int:
    from ..training.attack import plot_levels, run_rounds_benchmark

    kinds = [k.strip() for k in args.attackers.split(",") if k.strip()]
    adapt = [k.strip() for k in args.adapt_attackers.split(",") if k.strip()] if args.adapt_attackers else None
    result = run_rounds_benchmark(
        texts,
        labels,
        nlp,
        doc_ids=ids,
        extra_texts=extra_texts,
        extra_labels=extra_labels,
        kinds=kinds,
        adapt_kinds=adapt,
        tv_bounds=args.tv_bound or [0.05],
        rounds=args.rounds,
        folds=args.folds,
        seed=args.seed,
        k=args.top_k,
        attacker_params={"C": args.C, "min_df": args.min_df},
        tab_gold_path=args.tab_gold,
        criterion=args.criterion,
        progress=lambda message: logger.info(message),
    )
    result["settings"] = {k: v for k, v in vars(args).items() if k != "func"}
    _write(args, result)
    if args.plot:
        Path(args.plot).parent.mkdir(parents=True, exist_ok=True)
        plot_levels(result, args.plot)
    return 0


__all__: List[str] = ["add_attack_subparser", "run_attack"]
