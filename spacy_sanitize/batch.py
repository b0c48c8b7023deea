"""Sanitizing tables: a pandas DataFrame, an Arrow table or a Ray Dataset with a text column.

Each gets three columns, ``sanitized`` (str), ``spans`` (list of {start, end, label, [text,]
entity_id, risk, confidence, mask, why}) and ``replacements`` (list of {start, end, label,
entity_id, replacement, out_start, out_end}), the CLI's JSONL values (one record type:
``run.records``; ``why`` as JSON text), plus ``error``: None, or why the record could not be
sanitized. A failed record is never dropped: with ``on_error="mask"`` its whole text is
replaced by ``failed_text`` and a warning counts it; with ``on_error="raise"`` the run stops
naming its id. ``keep_original=False`` makes the table shareable: the text column holds the
sanitized text and spans carry no ``text``.

Records are independent: each is one document (cut into pieces when long, as the CLI does),
so numbered placeholders count per record and the output does not depend on how records
are batched or spread over workers. Keyed surrogates agree across records and workers only
when every worker has the same secret (docs/scale-out.md). pandas, pyarrow and Ray are
imported only by the functions that need them (the ``[ray]`` extra).
"""
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Union

from spacy.language import Language

from .errors import Errors, Warnings
from .run.pieces import DEFAULT_CHUNK_CHARS
from .run.records import OUTPUT_COLUMNS, table_values, to_arrow
from .run.session import FAILED_TEXT, ON_ERROR, RecordError, Session, check_options, error_kind  # noqa: F401  (the batch API's names)

if TYPE_CHECKING:  # pragma: no cover
    import pandas
    import pyarrow
    import ray.data

Pipeline = Union[str, Path, Language]
MISSING_TEXT = ("mask", "skip", "fail")


class RecordSanitizer:
    """Loads a pipeline once (a ``run.Session``) and sanitizes batches of records; the
    callable Ray Data runs in each actor of the pool (``__call__`` takes and returns an
    Arrow table).

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
    keep_original (bool): keep the text column as it came, and each span's text (False: the
        text column holds the sanitized text and spans no text, so the table can be shared,
        as the CLI writes JSONL without --keep-original).
    missing_text (str): a record without a text (the field missing, null or not a string):
        ``mask`` (a failed record, as ``on_error`` says), ``skip`` (left out of the output,
        a warning counts them) or ``fail`` (RecordError naming it: the CLI's Ray engine
        without --skip-bad).
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
        missing_text: str = "mask",
    ) -> None:
        check_options(on_error, batch_size, max_chars)
        if missing_text not in MISSING_TEXT:
            raise ValueError(Errors.E961.format(value=missing_text, options=", ".join(MISSING_TEXT)))
        self.missing_text = missing_text
        self.keep_original = keep_original
        if pooled:
            # one actor of a pool: numbered across_docs and one-time keys would collide
            # between actors (and restart with a restarted actor), so they fail closed
            from .masker.strategies.keyed import mark_pooled_worker

            mark_pooled_worker()
        self.session = Session(pipeline, overrides, strategy=strategy, operators=operators, batch_size=batch_size, max_chars=max_chars,
                               on_error=on_error, failed_text=failed_text)
        self.nlp = self.session.nlp
        self.text_column = text_column
        self.id_column = id_column
        self.failed_text = failed_text

    def sanitize(self, texts: Sequence[Any], ids: Optional[Sequence[Any]] = None) -> List[Dict[str, Any]]:
        """One result dict (the four output columns, as table cells) per text, in order;
        a record that fails on its own is masked whole or raised (``Session.sanitize``)."""
        records = self.session.sanitize(texts, ids, with_text=self.keep_original)
        return [table_values(record) for record in records]

    def __call__(self, batch: "pyarrow.Table") -> "pyarrow.Table":
        return self.sanitize_table(batch)

    def sanitize_table(self, table: "pyarrow.Table") -> "pyarrow.Table":
        if self.text_column not in table.column_names:
            raise ValueError(Errors.E953.format(column=self.text_column, columns=", ".join(table.column_names)))
        texts = table.column(self.text_column).to_pylist()
        ids = table.column(self.id_column).to_pylist() if self.id_column in table.column_names else list(range(len(texts)))
        missing = [i for i, text in enumerate(texts) if not isinstance(text, str)]
        if missing and self.missing_text == "fail":
            raise RecordError(Errors.E960.format(id=ids[missing[0]], column=self.text_column))
        if missing and self.missing_text == "skip":
            import pyarrow as pa

            shown = ", ".join(repr(ids[i]) for i in missing[:10]) + (", ..." if len(missing) > 10 else "")
            warnings.warn(Warnings.W951.format(n=len(missing), total=len(texts), column=self.text_column, ids=shown), stacklevel=2)
            keep = [isinstance(text, str) for text in texts]
            table = table.filter(pa.array(keep))
            texts = [t for t, k in zip(texts, keep) if k]
            ids = [i for i, k in zip(ids, keep) if k]
        columns = to_arrow(self.session.sanitize(texts, ids, with_text=self.keep_original), self.keep_original)
        if not self.keep_original:
            columns = {self.text_column: columns["sanitized"], **columns}
        return with_columns(table, columns)


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

