"""Sanitizing tables: a pandas DataFrame, an Arrow table or a Ray Dataset with a text column.

Each gets three columns, ``sanitized`` (str), ``spans`` (list of {start, end, label,
entity_id, risk, confidence, mask}) and ``replacements`` (list of {start, end, label, entity_id,
replacement, out_start, out_end}), the same values the CLI writes to JSONL, plus ``error``:
None, or why the record could not be sanitized. A failed record is never dropped: with
``on_error="mask"`` its whole text is replaced by ``failed_text`` and a warning counts it;
with ``on_error="raise"`` the run stops naming its id. ``spans`` carry no text: the span
text is the text column's slice, and a spans column shipped with the output must not
repeat what was masked.

Records are independent: each is one document (cut into pieces when long, as the CLI does),
so numbered placeholders count per record and the output does not depend on how records
are batched or spread over workers. Keyed surrogates agree across records and workers only
when every worker has the same secret (docs/scale-out.md). pandas, pyarrow and Ray are
imported only by the functions that need them (the ``[ray]`` extra).
"""
import re
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Union

from spacy.language import Language

from .errors import Errors, Warnings
from .masking_plan import reported_confidences
from .pipeline import DEFAULT_CHUNK_CHARS, check_max_chars, load_pipeline, merged_output, sanitize_texts

if TYPE_CHECKING:  # pragma: no cover
    import pandas
    import pyarrow
    import ray.data

ON_ERROR = ("mask", "raise")
FAILED_TEXT = "[REDACTED]"
OUTPUT_COLUMNS = ("sanitized", "spans", "replacements", "error")
_CODE = re.compile(r"^\[([EW]\d{3})\]")

Pipeline = Union[str, Path, Language]


class RecordSanitizer:
    """Loads a pipeline once and sanitizes batches of records; the callable Ray Data runs
    in each actor of the pool (``__call__`` takes and returns an Arrow table).

    pipeline (str, Path or Language): what ``load_pipeline`` takes, or a loaded pipeline.
    text_column (str): the column with the texts. id_column (Optional[str]): the column
        naming a record in errors (None or absent: its row number in the batch).
    strategy, operators (Optional[str]): as the CLI's ``--strategy`` and ``--operators``.
    overrides (Optional[dict]): config overrides for ``load_pipeline``.
    on_error (str): ``mask`` (the failed record's text becomes ``failed_text``, the error
        type goes to ``error``) or ``raise``.
    batch_size (int): pieces per ``nlp.pipe`` batch. max_chars (int): piece size.
    pooled (bool): this is one actor of a pool (``sanitize_dataset`` sets it): strategies
        whose state is per process (``numbered`` across documents, a surrogate key drawn
        without ``SPACY_SANITIZE_SECRET``) fail closed (E114/E115) instead of colliding.
    keep_original (bool): keep the text column as it came (False: it holds the sanitized text,
        so the table can be shared, as the CLI writes JSONL without --keep-original).
    """

    def __init__(
        self,
        pipeline: Pipeline = "default",
        *,
        text_column: str = "text",
        id_column: Optional[str] = "id",
        strategy: Optional[str] = None,
        operators: Optional[str] = None,
        overrides: Optional[Dict[str, Any]] = None,
        on_error: str = "mask",
        failed_text: str = FAILED_TEXT,
        batch_size: int = 16,
        max_chars: int = DEFAULT_CHUNK_CHARS,
        pooled: bool = False,
        keep_original: bool = True,
    ) -> None:
        check_options(on_error, batch_size, max_chars)
        self.keep_original = keep_original
        if pooled:
            # one actor of a pool: numbered across_docs and one-time keys would collide
            # between actors (and restart with a restarted actor), so they fail closed
            from .masker.strategies.keyed import mark_pooled_worker

            mark_pooled_worker()
        if isinstance(pipeline, Language):
            if strategy or operators or overrides:
                # a loaded pipeline's config cannot change: the settings would be ignored
                raise ValueError(Errors.E951)
            self.nlp = pipeline
        else:
            from .cli import masker_overrides

            self.nlp = load_pipeline(pipeline, {**masker_overrides(strategy, operators), **(overrides or {})})
        if "masker" not in self.nlp.pipe_names:
            raise ValueError(Errors.E014.format(pipeline=pipeline if not isinstance(pipeline, Language) else "given"))
        self.text_column = text_column
        self.id_column = id_column
        self.on_error = on_error
        self.failed_text = failed_text
        self.batch_size = batch_size
        self.max_chars = max_chars

    def sanitize(self, texts: Sequence[Any], ids: Optional[Sequence[Any]] = None) -> List[Dict[str, Any]]:
        """One result dict (the four output columns) per text, in order. The texts go
        through ``nlp.pipe`` together; when that fails, one by one, so only the records that
        fail on their own are masked (or raised)."""
        ids = list(ids) if ids is not None else list(range(len(texts)))
        results: List[Optional[Dict[str, Any]]] = [None] * len(texts)
        good = []
        for i, text in enumerate(texts):
            if isinstance(text, str):
                good.append(i)
            else:  # None, NaN, bytes...: checked here, so one bad row does not rerun the batch
                results[i] = self._failed(ids[i], TypeError(Errors.E010.format(doc_id=ids[i], type_name=type(text).__name__)))
        outputs: List[Any] = []
        try:
            for output in sanitize_texts(self.nlp, [texts[i] for i in good], self.batch_size, self.max_chars):
                outputs.append(output)
        except Exception:
            # the records finished before the failure are kept; the rest go one by one
            for i in good[len(outputs):]:
                try:
                    results[i] = record_result(*next(sanitize_texts(self.nlp, [texts[i]], self.batch_size, self.max_chars)))
                except Exception as err:
                    results[i] = self._failed(ids[i], err)
        for i, output in zip(good, outputs):
            results[i] = record_result(*output)
        failed = [ids[i] for i, result in enumerate(results) if result and result["error"]]
        if failed:
            shown = ", ".join(map(repr, failed[:10])) + (", ..." if len(failed) > 10 else "")
            warnings.warn(Warnings.W950.format(n=len(failed), total=len(texts), ids=shown, text=self.failed_text), stacklevel=2)
        return [r for r in results if r is not None]  # every slot is filled above

    def _failed(self, record_id: Any, err: Exception) -> Dict[str, Any]:
        kind = error_kind(err)
        if self.on_error == "raise":
            # not chained: the cause's message may quote the record's text, and a traceback
            # (or Ray, passing the chain to the driver) would print it
            raise RecordError(Errors.E952.format(id=record_id, kind=kind)) from None
        return {"sanitized": self.failed_text, "spans": [], "replacements": [], "error": kind}

    def __call__(self, batch: "pyarrow.Table") -> "pyarrow.Table":
        return self.sanitize_table(batch)

    def sanitize_table(self, table: "pyarrow.Table") -> "pyarrow.Table":
        if self.text_column not in table.column_names:
            raise ValueError(Errors.E953.format(column=self.text_column, columns=", ".join(table.column_names)))
        texts = table.column(self.text_column).to_pylist()
        ids = table.column(self.id_column).to_pylist() if self.id_column in table.column_names else None
        columns = arrow_columns(self.sanitize(texts, ids))
        if not self.keep_original:
            columns = {self.text_column: columns["sanitized"], **columns}
        return with_columns(table, columns)


