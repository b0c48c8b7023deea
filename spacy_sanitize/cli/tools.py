"""The offline tools as subcommands of the one ``spacy-sanitize`` CLI. Each tool keeps its own
argument parser; the main CLI only forwards the arguments, so a tool's modules (and torch)
are imported only when that subcommand runs."""
import argparse
import importlib
from typing import Any, Dict, Tuple

# subcommand -> (module under spacy_sanitize.training, help)
TOOLS: Dict[str, Tuple[str, str]] = {
    "silver": ("silver", "build the silver NER corpus (train.spacy/dev.spacy) from unlabeled texts"),
    "train-seq": ("seq_train", "train a risk_seq MASK/NO_MASK tagger on TAB JSON"),
    "train-stack": ("stack_train", "fit risk_stack on out-of-fold risk_seq risks of TAB JSON"),
    "attacker": ("attacker_cli", "train or evaluate the risk_infer attacker"),
    "country-labels": ("country_labels", "weak respondent-state labels for ECHR judgments"),
    "build-gazetteer": ("gazetteer_build", "build a DEM/MISC gazetteer from Wikidata dumps or term lists"),
    "quantize": ("quantize", "convert a saved masked LM to the shipped int8 format"),
}


def run_tool(args: argparse.Namespace) -> int:
    module = importlib.import_module(f"spacy_sanitize.training.{TOOLS[args.command][0]}")
    return int(module.main(args.tool_args) or 0)


def add_tool_subparsers(subparsers: Any) -> None:
    for name, (_, help_text) in TOOLS.items():
        parser = subparsers.add_parser(name, help=help_text, add_help=False, prefix_chars="\0")
        parser.add_argument("tool_args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
        parser.set_defaults(func=run_tool)
