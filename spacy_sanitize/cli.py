"""Command line: ``python -m spacy_sanitize {sanitize,restore,evaluate,info}`` (also ``spacy-sanitize``).

Exit codes: 0 success, 1 processing error, 2 bad usage or bad input.
"""
import argparse
import collections
import datetime
import importlib.metadata
import json
import logging
import os
import signal
import sys
import warnings
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import srsly
from tqdm import tqdm

from .corpus.tab import TabFormatError, load_tab, read_submission, write_submission
from .decide.protect import protect_from_record
from .errors import Errors, Warnings
from .io import FORMATS, InputError, Output, Record, TextChunks, open_input, read_records, set_field, unsanitized_text_fields
from .manifest import manifest_path, run_manifest
from .types import PII_TYPES
from .report.why import Replaced, span_why
from .risk.base import is_decider
from .masking_plan import reported_confidences
from .pipeline import DEFAULT_CHUNK_CHARS, check_max_chars, load_pipeline, sanitize_pieces, sanitize_texts, shift_rows, shipped_configs
from .masker.restore import MappingCollector, save_mapping
from .restore_cli import add_mapping_arguments, add_restore_subparser, mapping_key



def masker_overrides(strategy: Optional[str], operators: Optional[str]) -> Dict[str, Any]:
    """Config overrides for the masker from ``--strategy`` and ``--operators``: whole
    ``[components.masker.strategy]``/``operators`` blocks, ``{"@strategies": ..., **params}``."""
    if not strategy and not operators:
        return {}
    from .masker.options import build_operators

    try:
        strategy_cfg, operators_cfg = build_operators(strategy or "spacy_sanitize.typed.v1", operators, strategy_given=bool(strategy))
    except ValueError as err:
        raise InputError(str(err)) from None  # a bad --strategy/--operators is bad usage (exit 2)
    overrides: Dict[str, Any] = {"components.masker.strategy": strategy_cfg}
    if operators_cfg:
        overrides["components.masker.operators"] = operators_cfg
    return overrides


def confidence_overrides(args: argparse.Namespace) -> Dict[str, Any]:
    """Masker overrides from ``--min-confidence`` and ``--confidence-protect`` (only those
    given: a pipeline saved before these settings loads as it is without them)."""
    overrides: Dict[str, Any] = {}
    value = args.min_confidence
    if not 0.0 <= value <= 1.0:
        raise InputError(Errors.E042.format(value=value))
    if value > 0:
        overrides["components.masker.min_confidence"] = value
    if args.confidence_protect is not None:
        labels = [label.strip() for label in args.confidence_protect.split(",") if label.strip()]
        unknown = [label for label in labels if label not in PII_TYPES]
        if unknown:
            raise InputError(Errors.E001.format(label=unknown[0], labels=", ".join(PII_TYPES)))
        overrides["components.masker.confidence_protect"] = labels
    return overrides


RUN_OPTIONS = ("format", "output_format", "strategy", "operators", "text_field", "id_field", "protect_field", "max_chars", "min_confidence", "confidence_protect", "n_process")


def run_options(args: argparse.Namespace) -> Dict[str, Any]:
    """The options of the run for the manifest (settings, not the input and output paths)."""
    return {name: getattr(args, name, None) for name in RUN_OPTIONS}


def span_records(docs: Sequence[Any], offsets: Sequence[int], with_text: bool = True) -> List[Dict[str, Any]]:
    """One row per detected span (offsets in the whole text); ``with_text``: with the span's
    original text (``--keep-original``; the review report needs it)."""
    rows = []
    for doc, offset in zip(docs, offsets):
        replaced = Replaced(doc._.replacements or [])
        spans = list(doc.spans.get("pii", []))
        for span, confidence in zip(spans, reported_confidences(spans)):
            row = {
                "start": span.start_char + offset,
                "end": span.end_char + offset,
                "label": span.label_,
                "text": span.text,
                "entity_id": span._.entity_id,
                "risk": dict(span._.risk),
                "confidence": confidence,
                "mask": span._.mask,
                "why": span_why(span, replaced),  # the report's tooltip (report/why.py); no original text
            }
            if not with_text:
                del row["text"]
            rows.append(row)
    return rows