class RecordError(RuntimeError):
    """A record could not be sanitized and ``on_error="raise"``."""


def check_options(on_error: str, batch_size: int, max_chars: int) -> None:
    if on_error not in ON_ERROR:
        raise ValueError(Errors.E950.format(value=on_error, options=", ".join(ON_ERROR)))
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(Errors.E954.format(n=batch_size))
    check_max_chars(max_chars)


def error_kind(err: Exception) -> str:
    """The exception's type and coded error (``TypeError [E010]``), never its message: a
    message may quote the record's text."""
    match = _CODE.match(str(err))
    return f"{type(err).__name__} [{match.group(1)}]" if match else type(err).__name__


def record_result(text: str, docs: List[Any], offsets: List[int]) -> Dict[str, Any]:
    """The output columns of one record from ``sanitize_texts``: what the CLI writes to JSONL
    (without the span text and the report's ``why``, which quotes it)."""
    sanitized, rows = merged_output(docs, offsets)
    spans = [
        {
            "start": span.start_char + offset,
            "end": span.end_char + offset,
            "label": span.label_,
            "entity_id": span._.entity_id,
            # 10 decimals, as the CLI's JSON writer (srsly) gives them: one record, whatever the engine
            "risk": {name: round(float(value), 10) for name, value in span._.risk.items()},
            "confidence": confidence,
            "mask": span._.mask,
        }
        for doc, offset in zip(docs, offsets)
        for group in [list(doc.spans.get("pii", []))]
        for span, confidence in zip(group, reported_confidences(group))
    ]
    replacements = [
        dict(zip(("start", "end", "label", "entity_id", "replacement", "out_start", "out_end"), row)) for row in rows
    ]
    return {"sanitized": sanitized, "spans": spans, "replacements": replacements, "error": None}


