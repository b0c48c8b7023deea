"""``spacy-sanitize sanitize --engine ray``: JSONL or Parquet files (a file, a folder or a
glob) sanitized on a Ray cluster (``--address``) or a local Ray instance, written as shards
(JSONL or Parquet) to the output folder. Each record gets the columns of
``spacy_sanitize.batch``; the record's own fields are kept."""
import argparse
import glob
import json
import math
import re
from functools import partial
from pathlib import Path
from typing import Any, List, Tuple

from ..batch import check_options, import_ray_data, sanitize_dataset
from ..errors import Errors
from ..io import InputError

_RECORD_ERROR = re.compile(r"\[E9(?:52|60)\][^\n]*")
SUFFIXES = {".jsonl": "jsonl", ".json": "jsonl", ".parquet": "parquet"}
# options of the local engine that the Ray engine does not implement: refused, not ignored
LOCAL_ONLY = (
    ("protect_field", None, "--protect-field"), ("submission", None, "--submission"),
    ("n_process", 1, "--n-process"), ("mapping", None, "--mapping"), ("min_confidence", 0.0, "--min-confidence"),
    ("confidence_protect", None, "--confidence-protect"), ("manifest", None, "--manifest"),
    ("manifest_in_records", False, "--manifest-in-records"),
)


def input_files(source: str) -> Tuple[List[str], str]:
    """The input files (a file, the JSONL/Parquet files of a folder, or a glob) and their
    format. A URI (``s3://bucket/in/``) is passed to Ray as it is: a file when it ends in
    .jsonl or .parquet, else a folder of Parquet files."""
    if "://" in source:
        return [source], SUFFIXES.get(Path(source.rstrip("/")).suffix, "parquet")
    if any(c in source for c in "*?["):
        paths = sorted(glob.glob(source))
    elif Path(source).is_dir():
        paths = sorted(str(p) for p in Path(source).iterdir() if p.suffix in SUFFIXES)
    else:
        paths = [source] if Path(source).is_file() else []
    if not paths:
        raise InputError(Errors.E959.format(problem=f"no JSONL or Parquet file at '{source}'"))
    formats = {SUFFIXES.get(Path(p).suffix) for p in paths}
    if len(formats) != 1 or None in formats:
        raise InputError(Errors.E959.format(problem=f"'{source}' must hold .jsonl or .parquet files of one format (found {', '.join(sorted(Path(p).name for p in paths[:5]))})"))
    return paths, formats.pop()


def text_field(args: argparse.Namespace) -> str:
    """The one text field (``--text-field`` may be repeated for the local engine)."""
    return (args.text_field or ["text"])[0]


def check_args(args: argparse.Namespace) -> None:
    for name, default, flag in LOCAL_ONLY:
        if getattr(args, name) != default:
            raise InputError(Errors.E959.format(problem=f"{flag} is not supported with --engine ray"))
    if args.output in (None, "-") or args.input == "-":
        raise InputError(Errors.E959.format(problem="give an input path and an output folder (-o OUTDIR); standard input and output are not supported"))
    if args.text_field and len(args.text_field) > 1:
        raise InputError(Errors.E959.format(problem="several --text-field are not supported; give one"))
    if "." in text_field(args) or "." in args.id_field:
        raise InputError(Errors.E959.format(problem="dotted --text-field/--id-field paths are not supported; give top-level fields"))
    if args.output_format == "text":
        raise InputError(Errors.E959.format(problem="--output-format text is not supported; give jsonl or parquet"))
    if args.num_workers is not None and args.num_workers < 1:
        raise InputError(Errors.E956.format(n=args.num_workers))
    try:
        check_options(args.on_error or "mask", args.batch_size, args.max_chars)
    except ValueError as err:
        raise InputError(str(err)) from None  # bad usage (exit 2), before Ray starts
    out = Path(args.output)
    if "://" not in args.output and out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(Errors.E959.format(problem=f"the output folder '{out}' exists and is not empty: shards would mix with its files"))


def run(args: argparse.Namespace) -> int:
    check_args(args)
    paths, input_format = input_files(args.input)
    ray_data = import_ray_data()
    import ray

    started = not ray.is_initialized()
    if started:
        # no address: a local instance; its workers inherit this process's environment
        ray.init(address=args.address, include_dashboard=False, log_to_driver=True)
    try:
        ray_data.DataContext.get_current().enable_progress_bars = not args.quiet
        # reading and writing take no CPU of their own: with as many actors as CPUs, a read
        # or write task that waits for one never runs (the pool holds them all)
        io_args = {"num_cpus": 0}
        read = ray_data.read_parquet if input_format == "parquet" else partial(ray_data.read_json, lines=True)
        ds = read(paths, **io_args)
        out = sanitize_dataset(
            ds, args.pipeline, text_field(args), id_column=args.id_field, num_workers=args.num_workers or 1,
            batch_size=args.batch_size, strategy=args.strategy, operators=args.operators, on_error=args.on_error or "mask",
            max_chars=args.max_chars, keep_original=args.keep_original,
            # a record without its text field stops the run, or is skipped with --skip-bad
            missing_text="skip" if args.skip_bad else "fail",
        )
        try:
            if (args.output_format or input_format) == "parquet":
                out.write_parquet(args.output, ray_remote_args=io_args)
            else:
                out.write_datasink(jsonl_sink(args.output), ray_remote_args=io_args)
        except Exception as err:  # noqa: BLE001  (Ray wraps a worker's error in its own types)
            # a record the run stopped on (E952 on_error=raise, E960 no text): the catalogue's
            # message, not Ray's traceback of the worker
            found = _RECORD_ERROR.search(str(err))
            if found is None:
                raise
            raise InputError(found.group(0)) from None
    finally:
        if started:
            ray.shutdown()
    return 0  # Ray Data logged the rows written


def jsonl_sink(path: str) -> Any:
    """Shards of JSON lines written as the local engine writes them (``risk`` and each
    span's ``why`` objects: a table holds ``why`` as JSON text)."""
    from ray.data.datasource import BlockBasedFileDatasink

    class JsonlSink(BlockBasedFileDatasink):
        def write_block_to_file(self, block: Any, file: Any) -> None:
            rows = block.to_arrow().to_pylist(maps_as_pydicts="strict")
            for row in rows:
                for span in row.get("spans") or []:
                    if isinstance(span.get("why"), str):
                        span["why"] = json.loads(span["why"])
            file.write("".join(json.dumps(json_safe(row), ensure_ascii=False, allow_nan=False) + "\n" for row in rows).encode("utf-8"))

    return JsonlSink(path, file_format="jsonl")


def json_safe(value: Any) -> Any:
    """``value`` with float NaN and infinities (a field only some records have, read through
    pandas) as null: JSON has no NaN, and a bare ``NaN`` makes the line unreadable."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    return value