def cmd_sanitize(args: argparse.Namespace) -> int:
    if args.engine == "ray":
        from .ray_engine import run

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
    check_output_paths(args.input, args.output, manifest_path(args.output, args.manifest), args.mapping)
    mapping = MappingCollector() if args.mapping else None
    # the input is checked before the pipeline loads and any output opens (stdin: its
    # format from its first line, read ahead)
    skipped: List[int] = []
    text_fields: List[str] = args.text_field or ["text"]
    source = open_input(args.input, args.format)
    records = read_records(source, text_field=text_fields, id_field=args.id_field, skip_bad=args.skip_bad, skipped=skipped, stream_text=True)
    started = datetime.datetime.now(datetime.timezone.utc)
    nlp = load_pipeline(args.pipeline, {**masker_overrides(args.strategy, args.operators), **confidence_overrides(args)})
    if "masker" not in nlp.pipe_names:
        raise InputError(Errors.E014.format(pipeline=args.pipeline))
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
                          keep_original=args.keep_original, text_fields=text_fields)
    writer.manifest = manifest if args.manifest_in_records else None
    try:
        pieces = sanitize_pieces(nlp, texts(), batch_size=args.batch_size, max_chars=args.max_chars, n_process=args.n_process)
        for piece in pieces:
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


def check_output_paths(source: str, output: Optional[str], manifest: Optional[str], mapping: Optional[str]) -> None:
    """Refuse, before any work, outputs that would fail or overwrite each other at the end of a
    run: an output that is a directory, a mapping written over the output, the manifest or the
    input, a mapping in a missing or read-only folder (E046; the input itself: E021)."""
    if output not in (None, "-") and Path(output).is_dir():
        raise InputError(Errors.E046.format(problem=f"-o '{output}' is a directory; name a file in it"))
    if not mapping:
        return
    target = Path(mapping).resolve()
    for other, what in ((output, "-o"), (manifest, "the manifest"), (source, "the input")):
        if other not in (None, "-") and Path(other).resolve() == target:
            raise InputError(Errors.E046.format(problem=f"--mapping '{mapping}' is also {what}: one would replace the other"))
    folder = target.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        raise InputError(Errors.E046.format(problem=f"--mapping '{mapping}': its folder '{folder}' does not exist or is not writable"))


class RecordWriter:
    """Writes the output of one record piece by piece: sanitized text as each piece comes
    (``text``), or one JSON line when the record's last piece is in (``jsonl``; only the
    strings and rows are kept, never the Docs). A JSONL record is written back whole with
    ``sanitized``, ``spans`` and ``replacements`` added; other inputs give ``id``, ``text``,
    those three and ``meta``."""

    def __init__(self, out: Output, output_format: str, newline: bool, submission: Optional[Dict[str, List[List[int]]]], mapping: Optional[MappingCollector] = None,
                 keep_original: bool = True, text_fields: Sequence[str] = ("text",)) -> None:
        # keep_original False (the CLI's default): the text fields hold the sanitized text and the
        # spans no original text, so the output can be shared (--keep-original: as read)
        self.keep_original = keep_original
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
        return {"sanitized": "".join(self.sanitized), "spans": self.spans, "replacements": self.rows}

    def _begin(self) -> None:
        self.text: List[str] = []
        self.sanitized: List[str] = []
        self.spans: List[Dict[str, Any]] = []
        self.rows: List[List[Any]] = []
        self.out_offset = 0
        self.last_char = ""

    def add(self, offset: int, doc: Any) -> None:
        sanitized = doc._.sanitized if doc._.sanitized is not None else doc.text
        rows = shift_rows(doc._.replacements or [], offset, self.out_offset)
        self.out_offset += len(sanitized)
        if self.submission is not None and self.field is None:  # offsets of the record's text only
            assert self.record is not None
            self.submission.setdefault(self.record.id, []).extend([row[0], row[1]] for row in rows)
        if self.mapping is not None:
            self.mapping.add(doc, rows, offset)
        if self.jsonl:
            self.text.append(doc.text)
            self.sanitized.append(sanitized)
            self.spans += span_records([doc], [offset], with_text=self.keep_original)
            self.rows += rows
        elif sanitized:
            self.out.write(sanitized)
            self.last_char = sanitized[-1]

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
            text = "".join(self.text) if self.keep_original else result["sanitized"]
            line = {"id": record.id, "text": text, **result, **({"meta": record.meta} if record.meta else {})}
        self.out.write(srsly.json_dumps(line) + "\n")
        self.record = None


