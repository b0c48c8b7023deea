"""Silver corpus builder: label unlabeled documents with the detection pipeline (generic NER
mapped to PII types, CODE rules, gazetteers...) and write spaCy DocBin files whose docs carry
the PII spans both as ``doc.ents`` (what pii_ner trains on) and as ``doc.spans["pii"]``.

    python -m spacy_sanitize silver INPUT.jsonl [INPUT2 ...] --output corpus/silver \\
        [--pipeline default] [--limit 5000] [--chars-per-input 2000000] [--skip-chars 0] [--max-chars 3000]
        [--dev-share 0.1] [--exclude gold.json] [--disable pii_relabel]

Long documents are cut into pieces of at most ``--max-chars`` characters at paragraph or
sentence boundaries. Records with no usable text are skipped and counted; documents that
overlap a gold file given with ``--exclude`` are dropped, so gold documents stay out.
"""
import argparse
import random
import sys
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from spacy.tokens import DocBin
from tqdm import tqdm

from ..corpus.tab import load_tab
from ..errors import Errors
from ..io import InputError, read_records
from ..pipeline import load_pipeline, split_text

DETECTION_ONLY = ("masker",)


def gold_fingerprints(paths: Sequence[str]) -> Set[str]:
    """Opening passages of gold documents: a record containing one is a gold document."""
    prints = set()
    for path in paths:
        for document in load_tab(path):
            prints.add(" ".join(document.text[:120].split()))
    return prints


def is_gold(text: str, prints: Set[str]) -> bool:
    flat = " ".join(text.split())
    return any(p and p in flat for p in prints)


def pieces(
    paths: Sequence[str],
    limit: Optional[int],
    max_chars: int,
    prints: Set[str],
    counts: Dict[str, int],
    chars_per_input: Optional[int] = None,
    skip_chars: int = 0,
) -> Iterator[Tuple[str, str]]:
    for path in paths:
        taken = chars = skipped_chars = 0
        skipped: List[int] = []
        for record in read_records(path, "auto", skip_bad=True, skipped=skipped):
            if (limit is not None and taken >= limit) or (chars_per_input is not None and chars >= chars_per_input):
                break
            if not record.text.strip():
                counts["empty"] += 1
                continue
            if prints and is_gold(record.text, prints):
                counts["gold_overlap"] += 1
                continue
            if skipped_chars < skip_chars:  # the records an earlier run with --chars-per-input skip_chars took
                skipped_chars += len(record.text)
                continue
            taken += 1
            chars += len(record.text)
            for offset, piece in split_text(record.text, max_chars):
                if piece.strip():
                    yield piece, f"{record.id}@{offset}"
        counts["bad_json"] += len(skipped)


def build_silver(
    inputs: Sequence[str],
    output: Path,
    pipeline: str = "default",
    limit: Optional[int] = None,
    max_chars: int = 3000,
    dev_share: float = 0.1,
    exclude: Sequence[str] = (),
    seed: int = 0,
    batch_size: int = 32,
    n_process: int = 1,
    chars_per_input: Optional[int] = None,
    disable: Sequence[str] = (),
    skip_chars: int = 0,
) -> Dict[str, int]:
    """Label ``inputs`` and write ``output/train.spacy`` and ``output/dev.spacy``;
    ``disable``: more components to leave out (a name the pipeline lacks is an error, not a
    silently different corpus); ``skip_chars``: start each input after the records a run with
    ``chars_per_input=skip_chars`` read, so a corpus grows in parts that can run side by side."""
    nlp = load_pipeline(pipeline)
    unknown = [name for name in disable if name not in nlp.pipe_names]
    if unknown:
        raise InputError(Errors.E027.format(names=", ".join(unknown), pipeline=pipeline, pipe_names=", ".join(nlp.pipe_names)))
    disabled = [name for name in nlp.pipe_names if name in DETECTION_ONLY or name.startswith("risk_") or name in disable]
    counts: Dict[str, int] = {"empty": 0, "gold_overlap": 0, "bad_json": 0, "docs": 0, "spans": 0}
    prints = gold_fingerprints(exclude)
    rng = random.Random(seed)
    train, dev = DocBin(attrs=["ORTH", "ENT_IOB", "ENT_TYPE"], store_user_data=False), DocBin(attrs=["ORTH", "ENT_IOB", "ENT_TYPE"])
    stream = pieces(inputs, limit, max_chars, prints, counts, chars_per_input, skip_chars)
    with nlp.select_pipes(disable=disabled):
        for doc, _ in tqdm(nlp.pipe(stream, as_tuples=True, batch_size=batch_size, n_process=n_process), desc="silver", unit="piece", file=sys.stderr):
            spans = list(doc.spans.get("pii", []))
            doc.ents = spans
            (dev if rng.random() < dev_share else train).add(doc)
            counts["docs"] += 1
            counts["spans"] += len(spans)
    output.mkdir(parents=True, exist_ok=True)
    train.to_disk(output / "train.spacy")
    dev.to_disk(output / "dev.spacy")
    return counts


def main(argv: Optional[Iterable[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="spacy-sanitize silver", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("inputs", nargs="+", help="JSONL files with a text field, .txt files or folders")
    parser.add_argument("--output", type=Path, required=True, help="folder for train.spacy and dev.spacy")
    parser.add_argument("--pipeline", default="default", help="detection pipeline (its masker and risk components are disabled)")
    parser.add_argument("--limit", type=int, help="at most this many records per input")
    parser.add_argument("--chars-per-input", type=int, help="stop reading an input after this many characters")
    parser.add_argument("--skip-chars", type=int, default=0, help="start each input after the records a run with --chars-per-input SKIP_CHARS read")
    parser.add_argument("--max-chars", type=int, default=3000, help="cut documents into pieces of at most this many characters")
    parser.add_argument("--dev-share", type=float, default=0.1)
    parser.add_argument("--exclude", action="append", default=[], help="gold TAB JSON whose documents must stay out (repeatable)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-process", type=int, default=1)
    parser.add_argument("--disable", action="append", default=[], help="a component of the pipeline to leave out (repeatable)")
    args = parser.parse_args(list(argv) if argv is not None else None)
    try:
        counts = build_silver(args.inputs, args.output, args.pipeline, args.limit, args.max_chars, args.dev_share, args.exclude, args.seed, n_process=args.n_process, chars_per_input=args.chars_per_input, disable=args.disable, skip_chars=args.skip_chars)
    except (InputError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(" ".join(f"{k}={v}" for k, v in counts.items()))
    return 0

