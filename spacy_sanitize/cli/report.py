"""``spacy-sanitize report INPUT -o report.html``: the review report of a run."""
import argparse
import itertools
import sys
import time
import warnings
from typing import Any, Iterator

from ..errors import Errors, Warnings
from ..io import FORMATS, InputError, Output, open_input, read_records
from ..report.build import is_sanitized, read_sanitized, run_records
from ..report.html import build_html
from .options import add_verbose


def _check_same_kind(records: Iterator[Any], path: str, sanitized: bool) -> Iterator[Any]:
    for number, record in enumerate(records, start=1):
        if is_sanitized(record.source) != sanitized:
            found = "sanitize output" if not sanitized else "not sanitize output"
            first = "is sanitize output" if sanitized else "is not"
            raise InputError(Errors.E900.format(line=number, path=path, found=found, first=first))
        yield record


def cmd_report(args: argparse.Namespace) -> int:
    if args.page_size < 1:
        raise InputError(Errors.E901.format(n=args.page_size))
    started = time.perf_counter()
    source = open_input(args.input, args.format)
    records = read_records(source, text_field=args.text_field, id_field=args.id_field)
    first = next(records, None)
    records = itertools.chain([] if first is None else [first], records)
    sanitized = first is not None and is_sanitized(first.source)
    if sanitized:
        given = [f"--{name} {value}" for name, value in (("pipeline", args.pipeline), ("max-chars", args.max_chars)) if value is not None]
        if given:
            warnings.warn(Warnings.W900.format(path=args.input, given=", ".join(given)), stacklevel=2)
        original = not args.no_original
        if original and any("text" not in span for span in first.source.get("spans", [])):
            warnings.warn(Warnings.W901.format(path=args.input), stacklevel=2)
            original = False
        args.no_original = not original  # the page says what it holds
        entries, privacy = read_sanitized(_check_same_kind(records, args.input, True), original=original)
    else:
        from ..pipeline import DEFAULT_CHUNK_CHARS, check_max_chars, load_pipeline

        max_chars = args.max_chars or DEFAULT_CHUNK_CHARS
        try:
            check_max_chars(max_chars)
        except ValueError as err:
            raise InputError(str(err)) from None
        nlp = load_pipeline(args.pipeline or "default")
        if "masker" not in nlp.pipe_names:
            raise InputError(Errors.E014.format(pipeline=args.pipeline or "default"))
        checked = _check_same_kind(records, args.input, False) if source.format == "jsonl" else records
        entries, privacy = run_records(nlp, checked, original=not args.no_original, max_chars=max_chars)
    out = Output(args.output, inputs=[args.input], private=not args.no_original)  # the original text: 0600
    ok = False
    try:
        out.write(build_html(entries, original=not args.no_original, privacy=privacy, title=args.title, page_size=args.page_size))
        ok = True
    finally:
        out.close(ok)
    if not args.quiet:
        spans = sum(len(item["m"]) for item in entries)
        print(f"report of {len(entries)} document(s), {spans} span(s) written to {args.output} in {time.perf_counter() - started:.1f}s", file=sys.stderr)
    return 0


def add_report_subparser(sub: Any) -> None:
    report = sub.add_parser("report", help="an HTML review report of what was masked and why", description=(
        "Write one self-contained HTML file (no network needed) showing each document's original text with the "
        "detected spans highlighted by type and decision beside its sanitized text, why each span was masked or "
        "kept (on hover or keyboard focus), a summary per type, the privacy report and filters. INPUT is anything "
        "sanitize reads (the pipeline runs), or the JSONL sanitize wrote (shown as recorded, no re-run). The report "
        "contains the original personal data unless --no-original is given."))
    report.add_argument("input", help="input path (as for sanitize), or sanitize's JSONL output; - for stdin")
    report.add_argument("-o", "--output", required=True, help="the HTML file to write")
    report.add_argument("-p", "--pipeline", default=None, help="pipeline to run, as for sanitize (default: default); not with sanitize output")
    report.add_argument("--format", choices=FORMATS, default="auto", help="input format, as for sanitize")
    report.add_argument("--text-field", default="text", help="JSONL field with the text (dotted path), as for sanitize")
    report.add_argument("--id-field", default="id", help="JSONL field with the record id, as for sanitize")
    report.add_argument("--max-chars", type=int, default=None, help="as for sanitize (default 100,000); not with sanitize output")
    report.add_argument("--no-original", action="store_true", help="leave the original text out: only the sanitized side, with span types")
    report.add_argument("--page-size", type=int, default=20, help="documents per page of the report (default 20)")
    report.add_argument("--title", default="spacy-sanitize review report", help="the report's title")
    report.add_argument("-q", "--quiet", action="store_true", help="no closing line on stderr")
    add_verbose(report)
    report.set_defaults(func=cmd_report)