def cmd_evaluate(args: argparse.Namespace) -> int:
    from .evaluation import Tokens, detection_scores, predicted_mask_offsets, tab_scores
    from .evaluation.provenance import warn_if_in_sample
    from .evaluation.report import check_prediction_ids, format_table, with_undefined

    gold = load_tab(args.gold, lenient=args.lenient)
    detections: Dict[str, List[List[Any]]] = {}
    if args.predictions:
        predictions = read_submission(args.predictions)
        check_prediction_ids(gold, predictions, args.predictions)
    else:
        nlp = load_pipeline(args.pipeline)
        texts = [document.text for document in gold]
        warn_if_in_sample(nlp.config, texts)
        predictions = {}
        # Advanced by hand: a tqdm wrapping the generator inside zip() stops one short (69/70).
        progress = tqdm(total=len(gold), desc="evaluating", disable=args.quiet, file=sys.stderr)
        for document, (_, docs, offsets) in zip(gold, sanitize_texts(nlp, texts)):
            predictions[document.doc_id] = [[s + o, e + o] for doc, o in zip(docs, offsets) for s, e in predicted_mask_offsets(doc)]
            detections[document.doc_id] = [
                [span.start_char + o, span.end_char + o, span.label_] for doc, o in zip(docs, offsets) for span in doc.spans.get("pii", [])
            ]
            progress.update(1)
        progress.close()
    tokens = Tokens()
    result: Dict[str, Any] = {"masking": tab_scores(gold, predictions, tokens=tokens, token_weighting=token_weighting(args.weighting)).as_dict()}
    result["masking"]["weighting"] = args.weighting
    if detections:
        result["detection"] = with_undefined(detection_scores(gold, detections, tokens=tokens).as_dict())
    print(format_table(result))
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(args.output, result)
    return 0


def token_weighting(name: str) -> Any:
    """The token weighting of P_w: ``uniform``, ``frequency`` (information content from word
    frequencies, no torch), ``mlm`` (the shipped domain masked LM) or a masked-LM name/path."""
    from .evaluation import uniform_weighting

    if name == "uniform":
        return uniform_weighting
    from .lm.weighting import lm_token_weighting

    if name == "frequency":
        from .lm.frequency import make_frequency_scorer

        return lm_token_weighting(make_frequency_scorer())
    from .lm.hf import make_hf_scorer

    return lm_token_weighting(make_hf_scorer(model=None if name == "mlm" else name))


def cmd_info(args: argparse.Namespace) -> int:
    from spacy.util import registry

    from .registry import strategies

    # every factory the package declares (entry points), not only those imported so far
    declared = {ep.name for ep in importlib.metadata.entry_points(group="spacy_factories") if ep.value.startswith("spacy_sanitize.")}
    factories = sorted(declared | {name for name in registry.factories.get_all() if name.startswith(("pii_", "risk_", "masker"))})
    print(json.dumps({"pipelines": shipped_configs(), "factories": factories, "strategies": sorted(strategies.get_all())}, indent=2))
    return 0


def package_version() -> str:
    try:
        return importlib.metadata.version("spacy-sanitize")
    except importlib.metadata.PackageNotFoundError:  # a checkout on the path, not installed
        return "unknown (not installed)"