def output_schema() -> Dict[str, "pyarrow.DataType"]:
    """The Arrow types of the output columns (``risk`` is a map: its keys are the pipeline's
    risk components)."""
    import pyarrow as pa

    span = pa.struct([
        ("start", pa.int64()), ("end", pa.int64()), ("label", pa.string()), ("entity_id", pa.string()),
        ("risk", pa.map_(pa.string(), pa.float64())), ("confidence", pa.float64()), ("mask", pa.bool_()),
    ])
    replacement = pa.struct([
        ("start", pa.int64()), ("end", pa.int64()), ("label", pa.string()), ("entity_id", pa.string()),
        ("replacement", pa.string()), ("out_start", pa.int64()), ("out_end", pa.int64()),
    ])
    return {"sanitized": pa.string(), "spans": pa.list_(span), "replacements": pa.list_(replacement), "error": pa.string()}


def arrow_columns(results: List[Dict[str, Any]]) -> Dict[str, "pyarrow.Array"]:
    import pyarrow as pa

    return {name: pa.array([r[name] for r in results], type=kind) for name, kind in output_schema().items()}


def with_columns(table: "pyarrow.Table", columns: Dict[str, "pyarrow.Array"]) -> "pyarrow.Table":
    """``table`` with ``columns`` added; an input column of the same name is replaced (as
    the CLI does with a JSONL field)."""
    for name, values in columns.items():
        if name in table.column_names:
            table = table.set_column(table.column_names.index(name), name, values)
        else:
            table = table.append_column(name, values)
    return table


def sanitize_table(table: "pyarrow.Table", column: str = "text", pipeline: Pipeline = "default", **options: Any) -> "pyarrow.Table":
    """An Arrow table with the output columns added (``options``: ``RecordSanitizer``'s)."""
    return RecordSanitizer(pipeline, text_column=column, **options).sanitize_table(table)


def sanitize_dataframe(df: "pandas.DataFrame", column: str = "text", pipeline: Pipeline = "default", **options: Any) -> "pandas.DataFrame":
    """A copy of ``df`` with the output columns added, as Python objects (``spans`` and
    ``replacements`` hold lists of dicts). Records are named in errors by ``id_column``
    when given and present, else by their index label. Needs pandas only."""
    id_column = options.pop("id_column", None)
    if column not in df.columns:  # before the pipeline loads
        raise ValueError(Errors.E953.format(column=column, columns=", ".join(map(str, df.columns))))
    sanitizer = RecordSanitizer(pipeline, text_column=column, id_column=id_column, **options)
    ids = df[id_column].tolist() if id_column is not None and id_column in df.columns else df.index.tolist()
    results = sanitizer.sanitize(df[column].tolist(), ids)
    import pandas as pd

    out = df.copy()
    for name in OUTPUT_COLUMNS:
        # object columns: pandas would turn a None error into NaN and the lists into strings
        out[name] = pd.Series([r[name] for r in results], index=df.index, dtype=object)
    return out


def sanitize_dataset(
    ds: "ray.data.Dataset",
    pipeline: Union[str, Path] = "default",
    text_column: str = "text",
    *,
    num_workers: int = 1,
    batch_size: int = 16,
    num_cpus: float = 1,
    ray_remote_args: Optional[Dict[str, Any]] = None,
    **options: Any,
) -> "ray.data.Dataset":
    """A lazy Ray Dataset with the output columns added: ``map_batches`` over a pool of
    ``num_workers`` actors, each loading the pipeline once (``options``: ``RecordSanitizer``'s,
    e.g. ``strategy``, ``on_error``, ``id_column``). batch_size (int): records per batch,
    also the ``nlp.pipe`` batch. num_cpus (float): CPUs each actor holds; the pool holds
    ``num_workers * num_cpus``, so read ``ds`` with ``num_cpus=0`` (as the CLI does) or
    leave CPUs free for its read tasks, which otherwise wait forever. ray_remote_args: the
    actors' Ray options (Ray's defaults restart a killed actor and retry its batch without
    limit; ``{"max_task_retries": 3}`` stops a run whose record keeps killing its worker).
    The secret of keyed strategies is read by each worker from its own environment
    (docs/scale-out.md), never passed through Ray."""
    ray_data = import_ray_data()
    if isinstance(pipeline, Language):
        raise ValueError(Errors.E955)
    if not isinstance(num_workers, int) or num_workers < 1:
        raise ValueError(Errors.E956.format(n=num_workers))
    check_options(options.get("on_error", "mask"), batch_size, options.get("max_chars", DEFAULT_CHUNK_CHARS))
    return ds.map_batches(
        RecordSanitizer,
        batch_size=batch_size,
        batch_format="pyarrow",
        compute=ray_data.ActorPoolStrategy(size=num_workers),
        fn_constructor_args=(pipeline,),
        fn_constructor_kwargs={"text_column": text_column, "batch_size": batch_size, "pooled": True, **options},
        num_cpus=num_cpus,
        **(ray_remote_args or {}),
    )


def import_ray_data() -> Any:
    try:
        import ray.data
    except ImportError:
        raise ImportError(Errors.E957) from None
    return ray.data

