"""``attack``: the attribute-inference attack benchmark on the command line.

Registered in ``spacy_sanitize/cli.py`` (``spacy-sanitize attack``) with
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
from ..risk.infer.attacker import ATTRS, read_labeled
from ..risk.infer.search import SEARCHES

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
    from .attack import run_attack_benchmark

    _, texts, labels = read_labeled(args.data, args.label_field, args.text_field)
    if args.max_docs and args.max_docs < len(texts):
        keep = np.sort(np.random.default_rng(args.seed).choice(len(texts), args.max_docs, replace=False))
        texts, labels = [texts[i] for i in keep], [labels[i] for i in keep]
    if args.max_chars:
        texts = [t[: args.max_chars] for t in texts]
    extra_texts: List[str] = []
    extra_labels: List[str] = []
    for path in args.extra_train:
        _, t, lab = read_labeled(path, args.extra_label_field, "text")
        extra_texts += t
        extra_labels += lab
    nlp = load_pipeline(args.pipeline)
    nlp.add_pipe("risk_infer", before="masker", config={"threshold": args.threshold, "search": args.search, "max_removals": args.max_removals})
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
    print(json.dumps(result, indent=1))
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(args.output, result)
    return 0


__all__: List[str] = ["add_attack_subparser", "run_attack"]
