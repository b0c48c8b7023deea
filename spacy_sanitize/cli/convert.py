"""``spacy-sanitize tab-to-spacy``: TAB JSON to a ``.spacy`` file (DocBin) of reference Docs,
one per document and annotator, with the gold spans, entity ids and document ids: what
``spacy evaluate`` and ``spacy train`` read (the shipped configs' corpora also read TAB JSON
directly: ``--paths.dev gold.json``)."""
import argparse
from pathlib import Path
from typing import Any

from ..corpus.tab import read_tab
from ..errors import Errors
from ..io import InputError
from .options import add_verbose


def cmd_tab_to_spacy(args: argparse.Namespace) -> int:
    import spacy
    from spacy.tokens import DocBin

    output = Path(args.output)
    if output.suffix != ".spacy" or output.is_dir():
        raise InputError(Errors.E046.format(problem=f"'{output}': name a .spacy file to write"))
    # the package's tokenizer, as every shipped pipeline has it
    nlp = spacy.blank("en", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_sanitize.Tokenizer.v1"}}})
    docs = read_tab(args.gold, nlp, lenient=args.lenient)
    output.parent.mkdir(parents=True, exist_ok=True)
    DocBin(docs=docs, store_user_data=True).to_disk(output)
    print(f"wrote {len(docs)} reference doc(s) (documents x annotators) to {output}")
    return 0


def add_convert_subparser(sub: Any) -> None:
    parser = sub.add_parser("tab-to-spacy", help="convert TAB JSON to a .spacy file for spacy evaluate / spacy train", description=(
        "Write the documents of a TAB JSON file as a DocBin of reference Docs (one per document and annotator, "
        "with the gold spans, entity ids and document ids): `spacy evaluate PIPELINE dev.spacy --spans-key pii` "
        "then prints the masker's TAB precision, recall and F1 as SPAN P/R/F (all TAB metrics with --output)."))
    parser.add_argument("gold", help="TAB JSON file")
    parser.add_argument("output", help="the .spacy file to write")
    parser.add_argument("--lenient", action="store_true", help="skip malformed gold mentions with a warning")
    add_verbose(parser)
    parser.set_defaults(func=cmd_tab_to_spacy)