def add_verbose(parser: argparse.ArgumentParser) -> None:
    """-v after the subcommand too (``sanitize f.txt -v``); SUPPRESS keeps a -v given before it."""
    parser.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help="log progress and warnings")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="spacy-sanitize", description="Detect, score and mask personal identifiers in text.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress and warnings")
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

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
    sanitize.add_argument("--skip-bad", action="store_true", help="skip and count malformed JSONL lines instead of stopping")
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

    evaluate = sub.add_parser("evaluate", help="TAB metrics of a pipeline or a predictions file against gold TAB JSON", description=(
        "Compute the TAB metrics (P, P_w, R_all, F1, R_ent, R_direct, R_quasi, per-type recall) of masked spans "
        "against gold TAB JSON, from a predictions file in TAB's submission format or by running a pipeline "
        "(which also reports token-level detection P/R/F1 per type). A ratio without support prints '-' (null in JSON); "
        "a warning says when the pipeline's shipped models were trained on the gold documents (in-sample figures)."))
    evaluate.add_argument("gold", help="gold TAB JSON file")
    source = evaluate.add_mutually_exclusive_group()
    source.add_argument("--predictions", help="TAB submission JSON: {doc_id: [[start, end], ...]}")
    source.add_argument("-p", "--pipeline", default="default", help="pipeline to run (default: default)")
    evaluate.add_argument("-o", "--output", help="write the scores as JSON here")
    evaluate.add_argument("--lenient", action="store_true", help="skip malformed gold mentions with a warning")
    evaluate.add_argument("--weighting", default="uniform", help="token weights of P_w: uniform (default), frequency, mlm (shipped masked LM, needs torch) or a masked-LM name/path")
    evaluate.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    add_verbose(evaluate)
    evaluate.set_defaults(func=cmd_evaluate)

    from .training.attack_cli import add_attack_subparser

    add_attack_subparser(sub)

    from .training.commands import add_tool_subparsers

    add_tool_subparsers(sub)

    from .serve import add_serve_subparser

    add_serve_subparser(sub)
    add_restore_subparser(sub)

    from .report.cli import add_report_subparser

    add_report_subparser(sub)

    info = sub.add_parser("info", help="list shipped pipelines, registered factories and strategies")
    add_verbose(info)
    info.set_defaults(func=cmd_info)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    # spaCy's logger has a handler of its own: with ours each line printed twice (-v)
    for handler in list(logging.getLogger("spacy").handlers):
        logging.getLogger("spacy").removeHandler(handler)
    # a warning reads "warning: [W040] ...", without this package's source path and code line
    formatwarning = warnings.formatwarning
    warnings.formatwarning = _format_warning
    # SIGTERM unwinds like Ctrl-C, so the output's temporary file is removed on the way out
    previous = _on_sigterm(_terminate)
    try:
        return args.func(args)
    except (InputError, TabFormatError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except (OSError, ValueError, TypeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, Terminated) as err:
        signum = err.signum if isinstance(err, Terminated) else signal.SIGINT
        output = getattr(args, "output", None)
        what = (f"'{output}' was not written (a file already there is kept as it was), nor the mapping or manifest"
                if output not in (None, "-") else "the output printed so far is incomplete")
        print(f"interrupted ({signal.Signals(signum).name}): {what}; run the command again to sanitize the input from its start.", file=sys.stderr)
        return 128 + signum
    finally:
        _on_sigterm(previous)
        warnings.formatwarning = formatwarning


def _format_warning(message: Any, category: Any, filename: str, lineno: int, line: Optional[str] = None) -> str:
    return f"warning: {message}\n"


class Terminated(Exception):
    """SIGTERM, raised where the process is, so ``finally`` blocks clean up."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminate(signum: int, _frame: Any) -> None:
    raise Terminated(signum)


def _on_sigterm(handler: Any) -> Any:
    """Install ``handler`` for SIGTERM; the previous one (None off the main thread: unchanged)."""
    if handler is None:
        return None
    try:
        return signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        return None




