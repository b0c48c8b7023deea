"""``spacy-sanitize sanitize``: read the input, run it through a ``run.Session`` and write
the records (text, or JSONL with each record's ``run.records`` fields), the submission, the
mapping and the manifest."""
import argparse
import collections
import datetime
import os
import sys
import warnings
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import srsly
from tqdm import tqdm

from ..corpus.tab import write_submission
from ..decide.protect import protect_from_record
from ..errors import Errors, Warnings
from ..io import FORMATS, InputError, Output, Record, TextChunks, open_input, read_records, set_field, unsanitized_text_fields
from ..manifest import manifest_path, run_manifest
from ..masker.restore import MappingCollector, save_mapping
from ..risk.base import is_decider
from ..run.options import confidence_settings, masker_overrides
from ..run.pieces import DEFAULT_CHUNK_CHARS, check_max_chars, piece_output
from ..run.records import RecordBuilder
from ..run.session import Session
from .restore import add_mapping_arguments, mapping_key
from .options import add_verbose

RUN_OPTIONS = ("format", "output_format", "strategy", "operators", "text_field", "id_field", "protect_field", "max_chars", "min_confidence", "confidence_protect", "n_process")


def run_options(args: argparse.Namespace) -> Dict[str, Any]:
    """The options of the run for the manifest (settings, not the input and output paths)."""
    return {name: getattr(args, name, None) for name in RUN_OPTIONS}


def cmd_sanitize(args: argparse.Namespace) -> int:
    if args.engine == "ray":
        from .ray import run

        return run(args)
    for flag, value in (("--address", args.address), ("--num-workers", args.num_workers), ("--on-error", args.on_error)):
        if value is not None:
            raise InputError(Errors.E958.format(flag=flag))
    if args.output_format == "parquet":
        raise InputError(Errors.E958.format(flag="--output-format parquet"))
    if args.n_process < 1:
        raise InputError(Errors.E023.format(n=args.n_process))
    try:
        check_max_chars(args.max_chars)
    except ValueError as err:
        raise InputError(str(err)) from None  # bad usage (exit 2), before the pipeline loads
    key = mapping_key(args)  # a bad key fails here, before any work
    check_output_paths(args.input, args.output, manifest_path(args.output, args.manifest), args.mapping, args.submission)
    mapping = MappingCollector() if args.mapping else None
    # the input is checked before the pipeline loads and any output opens (stdin: its
    # format from its first line, read ahead)
    skipped: List[int] = []
    text_fields: List[str] = args.text_field or ["text"]
    source = open_input(args.input, args.format)
    records = read_records(source, text_field=text_fields, id_field=args.id_field, skip_bad=args.skip_bad, skipped=skipped, stream_text=True)
    started = datetime.datetime.now(datetime.timezone.utc)
    confidence = confidence_settings(args.min_confidence, args.confidence_protect)
    session = Session(args.pipeline, masker_overrides(args.strategy, args.operators), confidence=confidence, batch_size=args.batch_size,
                      max_chars=args.max_chars, n_process=args.n_process)
    nlp = session.nlp
    target = manifest_path(args.output, args.manifest)
    # hashing every component's weights costs time: only when a manifest is written
    manifest = run_manifest(nlp, args.pipeline, run_options(args), started) if target or args.manifest_in_records else None
    if args.protect_field and not any(is_decider(nlp, name) for name in nlp.pipe_names):
        warnings.warn(Warnings.W012.format(field=args.protect_field, pipeline=args.pipeline), stacklevel=2)
    output_format = args.output_format or ("jsonl" if source.format in ("jsonl", "tab", "dir") else "text")
    if len(text_fields) > 1 and output_format == "text":
        raise InputError(Errors.E028.format(fields=", ".join(text_fields)))
    if len(text_fields) > 1 and args.mapping:
        raise InputError(Errors.E039.format(fields=", ".join(text_fields)))
    out = Output(args.output, inputs=[args.input], private=args.keep_original)
    ok = False
    submission: Dict[str, List[List[int]]] = {}
    # (record, its field, the record's last field): one entry per text sent to the pipeline
    pending: "collections.deque[Tuple[Record, Optional[str], bool]]" = collections.deque()
    warned: List[bool] = []
    kept = 0

    def texts() -> Iterator[Union[str, TextChunks, Tuple[Union[str, TextChunks], Dict[str, Any]]]]:
        for record in records:
            if record.source is not None and not warned:
                # the record is written back whole: say which of its texts stay in clear
                copied = unsanitized_text_fields(record.source, [*text_fields, args.id_field])
                if copied:
                    warned.append(True)
                    shown = ", ".join(copied[:10]) + (", ..." if len(copied) > 10 else "")
                    warnings.warn(Warnings.W020.format(path=args.input, fields=shown), stacklevel=2)
            items: List[Tuple[Optional[str], Union[str, TextChunks]]] = [(None, record.text), *record.fields]
            for position, (name, text) in enumerate(items):
                pending.append((record, name, position == len(items) - 1))
                if args.protect_field:
                    # the person to protect, from the record (W701 when it lacks the field)
                    yield text, {"protect": protect_from_record(record.meta, args.protect_field)}
                else:
                    yield text

    # Progress in characters: one long document shows its progress piece by piece.
    progress = tqdm(desc="sanitizing", unit="char", unit_scale=True, disable=args.quiet or not sys.stderr.isatty() and not args.progress, file=sys.stderr)
    writer = RecordWriter(out, output_format, newline=args.output in (None, "-"), submission=submission if args.submission else None, mapping=mapping,
                          keep_original=args.keep_original, text_fields=text_fields, spans_key=session.spans_key)
    writer.manifest = manifest if args.manifest_in_records else None
    try:
        for piece in session.pieces(texts()):
            record, name, last_field = pending[0]
            if piece.offset == 0 and name is None:
                writer.begin(record)
            elif piece.offset == 0:
                writer.begin_field(name)
            writer.add(piece.offset, piece.doc)
            kept += piece.doc._.kept_below_confidence or 0
            progress.update(len(piece.doc.text))
            if piece.last and last_field:
                writer.end()
            elif piece.last:
                writer.end_field()
            if piece.last:
                pending.popleft()
        if mapping is not None:  # before the output is kept: a failed write keeps neither
            save_mapping(mapping.mappings, args.mapping, key)
        ok = True
    finally:
        progress.close()
        out.close(ok)
    if args.submission:
        write_submission(submission, args.submission)
    if args.min_confidence > 0:  # what stayed in clear is said even with -q
        print(f"kept {kept} detected span(s) below --min-confidence {args.min_confidence} in clear", file=sys.stderr)
    if target is not None:
        srsly.write_json(target, {**manifest, "finished_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                                  "records": writer.records, "kept_below_min_confidence": kept})
    if skipped:
        shown = ", ".join(map(str, skipped[:20])) + (", ..." if len(skipped) > 20 else "")
        print(f"skipped {len(skipped)} bad record(s) of '{args.input}', line(s) {shown}", file=sys.stderr)
    return 0


class RecordWriter:
    """Writes the output of one record piece by piece: sanitized text as each piece comes
    (``text``), or one JSON line when the record's last piece is in (``jsonl``; only the
    strings and rows are kept, never the Docs). A JSONL record is written back whole with
    ``sanitized``, ``spans`` and ``replacements`` added; other inputs give ``id``, ``text``,
    those three and ``meta``."""

    def __init__(self, out: Output, output_format: str, newline: bool, submission: Optional[Dict[str, List[List[int]]]], mapping: Optional[MappingCollector] = None,
                 keep_original: bool = True, text_fields: Sequence[str] = ("text",), spans_key: str = "pii") -> None:
        # keep_original False (the CLI's default): the text fields hold the sanitized text and the
        # spans no original text, so the output can be shared (--keep-original: as read)
        self.keep_original = keep_original
        self.spans_key = spans_key
        self.text_fields = list(text_fields)
        self.out = out
        self.mapping = mapping
        self.jsonl = output_format != "text"
        self.newline = newline  # text to a terminal ends with a line break
        self.submission = submission
        self.record: Optional[Record] = None
        self.manifest: Optional[Dict[str, Any]] = None  # --manifest-in-records: each record's _sanitize
        self.records = 0

    def begin(self, record: Record) -> None:
        self.record = record
        self.field: Optional[str] = None
        self.fields: Dict[str, Dict[str, Any]] = {}
        self._begin()

    def begin_field(self, name: str) -> None:
        """A further ``--text-field`` of the record: its results go under ``fields``."""
        self.end_field()
        self.field = name
        self._begin()

    def end_field(self) -> None:
        if self.field is None and not self.fields:
            self.first = self._result()
        elif self.field is not None:
            self.fields[self.field] = self._result()

    def _result(self) -> Dict[str, Any]:
        return self.builder.finish().to_json()

    def _begin(self) -> None:
        self.builder = RecordBuilder(self.spans_key, with_text=self.keep_original)
        self.out_offset = 0
        self.last_char = ""

    def add(self, offset: int, doc: Any) -> None:
        if self.jsonl:
            rows = self.builder.add(offset, doc)
        else:  # text goes out as it comes: no record is built
            sanitized, rows = piece_output(doc, offset, self.out_offset)
            self.out_offset += len(sanitized)
            if sanitized:
                self.out.write(sanitized)
                self.last_char = sanitized[-1]
        if self.submission is not None and self.field is None:  # offsets of the record's text only
            assert self.record is not None
            self.submission.setdefault(self.record.id, []).extend([row[0], row[1]] for row in rows)
        if self.mapping is not None:
            self.mapping.add(doc, rows, offset)

    def end(self) -> None:
        record = self.record
        assert record is not None
        self.records += 1
        if self.submission is not None:
            self.submission.setdefault(record.id, [])
        if self.mapping is not None:
            self.mapping.end(record.id)
        if not self.jsonl:
            if self.newline and self.last_char not in ("", "\n"):
                self.out.write("\n")
            return
        if self.field is None:
            result = self._result()
        else:
            self.end_field()
            result = dict(self.first)
            result["fields"] = {name: value for name, value in self.fields.items()}
        if self.manifest is not None:
            result["_sanitize"] = self.manifest
        if record.source is not None:
            # a JSONL record is kept as it came, the results added: the row slots back into
            # the user's pipeline (an input field of the same name is replaced)
            line = {**record.source, **result}
            if not self.keep_original:
                line = set_field(line, self.text_fields[0], result["sanitized"])
                for name, value in result.get("fields", {}).items():
                    line = set_field(line, name, value["sanitized"])
        else:
            text = "".join(self.builder.text) if self.keep_original else result["sanitized"]
            line = {"id": record.id, "text": text, **result, **({"meta": record.meta} if record.meta else {})}
        self.out.write(srsly.json_dumps(line) + "\n")
        self.record = None


def check_output_paths(source: str, output: Optional[str], manifest: Optional[str], mapping: Optional[str],
                       submission: Optional[str] = None) -> None:
    """Refuse, before any work, outputs that would fail or overwrite each other at the end of a
    run: an output that is a directory; a mapping, manifest or submission written over another
    output or the input; a mapping in a missing or read-only folder (E046; -o over the input: E021)."""
    if output not in (None, "-") and Path(output).is_dir():
        raise InputError(Errors.E046.format(problem=f"-o '{output}' is a directory; name a file in it"))
    # each file a run writes, and the input (which -o may not replace either: Output's E021)
    files = [(mapping, "--mapping"), (submission, "--submission"), (manifest, "the manifest"), (output, "-o"), (source, "the input")]
    named = [(Path(path).resolve(), path, what) for path, what in files if path not in (None, "-")]
    for i, (target, path, what) in enumerate(named):
        if what in ("-o", "the input"):
            continue
        for other, _, other_what in named[i + 1:]:
            if other == target:
                raise InputError(Errors.E046.format(problem=f"{what} '{path}' is also {other_what}: one would replace the other"))
    if not mapping:
        return
    folder = Path(mapping).resolve().parent
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        raise InputError(Errors.E046.format(problem=f"--mapping '{mapping}': its folder '{folder}' does not exist or is not writable"))


def add_sanitize_subparser(sub: Any) -> None:
    sanitize = sub.add_parser("sanitize", help="sanitize a text file, a folder of .txt, JSONL or TAB JSON", description=(
        "Sanitize INPUT: a .txt file, a folder of .txt files, JSONL with a text field, a TAB JSON file, or - for stdin. "
        "Text input gives sanitized text; other inputs give JSONL records with the text, the sanitized text, the "
        "detected spans (type, entity id, risk scores, decision) and the replacements; a JSONL record is kept whole, "
        "these added as sanitized, spans and replacements."))
    sanitize.add_argument("input", help="input path, or - for stdin")
    sanitize.add_argument("-o", "--output", help="output file (default: stdout)")
    sanitize.add_argument("-p", "--pipeline", default="default", help="'default', a shipped config name, an installed pipeline package, a pipeline directory or a .cfg file")
    sanitize.add_argument("--format", choices=FORMATS, default="auto", help="input format (default: from the file name; on stdin JSONL when the first non-blank line is a JSON object, text otherwise)")
    sanitize.add_argument("--output-format", choices=("text", "jsonl", "parquet"), help="default: text for .txt/stdin, jsonl otherwise (--engine ray: the input's, jsonl or parquet)")
    sanitize.add_argument("--strategy", help="replacement strategy for every type: redact, typed, numbered, surrogate, generalize (short for spacy_sanitize.<name>.v1; see 'info'), or JSON with parameters")
    sanitize.add_argument("--operators", help="per-type strategies, e.g. 'PERSON=numbered,DATETIME=generalize,DEFAULT=redact' or JSON")
    sanitize.add_argument("--text-field", action="append", default=None, help=(
        "JSONL field with the text, a dotted path for nested objects, e.g. doc.body (default: text). Repeat it to "
        "sanitize several fields: the first gives sanitized/spans/replacements, each further one an entry of "
        "'fields' ({field: {sanitized, spans, replacements}}). Other fields are copied as they are (W020 names "
        "those that look like text)"))
    sanitize.add_argument("--protect-field", default=None, metavar="FIELD", help=(
        "JSONL field (dotted path, e.g. meta.applicant) naming the person to protect: the deciders "
        "of the risk pipelines (court, risk_seq...) keep every span sharing a part of that name masked"))
    sanitize.add_argument("--id-field", default="id", help="JSONL field with the record id, dotted like --text-field (default: id)")
    sanitize.add_argument("--skip-bad", action="store_true", help="skip and count malformed JSONL lines instead of stopping (--engine ray: records without the text field; without it such a record stops the run)")
    sanitize.add_argument("--keep-original", action="store_true",
                          help="JSONL output: keep the original text in the text field(s) and each span's 'text' (default: the "
                               "text fields hold the sanitized text and spans carry offsets, label, entity id and decision only, "
                               "so the output can be shared)")
    sanitize.add_argument("--submission", help="also write the masked offsets in TAB's submission format to this file")
    sanitize.add_argument("--batch-size", type=int, default=16, help="pieces per nlp.pipe batch (default 16; a batch also holds at most 100,000 characters)")
    sanitize.add_argument("--n-process", type=int, default=1, help="worker processes for the pipeline (default 1); the output keeps the input order")
    sanitize.add_argument("--max-chars", type=int, default=DEFAULT_CHUNK_CHARS, help="texts longer than this are processed in pieces cut at paragraph, sentence or whitespace boundaries, never inside a word (at least 1000)")
    sanitize.add_argument("--min-confidence", type=float, default=0.0, metavar="X", help=(
        "keep detected spans whose calibrated confidence (docs/confidence.md) is below X in clear and say how many; "
        "default 0: mask all. Labels of --confidence-protect stay masked; spans a decider decided keep its decision"))
    sanitize.add_argument("--confidence-protect", default=None, metavar="LABELS", help=(
        "comma-separated types --min-confidence never keeps in clear (default CODE,PERSON; '' for none)"))
    sanitize.add_argument("--manifest", default=None, metavar="PATH", help=(
        "write the run manifest (pipeline, config sha256, versions, time, options) here; default: OUTPUT.manifest.json "
        "next to an output file, none for stdout"))
    sanitize.add_argument("--manifest-in-records", action="store_true", help="also add the manifest to each JSONL record as _sanitize")
    sanitize.add_argument("--engine", choices=("local", "ray"), default="local", help=(
        "local (default): this process (--n-process workers); ray: Ray Data on a cluster or a local Ray instance, "
        "reading a JSONL/Parquet file, folder or glob and writing shards to the -o folder (needs the [ray] extra; docs/scale-out.md)"))
    sanitize.add_argument("--address", help="--engine ray: the cluster, 'auto' or ray://host:port (default: start a local Ray instance)")
    sanitize.add_argument("--num-workers", type=int, help="--engine ray: actors in the pool, each loading the pipeline once (default 1)")
    sanitize.add_argument("--on-error", choices=("mask", "raise"), help=(
        "--engine ray: a record that fails is masked entirely with its error type in an 'error' field (mask, the default) "
        "or stops the run naming its id (raise)"))
    sanitize.add_argument("--progress", action="store_true", help="show a progress bar even when stderr is not a terminal")
    sanitize.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    add_mapping_arguments(sanitize)
    add_verbose(sanitize)
    sanitize.set_defaults(func=cmd_sanitize)
